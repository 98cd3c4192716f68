package initdata

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/pgnet"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestErrorNamesTheStep ends the session of a running step from the
// server (pg_terminate_backend while the step waits for a lock another
// session holds): Run's *Error names the step and the statement, and its
// cause is a lost connection (what pglab bench -i names the server for).
func TestErrorNamesTheStep(t *testing.T) {
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Run(ctx, cfg, Options{Scale: 1, Steps: "dtg"}, nil); err != nil {
		t.Fatal(err)
	}
	blocker := pgtest.Connect(t, dsn)
	if _, err := blocker.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := blocker.Exec(ctx, "LOCK TABLE pgbench_branches IN SHARE UPDATE EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, cfg, Options{Scale: 1, Steps: "v"}, nil)
		done <- err
	}()
	// Wait for the vacuum to wait on the lock, then end its session.
	watch := pgtest.Connect(t, dsn)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var n int
		if err := watch.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = 'vacuum analyze pgbench_branches' AND wait_event_type = 'Lock'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Run ended before its vacuum waited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the vacuum never waited for the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	err = <-done
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("Run: %v, want an *Error", err)
	}
	if got, want := ie.Phase(), "vacuum (vacuum analyze pgbench_branches)"; got != want {
		t.Errorf("Phase() = %q, want %q", got, want)
	}
	if how, ok := pgnet.Lost(ie.Err); !ok || how != pgnet.LostTerminated {
		t.Errorf("Lost(%v) = %q, %v; want %q", ie.Err, how, ok, pgnet.LostTerminated)
	}
	blocker.Exec(ctx, "ROLLBACK")
}
