package bench_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/bench/script"
	"github.com/pglab/pglab/internal/pgnet"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// initDB returns a DSN to a fresh database with the pgbench tables at scale 1.
func initDB(t testing.TB) string {
	t.Helper()
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	cfg, err := bench.ConnConfig(dsn, "", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := initdata.Run(context.Background(), cfg, initdata.Options{Scale: 1}, nil); err != nil {
		t.Fatal(err)
	}
	return dsn
}

func TestRunSelectOnly(t *testing.T) {
	dsn := initDB(t)
	cfg := bench.DefaultConfig()
	cfg.ConnString = dsn
	cfg.Scripts = []bench.ScriptSpec{bench.BuiltinSpec(script.Builtins()[2], 1)}
	cfg.Clients, cfg.Threads, cfg.Transactions = 3, 2, 40
	cfg.Mode = bench.QueryPrepared
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions != 120 || res.Failed != 0 || res.Aborted {
		t.Fatalf("transactions %d failed %d aborted %v", res.Transactions, res.Failed, res.Aborted)
	}
	if got := res.Histogram.TotalCount(); got != 120 {
		t.Errorf("histogram holds %d values, want 120", got)
	}
	if res.TPS <= 0 || res.TPSWithConnections <= 0 || res.TPSWithConnections > res.TPS {
		t.Errorf("tps %f, with connections %f", res.TPS, res.TPSWithConnections)
	}
	if !(res.LatencyP50Ms > 0 && res.LatencyP50Ms <= res.LatencyP99Ms && res.LatencyP99Ms <= res.LatencyMaxMs) {
		t.Errorf("percentiles p50 %f p99 %f max %f", res.LatencyP50Ms, res.LatencyP99Ms, res.LatencyMaxMs)
	}
	if res.Scale != 1 || res.TransactionType != "<builtin: select only>" || res.Threads != 2 {
		t.Errorf("scale %d type %q threads %d", res.Scale, res.TransactionType, res.Threads)
	}
	var out bytes.Buffer
	if err := res.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "number of transactions actually processed: 120/120\n") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func TestRunPortablePath(t *testing.T) {
	dsn := initDB(t)
	for _, mode := range []bench.QueryMode{bench.QuerySimple, bench.QueryPrepared} {
		cfg := bench.DefaultConfig()
		cfg.ConnString = dsn
		cfg.Clients, cfg.Threads, cfg.Transactions = 4, 2, 30
		cfg.Mode = mode
		cfg.Portable = true
		cfg.ReportPerCommand = true
		cfg.Progress = time.Second
		res, err := bench.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Transactions != 120 || res.Aborted || res.Histogram.TotalCount() != 120 {
			t.Errorf("%v: transactions %d aborted %v", mode, res.Transactions, res.Aborted)
		}
		if n := len(res.Scripts[0].Commands); n != 11 {
			t.Errorf("%d per-command rows, want 11", n)
		}
	}
}

func TestRunProgressAndRate(t *testing.T) {
	dsn := initDB(t)
	for _, portable := range []bool{false, true} {
		t.Run(map[bool]string{false: "raw", true: "portable"}[portable], func(t *testing.T) {
			testProgressAndRate(t, dsn, portable)
		})
	}
}

func testProgressAndRate(t *testing.T, dsn string, portable bool) {
	cfg := bench.DefaultConfig()
	cfg.Portable = portable
	cfg.ConnString = dsn
	cfg.Scripts = []bench.ScriptSpec{bench.BuiltinSpec(script.Builtins()[2], 1)}
	cfg.Clients, cfg.Threads = 2, 2
	cfg.Duration = 3 * time.Second
	cfg.Progress = time.Second
	cfg.Rate = 200
	cfg.NoVacuum = true
	var ticks int
	cfg.OnProgress = func(bench.ProgressTick) { ticks++ }
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Progress) != 2 || ticks != 2 {
		t.Errorf("%d progress ticks (%d callbacks), want 2 for -T 3 -P 1", len(res.Progress), ticks)
	}
	// 200 tps for about 3 s: a Poisson schedule, so allow a wide margin.
	if res.Transactions < 400 || res.Transactions > 800 {
		t.Errorf("%d transactions at -R 200 -T 3", res.Transactions)
	}
	if !strings.Contains(stderr.String(), "progress: 1.0 s, ") || !strings.Contains(stderr.String(), " lag ") {
		t.Errorf("progress lines:\n%s", stderr.String())
	}
}

