package sqlscript

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// dump17 is a plain pg_dump of PostgreSQL 17 as its minor releases of
// August 2025 on write it, by hand: \restrict, SET lines, set_config, a
// function with a dollar-quoted body, a SQL-standard function body, COPY
// blocks (one with tabs, a NULL and a backslash), comments, \unrestrict.
const dump17 = `--
-- PostgreSQL database dump
--

\restrict 4bJz1Ve0t2s9bq8Qmq1xhYpGUfC0fH5s4Xq6x3lZyVt7nUq0eJ2hWb3d5aK1oR

-- Dumped from database version 17.6
-- Dumped by pg_dump version 17.6

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET transaction_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

CREATE FUNCTION public.touch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.note := 'touched; again';
  RETURN NEW;
END;
$$;

CREATE FUNCTION public.add(a integer, b integer) RETURNS integer
    LANGUAGE sql
    BEGIN ATOMIC
 SELECT CASE WHEN (a IS NULL) THEN 0 ELSE (a + b) END AS "case";
END;

/* a block comment; with a semicolon */
CREATE TABLE public.items (
    id integer NOT NULL,
    name text,
    note text DEFAULT 'x;y'::text
);

ALTER TABLE public.items OWNER TO app;

COPY public.items (id, name, note) FROM stdin;
1	it's	\N
2	a\ttab	back\\slash
\.

COPY public.empty (id) FROM stdin;
\.

SELECT 1; SELECT E'it\'s;';
ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_pkey PRIMARY KEY (id);

\unrestrict 4bJz1Ve0t2s9bq8Qmq1xhYpGUfC0fH5s4Xq6x3lZyVt7nUq0eJ2hWb3d5aK1oR
`

type got struct {
	kind Kind
	line int
	text string
}

func readAll(t *testing.T, script string) ([]got, error) {
	t.Helper()
	rd := NewReader(strings.NewReader(script), "dump.sql")
	var out []got
	for {
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		g := got{kind: it.Kind, line: it.Line, text: it.SQL + it.Arg}
		if it.Kind == Copy {
			data, err := io.ReadAll(rd.Data())
			if err != nil {
				return out, err
			}
			g.text += "|" + string(data)
		}
		out = append(out, g)
	}
}

func TestReaderDump(t *testing.T) {
	items, err := readAll(t, dump17)
	if err != nil {
		t.Fatal(err)
	}
	want := []got{
		{Restrict, 5, "4bJz1Ve0t2s9bq8Qmq1xhYpGUfC0fH5s4Xq6x3lZyVt7nUq0eJ2hWb3d5aK1oR"},
		{Statement, 10, "SET statement_timeout = 0;"},
		{Statement, 11, "SET lock_timeout = 0;"},
		{Statement, 12, "SET idle_in_transaction_session_timeout = 0;"},
		{Statement, 13, "SET transaction_timeout = 0;"},
		{Statement, 14, "SET client_encoding = 'UTF8';"},
		{Statement, 15, "SET standard_conforming_strings = on;"},
		{Statement, 16, "SELECT pg_catalog.set_config('search_path', '', false);"},
		{Statement, 17, "SET check_function_bodies = false;"},
		{Statement, 19, "CREATE FUNCTION public.touch() RETURNS trigger\n    LANGUAGE plpgsql\n    AS $$\nBEGIN\n  NEW.note := 'touched; again';\n  RETURN NEW;\nEND;\n$$;"},
		{Statement, 28, "CREATE FUNCTION public.add(a integer, b integer) RETURNS integer\n    LANGUAGE sql\n    BEGIN ATOMIC\n SELECT CASE WHEN (a IS NULL) THEN 0 ELSE (a + b) END AS \"case\";\nEND;"},
		{Statement, 35, "CREATE TABLE public.items (\n    id integer NOT NULL,\n    name text,\n    note text DEFAULT 'x;y'::text\n);"},
		{Statement, 41, "ALTER TABLE public.items OWNER TO app;"},
		{Copy, 43, "COPY public.items (id, name, note) FROM stdin;|1\tit's\t\\N\n2\ta\\ttab\tback\\\\slash\n"},
		{Copy, 48, "COPY public.empty (id) FROM stdin;|"},
		{Statement, 51, "SELECT 1;"},
		{Statement, 51, "SELECT E'it\\'s;';"},
		{Statement, 52, "ALTER TABLE ONLY public.items\n    ADD CONSTRAINT items_pkey PRIMARY KEY (id);"},
		{Unrestrict, 55, "4bJz1Ve0t2s9bq8Qmq1xhYpGUfC0fH5s4Xq6x3lZyVt7nUq0eJ2hWb3d5aK1oR"},
	}
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d:\n%#v", len(items), len(want), items)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Errorf("item %d:\n got %#v\nwant %#v", i, items[i], want[i])
		}
	}
}

