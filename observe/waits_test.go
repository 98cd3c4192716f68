package observe

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestWaitSampler samples a session sleeping in pg_sleep and one waiting
// for a row lock, for the same time: both events, about half each, and
// nothing from idle sessions or the sampler itself.
func TestWaitSampler(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			inst := pgtest.Shared(t, v)
			dsn := pgtest.CreateDB(t, inst)
			holder := pgtest.Connect(t, dsn)
			waiter := pgtest.Connect(t, dsn)
			sleeper := pgtest.Connect(t, dsn)
			observer := pgtest.Connect(t, dsn)
			exec(t, holder, "CREATE TABLE t (id int PRIMARY KEY)")
			exec(t, holder, "INSERT INTO t VALUES (1)")
			if err := Flush(ctx, holder); err != nil {
				t.Fatal(err)
			}
			before, err := Snapshot(ctx, observer)
			if err != nil {
				t.Fatal(err)
			}

			s, err := StartWaits(ctx, dsn, 20*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			exec(t, holder, "BEGIN")
			exec(t, holder, "UPDATE t SET id = 1")
			waitDone := make(chan error, 1)
			go func() {
				_, err := waiter.Exec(ctx, "UPDATE t SET id = 1")
				waitDone <- err
			}()
			exec(t, sleeper, "SELECT pg_sleep(1.5)")
			exec(t, holder, "ROLLBACK")
			if err := <-waitDone; err != nil {
				t.Fatal(err)
			}
			p, err := s.Stop()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("PostgreSQL %s: %d samples, %.2f active sessions: %+v", v, p.Samples, p.ActiveSessions(), p.Events)

			if p.Samples < 20 {
				t.Errorf("%d samples in 1.5 s at 20 ms", p.Samples)
			}
			shares := map[string]float64{}
			for _, e := range p.Events {
				shares[e.Event] = e.Pct
				// An idle session would be in every sample (about half of
				// them, like each of the two); a statement's own session
				// is active in ClientRead for a moment between the messages
				// of the extended protocol (1 sample of 150 seen in CI).
				if strings.HasPrefix(e.Event, "Client:") && e.Pct >= 5 {
					t.Errorf("an idle session counted: %+v", e)
				}
			}
			sleep, lock := shares["Timeout:PgSleep"], shares["Lock:transactionid"]
			if sleep < 30 || lock < 30 || sleep+lock < 85 {
				t.Errorf("pg_sleep %.1f %%, lock %.1f %%: want about half each", sleep, lock)
			}
			// One session slept 1.5 s of the sampled time.
			if d := p.Time("timeout:pgsleep"); d < time.Second || d > 2*time.Second {
				t.Errorf("time in pg_sleep estimated at %v, want about 1.5 s", d)
			}
			if d := p.Time("IPC:SyncRep"); d != 0 {
				t.Errorf("time in an event never seen: %v", d)
			}
			if top := p.Top(1); len(top) != 1 || top[0].Event != "Timeout:PgSleep" && top[0].Event != "Lock:transactionid" {
				t.Errorf("top %+v", top)
			}
			if a := p.ActiveSessions(); a < 1.5 || a > 2.5 {
				t.Errorf("%.2f active sessions, want about 2", a)
			}
			m := metricsOf(p.Metrics(2))
			if len(m) != 4 || m["wait_samples"] != float64(p.Samples) {
				t.Errorf("metrics %v", m)
			}

			// The sampler read hundreds of samples in one transaction.
			after, err := Snapshot(ctx, observer)
			if err != nil {
				t.Fatal(err)
			}
			d := metricsOf(Diff(before, after))
			// holder's update and rollback, waiter's update, sleeper,
			// the sampler's one transaction, the before-snapshot.
			if c := d["xact_commit"] + d["xact_rollback"]; c > 8 {
				t.Errorf("%v commits and %v rollbacks while sampling %d times", d["xact_commit"], d["xact_rollback"], p.Samples)
			}
		})
	}
}

// TestWaitSamplerCPU: a busy PL/pgSQL loop shows as CPU.
func TestWaitSamplerCPU(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	busy := pgtest.Connect(t, dsn)
	s, err := StartWaits(ctx, dsn, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	exec(t, busy, `DO $$DECLARE x bigint := 0; t0 timestamptz := clock_timestamp();
		BEGIN WHILE clock_timestamp() < t0 + interval '800 ms' LOOP x := x + 1; END LOOP; END$$`)
	busyFor := time.Since(start)
	p, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v busy: %+v", busyFor, p.Events)
	if top := p.Top(1); len(top) != 1 || top[0].Event != CPUEvent || top[0].Pct < 80 {
		t.Errorf("top %+v, want CPU", top)
	}
}

func TestStartWaitsBadDSN(t *testing.T) {
	if _, err := StartWaits(context.Background(), "postgres://127.0.0.1:1/x?connect_timeout=2", 0); err == nil || !strings.Contains(err.Error(), "wait sampler") {
		t.Errorf("err %v", err)
	}
}

// BenchmarkWaitSamplerCost samples an idle server at the default interval
// for a second per iteration and reports the CPU time of this process
// (client) and of the sampler's server backend, each as a share of one
// CPU, after start-up (connecting and authenticating are left out). Run
// with -benchtime 20x for 20 seconds.
func BenchmarkWaitSamplerCost(b *testing.B) {
	ctx := context.Background()
	dsn := pgtest.CreateDB(b, pgtest.Shared(b, ""))
	s, err := StartWaits(ctx, dsn, 0)
	if err != nil {
		b.Fatal(err)
	}
	pid := int(s.conn.PgConn().PID())
	time.Sleep(200 * time.Millisecond)
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	cpu0 := procCPU(b, pid)
	start := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(time.Second)
	}
	wall := time.Since(start)
	cpu1 := procCPU(b, pid)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	p, err := s.Stop()
	if err != nil {
		b.Fatal(err)
	}
	clientCPU := time.Duration(after.Utime.Nano()-before.Utime.Nano()) + time.Duration(after.Stime.Nano()-before.Stime.Nano())
	b.ReportMetric(100*clientCPU.Seconds()/wall.Seconds(), "client-cpu%")
	b.ReportMetric(100*(cpu1-cpu0).Seconds()/wall.Seconds(), "server-cpu%")
	b.ReportMetric(float64(p.Samples)/wall.Seconds(), "samples/s")
}

// procCPU returns a process's user+system CPU time from /proc/PID/stat.
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ = 100
}