func TestRunAbortedClient(t *testing.T) {
	dsn := initDB(t)
	cfg := bench.DefaultConfig()
	cfg.ConnString = dsn
	cfg.Scripts = []bench.ScriptSpec{{Desc: "bad.sql", Text: "select 1;\nselect * from no_such_table;\n", Weight: 1}}
	cfg.NoVacuum = true
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Aborted || res.Transactions != 0 || res.LostClients != 0 {
		t.Errorf("aborted %v transactions %d lost clients %d", res.Aborted, res.Transactions, res.LostClients)
	}
	want := `pglab: error: client 0 script 0 aborted in command 1 query 0: ERROR:  relation "no_such_table" does not exist`
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	cfg.ExitOnAbort = true
	if _, err := bench.Run(context.Background(), cfg); err == nil || err.Error() != "Run was aborted due to an error in thread 0" {
		t.Errorf("--exit-on-abort: err %v", err)
	}
}

// TestRun2000Clients runs 2,000 clients from one process against a server
// whose max_connections is raised accordingly.
func TestRun2000Clients(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 connections take a while; not in -short mode")
	}
	set, err := pgserver.ParseSetting("max_connections=2100")
	if err != nil {
		t.Fatal(err)
	}
	inst := pgtest.New(t, pgtest.Options{Settings: []pgserver.Setting{set}})
	dsn := pgtest.CreateDB(t, inst)
	pcfg, err := bench.ConnConfig(dsn, "", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := initdata.Run(context.Background(), pcfg, initdata.Options{Scale: 1}, nil); err != nil {
		t.Fatal(err)
	}
	cfg := bench.DefaultConfig()
	cfg.ConnString = dsn
	cfg.Scripts = []bench.ScriptSpec{bench.BuiltinSpec(script.Builtins()[2], 1)}
	cfg.Clients, cfg.Threads, cfg.Transactions = 2000, 2, 3
	cfg.Mode = bench.QueryPrepared
	cfg.NoVacuum = true
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions != 6000 || res.Aborted {
		t.Fatalf("transactions %d aborted %v", res.Transactions, res.Aborted)
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	t.Logf("2000 clients: initial connection time %.0f ms, tps %.0f, peak RSS of the test process %d MB", res.ConnMs, res.TPS, ru.Maxrss/1024)
}

// TestRunServerDies stops the server in the middle of a run: clients abort
// with libpq's message, the run ends with partial figures, and no thread
// spins on the dead sockets.
func TestRunServerDies(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{})
	dsn := pgtest.CreateDB(t, inst)
	cfg := bench.DefaultConfig()
	cfg.ConnString = dsn
	cfg.Scripts = []bench.ScriptSpec{{Desc: "sleepy.sql", Text: "select 1;\n\\sleep 200 ms\n", Weight: 1}}
	cfg.Clients, cfg.Threads = 4, 2
	cfg.Duration = 20 * time.Second
	cfg.NoVacuum = true
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	// The server stops once every client has run its first query (the
	// summary must have transactions: a fixed delay was too short for a
	// loaded machine's connection set-up).
	watch := pgtest.Connect(t, dsn)
	stopped := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			var n int
			err := watch.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'select 1%'").Scan(&n)
			if err != nil {
				stopped <- err
				return
			}
			if n == cfg.Clients {
				stopped <- inst.Stop(context.Background())
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		stopped <- errors.New("the clients never ran their first query")
	}()
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if err := <-stopped; err != nil {
		t.Fatalf("stopping the server: %v", err)
	}
	if !res.Aborted || res.Transactions == 0 {
		t.Errorf("aborted %v transactions %d", res.Aborted, res.Transactions)
	}
	// Every client lost the server, and the result says how.
	if how, ok := pgnet.Lost(res.Lost); res.LostClients != cfg.Clients || how != pgnet.LostTerminated {
		t.Errorf("lost clients %d (want %d), Lost(%v) = %q, %v", res.LostClients, cfg.Clients, res.Lost, how, ok)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the run went on for %v after the server stopped", time.Since(start))
	}
	// pgbench reports the server's FATAL, as libpq returns it
	want := "aborted in command 0 query 0: FATAL:  terminating connection due to administrator command"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	if wall := time.Since(start); cpu > wall {
		t.Errorf("%v of CPU in %v: something spun", cpu, wall)
	}
}

