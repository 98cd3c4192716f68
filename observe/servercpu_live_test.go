package observe

import (
	"context"
	"os"
	osexec "os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// cpuQuery keeps one backend on a CPU for about a second (0.3 s per
// million rows on the 2-core development VM).
const cpuQuery = "SELECT count(*) FROM generate_series(1, $1::bigint)"

// TestServerCPUQuery: a CPU-bound query's backend, on a connection opened
// before the step, is on a CPU or waiting for one for the query's time,
// and on a CPU for most of it unless other load took the CPUs.
func TestServerCPUQuery(t *testing.T) {
	for _, v := range pgtest.Versions() {
		t.Run(v, func(t *testing.T) {
			inst := pgtest.Shared(t, v)
			conn := pgtest.Connect(t, pgtest.CreateDB(t, inst))
			s := StartServerCPU(inst.DataDir())
			q := timeQuery(t, conn, 5e6)
			c, err := s.Stop()
			if err != nil {
				t.Fatal(err)
			}
			step := c.End.Sub(c.Start)
			t.Logf("PostgreSQL %s: query %v, step %v: %s", v, q, step, cpuFigures(c))
			if c.CPU > step*11/10+20*time.Millisecond || c.CPU+c.RunQueue < q/2 {
				t.Errorf("server CPU %v and run-queue wait %v: want at most 110 %% of the step's %v + 20 ms, together at least half the query's %v", c.CPU, c.RunQueue, step, q)
			}
			checkUndisturbed(t, c, q)
			if c.Processes < 5 || c.PID != inst.PID() {
				t.Errorf("postmaster %d (the instance's %d), %d processes", c.PID, inst.PID(), c.Processes)
			}
		})
	}
}

// checkUndisturbed checks that a step's server CPU was at least half of
// work, the time of a CPU-bound query, when other load left the CPUs
// free (foreign and stolen time under 40 % of them); a step disturbed so
// is only logged.
func checkUndisturbed(t *testing.T, c *ServerCPU, work time.Duration) {
	t.Helper()
	if c.ForeignPct+c.StealPct >= 40 {
		t.Logf("a disturbed step: foreign %.1f %%, steal %.1f %% of the CPUs; server CPU %v of %v", c.ForeignPct, c.StealPct, c.CPU, work)
		return
	}
	if c.CPU < work/2 {
		t.Errorf("server CPU %v, want at least half the query's %v", c.CPU, work)
	}
}

// TestServerCPUExited: connections that do their work and close within
// the step are counted through the postmaster's reaped children, and one
// that worked before the step is counted for the step's work alone: the
// sum of what the backends' own run times said just before they closed.
func TestServerCPUExited(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	// Works for about a second before the step, 0.3 s in it.
	early, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	before := timeQuery(t, early, 3e6)
	pids := []int{backendPID(t, early)}

	s := StartServerCPU(inst.DataDir())
	ran := -runTime(t, pids[0])
	work := timeQuery(t, early, 1e6)
	ran += runTime(t, pids[0])
	early.Close(ctx)
	for range 2 {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, backendPID(t, conn))
		work += timeQuery(t, conn, 1e6)
		ran += runTime(t, pids[len(pids)-1])
		conn.Close(ctx)
	}
	waitReaped(t, pids)
	c, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	step := c.End.Sub(c.Start)
	t.Logf("queries %v (%v before the step), the backends ran %v, step %v: %s", work, before, ran, step, cpuFigures(c))
	if c.Exited < 1 {
		t.Errorf("%d processes exited, want the early connection's at least", c.Exited)
	}
	// Less: the reaped time's two ticks; more: the backends' exits and
	// the background processes.
	if c.CPU < ran-20*time.Millisecond || c.CPU > ran*11/10+30*time.Millisecond {
		t.Errorf("server CPU %v, the backends ran %v", c.CPU, ran)
	}
	checkUndisturbed(t, c, work)
}

// runTime is a process's run time now.
func runTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	run, _, err := procFS("/proc").schedstat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(run)
}

// TestServerCPUForeign: a process neither the server's nor pglab's,
// spinning beside the step, shows as foreign CPU, at least its own run
// time; the step without it is logged as the baseline.
func TestServerCPUForeign(t *testing.T) {
	inst := pgtest.Shared(t, "")
	idle := foreignStep(t, inst.DataDir(), nil)

	hog := osexec.Command("sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		hog.Process.Kill()
		hog.Wait()
	}()
	var hogRun uint64
	busy := foreignStep(t, inst.DataDir(), func(start bool) {
		run, _, err := procFS("/proc").schedstat(hog.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if start {
			hogRun = run
		} else {
			hogRun = run - hogRun
		}
	})
	cpus := countCPUs("/proc/stat")
	hogPct := 100 * float64(hogRun) / float64(busy.End.Sub(busy.Start)) / float64(cpus)
	t.Logf("idle: %s", cpuFigures(idle))
	t.Logf("a spinning sh beside (%.1f %% of %d CPUs): %s", hogPct, cpus, cpuFigures(busy))
	// The machine is shared: other processes' load comes and goes
	// between the two seconds, so the spinning process's own run time is
	// the measure, not the idle second.
	if hogPct < 20 || busy.ForeignPct < hogPct-5 {
		t.Errorf("foreign CPU %.1f %% with a process using %.1f %% of the CPUs (%.1f %% without)", busy.ForeignPct, hogPct, idle.ForeignPct)
	}
}

// foreignStep samples a second in which the server and this process are
// idle; around is called at its start (true) and end.
func foreignStep(t *testing.T, dataDir string, around func(start bool)) *ServerCPU {
	t.Helper()
	s := StartServerCPU(dataDir)
	if around != nil {
		around(true)
	}
	time.Sleep(time.Second)
	if around != nil {
		around(false)
	}
	c, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Find(c.Metrics(), "foreign_cpu_pct"); !ok {
		t.Fatalf("no foreign_cpu_pct: %v", c.Metrics())
	}
	return c
}

func timeQuery(t *testing.T, conn *pgx.Conn, rows float64) time.Duration {
	t.Helper()
	start := time.Now()
	var n int64
	if err := conn.QueryRow(context.Background(), cpuQuery, int64(rows)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

func backendPID(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var pid int
	if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitReaped waits until the processes are gone from /proc (reaped by the
// postmaster, not zombies).
func waitReaped(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for {
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("backend %d still in /proc after 10 s", pid)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func cpuFigures(c *ServerCPU) string {
	return formatMetrics(c.Metrics()) + " (" + strconv.Itoa(c.Processes) + " processes, " +
		strconv.Itoa(c.Started) + " started, " + strconv.Itoa(c.Exited) + " exited)"
}

func formatMetrics(ms []Metric) string {
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += ", "
		}
		out += m.Name + " " + strconv.FormatFloat(m.Value, 'f', 1, 64)
	}
	return out
}

// BenchmarkServerCPURead is the cost of one of the sampler's two reads
// (the instance's processes, /proc/stat, getrusage) beside a server.
func BenchmarkServerCPURead(b *testing.B) {
	inst := pgtest.Shared(b, "")
	pid, err := postmasterPID(inst.DataDir())
	if err != nil {
		b.Fatal(err)
	}
	s := &ServerCPUSampler{proc: "/proc", client: selfCPU}
	cpu, n := selfCPU(), 0
	for b.Loop() {
		if _, err := s.read(pid, procKey{}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((selfCPU()-cpu).Microseconds())/float64(n), "cpu-µs/op")
	procs, _ := os.ReadDir("/proc")
	n = 0
	for _, e := range procs {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	b.ReportMetric(float64(n), "processes")
}
