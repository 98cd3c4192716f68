package initdata

// Tests comparing Run with the real pgbench (Debian's pgbench 15 on this
// machine, installed by .ci/run) on the same server: each case runs
// pgbench -i in one fresh database and Run in another, then compares the
// catalogs (tables, columns, types, storage options, partitions,
// constraints, indexes), the contents (every row, in physical order, at
// small scales), the relation sizes and the visibility map of
// pgbench_accounts, and the standard error output.
//
// Known pgbench 15 differences (17/18 is the target): pgbench 15 inserts
// branches and tellers with INSERT (17 copies them with FREEZE, so their
// visibility differs), its progress lines lack the table name, and it
// decides on FREEZE from --partitions instead of the table's kind.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// pgbenchPath finds Debian's pgbench.
func pgbenchPath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/lib/postgresql/15/bin/pgbench", "/usr/bin/pgbench"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench not found: install postgresql-client-15 (as .ci/run does)")
	}
	return p
}

// runPgbench runs pgbench -i with args and the DSN as its dbname; it
// returns standard error and the exit code.
func runPgbench(t testing.TB, dsn string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(pgbenchPath(t), append(append([]string{"-i"}, args...), dsn)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "PGAPPNAME=pgbench", "PGOPTIONS=")
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run pgbench: %v", err)
	}
	return stderr.String(), code
}

// runOurs runs Run and returns what it printed followed by the error as
// pgbench prints it, and 0 or 1 as pgbench's exit code.
func runOurs(t testing.TB, dsn string, o Options) (string, int) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = Run(context.Background(), cfg, o, &out)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Run returned %T %v, want *Error", err, err)
		}
		out.WriteString(e.Format("pgbench"))
		return out.String(), 1
	}
	return out.String(), 0
}

// catalogQueries describe the pgbench objects in the current schema.
var catalogQueries = []string{
	// Relations with kind, persistence, options, tablespace, partition
	// key and bound.
	`select c.relname, c.relkind::text, c.relpersistence::text, coalesce(c.reloptions::text, ''),
		coalesce(ts.spcname, ''), c.relispartition,
		coalesce(pg_get_partkeydef(c.oid), ''), coalesce(pg_get_expr(c.relpartbound, c.oid), ''),
		c.relpages, c.reltuples,
		-- pgbench 15 INSERTs branches and tellers, which stay not all-visible
		-- without a vacuum; pgbench 17 copies them with FREEZE.
		case when c.relname like 'pgbench_accounts%' then c.relallvisible end
	 from pg_class c left join pg_tablespace ts on ts.oid = c.reltablespace
	 where c.relnamespace = current_schema()::regnamespace and c.relname like 'pgbench%'
	 order by 1`,
	// Columns.
	`select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
		a.attisdropped, coalesce(pg_get_expr(d.adbin, d.adrelid), '')
	 from pg_class c join pg_attribute a on a.attrelid = c.oid
	 left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
	 where c.relnamespace = current_schema()::regnamespace and c.relname like 'pgbench%' and a.attnum > 0
	 order by 1, 2`,
	// Constraints.
	`select c.conrelid::regclass::text, c.conname, c.contype::text, pg_get_constraintdef(c.oid), c.conislocal,
		c.coninhcount, c.connoinherit, c.convalidated, coalesce(p.conname, '')
	 from pg_constraint c left join pg_constraint p on p.oid = c.conparentid
	 where c.connamespace = current_schema()::regnamespace and c.conrelid <> 0
	 order by 1, 2`,
	// Indexes.
	`select i.indrelid::regclass::text, c.relname, pg_get_indexdef(i.indexrelid), i.indisprimary,
		i.indisunique, coalesce(ts.spcname, ''), coalesce(c.reloptions::text, '')
	 from pg_index i join pg_class c on c.oid = i.indexrelid
	 left join pg_tablespace ts on ts.oid = c.reltablespace
	 where c.relnamespace = current_schema()::regnamespace
	 order by 1, 2`,
	// Index inheritance (partitioned primary keys).
	`select inhrelid::regclass::text, inhparent::regclass::text from pg_inherits i
	 join pg_class c on c.oid = i.inhrelid where c.relnamespace = current_schema()::regnamespace
	 order by 1`,
}