func TestConnConfig(t *testing.T) {
	cases := []struct {
		conn, host, port, user, db string
		wantHost, wantDB, wantUser string
		wantPort                   uint16
	}{
		{"postgres://u:p@h1:5433/d1", "", "", "", "", "h1", "d1", "u", 5433},
		{"postgres://u:p@h1:5433/d1", "h2", "6000", "v", "d2", "h2", "d2", "v", 6000},
		{"host=h1 port=5433 dbname=d1 user=u", "", "", "", "d2", "h1", "d2", "u", 5433},
		{"mydb", "h3", "", "w", "", "h3", "mydb", "w", 5432},
		{"", "h3", "", "w", "host=h4 dbname=d4", "h3", "d4", "w", 5432},
	}
	for _, tc := range cases {
		cfg, err := bench.ConnConfig(tc.conn, tc.host, tc.port, tc.user, tc.db)
		if err != nil {
			t.Errorf("%q: %v", tc.conn, err)
			continue
		}
		if cfg.Host != tc.wantHost || cfg.Database != tc.wantDB || cfg.User != tc.wantUser || cfg.Port != tc.wantPort {
			t.Errorf("%q %q %q %q %q: host %q db %q user %q port %d", tc.conn, tc.host, tc.port, tc.user, tc.db, cfg.Host, cfg.Database, cfg.User, cfg.Port)
		}
	}
}

// BenchmarkSelectOnlyPrepared measures the whole client path per
// transaction (encode, write, epoll, read, decode, stats) against a real
// server: select-only, -M prepared, 2 clients on 1 thread.
func BenchmarkSelectOnlyPrepared(b *testing.B) {
	benchmarkBuiltin(b, 2, bench.QueryPrepared)
}

// BenchmarkSelectOnlyPrepared8x2 is the shape of the performance budget
// (-c 8 -j 2): with two CPUs or more the threads are pinned and the
// connections placed by their backend's CPU.
func BenchmarkSelectOnlyPrepared8x2(b *testing.B) {
	benchmarkClients(b, 2, bench.QueryPrepared, 8, 2)
}

// BenchmarkTPCBPrepared is the same for the tpcb-like builtin.
func BenchmarkTPCBPrepared(b *testing.B) {
	benchmarkBuiltin(b, 0, bench.QueryPrepared)
}

// BenchmarkSelectOnlySimple uses the simple protocol (text substitution).
func BenchmarkSelectOnlySimple(b *testing.B) {
	benchmarkBuiltin(b, 2, bench.QuerySimple)
}

func benchmarkBuiltin(b *testing.B, builtin int, mode bench.QueryMode) {
	benchmarkClients(b, builtin, mode, 2, 1)
}

func benchmarkClients(b *testing.B, builtin int, mode bench.QueryMode, clients, threads int) {
	dsn := initDB(b)
	cfg := bench.DefaultConfig()
	cfg.ConnString = dsn
	cfg.Scripts = []bench.ScriptSpec{bench.BuiltinSpec(script.Builtins()[builtin], 1)}
	cfg.Clients, cfg.Threads = clients, threads
	cfg.Mode = mode
	cfg.NoVacuum = true
	cfg.Transactions = max(b.N/clients, 1)
	b.ReportAllocs()
	b.ResetTimer()
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if res.Aborted {
		b.Fatal("aborted")
	}
	b.ReportMetric(res.TPS, "tps")
}
