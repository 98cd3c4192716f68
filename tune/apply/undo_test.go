package apply

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestUndo: after a failed ALTER SYSTEM, the parameters set so far get
// postgresql.auto.conf's old values back (SET or RESET) and the record its
// old content (here: none), even when the context was cancelled.
func TestUndo(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{})
	srv, err := Remote("", inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := pgtest.Connect(t, inst.DSN())
	mustExec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("ALTER SYSTEM SET work_mem = '2MB'")
	auto, err := srv.readAutoConf(ctx, conn)
	if err != nil || !auto.exact {
		t.Fatalf("readAutoConf: %+v %v", auto, err)
	}
	rec := &Record{Format: recordFormat, Applied: time.Now(), Params: []RecordedParam{{Name: "work_mem", Value: "8MB"}}}
	if err := srv.saveRecord(ctx, conn, rec); err != nil {
		t.Fatal(err)
	}
	mustExec("ALTER SYSTEM SET work_mem = '8MB'")
	mustExec("ALTER SYSTEM SET random_page_cost = '1.1'")
	cause := errors.New("the third ALTER SYSTEM failed")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	done := []Row{{Name: "work_mem"}, {Name: "random_page_cost"}}
	if err := srv.undo(cancelled, conn, done, auto, nil, cause); err != cause {
		t.Fatalf("undo = %v, want the cause alone", err)
	}
	after, err := srv.readAutoConf(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.values) != 1 || after.values["work_mem"] != "2MB" {
		t.Errorf("postgresql.auto.conf after undo = %v", after.values)
	}
	// A failing undo is reported with the cause.
	conn2, err := pgx.ConnectConfig(ctx, srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	conn2.Close(ctx)
	err = srv.undo(ctx, conn2, done, auto, nil, cause)
	if !errors.Is(err, cause) || err.Error() == cause.Error() {
		t.Errorf("undo on a closed connection = %v", err)
	}
}