// dumpRows runs a query and renders its rows as text lines.
func dumpRows(t testing.TB, conn *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// snapshot describes the pgbench tables of a database: catalogs, contents
// and physical facts. With rows, it includes a digest of every row in
// physical order.
func snapshot(t testing.TB, dsn string, rows bool) string {
	t.Helper()
	conn := pgtest.Connect(t, dsn)
	var b strings.Builder
	for _, q := range catalogQueries {
		for _, l := range dumpRows(t, conn, q) {
			b.WriteString(l + "\n")
		}
	}
	tables := dumpRows(t, conn, `select c.oid::regclass::text from pg_class c
		where c.relnamespace = current_schema()::regnamespace and c.relname like 'pgbench%' and c.relkind in ('r', 'p')
		order by 1`)
	for _, tab := range tables {
		fmt.Fprintf(&b, "%s: %s\n", tab, dumpRows(t, conn, "select count(*) from "+tab))
		if rows {
			// Every row, in physical order (partitions on their own).
			fmt.Fprintf(&b, "%s rows: %s\n", tab, dumpRows(t, conn,
				"select md5(coalesce(string_agg(x::text, ',' order by ctid), '')) from only "+tab+" x"))
			// Sizes of the forks; pgbench 15 INSERTs branches and tellers
			// (no visibility map until vacuumed), 17 copies them with FREEZE.
			vm := "0"
			if strings.HasPrefix(tab, "pgbench_accounts") {
				vm = "pg_relation_size('" + tab + "', 'vm')"
			}
			fmt.Fprintf(&b, "%s size: %s\n", tab, dumpRows(t, conn, "select pg_relation_size('"+tab+"'), "+
				"pg_relation_size('"+tab+"', 'fsm'), "+vm+", pg_relation_size('"+tab+"', 'init')"))
		}
	}
	sums := map[string]string{
		"pgbench_accounts": `select count(*), sum(abalance), min(aid), max(aid), sum(bid),
			sum(aid::numeric * bid), sum(octet_length(filler)), count(filler) from pgbench_accounts`,
		"pgbench_tellers":  `select count(*), sum(tbalance), sum(tid::numeric * bid), count(filler) from pgbench_tellers`,
		"pgbench_branches": `select count(*), sum(bbalance), sum(bid), count(filler) from pgbench_branches`,
	}
	for _, tab := range []string{"pgbench_accounts", "pgbench_tellers", "pgbench_branches"} {
		if dumpRows(t, conn, "select exists(select from pg_class where oid = to_regclass('"+tab+"') and relkind in ('r', 'p'))")[0] != "true" {
			continue
		}
		for _, l := range dumpRows(t, conn, sums[tab]) {
			b.WriteString(tab + ": " + l + "\n")
		}
	}
	return b.String()
}

// visibility returns the visibility-map summary of pgbench_accounts and
// its partitions.
func visibility(t testing.TB, dsn string) string {
	t.Helper()
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(context.Background(), "create extension if not exists pg_visibility"); err != nil {
		t.Fatalf("pg_visibility: %v", err)
	}
	return strings.Join(dumpRows(t, conn, `select c.relname, v.all_visible, v.all_frozen
		from pg_class c, pg_visibility_map_summary(c.oid) v
		where c.relnamespace = current_schema()::regnamespace and c.relname like 'pgbench_accounts%' and c.relkind = 'r'
		order by 1`), "\n")
}

var (
	timingRE   = regexp.MustCompile(`[0-9]+\.[0-9]{2} s`)
	progressRE = regexp.MustCompile(`(?m)^([0-9]+ of [0-9]+ tuples \([0-9]+%\)) of pgbench_[a-z]+ done`)
)

// normalizeStderr makes outputs comparable: timings become "X s", and
// pgbench 17's table name in progress lines is dropped (pgbench 15 has
// none).
func normalizeStderr(s string) string {
	s = progressRE.ReplaceAllString(s, "$1 done")
	s = timingRE.ReplaceAllString(s, "X s")
	return strings.TrimRight(strings.ReplaceAll(s, " \n", "\n"), " ")
}

// compatCase is one pgbench -i command line and the same as Options.
type compatCase struct {
	name string
	args []string
	opts Options
	// rows compares every row (small scales only).
	rows bool
	// vm compares the visibility map of pgbench_accounts.
	vm bool
}

var compatCases = []compatCase{
	{name: "default", args: nil, opts: Options{}, rows: true, vm: true},
	{name: "scale 3", args: []string{"-s", "3"}, opts: Options{Scale: 3}, rows: true, vm: true},
	{name: "no vacuum", args: []string{"-n"}, opts: Options{NoVacuum: true}, rows: true, vm: true},
	{name: "fillfactor", args: []string{"-F", "70", "-s", "2"}, opts: Options{Fillfactor: 70, Scale: 2}, rows: true, vm: true},
	{name: "foreign keys", args: []string{"--foreign-keys"}, opts: Options{ForeignKeys: true}, rows: true, vm: true},
	{name: "unlogged", args: []string{"--unlogged-tables"}, opts: Options{UnloggedTables: true}, rows: true, vm: true},
	{name: "tablespaces", args: []string{"--tablespace=pg_default", "--index-tablespace=pg_default"},
		opts: Options{Tablespace: "pg_default", IndexTablespace: "pg_default"}, rows: true, vm: true},
	{name: "range partitions", args: []string{"--partitions=3", "-s", "2"}, opts: Options{Partitions: 3, Scale: 2}, rows: true, vm: true},
	{name: "hash partitions", args: []string{"--partitions=4", "--partition-method=HASH", "-s", "2"},
		opts: Options{Partitions: 4, PartitionMethod: PartitionHash, Scale: 2}, rows: true, vm: true},
	{name: "unlogged partitions", args: []string{"--partitions=2", "--unlogged-tables", "-F", "90"},
		opts: Options{Partitions: 2, UnloggedTables: true, Fillfactor: 90}, rows: true, vm: true},
	{name: "more partitions than pages", args: []string{"--partitions=7", "-n"}, opts: Options{Partitions: 7, NoVacuum: true}, rows: true, vm: true},
	{name: "server-side", args: []string{"-I", "dtGvp"}, opts: Options{Steps: "dtGvp"}, rows: true, vm: true},
	{name: "all steps", args: []string{"-I", "dtgvpf"}, opts: Options{Steps: "dtgvpf"}, rows: true, vm: true},
	{name: "spaces", args: []string{"-I", "d t g p"}, opts: Options{Steps: "d t g p"}, rows: true, vm: true},
	{name: "keys before data", args: []string{"-I", "dtpfgv"}, opts: Options{Steps: "dtpfgv"}, rows: true, vm: true},
	{name: "twice", args: []string{"-I", "dtgGgv"}, opts: Options{Steps: "dtgGgv"}, rows: true, vm: true},
	{name: "n removes v", args: []string{"-I", "dtvgvp", "-n"}, opts: Options{Steps: "dtvgvp", NoVacuum: true}, rows: true, vm: true},
	{name: "drop only", args: []string{"-I", "d"}, opts: Options{Steps: "d"}},
	{name: "quiet", args: []string{"-q", "-s", "2"}, opts: Options{Quiet: true, Scale: 2}, rows: true, vm: true},
}

// quietServer is a shared server without autovacuum, for tests that
// compare page counts and visibility maps of two loads: an autovacuum
// worker reaching one database and not the other (at its own time, which
// a loaded machine moves) made them differ.
func quietServer(t *testing.T) *pgserver.Instance {
	return pgtest.SharedWith(t, "", pgserver.Setting{Name: "autovacuum", Value: "off"})
}

func TestCompatWithPgbench(t *testing.T) {
	inst := quietServer(t)
	for _, c := range compatCases {
		t.Run(c.name, func(t *testing.T) { comparePgbench(t, inst, c) })
	}
}

// comparePgbench runs a case through pgbench and Run in two fresh
// databases of inst and compares the outputs and the tables; it returns
// the DSN of Run's database.
func comparePgbench(t *testing.T, inst *pgserver.Instance, c compatCase) string {
	theirs := pgtest.CreateDB(t, inst)
	ours := pgtest.CreateDB(t, inst)
	args := c.args
	// PostgreSQL 18 refuses unlogged partitioned tables, which pgbench 15
	// (and 17) create; pgbench 18 creates them logged and only their
	// partitions unlogged. Compare with pgbench's logged tables, then
	// check the persistence.
	unloggedParts := inst.Version().Major >= 18 && c.opts.UnloggedTables && c.opts.Partitions > 0
	if unloggedParts {
		args = nil
		for _, a := range c.args {
			if a != "--unlogged-tables" {
				args = append(args, a)
			}
		}
	}
	wantErr, wantCode := runPgbench(t, theirs, args...)
	gotErr, gotCode := runOurs(t, ours, c.opts)
	if gotCode != wantCode {
		t.Fatalf("exit %d, pgbench %d\nours:\n%s\npgbench:\n%s", gotCode, wantCode, gotErr, wantErr)
	}
	if g, w := normalizeStderr(gotErr), normalizeStderr(wantErr); g != w {
		t.Errorf("stderr differs\nours:\n%s\npgbench:\n%s", g, w)
	}
	g, w := snapshot(t, ours, c.rows), snapshot(t, theirs, c.rows)
	if unloggedParts {
		conn := pgtest.Connect(t, ours)
		got := strings.Join(dumpRows(t, conn, `select relname, relpersistence::text from pg_class
			where relname like 'pgbench%' and relkind in ('r', 'p') order by 1`), ",")
		want := "pgbench_accounts|p,"
		for i := 1; i <= c.opts.Partitions; i++ {
			want += fmt.Sprintf("pgbench_accounts_%d|u,", i)
		}
		want += "pgbench_branches|p,pgbench_history|p,pgbench_tellers|p"
		if got != want {
			t.Errorf("persistence %s, want %s", got, want)
		}
		g = unloggedRE.ReplaceAllString(g, "$1|p|")
		g = initForkRE.ReplaceAllString(g, "$1|0]")
	}
	if g != w {
		t.Errorf("tables differ\n%s", lineDiff(g, w))
	}
	if c.vm {
		if g, w := visibility(t, ours), visibility(t, theirs); g != w {
			t.Errorf("visibility of pgbench_accounts differs\nours:\n%s\npgbench:\n%s", g, w)
		}
	}
	return ours
}

var (
	unloggedRE = regexp.MustCompile(`(?m)^(pgbench_accounts_[0-9]+(?:_pkey)?\|[ri])\|u\|`)
	initForkRE = regexp.MustCompile(`(?m)^(pgbench_accounts_[0-9]+ size: \[[0-9]+\|[0-9]+\|[0-9]+)\|[0-9]+\]`)
)

// TestCompatParallelPartitions compares range-partitioned loads on a
// server whose buffer-pin limit lets Run load the partitions in parallel
// (the shared test server's max_connections of 300 does not; there Run
// copies through the parent like pgbench, which TestCompatWithPgbench
// covers). Every row, its place and every relation size must match.
func TestCompatParallelPartitions(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{Settings: []pgserver.Setting{{Name: "max_connections", Value: "50"}, {Name: "autovacuum", Value: "off"}}})
	for _, c := range []compatCase{
		{name: "3 of scale 2", args: []string{"--partitions=3", "-s", "2"}, opts: Options{Partitions: 3, Scale: 2}, rows: true, vm: true},
		{name: "7 of scale 1", args: []string{"--partitions=7", "-n"}, opts: Options{Partitions: 7, NoVacuum: true}, rows: true, vm: true},
		{name: "4 of scale 3 unlogged", args: []string{"--partitions=4", "-s", "3", "--unlogged-tables", "-F", "85"},
			opts: Options{Partitions: 4, Scale: 3, UnloggedTables: true, Fillfactor: 85}, rows: true, vm: true},
		{name: "6 of scale 2 foreign keys", args: []string{"--partitions=6", "-s", "2", "--foreign-keys"},
			opts: Options{Partitions: 6, Scale: 2, ForeignKeys: true}, rows: true, vm: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ours := comparePgbench(t, inst, c)
			// Each partition came in its own transaction: the parallel path ran.
			conn := pgtest.Connect(t, ours)
			if n := dumpRows(t, conn, "select count(distinct xmin::text) from pgbench_accounts")[0]; n != fmt.Sprint(c.opts.Partitions) {
				t.Errorf("rows inserted by %s transactions, want one per partition", n)
			}
		})
	}
}

