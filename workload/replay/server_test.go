package replay_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/workload"
	"github.com/pglab/pglab/workload/replay"
	"github.com/pglab/pglab/workload/sqltext"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// stmt is a statement of the test workload.
type stmt struct {
	session int64
	at      int64 // ms
	sql     string
	params  []*string // nil: simple protocol
	name    string
	err     string
}

func p(s string) *string { return &s }

// writeWorkload writes statements as a workload file of two sessions.
func writeWorkload(t *testing.T, stmts []stmt) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.workload")
	fw, err := workload.CreateFile(path, workload.Header{Origin: time.Now(), Fingerprint: sqltext.Algorithm, Source: workload.Source{Format: "csvlog"}})
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= 2; id++ {
		if err := fw.Session(&workload.Session{ID: id, Key: "k", Database: "app", User: "u", StartUS: 0, Connected: true}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, s := range stmts {
		fp := sqltext.Normalize(s.sql)
		if !seen[fp.ID] {
			seen[fp.ID] = true
			fw.Fingerprint(workload.Fingerprint{ID: fp.ID, Text: fp.Text})
		}
		st := &workload.Statement{Session: s.session, StartUS: s.at * 1000, DurationUS: 100, Fingerprint: fp.ID, Protocol: workload.Simple, SQL: s.sql, Name: s.name, Error: s.err}
		if s.params != nil {
			st.Protocol = workload.Extended
			for _, v := range s.params {
				if v == nil {
					st.Params = append(st.Params, workload.Param{Null: true})
				} else {
					st.Params = append(st.Params, workload.Param{Value: *v})
				}
			}
		}
		if err := fw.Statement(st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fw.Commit(nil, 0); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunOnServer replays two sessions on PostgreSQL 17: a transaction
// block with a failure that aborts it (the statements up to ROLLBACK fail
// as on the source), a named prepared statement, a NULL parameter, reads
// whose results are hashed; timed and fast.
func TestRunOnServer(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "create table t (id int primary key, v text); insert into t select g, 'v' || g from generate_series(1, 50) g"); err != nil {
		t.Fatal(err)
	}
	stmts := []stmt{
		{session: 1, at: 0, sql: "begin"},
		{session: 1, at: 10, sql: "update t set v = $1 where id = $2", params: []*string{p("changed"), p("1")}, name: "upd"},
		{session: 1, at: 20, sql: "select 1/0", err: "22012"},
		{session: 1, at: 30, sql: "select v from t where id = $1", params: []*string{p("2")}, err: "25P02"},
		{session: 1, at: 40, sql: "rollback"},
		{session: 1, at: 50, sql: "update t set v = $1 where id = $2", params: []*string{p("v3"), p("3")}, name: "upd"},
		{session: 2, at: 0, sql: "select id, v from t order by id"},
		{session: 2, at: 100, sql: "select coalesce($1::text, 'was null'), $2::int + 1", params: []*string{nil, p("41")}},
		{session: 2, at: 200, sql: "SELECT id, v\n  FROM t ORDER BY id"},
		{session: 2, at: 250, sql: "select * from missing_table", params: []*string{}},
	}
	w, err := replay.Load(writeWorkload(t, stmts))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Sessions) != 2 || w.Statements != len(stmts) || len(w.FPs) != 8 {
		t.Fatalf("loaded %d sessions, %d statements, %d fingerprints", len(w.Sessions), w.Statements, len(w.FPs))
	}
	connect := func(ctx context.Context, s *replay.Session) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, dsn) }
	for _, mode := range []replay.Mode{replay.Timed, replay.Fast} {
		r, err := replay.Run(ctx, w, replay.Options{Mode: mode, Connect: connect})
		if err != nil {
			t.Fatal(err)
		}
		if r.Sent != len(stmts) || r.Failed != 3 || r.Unexpected != 1 || r.Unsent != 0 {
			t.Errorf("%s: %s: want %d sent, 3 failed (1 unexpected: the missing table)", mode, r, len(stmts))
		}
		if mode == replay.Timed && (r.Elapsed < 250*time.Millisecond || len(r.Lags) != len(stmts)) {
			t.Errorf("timed: took %v with %d lags; want ≥ 250 ms and a lag per statement", r.Elapsed, len(r.Lags))
		}
		byText := map[string]replay.FPRound{}
		for i, fp := range w.FPs {
			byText[fp.Text] = r.FPs[i]
		}
		sel := byText["select id, v from t order by id"]
		var want uint64
		rows, _ := conn.Query(ctx, "select id::text, v from t")
		for rows.Next() {
			raw := rows.RawValues()
			want += replay.RowHash([][]byte{raw[0], raw[1]})
		}
		rows.Close()
		if sel.Rows != 100 || sel.Hash != 2*want || len(sel.Latencies) != 2 {
			t.Errorf("%s: the two full reads: %d rows, hash %x (want 100 rows, hash %x), %d calls", mode, sel.Rows, sel.Hash, 2*want, len(sel.Latencies))
		}
		upd := byText["update t set v = $1 where id = $2"]
		if upd.Rows != 2 || len(upd.Errors) != 0 {
			t.Errorf("%s: the updates: %d rows, errors %v", mode, upd.Rows, upd.Errors)
		}
		aborted := byText["select v from t where id = $1"]
		if aborted.Errors["25P02"] != 1 || aborted.Unexpected != 0 {
			t.Errorf("%s: the read in the aborted transaction: errors %v", mode, aborted.Errors)
		}
		null := byText["select coalesce($1::text, $2), $3::int + $4"]
		if null.Rows != 1 || len(null.Errors) != 0 {
			t.Errorf("%s: the NULL parameter: %d rows, errors %v", mode, null.Rows, null.Errors)
		}
	}
	if v := pgtest.QueryString(t, conn, "select v from t where id = 1"); v != "v1" {
		t.Errorf("the rolled back update left %q", v)
	}
}

