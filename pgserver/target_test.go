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
