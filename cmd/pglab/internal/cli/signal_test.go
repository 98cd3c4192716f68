package cli_test

// SIGINT and SIGTERM to pglab during each long step: bench -T, bench -i, a
// study and compare (TestSignalStudyRestoresSettings covers SIGINT during
// a study on a named instance and a throwaway one; these add the others).

import (
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

var signals = []struct {
	name string
	sig  syscall.Signal
	code int
}{{"SIGINT", syscall.SIGINT, 130}, {"SIGTERM", syscall.SIGTERM, 143}}

// checkInterrupted asserts the common shape of an interrupted run: the
// exit code, the closing line naming the signal, no other error line, no
// stack trace.
func checkInterrupted(t *testing.T, p *proc, name string, code int) {
	t.Helper()
	got, took := p.exit(60 * time.Second)
	t.Logf("exit %d %v after %s", got, took, name)
	stderr := p.stderr.String()
	if got != code {
		t.Errorf("exit code %d, want %d; stderr:\n%s", got, code, stderr)
	}
	if !strings.HasSuffix(stderr, "pglab: interrupted by "+name+"\n") {
		t.Errorf("stderr does not end with the interruption; stderr:\n%s", stderr)
	}
	if strings.Contains(stderr, "exit status") || strings.Contains(stderr, "context canceled") {
		t.Errorf("meaningless error line; stderr:\n%s", stderr)
	}
	assertOneErrorLine(t, stderr)
}

// TestSignalInterruptBench interrupts `pglab bench -T` and `pglab bench -i` on a
// named instance: exit 130/143, the summary of the transactions run so far
// printed, the server (the user's) left running and usable.
func TestSignalInterruptBench(t *testing.T) {
	e := newFaultEnv(t)
	dsn := startInstance(t, "ib")
	for _, s := range signals {
		t.Run("init/"+s.name, func(t *testing.T) {
			p := startPglab(t, e.vars(), "bench", "-i", "-s", "20", "--target", "ib")
			p.waitStderr(`tuples \(\d+%\) of pgbench_accounts done`, 60*time.Second)
			p.cmd.Process.Signal(s.sig)
			checkInterrupted(t, p, s.name, s.code)
		})
		t.Run("run/"+s.name, func(t *testing.T) {
			if r := run(t, "bench", "-i", "-s", "1", "-q", "--target", "ib"); r.code != 0 {
				t.Fatalf("bench -i: %s", r.stderr)
			}
			p := startPglab(t, e.vars(), "bench", "-T", "120", "-c", "4", "-j", "2", "-P", "1", "--target", "ib")
			p.waitStderr(`progress: 1\.0 s`, 30*time.Second)
			p.cmd.Process.Signal(s.sig)
			checkInterrupted(t, p, s.name, s.code)
			m := regexp.MustCompile(`number of transactions actually processed: (\d+)`).FindStringSubmatch(p.stdout.String())
			if m == nil || m[1] == "0" {
				t.Errorf("no summary of the transactions run before %s; stdout:\n%s", s.name, p.stdout.String())
			}
		})
	}
	conn := pgtest.Connect(t, dsn)
	if n := pgtest.QueryString(t, conn, "SELECT count(*)::text FROM pgbench_branches"); n != "1" {
		t.Errorf("pgbench_branches has %s rows after the runs, want 1", n)
	}
	assertNoProcesses(t, e.tmp)
}

// TestSignalInterruptStudyAndCompare sends SIGTERM to a study and SIGINT and
// SIGTERM to compare, each on throwaway managed servers: exit 143/130, the
// run stored as interrupted with the measurements made, the servers
// stopped and removed.
func TestSignalInterruptStudyAndCompare(t *testing.T) {
	e := newFaultEnv(t)
	v := pgtest.DefaultVersion()
	commit := []string{"--param", "updates=3000", "--param", "rows=3000"}
	cases := []struct {
		name string
		args []string
		sig  int // index in signals
	}{
		{"study/SIGTERM", append([]string{"study", "commit", "--versions", v}, commit...), 1},
		{"compare/SIGINT", []string{"compare", "--versions", v, "--studies", "commit", "--param", "commit.updates=3000", "--param", "commit.rows=3000"}, 0},
		{"compare/SIGTERM", []string{"compare", "--versions", v, "--studies", "commit", "--param", "commit.updates=3000", "--param", "commit.rows=3000"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			store := filepath.Join(dir, "r.db")
			args := append(append([]string{}, c.args...), "--store", store)
			if strings.HasPrefix(c.name, "compare") {
				args = append(args, "--out", filepath.Join(dir, "report"))
			}
			p := startPglab(t, e.vars(), args...)
			waitForMeasurements(t, store, 5, 120*time.Second)
			s := signals[c.sig]
			p.cmd.Process.Signal(s.sig)
			checkInterrupted(t, p, s.name, s.code)
			rec, ms := storedRun(t, store)
			if rec.Status != results.StatusInterrupted {
				t.Errorf("stored status %q, want interrupted", rec.Status)
			}
			if len(ms) < 5 {
				t.Errorf("%d measurements kept, want those made before %s", len(ms), s.name)
			}
			assertNoProcesses(t, e.tmp)
		})
	}
}
