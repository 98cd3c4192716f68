package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestStudyOverNetworkWithStandby runs the commit study with every
// network key: clients behind a round trip, a synchronous standby behind
// another, synchronous_commit and fsync set. The JSON names each key as
// enforced, each step carries the probe's measured round trip, commits
// wait for the standby (time in IPC:SyncRep, commit cost), and nothing is
// left behind. Behaviour, not accuracy: scripts/netdelay-accuracy and
// scripts/commit-cost measure that.
func TestStudyOverNetworkWithStandby(t *testing.T) {
	e := newFaultEnv(t)
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, "--quiet", "study", "commit", "--versions", pgtest.DefaultVersion(), "--quick", "--reps", "1",
		"--param", "tx_modes=autocommit,transaction", "--param", "protocols=prepared", "--param", "updates=300", "--param", "rows=300",
		"--env", "far:rtt=2ms,replica=sync,replica_rtt=2ms,synchronous_commit=remote_write,fsync=off", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	doc := decodeEnvStudy(t, r.stdout)
	if len(doc.Targets) != 1 || doc.Targets[0].Env == nil {
		t.Fatalf("targets %+v", doc.Targets)
	}
	enforced := map[string]bool{}
	for _, l := range doc.Targets[0].Env.Limits {
		enforced[l.Key] = l.Status == env.Enforced
	}
	for _, k := range []string{"rtt", "replica", "replica_rtt", "synchronous_commit", "fsync"} {
		if !enforced[k] {
			t.Errorf("%s not recorded as enforced: %+v", k, doc.Targets[0].Env.Limits)
		}
	}
	got := map[string]map[string]float64{}
	for _, m := range doc.Measurements {
		tx := m.Case["tx"]
		if got[tx] == nil {
			got[tx] = map[string]float64{}
		}
		got[tx][m.Metric] = m.Value
	}
	for _, tx := range []string{"autocommit", "transaction"} {
		if rtt := got[tx]["env_rtt_us"]; rtt < 1500 {
			t.Errorf("%s: measured round trip %.0f µs through a 2 ms proxy", tx, rtt)
		}
	}
	a := got["autocommit"]
	// Each autocommit update pays the client's and the standby's round
	// trips; the commit's wait shows as IPC:SyncRep and in the commit cost.
	if a["us_per_update"] < 3500 || a["syncrep_wait_ms"] <= 0 || a["commit_cost_us"] < 1500 || a["wal_syncs"] != 0 {
		t.Errorf("autocommit: %v", a)
	}
	if tr := got["transaction"]; tr["commit_cost_us"] > a["commit_cost_us"]/10 {
		t.Errorf("one transaction's commit cost per update %.0f µs, autocommit's %.0f µs", tr["commit_cost_us"], a["commit_cost_us"])
	}
	assertNoProcesses(t, e.tmp)
	if left := env.Owned(env.Detect(), os.Getpid()); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	rep := run(t, "report", "--store", store)
	for _, want := range []string{"| rtt | 2ms, enforced (delay proxy), measured ", "| replica | sync, enforced (managed standby) |", "| fsync | off, enforced (server setting) |"} {
		if !strings.Contains(rep.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, rep.stdout)
		}
	}
}

// TestFaultStandbyKilledEndsTheRun kills the managed standby's postmaster
// (kill -9) in the middle of a study with replica=sync: pglab exits
// non-zero within 30 s with a line naming the standby, and no postgres
// process, proxy or cgroup is left.
func TestFaultStandbyKilledEndsTheRun(t *testing.T) {
	e := newFaultEnv(t)
	store := filepath.Join(t.TempDir(), "r.db")
	p := startPglab(t, e.vars(), "study", "commit", "--versions", pgtest.DefaultVersion(), "--quick", "--reps", "3",
		"--param", "tx_modes=autocommit", "--param", "protocols=prepared", "--param", "updates=50000",
		"--env", "x:replica=sync,replica_rtt=1ms", "--store", store)
	p.waitStderr(`repetition 1/3`, 120*time.Second)
	pid := standbyPostmaster(t, e.tmp)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, took := p.exit(30 * time.Second)
	stderr := p.stderr.String()
	t.Logf("exit %d %v after the kill; stderr:\n%s", code, took, stderr)
	if code == 0 {
		t.Errorf("exit 0 after the standby died")
	}
	want := "pglab: the run cannot go on: standby pg" + pgtest.DefaultVersion() + "@x-standby of pg" + pgtest.DefaultVersion() + "@x exited (signal: killed)"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q", want)
	}
	assertOneErrorLine(t, stderr)
	assertNoProcesses(t, e.tmp)
	if left := env.Owned(env.Detect(), p.cmd.Process.Pid); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	if out := helperProcesses(); len(out) > 0 {
		t.Errorf("delay proxies left running: %v", out)
	}
}

// standbyPostmaster finds the postmaster of the managed standby under dir.
func standbyPostmaster(t *testing.T, dir string) int {
	t.Helper()
	for _, line := range pgtest.ProcessesUnder(dir) {
		pid, cmd, _ := strings.Cut(line, ": ")
		if strings.Contains(cmd, "postgres -D ") && strings.Contains(cmd, "-standby-") && strings.HasSuffix(strings.TrimSpace(cmd), "/data") {
			n, _ := strconv.Atoi(pid)
			return n
		}
	}
	t.Fatalf("no standby postmaster under %s: %v", dir, pgtest.ProcessesUnder(dir))
	return 0
}

// helperProcesses lists delay-proxy helpers (processes with
// PGLAB_NETDELAY_HELPER in their environment) whose parent is gone.
func helperProcesses() []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		environ, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !strings.Contains(string(environ), "PGLAB_NETDELAY_HELPER=") {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 1 && f[1] == "1" {
			out = append(out, e.Name())
		}
	}
	return out
}
