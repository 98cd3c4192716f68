package sqlscript_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/dataset/sqlscript"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// run loads script into a new database of inst.
func run(t *testing.T, inst *pgserver.Instance, script string) (sqlscript.Result, string, error) {
	t.Helper()
	db := pgtest.CreateDB(t, inst)
	rd := sqlscript.NewReader(strings.NewReader(script), "dump.sql")
	res, err := sqlscript.Exec(context.Background(), rd, sqlscript.Options{
		User:    inst.User(),
		Connect: func(ctx context.Context) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, db) },
	})
	return res, db, err
}

// dump17 is a plain dump as pg_dump 17.6 writes it, with what a server of
// 16 or 13 lacks (transaction_timeout) and a role it does not have.
const dump17 = `\restrict key17
SET statement_timeout = 0;
SET transaction_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE TABLE public.items (id integer NOT NULL, name text, note text);
ALTER TABLE public.items OWNER TO app_owner;
GRANT SELECT ON TABLE public.items TO app_reader;
COPY public.items (id, name, note) FROM stdin;
1	it's	\N
2	a\ttab	back\\slash
\.
ALTER TABLE ONLY public.items ADD CONSTRAINT items_pkey PRIMARY KEY (id);
\unrestrict key17
\connect app
SELECT 1;
`

// TestExecDumpOnOlderServers loads a dump of 17 into 16 and 13: the
// settings and roles they lack are skipped and counted, the data is there.
func TestExecDumpOnOlderServers(t *testing.T) {
	for _, v := range []string{"16", "13"} {
		t.Run(v, func(t *testing.T) {
			inst := pgtest.Shared(t, v)
			res, db, err := run(t, inst, dump17)
			if err != nil {
				t.Fatal(err)
			}
			if res.CopyRows != 2 || res.Connects != 1 {
				t.Errorf("result %+v: want 2 rows copied, 1 \\connect", res)
			}
			reasons := map[string]int{}
			for _, s := range res.Skipped {
				reasons[s.Reason] = s.Count
			}
			if reasons["ownership and privileges of roles this server does not have"] != 2 {
				t.Errorf("skipped %v: want the OWNER TO and the GRANT", res.Skipped)
			}
			if v == "13" || v == "16" {
				if reasons["settings this server does not have"] != 1 {
					t.Errorf("skipped %v: want transaction_timeout", res.Skipped)
				}
			}
			conn := pgtest.Connect(t, db)
			if got := pgtest.QueryString(t, conn, "select string_agg(id || ':' || name || ':' || coalesce(note, 'NULL'), ',' order by id) from items"); got != "1:it's:NULL,2:a\ttab:back\\slash" {
				t.Errorf("items: %q", got)
			}
		})
	}
}

// TestExecStopsAtTheFirstError: a statement or a COPY row the server
// refuses stops the load with the file and line.
func TestExecStopsAtTheFirstError(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	cases := []struct{ script, want string }{
		{"create table t (a int);\n\ninsert into t values (1);\nselect * from missing;\ninsert into t values (2);\n",
			`dump.sql:4: ERROR: relation "missing" does not exist (SQLSTATE 42P01)`},
		{"create table t (a int);\nCOPY t (a) FROM stdin;\n1\n2\nx\n4\n\\.\n",
			`dump.sql:5: ERROR: invalid input syntax for type integer: "x" (SQLSTATE 22P02)`},
		{"create extension no_such_extension;\n", `dump.sql:1: ERROR: extension "no_such_extension" is not available`},
	}
	for _, tc := range cases {
		_, _, err := run(t, inst, tc.script)
		var se *sqlscript.Error
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.script, err, tc.want)
		}
	}
}

// TestExecPgDump loads what pg_dump (the PostgreSQL 15 client programs of
// this machine, which can dump a 13 server) wrote of a managed 13 into 17
// and 18.
func TestExecPgDump(t *testing.T) {
	pgDump := "/usr/bin/pg_dump"
	if _, err := os.Stat(pgDump); err != nil {
		t.Fatalf("%s: %v (install the PostgreSQL 15 client programs: apt-get install postgresql-client-15)", pgDump, err)
	}
	src := pgtest.Shared(t, "13")
	db := pgtest.CreateDB(t, src)
	conn := pgtest.Connect(t, db)
	ctx := context.Background()
	for _, q := range []string{
		"create table items (id int primary key, name text, tags text[], doc jsonb, price numeric(10,2))",
		"insert into items select g, 'item ' || g, array['a', 'b;c'], jsonb_build_object('k', g, 'q', 'it''s'), g * 1.5 from generate_series(1, 500) g",
		"create index on items (name)",
		"create view cheap as select id, name from items where price < 10",
		"create function f(x int) returns int language plpgsql as $$ begin return x + 1; end; $$",
		"create sequence s start 42",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	out := filepath.Join(t.TempDir(), "app.sql")
	cmd := exec.Command(pgDump, "--no-password", "-f", out, "-d", db)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"17", "18"} {
		inst := pgtest.Shared(t, v)
		res, target, err := run(t, inst, string(data))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if res.CopyRows != 500 {
			t.Errorf("%s: %d rows copied, want 500", v, res.CopyRows)
		}
		c := pgtest.Connect(t, target)
		if got := pgtest.QueryString(t, c, "select count(*) || ' ' || sum(price) || ' ' || f(1) || ' ' || nextval('s') || ' ' || (select count(*) from cheap) from items"); got != "500 187875.00 2 42 6" {
			t.Errorf("%s: loaded data: %s", v, got)
		}
	}
}
