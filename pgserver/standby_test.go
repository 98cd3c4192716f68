package pgserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func startStandby(t *testing.T, primary *pgserver.Instance, opts pgserver.StandbyOptions) *pgserver.Standby {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := primary.StartStandby(ctx, opts)
	if err != nil {
		t.Fatalf("start standby: %v", err)
	}
	t.Cleanup(func() { sb.Stop(context.Background()) })
	return sb
}

func replicationRow(t *testing.T, conn *pgx.Conn, name string) (state, sync string) {
	t.Helper()
	err := conn.QueryRow(context.Background(), "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1", name).Scan(&state, &sync)
	if err != nil {
		t.Fatalf("pg_stat_replication row of %s: %v", name, err)
	}
	return state, sync
}

func noProcessesLeft(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := pgtest.ProcessesUnder(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left under %s: %v", dir, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStandbySync(t *testing.T) {
	primary := pgtest.New(t, pgtest.Options{})
	sb := startStandby(t, primary, pgserver.StandbyOptions{Sync: true, SynchronousCommit: "remote_apply", RTT: 2 * time.Millisecond})
	if sb.Name() != primary.Name()+"-standby" || sb.Proxy() == nil || sb.Proxy().RTT() != 2*time.Millisecond {
		t.Fatalf("standby %s, proxy %v", sb.Name(), sb.Proxy())
	}
	conn := pgtest.Connect(t, primary.DSN())
	if state, sync := replicationRow(t, conn, sb.Name()); state != "streaming" || sync != "sync" {
		t.Fatalf("standby state %s, sync_state %s", state, sync)
	}
	if got := pgtest.QueryString(t, conn, "SHOW synchronous_standby_names"); got != `"`+sb.Name()+`"` {
		t.Fatalf("synchronous_standby_names = %q", got)
	}
	if got := pgtest.QueryString(t, conn, "SHOW synchronous_commit"); got != "remote_apply" {
		t.Fatalf("synchronous_commit = %q", got)
	}
	// A commit waits for the standby's replay: it returns after its
	// round trip, and the standby has replayed it.
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 2*time.Millisecond {
		t.Fatalf("a synchronous commit through a 2 ms round trip took %v", d)
	}
	var replayed bool
	if err := conn.QueryRow(ctx, "SELECT replay_lsn >= pg_current_wal_insert_lsn() - 1000000 AND replay_lsn IS NOT NULL FROM pg_stat_replication WHERE application_name = $1", sb.Name()).Scan(&replayed); err != nil || !replayed {
		t.Fatalf("replay position: %v %v", replayed, err)
	}

	// A restart of the primary: the standby streams again before Restart
	// returns, and commits go on.
	if err := primary.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn = pgtest.Connect(t, primary.DSN())
	if state, sync := replicationRow(t, conn, sb.Name()); state != "streaming" || sync != "sync" {
		t.Fatalf("after a restart: standby state %s, sync_state %s", state, sync)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}

	dir, pxPID := sb.Instance().Dir(), sb.Proxy().PID()
	if err := sb.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	noProcessesLeft(t, dir)
	if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pxPID))); err == nil {
		t.Fatalf("the replication proxy (pid %d) outlived the standby", pxPID)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("standby directory left: %v", err)
	}
	conn = pgtest.Connect(t, primary.DSN())
	if got := pgtest.QueryString(t, conn, "SHOW synchronous_standby_names"); got != "" {
		t.Fatalf("after Stop, synchronous_standby_names = %q", got)
	}
	if got := pgtest.QueryString(t, conn, "SELECT count(*)::text FROM pg_replication_slots"); got != "0" {
		t.Fatalf("replication slots left: %s", got)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if primary.Standby() != nil {
		t.Fatal("the primary still names a standby")
	}
}