// TestReaderSkipsCopyData: Next skips the data of a COPY not read, and
// Check counts it.
func TestReaderSkipsCopyData(t *testing.T) {
	rd := NewReader(strings.NewReader(dump17), "dump.sql")
	n := 0
	for {
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if it.Kind == Statement && strings.HasPrefix(it.SQL, "2\t") {
			t.Fatalf("COPY data read as a statement: %q", it.SQL)
		}
		n++
	}
	if n != 19 {
		t.Errorf("%d items, want 19", n)
	}
	sum, err := Check(strings.NewReader(dump17), "dump.sql")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Statements != 15 || sum.Copies != 2 || sum.CopyRows != 2 {
		t.Errorf("summary %+v: want 15 statements, 2 copies, 2 rows", sum)
	}
}

func TestReaderMeta(t *testing.T) {
	items, err := readAll(t, "\\connect app\nselect 1;\n\\c \"other\"\nselect 2\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{Connect, 1, "app"}, {Statement, 2, "select 1;"}, {Connect, 3, "other"}, {Statement, 4, "select 2"}}
	if len(items) != len(want) {
		t.Fatalf("items %#v", items)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Errorf("item %d: %#v, want %#v", i, items[i], want[i])
		}
	}
}

// TestReaderErrors: every malformed script is an error naming the file
// and the line where the problem begins.
func TestReaderErrors(t *testing.T) {
	cases := []struct {
		script, want string
	}{
		{"select 1;\n\\set ON_ERROR_STOP on\n", "dump.sql:2: psql meta-command \\set"},
		{"select 1;\n\\.\n", "dump.sql:2: \\. outside COPY data"},
		{"select 1;\nCOPY t (a) FROM stdin;\n1\n2\n", "dump.sql:2: the file ends inside the data of this COPY"},
		{"select 1;\nselect 'abc\n\nselect 2;\n", "dump.sql:2: the file ends inside a quoted string"},
		{"select $body$ x\n", "dump.sql:1: the file ends inside a dollar-quoted string ($body$)"},
		{"select 1; /* open\n", "dump.sql:1: the file ends inside a /* comment"},
		{"\\restrict k1\nselect 1;\n\\connect app\n", "dump.sql:3: \\connect inside \\restrict"},
		{"\\restrict k1\nselect 1;\n\\unrestrict k2\n", "dump.sql:3: \\unrestrict with a key"},
		{"\\restrict k1\nselect 1;\n", "dump.sql:2: the file ends inside \\restrict"},
		{"COPY t FROM stdin; select 1;\n1\n\\.\n", "dump.sql:1: a statement after COPY"},
		{"select 1;\nCOPY t FROM stdin", "dump.sql:2: COPY … FROM stdin at the end of the file"},
	}
	for _, tc := range cases {
		_, err := Check(strings.NewReader(tc.script), "dump.sql")
		var se *Error
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q…", tc.script, err, tc.want)
		}
	}
}

// TestReaderQuoting: semicolons inside quotes, comments, parentheses and
// function bodies do not end a statement; $1 is no dollar quote.
func TestReaderQuoting(t *testing.T) {
	script := "select ';', \"a;b\", $1, $$;$$, $t$ $$ ; $t$ -- ;\n;\n" +
		"create rule r as on insert to t do also (insert into u values (1); insert into u values (2));\n" +
		"select e'\\\\'; select 'a''b;';\n" +
		"create or replace procedure p() language sql begin atomic insert into t values (1); end;\n" +
		"select 1 /* a /* nested ; */ comment */;\n"
	items, err := readAll(t, script)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, it := range items {
		texts = append(texts, it.text)
	}
	want := []string{
		"select ';', \"a;b\", $1, $$;$$, $t$ $$ ; $t$ -- ;\n;",
		"create rule r as on insert to t do also (insert into u values (1); insert into u values (2));",
		"select e'\\\\';",
		"select 'a''b;';",
		"create or replace procedure p() language sql begin atomic insert into t values (1); end;",
		"select 1 /* a /* nested ; */ comment */;",
	}
	if strings.Join(texts, "\n|") != strings.Join(want, "\n|") {
		t.Errorf("statements:\n%q\nwant\n%q", texts, want)
	}
}

// TestReaderAsPsqlLexes checks cases where the splitter, before it took its
// rules from package sqllex, parted from psql: a dollar quote right after
// a number or another dollar quote, a -- comment ended by a carriage
// return, and a string's prefix letter taken for a word of the statement.
func TestReaderAsPsqlLexes(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   []string
	}{
		{"select 1$a$;$a$;\n", []string{"select 1$a$;$a$;"}},
		{"select $a$x$a$$b$;$b$;\n", []string{"select $a$x$a$$b$;$b$;"}},
		{"select 1; -- c\rselect 2;\n", []string{"select 1;", "select 2;"}},
		{"create N'x' function begin select 1; end;\n", []string{"create N'x' function begin select 1; end;"}},
		{"select 1E'x' ; select 2;\n", []string{"select 1E'x' ;", "select 2;"}},
	} {
		items, err := readAll(t, tc.script)
		if err != nil {
			t.Errorf("%q: %v", tc.script, err)
			continue
		}
		var texts []string
		for _, it := range items {
			texts = append(texts, it.text)
		}
		if strings.Join(texts, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: statements %q, want %q", tc.script, texts, tc.want)
		}
	}
}
