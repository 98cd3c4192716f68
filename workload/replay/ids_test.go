package replay_test

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/workload/replay"
)

// rentalSchema is a DVD-rental-like corner: rentals with serial ids that
// payments reference, a customer table they point to.
const rentalSchema = `
create table customer (customer_id serial primary key, name text not null);
insert into customer (name) select 'c' || g from generate_series(1, 10) g;
create table rental (rental_id serial primary key, customer_id int not null references customer,
  rental_date timestamptz not null default now(), return_date timestamptz);
create table payment (payment_id serial primary key, rental_id int not null references rental,
  amount numeric(5,2) not null);
select setval('rental_rental_id_seq', 100);`

// rentalWorkload is what two sessions sent at capture, when rental's
// sequence stood at 100: ids from INSERT … RETURNING, nextval and currval,
// used later by the same session (as a parameter, a constant, a quoted
// constant) and by the other one.
var rentalWorkload = []stmt{
	{session: 1, at: 0, sql: "insert into rental (customer_id) values ($1) returning rental_id", params: []*string{p("3")}},
	{session: 1, at: 10, sql: "insert into payment (rental_id, amount) values ($1, $2)", params: []*string{p("101"), p("4.99")}},
	{session: 2, at: 20, sql: "select nextval('rental_rental_id_seq')"},
	{session: 2, at: 30, sql: "insert into rental (customer_id, rental_id) values (4, 102)"},
	{session: 2, at: 40, sql: "insert into payment (rental_id, amount) values ('102', 2.99)"},
	{session: 1, at: 50, sql: "update rental set return_date = now() where rental_id = 102"},
	{session: 2, at: 60, sql: "update rental set return_date = now() where rental_id = $1", params: []*string{p("101")}, name: "ret"},
	{session: 1, at: 70, sql: "insert into rental (customer_id) values (5)"},
	{session: 1, at: 80, sql: "select currval('rental_rental_id_seq')"},
	{session: 1, at: 90, sql: "insert into payment (rental_id, amount) values (103, 1.00)"},
	{session: 2, at: 100, sql: "select count(*) from payment p join rental r using (rental_id) where r.rental_id in (101, 102, 103)"},
}

// TestIDMapping replays rentalWorkload on a target whose sequence stands
// at 90 (the dump was taken before ten rentals the log does not hold):
// every id differs from the captured one, and without mapping the payments
// would fail on their foreign key (23503) and the returns update nothing. With the ids mapped, nothing fails and every statement finds
// its row, in both modes.
func TestIDMapping(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	ctx := context.Background()
	w, err := replay.Load(writeWorkload(t, rentalWorkload))
	if err != nil {
		t.Fatal(err)
	}
	if w.IDs != (replay.IDPlan{Sources: 3, Traced: 3, Candidates: 11}) {
		t.Errorf("id plan %+v, want 3 sources traced, 11 occurrences of candidates (9 uses of ids, 2 of other new integers)", w.IDs)
	}
	connect := func(ctx context.Context, s *replay.Session) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, dsn) }
	for _, mode := range []replay.Mode{replay.Timed, replay.Fast} {
		if _, err := conn.Exec(ctx, "drop table if exists payment, rental, customer;"+rentalSchema+"; select setval('rental_rental_id_seq', 90)"); err != nil {
			t.Fatal(err)
		}
		r, err := replay.Run(ctx, w, replay.Options{Mode: mode, Connect: connect})
		if err != nil {
			t.Fatal(err)
		}
		if r.Failed != 0 {
			for i, fp := range w.FPs {
				if len(r.FPs[i].Errors) > 0 {
					t.Errorf("%s: %s: %v", mode, fp.Text, r.FPs[i].Errors)
				}
			}
		}
		want := replay.IDCounts{Produced: 3, Mapped: 9, Changed: 9}
		if mode == replay.Fast {
			// Session 2's update of session 1's rental may go out before
			// session 1 inserted it: sent as captured then, and counted.
			want = r.IDs
		}
		if r.IDs != want || r.IDs.Produced != 3 || r.IDs.Lost != 0 {
			t.Errorf("%s: ids %+v, want %+v", mode, r.IDs, want)
		}
		if mode == replay.Timed {
			if n := pgtest.QueryString(t, conn, "select count(*) from rental where return_date is not null"); n != "2" {
				t.Errorf("%s: %s rentals returned, want 2", mode, n)
			}
			if n := pgtest.QueryString(t, conn, "select string_agg(rental_id::text, ',' order by payment_id) from payment"); n != "91,92,93" {
				t.Errorf("%s: payments for rentals %s, want 91,92,93", mode, n)
			}
		}
	}
}