// TestCompatErrors compares failures: what is printed up to the error,
// the error as pgbench words it, and the exit code. Each case runs its
// setup steps first (on both sides, with pgbench), then the failing
// command.
func TestCompatErrors(t *testing.T) {
	inst := pgtest.Shared(t, "")
	cases := []struct {
		name  string
		setup [][]string
		sql   string
		args  []string
		opts  Options
	}{
		{name: "tables exist", setup: [][]string{{"-I", "dt"}}, args: []string{"-I", "t"}, opts: Options{Steps: "t"}},
		{name: "no tablespace", args: []string{"-I", "dt", "--tablespace=no such"}, opts: Options{Steps: "dt", Tablespace: "no such"}},
		{name: "no index tablespace", args: []string{"-I", "dtgp", "--index-tablespace=x\"y"}, opts: Options{Steps: "dtgp", IndexTablespace: `x"y`}},
		{name: "keys without tables", args: []string{"-I", "dp"}, opts: Options{Steps: "dp"}},
		{name: "foreign keys without tables", args: []string{"-I", "f"}, opts: Options{Steps: "f"}},
		{name: "load without tables", args: []string{"-I", "g"}, opts: Options{Steps: "g"}},
		{name: "server load without tables", args: []string{"-I", "G"}, opts: Options{Steps: "G"}},
		{name: "vacuum without tables", args: []string{"-I", "v"}, opts: Options{Steps: "v"}},
		{name: "keys twice", args: []string{"-I", "dtgpp"}, opts: Options{Steps: "dtgpp"}},
		{name: "check violated", setup: [][]string{{"-I", "dt"}},
			sql:  "alter table pgbench_accounts add constraint few check (aid < 50000)",
			args: []string{"-I", "g"}, opts: Options{Steps: "g"}},
		{name: "view in the way", sql: "create view pgbench_branches as select 1 as bid",
			args: []string{"-I", "dt"}, opts: Options{Steps: "dt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			theirs := pgtest.CreateDB(t, inst)
			ours := pgtest.CreateDB(t, inst)
			for _, dsn := range []string{theirs, ours} {
				for _, s := range c.setup {
					if out, code := runPgbench(t, dsn, s...); code != 0 {
						t.Fatalf("setup %v: %s", s, out)
					}
				}
				if c.sql != "" {
					conn := pgtest.Connect(t, dsn)
					if _, err := conn.Exec(context.Background(), c.sql); err != nil {
						t.Fatalf("%s: %v", c.sql, err)
					}
				}
			}
			wantErr, wantCode := runPgbench(t, theirs, c.args...)
			gotErr, gotCode := runOurs(t, ours, c.opts)
			if gotCode != wantCode || gotCode != 1 {
				t.Fatalf("exit %d, pgbench %d\nours:\n%s\npgbench:\n%s", gotCode, wantCode, gotErr, wantErr)
			}
			// A failing COPY's context names the line in pgbench's text
			// COPY and only the row number in binary COPY.
			g := contextRE.ReplaceAllString(normalizeStderr(gotErr), "CONTEXT:  COPY line")
			w := contextRE.ReplaceAllString(normalizeStderr(wantErr), "CONTEXT:  COPY line")
			if g != w {
				t.Errorf("stderr differs\nours:\n%s\npgbench:\n%s", g, w)
			}
			if g, w := snapshot(t, ours, true), snapshot(t, theirs, true); g != w {
				t.Errorf("tables differ after the error\n%s", lineDiff(g, w))
			}
		})
	}
}