func TestStandbyDeathEndsTheWait(t *testing.T) {
	primary := pgtest.New(t, pgtest.Options{})
	sb := startStandby(t, primary, pgserver.StandbyOptions{Sync: true, RTT: time.Millisecond})
	conn := pgtest.Connect(t, primary.DSN())
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	// Commits go on in a loop while the standby is killed.
	stop := make(chan struct{})
	loopDone := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				loopDone <- nil
				return
			default:
			}
			if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
				loopDone <- err
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	killed := time.Now()
	if err := syscall.Kill(sb.Instance().PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sb.Failed():
	case <-time.After(15 * time.Second):
		t.Fatal("the standby's death was not noticed within 15 s")
	}
	t.Logf("noticed after %v: %v", time.Since(killed), sb.Err())
	if err := sb.Err(); err == nil || !strings.Contains(err.Error(), "standby "+sb.Name()) {
		t.Fatalf("Err() = %v, want it to name the standby", err)
	}
	// No commit waits for the dead standby: the loop stops when asked.
	close(stop)
	select {
	case err := <-loopDone:
		if err != nil {
			t.Fatalf("commit loop: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a commit still waits for the dead standby")
	}
	dir := sb.Instance().Dir()
	if err := sb.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	noProcessesLeft(t, dir)
	if got := pgtest.QueryString(t, pgtest.Connect(t, primary.DSN()), "SHOW synchronous_standby_names"); got != "" {
		t.Fatalf("synchronous_standby_names = %q after the standby died", got)
	}
}

func TestStandbyAsyncAndDestroy(t *testing.T) {
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, err := pgserver.Start(ctx, pgserver.Options{Binaries: b, Name: "test-async"})
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Destroy(context.Background())
	sb, err := primary.StartStandby(ctx, pgserver.StandbyOptions{Name: "far-copy"})
	if err != nil {
		t.Fatal(err)
	}
	if sb.Proxy() != nil {
		t.Fatal("a standby without a round trip has a proxy")
	}
	conn := pgtest.Connect(t, primary.DSN())
	if state, sync := replicationRow(t, conn, "far-copy"); state != "streaming" || sync != "async" {
		t.Fatalf("async standby: state %s, sync_state %s", state, sync)
	}
	if got := pgtest.QueryString(t, conn, "SHOW synchronous_standby_names"); got != "" {
		t.Fatalf("synchronous_standby_names = %q for an async standby", got)
	}
	if _, err := primary.StartStandby(ctx, pgserver.StandbyOptions{}); err == nil {
		t.Fatal("a second standby was accepted")
	}
	conn.Close(ctx)
	// A restart with other settings: the direct standby streams again.
	if err := primary.RestartWith(ctx, []pgserver.Setting{{Name: "work_mem", Value: "8MB"}}); err != nil {
		t.Fatal(err)
	}
	conn = pgtest.Connect(t, primary.DSN())
	if state, _ := replicationRow(t, conn, "far-copy"); state != "streaming" {
		t.Fatalf("after a restart: async standby %s", state)
	}
	conn.Close(ctx)
	dir := sb.Instance().Dir()
	// Destroying the primary takes its standby with it.
	if err := primary.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	noProcessesLeft(t, dir)
	noProcessesLeft(t, primary.Dir())
}

func TestStandbyBadOptions(t *testing.T) {
	primary := pgtest.New(t, pgtest.Options{Settings: []pgserver.Setting{{Name: "wal_level", Value: "minimal"}, {Name: "max_wal_senders", Value: "0"}}})
	ctx := context.Background()
	for _, o := range []pgserver.StandbyOptions{
		{SynchronousCommit: "sometimes"},
		{RTT: -time.Millisecond},
		{Name: "bad name"},
		{Name: `a"b`},
		{}, // wal_level minimal
	} {
		if sb, err := primary.StartStandby(ctx, o); err == nil {
			sb.Stop(ctx)
			t.Errorf("StartStandby(%+v) succeeded", o)
		} else {
			t.Logf("%+v: %v", o, err)
		}
	}
	if primary.Standby() != nil || !primary.Running() {
		t.Fatal("a refused standby changed the primary")
	}
}
