package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

func TestEnvBadInput(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	dir := t.TempDir()
	badFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(badFile, []byte("prod:\n  cpus: lots\n"), 0o644)
	store := filepath.Join(dir, "r.db")
	v := pgtest.DefaultVersion()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"study", "seqscan", "--versions", v, "--env", "x:cpu=2"}, `--env "x:cpu=2": unknown key "cpu"; did you mean cpus?`},
		{[]string{"study", "seqscan", "--versions", v, "--env", "x:memory=-1GiB"}, `--env "x:memory=-1GiB": memory=-1GiB: must be more than 0`},
		{[]string{"study", "seqscan", "--versions", v, "--env", "x:read=87"}, `read=87: no unit: write e.g. 87MB/s`},
		{[]string{"study", "seqscan", "--versions", v, "--env", "t3.mikro"}, `no profile "t3.mikro"; did you mean t3.micro?`},
		{[]string{"study", "seqscan", "--versions", v, "--env", "far:rtt=-1ms"}, `rtt=-1ms`},
		{[]string{"study", "commit", "--versions", v, "--env", "far:replica_rtt=1ms"}, "replica_rtt=1ms needs a standby"},
		{[]string{"study", "commit", "--versions", v, "--env", "far:fsync=maybe"}, "fsync=maybe"},
		{[]string{"compare", "--versions", v, "--env", "t3.micro", "--env", "t3.micro"}, "--env t3.micro is given twice"},
		{[]string{"compare", "--target", "a=postgres://u@h/db", "--env", "t3.micro"}, "--env applies to servers pglab starts"},
		{[]string{"compare", "--versions", v, "--env", "prod", "--env-file", badFile}, badFile + ":2:9: prod: cpus=lots: not a number"},
		{[]string{"compare", "--versions", v, "--env-file", badFile}, "--env-file without --env"},
		{[]string{"pg", "start", "--versions", v, "--env", "a:cpus=1", "--env", "b:cpus=2"}, "one --env per server"},
		{[]string{"pg", "start", "--versions", v, "--env", "x:replica=sync"}, "--env x: replica=sync: a delay proxy and a standby live as long as a run"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := c.args
			if args[0] != "pg" {
				args = append(args, "--store", store)
			}
			r := run(t, args...)
			assertUsageError(t, r, c.want)
			if _, err := os.Stat(store); err == nil {
				t.Errorf("bad input wrote the store")
			}
		})
	}
	if left := env.Owned(env.Detect(), os.Getpid()); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// TestStudyUnderEnvironment runs the seqscan study under a read limit:
// the JSON names the profile and its limits, every measured step carries
// the cgroup's counters, the cold scan is held to the limit (give or take
// blk-throttle's bursts), and nothing is left behind.
func TestStudyUnderEnvironment(t *testing.T) {
	t.Setenv("PGLAB_TMPDIR", pgtest.TempDir(t))
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, "--quiet", "study", "seqscan", "--versions", pgtest.DefaultVersion(), "--quick", "--reps", "1", "--param", "scale=2",
		"--env", "ebs40:read=40MB/s,memory=512MiB", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	doc := decodeEnvStudy(t, r.stdout)
	if len(doc.Targets) != 1 || doc.Targets[0].Name != "pg"+pgtest.DefaultVersion()+"@ebs40" || doc.Targets[0].Env == nil {
		t.Fatalf("targets %+v", doc.Targets)
	}
	rec := doc.Targets[0].Env
	if rec.Name != "ebs40" || rec.Spec != "ebs40:memory=512MB,read=40MB/s" || len(rec.Limits) != 2 || rec.Cgroup == "" {
		t.Errorf("env record %+v", rec)
	}
	for _, l := range rec.Limits {
		if l.Status != env.Enforced || l.How == "" {
			t.Errorf("limit %s", l)
		}
	}
	got := map[string]float64{}
	for _, m := range doc.Measurements {
		if m.Case["cache"] == "cold" {
			got[m.Metric] = m.Value
		}
	}
	for _, m := range []string{"env_memory_peak_mb", "env_read_mb", "env_write_mb", "env_cpu_throttled_ms", "env_read_mb_s"} {
		if _, ok := got[m]; !ok {
			t.Errorf("no %s in the cold scan's measurements", m)
		}
	}
	// A throttle bounds speed from above: a loaded machine only slows the
	// scan down further.
	if got["mb_per_s"] > 40*1.25 {
		t.Errorf("cold scan at %.1f MB/s under read=40MB/s", got["mb_per_s"])
	}
	if got["env_read_mb"] < 0.9*got["table_mb"] {
		t.Errorf("the cgroup read %.0f MB of a %.0f MB table in a cold scan", got["env_read_mb"], got["table_mb"])
	}
	if got["env_memory_peak_mb"] > 512 {
		t.Errorf("peak %.0f MB under memory=512MiB", got["env_memory_peak_mb"])
	}
	notes := ""
	for _, n := range doc.Notes {
		notes += n.Text + "\n"
	}
	for _, want := range []string{"the cgroup's page cache emptied", "the profile's ceiling (read=40MB/s)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if left := env.Owned(env.Detect(), os.Getpid()); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	// The report shows what was enforced.
	rep := run(t, "report", "--store", store)
	for _, want := range []string{"| environment | ebs40 (--env) |", "| read | 40MB/s, enforced (cgroup v"} {
		if !strings.Contains(rep.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, rep.stdout)
		}
	}
}