var contextRE = regexp.MustCompile(`CONTEXT:  COPY [a-z_]+, line [0-9]+.*`)

// TestOptionErrorsMatchPgbench feeds option values to pgbench and to the
// parsers: a value pgbench rejects must be rejected with the same message
// (pgbench checks options before connecting, so a value it accepts gets
// as far as the connection, to a closed port).
func TestOptionErrorsMatchPgbench(t *testing.T) {
	const noServer = "host=127.0.0.1 port=1 connect_timeout=2"
	type parser func(string) error
	intParser := func(f func(string) (int, error)) parser {
		return func(s string) error { _, err := f(s); return err }
	}
	opts := []struct {
		flag  string
		parse parser
	}{
		{"-s", intParser(ParseScale)},
		{"-F", intParser(ParseFillfactor)},
		{"--partitions", intParser(ParsePartitions)},
		{"--partition-method", func(s string) error { _, err := ParsePartitionMethod(s); return err }},
		{"-I", func(s string) error { _, err := ParseSteps(s); return err }},
	}
	values := []string{"", " ", "0", "1", "-1", "+7", " 12", "12 ", "12\t", "1x", "x", "0x10", "10.5",
		"9", "10", "100", "101", "2147483647", "2147483648", "-2147483648", "99999999999999999999",
		"range", "RaNgE", "hash", "list", "dtgvp", "dtgGvpf", "d t g", "dtx", "DT", "dtg\n"}
	for _, o := range opts {
		for _, v := range values {
			args := []string{"-i", o.flag, v, noServer}
			if strings.HasPrefix(o.flag, "--") {
				args = []string{"-i", o.flag + "=" + v, noServer}
			}
			if o.flag == "--partition-method" {
				args = append([]string{"--partitions=1"}, args...)
			}
			cmd := exec.Command(pgbenchPath(t), args...)
			out, _ := cmd.CombinedOutput()
			theirs := string(out)
			rejected := !strings.Contains(theirs, "connection to server") && !strings.Contains(theirs, "could not create connection")
			err := o.parse(v)
			if rejected != (err != nil) {
				t.Errorf("%s %q: pgbench rejects it: %v, we: %v\npgbench: %s", o.flag, v, rejected, err, theirs)
				continue
			}
			if err == nil {
				continue
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%s %q: error %T", o.flag, v, err)
				continue
			}
			if got := e.Format("pgbench"); got != theirs {
				t.Errorf("%s %q:\nours:    %q\npgbench: %q", o.flag, v, got, theirs)
			}
		}
	}
	// --partition-method without --partitions is caught by Validate.
	out, _ := exec.Command(pgbenchPath(t), "-i", "--partition-method=hash", noServer).CombinedOutput()
	err := Options{PartitionMethod: PartitionHash}.Validate()
	var e *Error
	if !errors.As(err, &e) || e.Format("pgbench") != string(out) {
		t.Errorf("partition method without partitions: ours %v, pgbench %q", err, out)
	}
}

