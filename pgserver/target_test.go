package pgserver

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	cases := []struct {
		text, label, dsn, err string
	}{
		{"pg17", "pg17", "", ""},
		{"postgres://u:pw@h/db?sslmode=disable", "", "postgres://u:pw@h/db?sslmode=disable", ""},
		{"host=/tmp port=5432 dbname=x", "", "host=/tmp port=5432 dbname=x", ""},
		{"prod=postgres://u@h/db", "prod", "postgres://u@h/db", ""},
		{"a=host=127.0.0.1 port=1", "a", "host=127.0.0.1 port=1", ""},
		{"a=", "a", EnvDSN, ""},
		{"a= ", "a", EnvDSN, ""},
		{" ", "", "", "--target is empty"},
		{"bad/name=postgres://u:secret@h/d", "", "", `--target: invalid instance name "bad/name"`},
	}
	for _, c := range cases {
		got, err := ParseTarget(c.text)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseTarget(%q) error %v, want %q", c.text, err, c.err)
		case c.err == "" && (err != nil || got.Label != c.label || got.DSN != c.dsn):
			t.Errorf("ParseTarget(%q) = %+v, %v; want label %q dsn %q", c.text, got, err, c.label, c.dsn)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseTarget(%q) error shows the password: %v", c.text, err)
		}
	}
}

func TestOpenTargetNoInstance(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	_, err := OpenTarget("nosuch")
	if !errors.Is(err, ErrNoInstance) || !strings.Contains(err.Error(), "--target nosuch: no managed instance of that name") {
		t.Errorf("err = %v", err)
	}
}

func TestConnPartsApply(t *testing.T) {
	cases := []struct {
		dsn  string
		p    ConnParts
		want string
	}{
		{"postgres://u:pw@h:5432/db?sslmode=disable", ConnParts{}, "postgres://u:pw@h:5432/db?sslmode=disable"},
		{"postgres://u:pw@h:5432/db?sslmode=disable", ConnParts{Host: "db1", User: "me"}, "postgres://me:pw@db1:5432/db?sslmode=disable"},
		{"postgres://u@h/db", ConnParts{Port: "6543", DBName: "app"}, "postgres://u@h:6543/app"},
		{EnvDSN, ConnParts{Host: "db1"}, "postgresql://db1"},
		{EnvDSN, ConnParts{Host: "/var/run/postgresql", Port: "5433"}, "postgresql://?host=%2Fvar%2Frun%2Fpostgresql&port=5433"},
		{"host=h dbname=x", ConnParts{Host: "db1", DBName: "it's"}, `host=h dbname=x host='db1' dbname='it\'s'`},
		{"", ConnParts{User: "me"}, "user='me'"},
	}
	for _, c := range cases {
		got, err := c.p.Apply(c.dsn)
		if err != nil || got != c.want {
			t.Errorf("%+v.Apply(%q) = %q, %v; want %q", c.p, c.dsn, got, err, c.want)
		}
	}
}

// TestParseConnTarget: psql's -h, -p, -U and -d over --target's DSN, or
// over the PG* variables without one; never with a named instance.
func TestParseConnTarget(t *testing.T) {
	cases := []struct {
		text       string
		p          ConnParts
		label, dsn string
		err        string
	}{
		{"", ConnParts{Host: "db1"}, "", "postgresql://db1", ""},
		{"prod=postgres://u@h/db", ConnParts{DBName: "app"}, "prod", "postgres://u@h/app", ""},
		{"host=h", ConnParts{Port: "5433"}, "", "host=h port='5433'", ""},
		{"pg17", ConnParts{Host: "db1"}, "", "", "-h, -p, -U and -d go with a DSN, not with the instance pg17 (pglab knows how to reach it)"},
		{" ", ConnParts{Host: "db1"}, "", "", "--target is empty"},
	}
	for _, c := range cases {
		got, err := ParseConnTarget(c.text, c.p)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseConnTarget(%q, %+v): %v, want %q", c.text, c.p, err, c.err)
			}
		case err != nil || got.Label != c.label || got.DSN != c.dsn:
			t.Errorf("ParseConnTarget(%q, %+v) = %+v, %v; want %q %q", c.text, c.p, got, err, c.label, c.dsn)
		}
	}
}

// TestTargetConn: a DSN target leaves the database to the client.
func TestTargetConn(t *testing.T) {
	cs, rest := Target{DSN: "postgres://u@h/db"}.Conn("app")
	if cs != "postgres://u@h/db" || rest != "app" {
		t.Errorf("Conn = %q, %q", cs, rest)
	}
}