// TestExplain reads a plan with parameters and its shape.
func TestExplain(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "create table t (id int primary key, v text); insert into t select g, 'x' from generate_series(1, 10000) g; analyze t").ReadAll(); err != nil {
		t.Fatal(err)
	}
	plan, err := replay.Explain(ctx, conn, &replay.Stmt{SQL: "select v from t where id = $1", Params: [][]byte{[]byte("5")}})
	if err != nil {
		t.Fatal(err)
	}
	shape, err := replay.ShapeOf(plan)
	if err != nil || shape.String() != "Index Scan using t_pkey on t" {
		t.Errorf("shape %q, %v", shape, err)
	}
	if _, err := conn.Exec(ctx, "set enable_indexscan = off; set enable_bitmapscan = off").ReadAll(); err != nil {
		t.Fatal(err)
	}
	plan, _ = replay.Explain(ctx, conn, &replay.Stmt{SQL: "select v from t where id = $1", Params: [][]byte{[]byte("5")}})
	if s, _ := replay.ShapeOf(plan); s.String() != "Seq Scan on t" {
		t.Errorf("without index scans: %q", s)
	}
}

// TestShapePartitions: a plan that scans 12 monthly partitions shows one
// line for them, the first partition standing for the others; when some
// are read through an index, one partition per way of reading them, with
// how many it stands for. A UNION ALL of three tables is not folded, and
// two plans that read another number of partitions differ. On 13 (whose
// EXPLAIN names partitions otherwise) as on 17.
func TestShapePartitions(t *testing.T) {
	for _, v := range []string{"13", "17"} {
		t.Run(v, func(t *testing.T) { shapePartitions(t, v) })
	}
}

func shapePartitions(t *testing.T, version string) {
	inst := pgtest.Shared(t, version)
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	ctx := context.Background()
	setup := `create table pay (id int, at date, amount int) partition by range (at);
do $$ begin for m in 1..12 loop
  execute format('create table pay_2026_%s partition of pay for values from (%L) to (%L)', lpad(m::text, 2, '0'),
    make_date(2026, m, 1), make_date(2026, m, 1) + interval '1 month');
end loop; end $$;
insert into pay select g, date '2026-01-01' + g % 365, g from generate_series(1, 20000) g;
create index on pay_2026_11 (amount); create index on pay_2026_12 (amount);
create table u1 (a int); create table u2 (a int); create table u3 (a int);
analyze`
	if _, err := conn.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	shape := func(sql string, settings ...string) replay.Shape {
		t.Helper()
		pc, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close(ctx)
		for _, set := range settings {
			if _, err := pc.Exec(ctx, set).ReadAll(); err != nil {
				t.Fatal(err)
			}
		}
		plan, err := replay.Explain(ctx, pc, &replay.Stmt{SQL: sql})
		if err != nil {
			t.Fatal(err)
		}
		s, err := replay.ShapeOf(plan)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	all := shape("select sum(amount) from pay where id > 5")
	if want := "Aggregate\n  Append over 12 partitions: Seq Scan on pay_2026_01 …"; all.String() != want {
		t.Errorf("12 partitions read alike:\n%s\nwant\n%s", all, want)
	}
	some := shape("select id from pay where amount = 7 and at >= '2026-10-01'", "set enable_bitmapscan = off")
	if want := "Append over 3 partitions:\n  Seq Scan on pay_2026_10\n  Index Scan using pay_2026_11_amount_idx on pay_2026_11 … (2 partitions)"; some.String() != want {
		t.Errorf("three partitions, two by an index:\n%s\nwant\n%s", some, want)
	}
	if s := shape("select a from u1 union all select a from u2 union all select a from u3"); !strings.Contains(s.String(), "Seq Scan on u3") || strings.Contains(s.String(), "partitions") {
		t.Errorf("a UNION ALL folded:\n%s", s)
	}
	if half := shape("select sum(amount) from pay where at >= '2026-07-01'"); half.Equal(all) || !strings.Contains(replay.Diff(all, half), "12 partitions") {
		t.Errorf("6 partitions against 12: equal or %q", replay.Diff(all, half))
	}
}
