package observe

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	// A backend of PostgreSQL 17 as this machine's kernel prints it.
	line := "4242 (postgres: pglab t_1 [local] SELECT) R 4100 4100 0 0 -1 4194304 1520 0 0 0 123 45 67 89 20 0 1 0 867101 226521088 3584 18446744073709551615 1 1 0 0 0 0 4194304 19935232 1535 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	got, err := parseProcStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{ppid: 4100, utime: 123, stime: 45, cutime: 67, cstime: 89, starttime: 867101}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if ppid, ok := ppidOf([]byte(line)); !ok || ppid != 4100 {
		t.Errorf("ppidOf: %d, %v", ppid, ok)
	}
	// Parentheses and spaces in the command name.
	odd := "7 (a) b) (c) S 1 7 0 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 0\n"
	if got, err := parseProcStat([]byte(odd)); err != nil || got.ppid != 1 || got.utime != 1 || got.cstime != 4 || got.starttime != 99 {
		t.Errorf("odd name: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "1 (x S 1", "1 (x) S 1 2 3", "1 (x) S 1 7 0 0 -1 0 0 0 0 0 1 -2 3 4 20 0 1 0 99 0 0"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseSchedstat(t *testing.T) {
	run, wait, err := parseSchedstat([]byte("183588282 10196500 361\n"))
	if err != nil || run != 183588282 || wait != 10196500 {
		t.Errorf("%d %d %v", run, wait, err)
	}
	for _, bad := range []string{"", "12", "x 1 2", "1 -2 3"} {
		if _, _, err := parseSchedstat([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPostmasterPID(t *testing.T) {
	pid, err := postmasterPID("testdata/servercpu/data")
	if err != nil || pid != 100 {
		t.Errorf("%d, %v", pid, err)
	}
	if _, err := postmasterPID("testdata/servercpu/nonexistent"); err == nil || !strings.Contains(err.Error(), "postmaster.pid") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := postmasterPID("testdata/servercpu/start"); err == nil {
		t.Errorf("no postmaster.pid: no error")
	}
}

func TestClockTick(t *testing.T) {
	if d := tickOf([][2]uintptr{{6, 4096}, {atClkTck, 250}}, nil); d != 4*time.Millisecond {
		t.Errorf("AT_CLKTCK 250: %v", d)
	}
	if d := tickOf(nil, nil); d != 10*time.Millisecond {
		t.Errorf("no AT_CLKTCK: %v", d)
	}
	if d := clockTick(); d != 10*time.Millisecond {
		t.Errorf("this machine's tick %v; Linux's USER_HZ is 100", d)
	}
}

// TestServerCPUFixture reads the processes of testdata/servercpu/start
// and end: postmaster 100; 101 alive throughout; 102 and 104 (started at
// 6000) alive at the start only; 103 and another 104 (started at 7000)
// at the end only; 200 and 201 not the postmaster's children.
func TestServerCPUFixture(t *testing.T) {
	a, b := fixtureReading(t, "start", 0), fixtureReading(t, "end", 280*time.Millisecond)
	c, err := cpuBetween(a, b, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// Live: postmaster 10 ms, 101 50 ms, 103 300 ms, new 104 10 ms = 370 ms.
	// Reaped: 60 ticks = 600 ms, less 102's 100 ms and old 104's 50 ms
	// from before the step = 450 ms.
	if c.CPU != 820*time.Millisecond || c.RunQueue != 28*time.Millisecond {
		t.Errorf("CPU %v, run queue %v; want 820 ms, 28 ms", c.CPU, c.RunQueue)
	}
	if c.PID != 100 || c.Processes != 4 || c.Started != 2 || c.Exited != 2 || !c.Schedstat {
		t.Errorf("figures %+v", c)
	}
	// 500 ticks of CPU time, 260 busy (150 user, 100 system, 10
	// softirq), 40 stolen: 2600 − 820 − 280 ms = 1500 ms foreign, 30 %.
	m := metricsOf(c.Metrics())
	want := map[string]float64{"server_cpu_ms": 820, "server_runq_ms": 28, "client_cpu_ms": 280, "steal_pct": 8, "foreign_cpu_pct": 30}
	if len(m) != len(want) {
		t.Errorf("metrics %v, want %v", m, want)
	}
	for name, w := range want {
		if math.Abs(m[name]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, m[name], w)
		}
	}
}

func fixtureReading(t *testing.T, dir string, client time.Duration) cpuReading {
	t.Helper()
	s := startServerCPU(procFS("testdata/servercpu/"+dir), "testdata/servercpu/data", func() time.Duration { return client })
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.first
}

// TestServerCPUAbsent: without schedstat figures, with a restart, or
// without a server the instance's figures are absent, never zero; the
// machine's stay.
func TestServerCPUAbsent(t *testing.T) {
	start := fixtureReading(t, "start", 0)
	nosched := fixtureReading(t, "nosched", time.Millisecond)
	if nosched.inst == nil || nosched.inst.schedstat {
		t.Fatalf("a kernel printing 0 0 0: %+v", nosched.inst)
	}
	c, err := cpuBetween(start, nosched, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	onlyMachine := func(what string, c *ServerCPU) {
		t.Helper()
		m := metricsOf(c.Metrics())
		_, steal := m["steal_pct"]
		if _, client := m["client_cpu_ms"]; !client || len(m) != 1 && !(len(m) == 2 && steal) {
			t.Errorf("%s: metrics %v, want client_cpu_ms and steal_pct alone", what, m)
		}
	}
	onlyMachine("no schedstat", c)

	restarted := fixtureReading(t, "end", 0)
	restarted.inst.pm.start++
	c, err = cpuBetween(start, restarted, 10*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "postmaster changed") {
		t.Errorf("restart: %v", err)
	}
	onlyMachine("restart", c)

	s := startServerCPU("testdata/servercpu/start", "testdata/servercpu/nonexistent", func() time.Duration { return 0 })
	c, err = s.Stop()
	if err == nil || !strings.Contains(err.Error(), "postmaster.pid") {
		t.Errorf("no server: %v", err)
	}
	onlyMachine("no server", c)

	// postmaster.pid names a process working elsewhere: another PID
	// namespace's server, or a stale file.
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "postmaster.pid"), []byte("100\n"+elsewhere+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = startServerCPU("testdata/servercpu/start", elsewhere, func() time.Duration { return 0 })
	c, err = s.Stop()
	if err == nil || !strings.Contains(err.Error(), "works elsewhere") {
		t.Errorf("another server's PID: %v", err)
	}
	onlyMachine("another server's PID", c)
}