// TestIDLost: an id source that fails on the target (its customer is
// missing there) gives no id; the statements that use its captured id go
// out as captured, are counted as uses after a lost source, and their
// failures as the ids', not the target's.
func TestIDLost(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	ctx := context.Background()
	w, err := replay.Load(writeWorkload(t, []stmt{
		{session: 1, at: 0, sql: "insert into rental (customer_id) values ($1) returning rental_id", params: []*string{p("3")}},
		{session: 1, at: 10, sql: "insert into payment (rental_id, amount) values ($1, $2)", params: []*string{p("101"), p("4.99")}},
		{session: 2, at: 30, sql: "update rental set return_date = now() where rental_id = 101"},
		{session: 2, at: 40, sql: "select missing_column from rental"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, rentalSchema+"; select setval('rental_rental_id_seq', 90); delete from customer where customer_id = 3"); err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context, s *replay.Session) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, dsn) }
	r, err := replay.Run(ctx, w, replay.Options{Mode: replay.Timed, Connect: connect})
	if err != nil {
		t.Fatal(err)
	}
	if want := (replay.IDCounts{Lost: 1, AfterLost: 2}); r.IDs != want {
		t.Errorf("ids %+v, want %+v", r.IDs, want)
	}
	for i, fp := range w.FPs {
		fr := r.FPs[i]
		var want map[string]int
		switch {
		case strings.HasPrefix(fp.Text, "insert into payment"):
			want = map[string]int{"23503": 1}
		case strings.HasPrefix(fp.Text, "insert into rental"), strings.HasPrefix(fp.Text, "select"):
			if len(fr.Errors) != 1 {
				t.Errorf("%s: errors %v, want one", fp.Text, fr.Errors)
			}
		}
		if !maps.Equal(fr.IDErrors, want) {
			t.Errorf("%s: failures after a lost id %v, want %v (errors %v)", fp.Text, fr.IDErrors, want, fr.Errors)
		}
	}
}

// TestCommitOrder: session 1's transaction took 0.1 ms at capture and
// ended before session 2 updated its row; on the target it takes 150 ms
// (a pg_sleep in it). Without commit order session 2's update finds no
// row; with it, it waits for session 1's commit and updates the row.
func TestCommitOrder(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	ctx := context.Background()
	w, err := replay.Load(writeWorkload(t, []stmt{
		{session: 1, at: 0, sql: "begin"},
		{session: 1, at: 1, sql: "insert into t values (1, 'new')"},
		{session: 1, at: 2, sql: "select pg_sleep(0.15)"},
		{session: 1, at: 3, sql: "commit"},
		{session: 2, at: 20, sql: "update t set v = 'seen' where id = 1"},
		{session: 2, at: 30, sql: "select v from t where id = 1"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if w.Commits != 2 {
		t.Errorf("%d commits, want 2 (the block's and the update's)", w.Commits)
	}
	connect := func(ctx context.Context, s *replay.Session) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, dsn) }
	for _, ordered := range []bool{false, true} {
		if _, err := conn.Exec(ctx, "drop table if exists t; create table t (id int primary key, v text)"); err != nil {
			t.Fatal(err)
		}
		r, err := replay.Run(ctx, w, replay.Options{Mode: replay.Timed, Connect: connect, CommitOrder: ordered})
		if err != nil {
			t.Fatal(err)
		}
		var updated int64 = -1
		for i, fp := range w.FPs {
			if fp.Text == "update t set v = $1 where id = $2" {
				updated = r.FPs[i].Rows
			}
		}
		v := pgtest.QueryString(t, conn, "select v from t where id = 1")
		switch {
		case ordered && (updated != 1 || v != "seen" || r.OrderWait < 100*time.Millisecond || r.OrderWaits != 1):
			t.Errorf("in commit order: the update took %d rows, left %q, waited %v in %d statements; want 1 row, seen, ≥ 100 ms in 1", updated, v, r.OrderWait, r.OrderWaits)
		case !ordered && (updated != 0 || v != "new" || r.OrderWait != 0):
			t.Errorf("without commit order: the update took %d rows, left %q, waited %v; want 0 rows (it ran before the insert committed), new", updated, v, r.OrderWait)
		}
	}
}
