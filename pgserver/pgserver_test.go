package pgserver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func show(t *testing.T, inst *pgserver.Instance, name string) string {
	t.Helper()
	conn := pgtest.Connect(t, inst.DSN())
	return pgtest.QueryString(t, conn, "SELECT current_setting($1)", name)
}

// TestVersions starts a server of every test version with the same
// explicit initdb choices and checks what each reports.
func TestVersions(t *testing.T) {
	for _, v := range pgtest.Versions() {
		t.Run("pg"+v, func(t *testing.T) {
			inst := pgtest.New(t, pgtest.Options{Version: v, Settings: []pgserver.Setting{{Name: "shared_buffers", Value: "64MB"}, {Name: "work_mem", Value: "8MB"}}})
			conn := pgtest.Connect(t, inst.DSN())
			num := pgtest.QueryString(t, conn, "SELECT current_setting('server_version_num')")
			if !strings.HasPrefix(num, v) {
				t.Errorf("server_version_num = %s, want %s…", num, v)
			}
			for name, want := range map[string]string{
				"shared_buffers":          "64MB",
				"work_mem":                "8MB",
				"data_checksums":          "off",
				"server_encoding":         "UTF8",
				"listen_addresses":        "127.0.0.1",
				"unix_socket_permissions": "0700",
				"password_encryption":     "scram-sha-256",
			} {
				if got := pgtest.QueryString(t, conn, "SELECT current_setting($1)", name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if got := pgtest.QueryString(t, conn, "SELECT datcollate FROM pg_database WHERE datname = current_database()"); got != "C" {
				t.Errorf("datcollate = %q, want C", got)
			}
			if got := pgtest.QueryString(t, conn, "SELECT current_database()"); got != "pglab" {
				t.Errorf("database = %q, want pglab", got)
			}
			st, err := os.Stat(inst.SocketDir())
			if err != nil || st.Mode().Perm() != 0o700 {
				t.Errorf("socket dir mode = %v (%v), want 0700", st.Mode().Perm(), err)
			}
			st, err = os.Stat(filepath.Join(inst.Dir(), "password"))
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("password file mode = %v (%v), want 0600", st.Mode().Perm(), err)
			}
			// A wrong password is refused: TCP auth is scram-sha-256, not trust.
			bad := strings.Replace(inst.DSN(), inst.Password(), "wrong"+inst.Password(), 1)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if c, err := pgx.Connect(ctx, bad); err == nil {
				c.Close(ctx)
				t.Errorf("connected with a wrong password")
			} else if !strings.Contains(err.Error(), "password authentication failed") {
				t.Errorf("wrong password: %v", err)
			}
		})
	}
}

func TestChecksumsExplicit(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{Checksums: true})
	if got := show(t, inst, "data_checksums"); got != "on" {
		t.Errorf("data_checksums = %s, want on", got)
	}
}

// TestChecksumsOff18 checks that PostgreSQL 18, whose initdb turns
// checksums on by default, gets them off like every other version.
func TestChecksumsOff18(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{Version: "18"})
	if got := show(t, inst, "data_checksums"); got != "off" {
		t.Errorf("PostgreSQL 18 data_checksums = %s, want off", got)
	}
}

