package cli_test

// Fault tests: the server dies (SIGKILL to the postmaster) or pglab is
// interrupted (SIGINT, SIGTERM) during each long step, with pglab running as
// a separate process. Each checks what a user relies on: the exit code, a
// message naming what failed, the run kept in the store with what was
// measured, settings restored, and no process left behind.
//
// Names: tests that inject a fault are TestFault* (a server, a standby or
// the store's disk fails), TestSignal* (SIGINT, SIGTERM) or TestNetFault*
// (the network stops answering), so that
// go test -run 'TestFault|TestSignal|TestNetFault|TestPgStartSIGTERM'
// runs every one of them (repeatedly, with -count, to find timing
// dependencies: each waits for a state, never for a time).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a pglab process started by a test.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	code           int
}

// startPglab runs the pglab binary with args and extra environment in the
// background; it is killed at the end of the test if still running.
func startPglab(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startProc(t, env, append([]string{pglabBinary(t)}, args...)...)
}

// startProc runs argv (pglab under a wrapper such as ip netns exec).
func startProc(t *testing.T, env []string, argv ...string) *proc {
	t.Helper()
	p := &proc{t: t, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitFor polls until cond holds, failing the test after limit.
func (p *proc) waitFor(what string, limit time.Duration, cond func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		select {
		case <-p.done:
			p.t.Fatalf("pglab exited (code %d) before %s; stderr:\n%s", p.code, what, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s after %v; stderr:\n%s", what, limit, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStderr waits until stderr matches re.
func (p *proc) waitStderr(re string, limit time.Duration) {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	p.waitFor(fmt.Sprintf("stderr matching %q", re), limit, func() bool { return rx.MatchString(p.stderr.String()) })
}

// exit waits for the process to end within limit and returns its exit
// code and how long it took.
func (p *proc) exit(limit time.Duration) (int, time.Duration) {
	p.t.Helper()
	start := time.Now()
	select {
	case <-p.done:
		return p.code, time.Since(start)
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("pglab did not exit within %v; stderr:\n%s", limit, p.stderr.String())
		return 0, 0
	}
}

// faultEnv is the private state of one fault test: named instances in
// state, throwaway servers in tmp.
type faultEnv struct {
	state, tmp string
}

func newFaultEnv(t *testing.T) faultEnv {
	t.Helper()
	e := faultEnv{state: pgtest.TempDir(t), tmp: pgtest.TempDir(t)}
	t.Setenv("XDG_STATE_HOME", e.state)
	t.Setenv("PGLAB_TMPDIR", e.tmp)
	t.Cleanup(func() {
		if left := postgresProcessesUnder(e.state); len(left) > 0 {
			// A named instance is the user's and may run on; the test
			// stops it here so nothing outlives the test.
			run(t, "pg", "stop", "--all", "--remove")
		}
		assertNoProcesses(t, e.state, e.tmp)
	})
	return e
}

func (e faultEnv) vars() []string {
	return []string{"XDG_STATE_HOME=" + e.state, "PGLAB_TMPDIR=" + e.tmp}
}

// startInstance starts a named instance of the default version and
// returns its DSN.
func startInstance(t *testing.T, name string, sets ...string) string {
	t.Helper()
	return startInstanceOf(t, pgtest.DefaultVersion(), name, sets...)
}

// startInstanceOf starts a named instance of a version and returns its
// DSN. When the test ends the instance is stopped and removed, and no
// process of it may be left.
func startInstanceOf(t *testing.T, version, name string, sets ...string) string {
	t.Helper()
	pgtest.Binaries(t, version)
	args := []string{"--quiet", "pg", "start", "--versions", version, "--name", name}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("pg start: %s", r.stderr)
	}
	dir := filepath.Join(pgserver.StateDir(), name)
	t.Cleanup(func() {
		run(t, "pg", "stop", "--remove", name)
		assertNoProcesses(t, dir)
	})
	return strings.TrimSpace(r.stdout)
}

// stopKilled stops a named instance whose postmaster was killed, as a
// user would ('pglab pg stop NAME'): it ends whatever the postmaster left
// and says so, and no process of the instance is left.
func stopKilled(t *testing.T, name string) {
	t.Helper()
	start := time.Now()
	r := run(t, "pg", "stop", name)
	took := time.Since(start)
	if r.code != 0 {
		t.Errorf("pg stop %s: exit %d: %s", name, r.code, r.stderr)
	}
	t.Logf("pg stop %s: %v: %s", name, took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	assertNoProcesses(t, filepath.Join(pgserver.StateDir(), name))
}

// killInstance sends SIGKILL to a named instance's postmaster.
func killInstance(t *testing.T, name string) {
	t.Helper()
	inst, err := pgserver.OpenNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	pid := inst.PID()
	if pid <= 0 {
		t.Fatalf("instance %s has no postmaster", name)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill postmaster %d: %v", pid, err)
	}
}

// postmasterUnder returns the PID of a postmaster whose data directory is
// under dir, or 0.
func postmasterUnder(dir string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) >= 3 && strings.HasSuffix(args[0], "/postgres") && args[1] == "-D" && strings.HasPrefix(args[2], dir) {
			return pid
		}
	}
	return 0
}

// assertNoProcesses checks that no process mentions, works in or has a
// file open in any of dirs (zombies aside; see pgtest.ProcessesUnder),
// allowing a few seconds for backends to notice their postmaster's death.
func assertNoProcesses(t *testing.T, dirs ...string) {
	t.Helper()
	var left []string
	for i := 0; i < 50; i++ {
		left = nil
		for _, d := range dirs {
			left = append(left, postgresProcessesUnder(d)...)
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("processes left running: %v", left)
}

// storedRun opens the store read-only and returns the newest run and its
// measurements.
func storedRun(t *testing.T, store string) (results.RunRecord, []results.Measurement) {
	t.Helper()
	s, err := results.OpenReadOnly(context.Background(), store)
	if err != nil {
		t.Fatalf("open store after the fault: %v", err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), results.RunFilter{Limit: 1})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs in store: %v %v", runs, err)
	}
	ms, err := s.Measurements(context.Background(), runs[0].ID, results.MeasurementFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0], ms
}

func assertOneErrorLine(t *testing.T, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stack trace in stderr:\n%s", stderr)
	}
}

// TestFaultKillServerDuringBench kills the postmaster during `pglab bench
// -T`: every client reports that it was aborted and why, the summary of
// what was done so far is printed, the exit code is pgbench's 2, and pglab
// exits within seconds.
func TestFaultKillServerDuringBench(t *testing.T) {
	e := newFaultEnv(t)
	startInstance(t, "kb")
	if r := run(t, "bench", "-i", "-s", "1", "-q", "--target", "kb"); r.code != 0 {
		t.Fatalf("bench -i: %s", r.stderr)
	}
	p := startPglab(t, e.vars(), "bench", "-T", "120", "-c", "4", "-j", "2", "-P", "1", "--target", "kb")
	p.waitStderr(`progress: 1\.0 s`, 30*time.Second)
	killInstance(t, "kb")
	code, took := p.exit(20 * time.Second)
	t.Logf("bench -T: exit %d %v after SIGKILL", code, took)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (aborted clients, as pgbench); stderr:\n%s", code, p.stderr.String())
	}
	stderr := p.stderr.String()
	for c := 0; c < 4; c++ {
		re := regexp.MustCompile(fmt.Sprintf(`client %d script 0 aborted in command \d+ query \d+: (server closed the connection unexpectedly|FATAL:  terminating connection due to unexpected postmaster exit|.*could not receive data from server)`, c))
		if !re.MatchString(stderr) {
			t.Errorf("no line says why client %d stopped; stderr:\n%s", c, stderr)
		}
	}
	if !strings.Contains(stderr, "Run was aborted; the above results are incomplete.") {
		t.Errorf("no incomplete-run line; stderr:\n%s", stderr)
	}
	want := `^pglab: error: lost the server kb \(127\.0\.0\.1:\d+\) during the run \(4 of 4 clients aborted\): the server (terminated|closed) the connection`
	if last := lastLine(stderr); !regexp.MustCompile(want).MatchString(last) {
		t.Errorf("last line %q does not name the lost server (want %s)", last, want)
	}
	if !strings.Contains(p.stdout.String(), "number of transactions actually processed: ") {
		t.Errorf("no summary of what ran before the fault; stdout:\n%s", p.stdout.String())
	}
	assertOneErrorLine(t, stderr)
	stopKilled(t, "kb")
	assertNoProcesses(t, e.state, e.tmp)
}

// initFault is one phase of `pglab bench -i` in which
// TestFaultKillServerDuringInit kills the server.
type initFault struct {
	name string
	// prepare runs before pglab starts: tables from an earlier -i, a
	// session holding the lock the phase will wait for.
	prepare func(t *testing.T, name, dsn string)
	args    []string
	// reached waits until the server is in the phase (a state seen in the
	// server's views or pglab's progress output; never a time).
	reached func(p *proc, conn *pgx.Conn)
	// all kills the backends with the postmaster (a CPU-bound backend
	// finishes its statement when only its postmaster dies).
	all bool
	// step and stmt are the phase the last line must name: pgbench's step
	// and the statement; "" for any.
	step, stmt string
}

// initFaults are the phases of bench -i, each held or observed.
var initFaults = []initFault{
	{name: "drop", prepare: initTables, args: []string{"-s", "1"},
		reached: waitingOnLock("drop table%"), step: "drop tables",
		stmt: "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"},
	{name: "create", prepare: holdTableName, args: []string{"-s", "1"},
		reached: waitingOnLock("create table pgbench_branches%"), step: "create tables",
		stmt: "create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)"},
	{name: "copy", args: []string{"-s", "15"}, reached: copyStreaming, all: true,
		step: "client-side generate", stmt: "copy pgbench_accounts from stdin with (freeze on)"},
	// The case: only the postmaster killed while COPY streams. Its
	// backend notices when it next waits for the client, which may be in
	// the COPY, at its commit or in the vacuum step's first query (the
	// client's data filled the socket until then): any phase.
	{name: "copy-postmaster", args: []string{"-s", "15"}, reached: copyStreaming},
	{name: "server-side", args: []string{"-s", "15", "-I", "dtG"}, reached: activeQuery("insert into pgbench_accounts%"), all: true,
		step: "server-side generate"},
	{name: "vacuum", prepare: initTables, args: []string{"-s", "1", "-I", "v"},
		reached: waitingOnLock("vacuum analyze pgbench_branches"), step: "vacuum", stmt: "vacuum analyze pgbench_branches"},
	{name: "index", args: []string{"-s", "15"}, reached: buildingIndex("pgbench_accounts"), all: true,
		step: "primary keys", stmt: "alter table pgbench_accounts add primary key (aid)"},
	{name: "foreign-keys", prepare: initTables, args: []string{"-s", "1", "-I", "f"},
		reached: waitingOnLock("alter table pgbench_tellers add constraint%"), step: "foreign keys",
		stmt: "alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches"},
}

// TestFaultKillServerDuringInit kills the server in each phase of `pglab
// bench -i` once the phase is reached: exit 1 within seconds, pgbench's
// error, and a last line naming the lost server (instance and address),
// the phase and how it was lost.
func TestFaultKillServerDuringInit(t *testing.T) {
	e := newFaultEnv(t)
	for _, f := range initFaults {
		t.Run(f.name, func(t *testing.T) {
			name := "ki-" + f.name
			dsn := startInstance(t, name)
			if f.prepare != nil {
				f.prepare(t, name, dsn)
			}
			watch := pgtest.Connect(t, dsn)
			args := append(append([]string{"bench", "-i"}, f.args...), "--target", name)
			p := startPglab(t, e.vars(), args...)
			f.reached(p, watch)
			killServer(t, name, f.all)
			code, took := p.exit(60 * time.Second)
			t.Logf("bench -i: exit %d %v after SIGKILL", code, took)
			stderr := p.stderr.String()
			if code != 1 {
				t.Errorf("exit code %d, want pgbench's 1; stderr:\n%s", code, stderr)
			}
			phase := regexp.QuoteMeta(f.step)
			if f.step == "" {
				phase = `[a-z -]+`
			}
			if f.stmt != "" {
				phase += ` \(` + regexp.QuoteMeta(f.stmt) + `\)`
			} else {
				phase += `( \(.*\))?`
			}
			want := `^pglab: error: lost the server ` + regexp.QuoteMeta(name) + ` \(127\.0\.0\.1:\d+\) during ` + phase +
				`: the server (terminated|closed) the connection`
			if last := lastLine(stderr); !regexp.MustCompile(want).MatchString(last) {
				t.Errorf("last line %q does not name the lost server and the phase (want %s); stderr:\n%s", last, want, stderr)
			}
			assertOneErrorLine(t, stderr)
			stopKilled(t, name)
			assertNoProcesses(t, e.state, e.tmp)
		})
	}
}

// TestFaultKillServerDuringParallelIndex kills the postmaster of a managed
// PostgreSQL 17 with SIGKILL while a parallel CREATE INDEX runs: a leader
// and two workers computing an expression over a million rows (65 MB),
// none of which waits on anything that notices its postmaster's death, so
// they run on, parent 1, each in its own session. 'pglab pg status' names
// them as strays; 'pglab pg stop' ends every process of the instance
// within 10 s and names what it ended.
func TestFaultKillServerDuringParallelIndex(t *testing.T) {
	newFaultEnv(t)
	dsn := startInstanceOf(t, "17", "pidx", "max_parallel_maintenance_workers=2", "maintenance_work_mem=256MB")
	conn := pgtest.Connect(t, dsn)
	for _, sql := range []string{
		"CREATE TABLE big AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 1000000) g",
		// About 100 µs a row: the build would take minutes.
		"CREATE FUNCTION slow(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$ DECLARE h text := t; BEGIN FOR k IN 1..100 LOOP h := md5(h); END LOOP; RETURN h; END $$",
	} {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	build := pgtest.Connect(t, dsn)
	go build.Exec(context.Background(), "CREATE INDEX ON big (slow(v))")
	workers := parallelWorkers(t, conn, 2)
	inst, err := pgserver.OpenNamed("pidx")
	if err != nil {
		t.Fatal(err)
	}
	before, err := inst.Processes()
	if err != nil {
		t.Fatal(err)
	}
	pm := inst.PID()
	if err := syscall.Kill(pm, syscall.SIGKILL); err != nil {
		t.Fatalf("kill postmaster %d: %v", pm, err)
	}
	waitGone(t, pm)

	status := run(t, "pg", "status")
	t.Logf("pg status:\n%s", status.stdout)
	for _, w := range workers {
		if !strings.Contains(status.stdout, fmt.Sprintf("%d (postgres: parallel worker for PID ", w)) {
			t.Errorf("pg status does not name parallel worker %d as a stray:\n%s", w, status.stdout)
		}
	}
	if !strings.Contains(status.stdout, "instance pidx: ") || !strings.Contains(status.stdout, "end them with 'pglab pg stop pidx'") {
		t.Errorf("pg status does not name instance pidx's strays and how to end them:\n%s", status.stdout)
	}

	start := time.Now()
	r := run(t, "pg", "stop", "pidx")
	took := time.Since(start)
	t.Logf("pg stop pidx: exit %d in %v: %s", r.code, took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	if r.code != 0 {
		t.Fatalf("pg stop: exit %d: %s", r.code, r.stderr)
	}
	for _, w := range workers {
		if !strings.Contains(r.stderr, fmt.Sprintf("%d (postgres: parallel worker for PID ", w)) {
			t.Errorf("pg stop does not say it ended parallel worker %d: %s", w, r.stderr)
		}
	}
	if left := pgtest.ProcessesUnder(inst.Dir()); len(left) > 0 {
		t.Errorf("processes of the instance left after pg stop: %v", left)
	}
	for _, p := range before {
		if processRunning(p.PID) && p.PID != pm {
			t.Errorf("process %s still runs after pg stop", p)
		}
	}
	if took > 10*time.Second {
		t.Errorf("pg stop took %v, want within 10 s", took)
	}
}

// parallelWorkers waits until at least n parallel workers run and returns
// their PIDs.
func parallelWorkers(t *testing.T, conn *pgx.Conn, n int) []int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rows, err := conn.Query(context.Background(), "SELECT pid FROM pg_stat_activity WHERE backend_type = 'parallel worker'")
		if err != nil {
			t.Fatal(err)
		}
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d parallel workers after 60 s, want %d", len(pids), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processRunning reports whether pid is a live process (no zombie).
func processRunning(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	j := bytes.LastIndexByte(stat, ')')
	return j > 0 && j+2 < len(stat) && stat[j+2] != 'Z'
}

// waitGone waits until pid has exited.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for processRunning(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lastLine is the last line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// initTables makes pgbench's tables (scale 1) for the phases that need
// them, and holds a lock on pgbench_branches that the phase waits for.
func initTables(t *testing.T, name, _ string) {
	t.Helper()
	if r := run(t, "bench", "-i", "-s", "1", "-q", "--target", name); r.code != 0 {
		t.Fatalf("bench -i: %s", r.stderr)
	}
	holdLock(t, name, "LOCK TABLE pgbench_branches IN SHARE UPDATE EXCLUSIVE MODE")
}

// holdTableName creates pgbench_branches in a transaction left open:
// pglab's create of that table waits for it.
func holdTableName(t *testing.T, name, _ string) {
	holdLock(t, name, "CREATE TABLE pgbench_branches (x int)")
}

// holdLock runs sql in a transaction that stays open until the server
// dies. SHARE UPDATE EXCLUSIVE on pgbench_branches holds up DROP TABLE,
// VACUUM and ALTER TABLE ... FOREIGN KEY alike.
func holdLock(t *testing.T, name, sql string) {
	t.Helper()
	inst, err := pgserver.OpenNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, inst.DSN())
	if _, err := conn.Exec(context.Background(), "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// pollServer waits until query, run on conn, returns a row.
func pollServer(p *proc, conn *pgx.Conn, what, query string) {
	p.t.Helper()
	p.waitFor(what, 120*time.Second, func() bool {
		var one int
		err := conn.QueryRow(context.Background(), query).Scan(&one)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			p.t.Fatalf("%s: %v", query, err)
		}
		return err == nil
	})
}

// waitingOnLock waits for pglab's session to wait on a lock in a
// statement like pattern.
func waitingOnLock(pattern string) func(*proc, *pgx.Conn) {
	return func(p *proc, conn *pgx.Conn) {
		p.t.Helper()
		pollServer(p, conn, "a session waiting on a lock in "+pattern,
			"SELECT 1 FROM pg_stat_activity WHERE query LIKE '"+pattern+"' AND wait_event_type = 'Lock'")
	}
}

// activeQuery waits for pglab's session to run a statement like pattern.
func activeQuery(pattern string) func(*proc, *pgx.Conn) {
	return func(p *proc, conn *pgx.Conn) {
		p.t.Helper()
		pollServer(p, conn, "a session running "+pattern,
			"SELECT 1 FROM pg_stat_activity WHERE query LIKE '"+pattern+"' AND state = 'active' AND pid <> pg_backend_pid()")
	}
}

// buildingIndex waits for an index build on table.
func buildingIndex(table string) func(*proc, *pgx.Conn) {
	return func(p *proc, conn *pgx.Conn) {
		p.t.Helper()
		pollServer(p, conn, "an index build on "+table,
			"SELECT 1 FROM pg_stat_progress_create_index WHERE relid = to_regclass('"+table+"')")
	}
}

// copyStreaming waits until pglab has streamed the first 100,000 rows of
// pgbench_accounts (its progress line): 1.4 million are still to come.
func copyStreaming(p *proc, _ *pgx.Conn) {
	p.t.Helper()
	p.waitStderr(`tuples \(\d+%\) of pgbench_accounts done`, 120*time.Second)
}

// killServer sends SIGKILL to a named instance's postmaster and, with all,
// to every process of the server (a crash of the machine or the OOM
// killer's work as the client sees it: no process left to say anything).
func killServer(t *testing.T, name string, all bool) {
	t.Helper()
	inst, err := pgserver.OpenNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	pm := inst.PID()
	if pm <= 0 {
		t.Fatalf("instance %s has no postmaster", name)
	}
	var children []int
	if all {
		children = childProcesses(pm)
	}
	if err := syscall.Kill(pm, syscall.SIGKILL); err != nil {
		t.Fatalf("kill postmaster %d: %v", pm, err)
	}
	for _, c := range children {
		syscall.Kill(c, syscall.SIGKILL)
	}
}

// childProcesses lists the processes whose parent is pid.
func childProcesses(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if c, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestFaultKillServerDuringStudy kills the postmaster of the study's server
// once measurements are stored, for a throwaway managed server (--versions)
// and for a named instance (--target NAME): exit 1 within seconds with the
// failing step named, the run stored as failed with the measurements made
// before, the throwaway server gone, the named instance's settings
// restored, and no process left.
func TestFaultKillServerDuringStudy(t *testing.T) {
	e := newFaultEnv(t)
	dsn := startInstance(t, "ks")
	studyArgs := []string{"study", "commit", "--param", "updates=3000", "--param", "rows=3000"}
	cases := []struct {
		name   string
		target []string
		server string // the target's name, as the error must say it
		kill   func(t *testing.T)
	}{
		{"versions", []string{"--versions", pgtest.DefaultVersion()}, "pg" + pgtest.DefaultVersion(), func(t *testing.T) {
			pid := postmasterUnder(e.tmp)
			if pid == 0 {
				t.Fatalf("no postmaster under %s", e.tmp)
			}
			syscall.Kill(pid, syscall.SIGKILL)
		}},
		{"target", []string{"--target", "ks"}, "ks", func(t *testing.T) { killInstance(t, "ks") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			args := append(append(append([]string{}, studyArgs...), c.target...), "--store", store)
			p := startPglab(t, e.vars(), args...)
			waitForMeasurements(t, store, 5, 90*time.Second)
			c.kill(t)
			code, took := p.exit(60 * time.Second)
			t.Logf("study %s: exit %d %v after SIGKILL", c.name, code, took)
			stderr := p.stderr.String()
			if code != 1 {
				t.Errorf("exit code %d, want 1; stderr:\n%s", code, stderr)
			}
			want := `^pglab: study commit: .* on ` + c.server + `, repetition \d+: lost the server ` + c.server +
				` \(127\.0\.0\.1:\d+\): the server (terminated the connection|closed the connection unexpectedly|refused the connection|is not accepting connections): `
			if last := lastLine(stderr); !regexp.MustCompile(want).MatchString(last) {
				t.Errorf("last line %q does not name the failed step, the lost server and how (want %s); stderr:\n%s", last, want, stderr)
			}
			if strings.Contains(stderr, "flush statistics: flush statistics") {
				t.Errorf("error context repeated: %s", stderr)
			}
			assertOneErrorLine(t, stderr)
			rec, ms := storedRun(t, store)
			if rec.Status != results.StatusFailed {
				t.Errorf("stored status %q, want failed", rec.Status)
			}
			if rec.Error == "" {
				t.Errorf("stored run has no error text")
			}
			if len(ms) < 5 {
				t.Errorf("%d measurements kept, want those made before the fault", len(ms))
			}
			assertNoProcesses(t, e.tmp)
		})
	}
	// The named instance: pglab put its settings back (it may have
	// restarted it to do so); nothing of the study's remains in
	// postgresql.auto.conf.
	inst, err := pgserver.OpenNamed("ks")
	if err != nil {
		t.Fatal(err)
	}
	if auto, err := os.ReadFile(filepath.Join(inst.DataDir(), "postgresql.auto.conf")); err == nil {
		for _, line := range strings.Split(string(auto), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") {
				t.Errorf("postgresql.auto.conf keeps a study setting: %q", line)
			}
		}
	}
	if inst.Running() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			var v string
			conn.QueryRow(context.Background(), "SELECT current_setting('track_wal_io_timing')").Scan(&v)
			conn.Close(context.Background())
			if v != "off" {
				t.Errorf("track_wal_io_timing = %q after the fault, want off", v)
			}
		}
	}
}