// TestEnvNothingLeftBehind interrupts a comparison under an environment
// (SIGINT), and kills one (SIGKILL): no server and, after the next start,
// no cgroup of theirs remains.
func TestEnvNothingLeftBehind(t *testing.T) {
	e := newFaultEnv(t)
	l := env.Detect()
	v := pgtest.DefaultVersion()
	args := []string{"compare", "--versions", v, "--env", "small:memory=512MiB,cpus=1", "--studies", "commit", "--param", "commit.updates=3000", "--param", "commit.rows=3000"}
	for _, kill := range []bool{false, true} {
		name := "SIGINT"
		if kill {
			name = "SIGKILL"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			store := filepath.Join(dir, "r.db")
			p := startPglab(t, e.vars(), append(append([]string{}, args...), "--store", store, "--out", filepath.Join(dir, "report"))...)
			waitForMeasurements(t, store, 3, 120*time.Second)
			pid := p.cmd.Process.Pid
			if len(env.Owned(l, pid)) == 0 {
				t.Errorf("no cgroup of pglab %d while it runs", pid)
			}
			if !kill {
				p.cmd.Process.Signal(syscall.SIGINT)
				checkInterrupted(t, p, "SIGINT", 130)
				rec, _ := storedRun(t, store)
				if rec.Status != results.StatusInterrupted {
					t.Errorf("stored status %q", rec.Status)
				}
			} else {
				p.cmd.Process.Signal(syscall.SIGKILL)
				p.exit(30 * time.Second)
			}
			assertNoProcesses(t, e.tmp)
			if kill {
				// The next start cleans up what the killed one left.
				if r := run(t, "doctor"); r.code != 0 {
					t.Fatalf("doctor: %s", r.stderr)
				}
			}
			if left := env.Owned(l, pid); len(left) > 0 {
				t.Errorf("cgroups of pglab %d left behind: %v", pid, left)
			}
		})
	}
}

// TestPgStartEnv starts a named instance in an environment: its postmaster
// is in its cgroup, a study on it keeps it there across restarts, and pg
// stop removes the cgroup.
func TestPgStartEnv(t *testing.T) {
	newFaultEnv(t)
	r := run(t, "--quiet", "pg", "start", "--versions", pgtest.DefaultVersion(), "--name", "envd", "--env", "half:cpus=0.5,memory=512MiB")
	if r.code != 0 {
		t.Fatalf("pg start: %s", r.stderr)
	}
	stateDir := filepath.Join(os.Getenv("XDG_STATE_HOME"), "pglab", "instances", "envd")
	saved, ok, err := env.Load(stateDir)
	if err != nil || !ok || saved.Cgroup == nil {
		t.Fatalf("the instance keeps no environment: %v %v", ok, err)
	}
	inCgroup := func(when string) {
		t.Helper()
		pm := postmasterUnder(stateDir)
		procs, _ := saved.Cgroup.Procs()
		for _, p := range procs {
			if p == pm {
				return
			}
		}
		t.Errorf("%s: postmaster %d not in cgroup %s (%v)", when, pm, saved.Cgroup.Name, procs)
	}
	inCgroup("after pg start")
	if st := run(t, "pg", "status"); !strings.Contains(st.stdout, "ENV") || !strings.Contains(st.stdout, " half ") {
		t.Errorf("pg status does not show the environment:\n%s", st.stdout)
	}
	store := filepath.Join(t.TempDir(), "r.db")
	if r := run(t, "--quiet", "study", "seqscan", "--target", "envd", "--quick", "--reps", "1", "--param", "scale=1", "--param", "modes=cold", "--store", store); r.code != 0 {
		t.Fatalf("study on the instance: %s", r.stderr)
	}
	inCgroup("after a study that restarted it")
	if r := run(t, "--quiet", "pg", "stop", "envd"); r.code != 0 {
		t.Fatalf("pg stop: %s", r.stderr)
	}
	for _, d := range saved.Cgroup.Dirs() {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("pg stop left cgroup %s", d)
		}
	}
}

// envStudyDoc is the part of `pglab study --json` the environment tests
// read: the targets with their environment records, the measurements and
// the notes.
type envStudyDoc struct {
	Targets []struct {
		Name string      `json:"name"`
		Env  *env.Record `json:"env"`
	} `json:"targets"`
	Measurements []struct {
		Case   map[string]string `json:"case"`
		Metric string            `json:"metric"`
		Value  float64           `json:"value"`
	} `json:"measurements"`
	Notes []struct {
		Text string `json:"text"`
	} `json:"notes"`
}

// decodeEnvStudy decodes a study's JSON output or fails the test.
func decodeEnvStudy(t *testing.T, stdout string) envStudyDoc {
	t.Helper()
	var doc envStudyDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, stdout)
	}
	return doc
}