func TestRestartAppliesSettings(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{})
	port := inst.Port()
	ctx := context.Background()
	if err := inst.RestartWith(ctx, []pgserver.Setting{{Name: "shared_buffers", Value: "48MB"}}); err != nil {
		t.Fatal(err)
	}
	if got := show(t, inst, "shared_buffers"); got != "48MB" {
		t.Errorf("after restart shared_buffers = %s, want 48MB", got)
	}
	if inst.Port() != port {
		t.Logf("port changed %d -> %d (was taken)", port, inst.Port())
	}
	err := inst.RestartWith(ctx, []pgserver.Setting{{Name: "shared_buffers", Value: "lots"}})
	var se *pgserver.SettingError
	if !errors.As(err, &se) {
		t.Fatalf("restart with a bad value: %v, want a SettingError", err)
	}
	if !inst.Running() {
		t.Errorf("a refused restart stopped the server")
	}
	// Back to no settings of its own: shared_buffers returns to initdb's.
	if err := inst.RestartWith(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := show(t, inst, "shared_buffers"); got == "48MB" {
		t.Errorf("RestartWith(nil) kept shared_buffers = 48MB")
	}
	if err := inst.Restart(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestBadSettings(t *testing.T) {
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	cases := []struct {
		set  pgserver.Setting
		want string
	}{
		{pgserver.Setting{Name: "no_such_param", Value: "1"}, `unrecognized configuration parameter "no_such_param"`},
		{pgserver.Setting{Name: "shared_buffers", Value: "lots"}, `invalid value for parameter "shared_buffers": "lots"`},
		{pgserver.Setting{Name: "work_mem", Value: "-5"}, `outside the valid range for parameter "work_mem"`},
	}
	for _, c := range cases {
		t.Run(c.set.Name, func(t *testing.T) {
			root := pgtest.TempDir(t)
			t.Setenv("PGLAB_TMPDIR", root)
			_, err := pgserver.Start(context.Background(), pgserver.Options{Binaries: b, Settings: []pgserver.Setting{c.set}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "--set "+c.set.String()+": ") {
				t.Errorf("err = %q, want it to name the setting", err)
			}
			if ents, _ := os.ReadDir(root); len(ents) != 0 {
				t.Errorf("a failed start left %d entries in %s", len(ents), root)
			}
		})
	}
}

// TestStartFailureQuotesLog checks that a server refusing to start gives
// an error quoting its log, and leaves nothing running.
// TestUnreachableDir checks that an instance directory the server user
// cannot reach is a clear error, not a failure deep inside initdb.
func TestUnreachableDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("not root: the server runs as this user, who can reach its own directories")
		return
	}
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	closed := t.TempDir() // 0700, owned by root
	_, err := pgserver.Start(context.Background(), pgserver.Options{Binaries: b, Dir: filepath.Join(closed, "x", "inst")})
	if err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("err = %v, want 'cannot reach'", err)
	}
}

func TestStartFailureQuotesLog(t *testing.T) {
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	root := pgtest.TempDir(t)
	t.Setenv("PGLAB_TMPDIR", root)
	_, err := pgserver.Start(context.Background(), pgserver.Options{Binaries: b, Settings: []pgserver.Setting{
		{Name: "max_connections", Value: "3"}, {Name: "superuser_reserved_connections", Value: "5"},
	}})
	if err == nil || !strings.Contains(err.Error(), "server log:") || !strings.Contains(err.Error(), "superuser_reserved_connections") {
		t.Fatalf("err = %v, want the server log quoted", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("a failed start left %d entries", len(ents))
	}
}

// TestCancelStopsServer checks that cancelling the context passed to Start
// stops the server.
func TestCancelStopsServer(t *testing.T) {
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: b})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Destroy(context.Background())
	pid := inst.PID()
	cancel()
	deadline := time.Now().Add(30 * time.Second)
	for processRunning(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if processRunning(pid) {
		t.Fatalf("postmaster %d still running after cancel", pid)
	}
}

// TestCancelDuringStart cancels at several points of a start and checks
// that nothing is left behind.
func TestCancelDuringStart(t *testing.T) {
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	for _, d := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
		root := pgtest.TempDir(t)
		t.Setenv("PGLAB_TMPDIR", root)
		ctx, cancel := context.WithTimeout(context.Background(), d)
		inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: b})
		cancel()
		if err == nil {
			inst.Destroy(context.Background())
			continue
		}
		if left := serverProcesses(root); len(left) > 0 {
			t.Errorf("cancel after %v: processes left: %v", d, left)
		}
		if ents, _ := os.ReadDir(root); len(ents) != 0 {
			t.Errorf("cancel after %v: %d entries left in %s", d, len(ents), root)
		}
	}
}