// TestProgressLines checks the stderr shape of a load large enough for
// progress lines against pgbench's, line by line.
func TestProgressLines(t *testing.T) {
	inst := pgtest.Shared(t, "")
	theirs := pgtest.CreateDB(t, inst)
	ours := pgtest.CreateDB(t, inst)
	wantErr, _ := runPgbench(t, theirs, "-s", "4", "-I", "dtg")
	gotErr, _ := runOurs(t, ours, Options{Scale: 4, Steps: "dtg"})
	lineRE := regexp.MustCompile(`^([0-9]+) of 400000 tuples \(([0-9]+)%\) of pgbench_accounts done \(elapsed [0-9]+\.[0-9]{2} s, remaining [0-9]+\.[0-9]{2} s\) *$`)
	var got []string
	for _, l := range strings.Split(gotErr, "\n") {
		if strings.Contains(l, "tuples") {
			m := lineRE.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("progress line %q", l)
				continue
			}
			got = append(got, m[1]+" "+m[2])
		}
	}
	if want := []string{"100000 25", "200000 50", "300000 75", "400000 100"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("progress %v, want %v", got, want)
	}
	if g, w := normalizeStderr(gotErr), normalizeStderr(wantErr); g != w {
		t.Errorf("stderr differs\nours:\n%s\npgbench:\n%s", g, w)
	}
	if !regexp.MustCompile(`(?m)^done in [0-9]+\.[0-9]{2} s \(drop tables [0-9]+\.[0-9]{2} s, create tables [0-9]+\.[0-9]{2} s, client-side generate [0-9]+\.[0-9]{2} s\)\.$`).MatchString(gotErr) {
		t.Errorf("no done line in\n%s", gotErr)
	}
}