func TestNamedInstances(t *testing.T) {
	state := pgtest.TempDir(t)
	t.Setenv("XDG_STATE_HOME", state)
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	ctx := context.Background()
	inst, err := pgserver.StartNamed(ctx, pgserver.Options{Binaries: b, Name: "n1", Settings: []pgserver.Setting{{Name: "shared_buffers", Value: "32MB"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Destroy(context.Background()) })
	if _, err := pgserver.StartNamed(ctx, pgserver.Options{Binaries: b, Name: "n1"}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second start: %v, want 'already running'", err)
	}
	again, err := pgserver.OpenNamed("n1")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Running() || again.PID() != inst.PID() || again.DSN() != inst.DSN() {
		t.Errorf("OpenNamed: running=%v pid=%d dsn match=%v", again.Running(), again.PID(), again.DSN() == inst.DSN())
	}
	list, err := pgserver.ListNamed()
	if err != nil || len(list) != 1 || list[0].Name() != "n1" {
		t.Fatalf("ListNamed = %v, %v", list, err)
	}
	pid := inst.PID()
	if err := again.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if processRunning(pid) {
		t.Fatalf("postmaster %d still running after stop", pid)
	}
	// Starting it again keeps its data and password.
	re, err := pgserver.StartNamed(ctx, pgserver.Options{Binaries: b, Name: "n1", Settings: []pgserver.Setting{{Name: "shared_buffers", Value: "40MB"}}})
	if err != nil {
		t.Fatal(err)
	}
	if re.Password() != inst.Password() {
		t.Errorf("password changed across restarts")
	}
	if got := show(t, re, "shared_buffers"); got != "40MB" {
		t.Errorf("shared_buffers = %s, want 40MB", got)
	}
	if _, err := pgserver.OpenNamed("nope"); !errors.Is(err, pgserver.ErrNoInstance) {
		t.Errorf("OpenNamed(nope) = %v", err)
	}
	if err := re.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStartNamedAfterKill starts a named instance again after its
// postmaster was killed with SIGKILL (a crash, the OOM killer): the
// killed server's postmaster.pid says "ready" until the new postmaster
// replaces it, and the start must wait for its own server's status (it
// tried the new port at once and failed with "ready but not accepting
// connections").
func TestStartNamedAfterKill(t *testing.T) {
	state := pgtest.TempDir(t)
	t.Setenv("XDG_STATE_HOME", state)
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	ctx := context.Background()
	for round := 0; round < 3; round++ {
		inst, err := pgserver.StartNamed(ctx, pgserver.Options{Binaries: b, Name: "k1"})
		if err != nil {
			t.Fatalf("start %d after SIGKILL: %v", round, err)
		}
		t.Cleanup(func() { inst.Destroy(context.Background()) })
		if got := show(t, inst, "port"); got == "" {
			t.Fatalf("start %d: no port", round)
		}
		pid := inst.PID()
		procs := append(childPIDs(pid), pid)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// The server's other processes notice their postmaster's death
		// and exit (a new postmaster refuses the shared memory they still
		// hold), and this process, its parent, reaps it (a new postmaster
		// takes a zombie's PID in postmaster.pid for a running server).
		deadline := time.Now().Add(30 * time.Second)
		for slices.ContainsFunc(procs, processExists) {
			if time.Now().After(deadline) {
				t.Fatalf("processes of the killed server left: %v", procs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// processExists reports whether pid exists, a zombie included.
func processExists(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}

// childPIDs lists the processes whose parent is pid.
func childPIDs(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if c, err := strconv.Atoi(e.Name()); err == nil && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, c)
		}
	}
	return out
}

func processRunning(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	return i > 0 && i+2 < len(data) && data[i+2] != 'Z'
}

// serverProcesses lists live processes whose command line mentions dir.
func serverProcesses(dir string) []string { return pgtest.ProcessesUnder(dir) }

// TestServerSurvivesRetiredThreads retires many OS threads of this process
// (goroutines that end while locked to their thread, as pinned bench
// threads may) after a server was started with its parent-death signal:
// Linux sends that signal when the forking thread ends, so the server must
// have been started from a thread that cannot be retired before it exits.
func TestServerSurvivesRetiredThreads(t *testing.T) {
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	inst, err := startOffMainThread(b)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Destroy(context.Background())
	pid := inst.PID()
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		for k := 0; k < 2*runtime.NumCPU()+4; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				time.Sleep(time.Millisecond)
				// Ends locked: the runtime terminates this thread.
			}()
		}
		wg.Wait()
	}
	time.Sleep(200 * time.Millisecond)
	if !processRunning(pid) {
		t.Fatalf("postmaster %d was stopped when threads of this process ended; server log:\n%s", pid, inst.LogTail(10))
	}
	conn := pgtest.Connect(t, inst.DSN())
	if got := pgtest.QueryString(t, conn, "SELECT 'alive'"); got != "alive" {
		t.Fatalf("server answered %q", got)
	}
}

// startOffMainThread calls pgserver.Start from a thread other than the
// process's main one (which the runtime never retires), then hands that
// thread back to the runtime's pool, where the next goroutine to lock and
// end may take it.
func startOffMainThread(b *pgserver.Binaries) (*pgserver.Instance, error) {
	type result struct {
		inst *pgserver.Instance
		err  error
	}
	res := make(chan result, 1)
	var try func()
	try = func() {
		runtime.LockOSThread()
		if syscall.Gettid() == syscall.Getpid() {
			go try() // started while this goroutine holds the main thread
			time.Sleep(10 * time.Millisecond)
			runtime.UnlockOSThread()
			return
		}
		inst, err := pgserver.Start(context.Background(), pgserver.Options{Binaries: b})
		runtime.UnlockOSThread()
		res <- result{inst, err}
	}
	go try()
	r := <-res
	return r.inst, r.err
}

// spin runs an endless PL/pgSQL loop on a connection of its own, and
// returns once the server shows it active. A backend running it never
// notices its postmaster's death (no wait, no latch): it stays until
// something ends it, as a parallel worker waiting for a killed leader.
func spin(t *testing.T, dsn string) {
	t.Helper()
	conn := pgtest.Connect(t, dsn)
	watch := pgtest.Connect(t, dsn)
	go conn.Exec(context.Background(), "DO $$ BEGIN LOOP PERFORM 1; END LOOP; END $$")
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := watch.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'DO $$%' AND state = 'active'").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the loop did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killPostmaster sends SIGKILL to inst's postmaster and waits until it is
// gone (reaped, or a zombie).
func killPostmaster(t *testing.T, inst *pgserver.Instance) {
	t.Helper()
	pid := inst.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for processRunning(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("postmaster %d still runs after SIGKILL", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStopEndsWhatAKilledPostmasterLeft kills the postmaster of a named
// instance while a backend spins: the backend lives on (parent 1, its own
// session), FindStrays names it, and Stop of the instance opened afresh
// (as 'pglab pg stop' does) ends it, says so and leaves no process in the
// instance's directory; the same for a throwaway instance closed by its
// owner.
func TestStopEndsWhatAKilledPostmasterLeft(t *testing.T) {
	state := pgtest.TempDir(t)
	t.Setenv("XDG_STATE_HOME", state)
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	ctx := context.Background()
	named, err := pgserver.StartNamed(ctx, pgserver.Options{Binaries: b, Name: "left"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { named.Destroy(context.Background()) })
	spin(t, named.DSN())
	killPostmaster(t, named)
	strays, err := pgserver.FindStrays()
	if err != nil {
		t.Fatal(err)
	}
	if len(strays) != 1 || strays[0].Name != "left" || !strings.Contains(strays[0].String(), "'pglab pg stop left'") {
		t.Errorf("strays after the kill: %v", strays)
	}
	reopened, err := pgserver.OpenNamed("left")
	if err != nil {
		t.Fatal(err)
	}
	if reopened.Running() {
		t.Errorf("a killed instance reads as running")
	}
	assertStopEnds(t, reopened)

	throwaway := pgtest.New(t, pgtest.Options{})
	spin(t, throwaway.DSN())
	killPostmaster(t, throwaway)
	assertStopEnds(t, throwaway)
}

// assertStopEnds stops inst and checks that the spinning backend was
// ended, said so, within 10 s, and that nothing of inst is left.
func assertStopEnds(t *testing.T, inst *pgserver.Instance) {
	t.Helper()
	var said []string
	inst.SetProgress(func(s string) { said = append(said, s) })
	start := time.Now()
	if err := inst.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("stop %s: %v: %s", inst.Name(), took, strings.Join(said, "; "))
	if took > 10*time.Second {
		t.Errorf("stop took %v, want within 10 s", took)
	}
	ended := inst.Ended()
	if !slices.ContainsFunc(ended, func(p pgserver.Process) bool { return strings.Contains(p.Cmd, "DO") }) {
		t.Errorf("the spinning backend is not among those ended: %v", ended)
	}
	if len(said) != 1 || !strings.Contains(said[0], "ended ") || !strings.Contains(said[0], "outlived its postmaster") {
		t.Errorf("stop said %q, want what it ended", said)
	}
	if left := pgtest.ProcessesUnder(inst.Dir()); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
	if procs, err := inst.Processes(); err != nil || len(procs) > 0 {
		t.Errorf("Processes after stop: %v %v", procs, err)
	}
}