// TestPgbenchMethod checks that MethodPgbench leaves the same tables.
func TestPgbenchMethod(t *testing.T) {
	inst := quietServer(t)
	a := pgtest.CreateDB(t, inst)
	b := pgtest.CreateDB(t, inst)
	for _, o := range []Options{{Scale: 2}, {Scale: 2, Partitions: 3, PartitionMethod: PartitionHash}} {
		runOurs(t, a, o)
		o.Method = MethodPgbench
		runOurs(t, b, o)
		if g, w := snapshot(t, a, true), snapshot(t, b, true); g != w {
			t.Errorf("%+v: fast and pgbench methods differ\n%s", o, lineDiff(g, w))
		}
		if g, w := visibility(t, a), visibility(t, b); g != w {
			t.Errorf("%+v: visibility differs\nfast:\n%s\npgbench:\n%s", o, g, w)
		}
	}
}

// TestCancel checks that cancelling the context stops a load with the
// server's cancellation error, as pgbench's Ctrl-C does. It cancels once
// the server runs the COPY of pgbench_accounts (pg_stat_activity): the
// server ignores a cancel request that arrives while its session waits
// for a command, and a cancel timed from the client's side (50 ms after
// "generating data", or its first progress line: the rows may still be in
// the sockets' buffers before the server has read the COPY) could land
// there on a loaded machine; the load then ended only when pgconn gave up
// on the server 5 s later, with a closed connection.
func TestCancel(t *testing.T) {
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	watch := pgtest.Connect(t, dsn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchErr := make(chan error, 1)
	runDone := make(chan struct{})
	go func() {
		defer cancel()
		for {
			select {
			case <-runDone:
				watchErr <- errors.New("Run ended before the server ran its COPY")
				return
			default:
			}
			var n int
			err := watch.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'copy pgbench_accounts %'").Scan(&n)
			if err != nil || n > 0 {
				watchErr <- err
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	start := time.Now()
	_, err = Run(ctx, cfg, Options{Scale: 50}, nil)
	close(runDone)
	if werr := <-watchErr; werr != nil {
		t.Fatalf("watching pg_stat_activity: %v", werr)
	}
	if err == nil {
		t.Fatal("Run succeeded after cancel")
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("cancel took %v", time.Since(start))
	}
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Format("pgbench"), "canceling statement due to user request") {
		t.Errorf("error %v (%v), want the server's cancellation", err, errors.Unwrap(err))
	}
}

// TestCancelBetweenStatements cancels the context while no statement runs
// (as "creating tables..." is printed, before the first CREATE): Run stops
// before the next statement and returns the context's error, not a
// pgbench failure worded around "context already done".
func TestCancelBetweenStatements(t *testing.T) {
	inst := pgtest.Shared(t, "")
	cfg, err := pgconn.ParseConfig(pgtest.CreateDB(t, inst))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Run(ctx, cfg, Options{Scale: 1}, cancelOn{"creating tables", cancel})
	var e *Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &e) {
		t.Errorf("Run: %v, want the context's error alone", err)
	}
}

// cancelOn is a progress writer that cancels when a text is written.
type cancelOn struct {
	text   string
	cancel func()
}

func (c cancelOn) Write(b []byte) (int, error) {
	if strings.Contains(string(b), c.text) {
		c.cancel()
	}
	return len(b), nil
}

// lineDiff lists the lines only in ours (-) and only in theirs (+).
func lineDiff(ours, theirs string) string {
	count := map[string]int{}
	for _, l := range strings.Split(theirs, "\n") {
		count[l]++
	}
	var b strings.Builder
	for _, l := range strings.Split(ours, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("- ours:    " + l + "\n")
	}
	for _, l := range strings.Split(theirs, "\n") {
		if count[l] > 0 {
			count[l]--
			b.WriteString("+ pgbench: " + l + "\n")
		}
	}
	return b.String()
}
