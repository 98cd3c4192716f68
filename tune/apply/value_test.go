package apply

import (
	"strings"
	"testing"
)

// Parameters as pg_settings describes them on PostgreSQL 17.
var (
	sharedBuffers = param{Name: "shared_buffers", Vartype: "integer", Unit: "8kB", Min: "16", Max: "1073741823", Context: "postmaster"}
	workMem       = param{Name: "work_mem", Vartype: "integer", Unit: "kB", Min: "64", Max: "2147483647", Context: "user"}
	maxWalSize    = param{Name: "max_wal_size", Vartype: "integer", Unit: "MB", Min: "2", Max: "2147483647", Context: "sighup"}
	checkpointTO  = param{Name: "checkpoint_timeout", Vartype: "integer", Unit: "s", Min: "30", Max: "86400", Context: "sighup"}
	completion    = param{Name: "checkpoint_completion_target", Vartype: "real", Min: "0", Max: "1", Context: "sighup"}
	vacuumDelay   = param{Name: "autovacuum_vacuum_cost_delay", Vartype: "real", Unit: "ms", Min: "-1", Max: "100", Context: "sighup"}
	maxConns      = param{Name: "max_connections", Vartype: "integer", Min: "1", Max: "262143", Context: "postmaster"}
	hugePages     = param{Name: "huge_pages", Vartype: "enum", EnumVals: []string{"off", "on", "try"}, Context: "postmaster"}
	walCompr      = param{Name: "wal_compression", Vartype: "enum", EnumVals: []string{"pglz", "lz4", "zstd", "off"}, Context: "superuser"}
	fsync         = param{Name: "fsync", Vartype: "bool", Context: "sighup"}
	appName       = param{Name: "application_name", Vartype: "string", Context: "user"}
)

func TestCanonical(t *testing.T) {
	cases := []struct {
		p     param
		value string
		want  string
	}{
		// Memory in pages of 8kB: 128MB is 16384 pages, whatever the unit.
		{sharedBuffers, "128MB", "16384"},
		{sharedBuffers, "131072kB", "16384"},
		{sharedBuffers, "16384", "16384"},
		{sharedBuffers, "1GB", "131072"},
		{sharedBuffers, "0.5GB", "65536"},
		{sharedBuffers, " 256MB ", "32768"},
		{sharedBuffers, "256 MB", "32768"},
		// PGTune's odd sizes round to whole pages as the server does.
		{sharedBuffers, "7864kB", "983"},
		{sharedBuffers, "7868kB", "984"}, // 983.5 rounds to even
		{sharedBuffers, "7860kB", "982"}, // 982.5 rounds to even
		{workMem, "4MB", "4096"},
		{workMem, "1.5MB", "1536"},
		{workMem, "0.1GB", "104448"}, // 102.4 MB: rounded to 102 MB first
		{checkpointTO, "1.5min", "90"},
		{workMem, "3276kB", "3276"},
		{workMem, "1TB", "1073741824"},
		{maxWalSize, "4GB", "4096"},
		{maxWalSize, "1024", "1024"},
		{checkpointTO, "5min", "300"},
		{checkpointTO, "1h", "3600"},
		{checkpointTO, "90000ms", "90"},
		{completion, "0.9", "0.9"},
		{completion, ".90", "0.9"},
		{vacuumDelay, "2", "2"},
		{vacuumDelay, "2000us", "2"},
		{maxConns, "100", "100"},
		{maxConns, "1e2", "100"},
		{hugePages, "off", "off"},
		{hugePages, "TRY", "try"},
		{hugePages, "false", "off"},
		{hugePages, "yes", "on"},
		{walCompr, "lz4", "lz4"},
		{fsync, "on", "on"},
		{fsync, "t", "on"},
		{fsync, "No", "off"},
		{fsync, "0", "off"},
		{appName, "pglab", "pglab"},
	}
	for _, c := range cases {
		got, err := canonical(c.p, c.value)
		if err != nil || got != c.want {
			t.Errorf("canonical(%s, %q) = %q, %v; want %q", c.p.Name, c.value, got, err, c.want)
		}
	}
}

func TestCanonicalRefuses(t *testing.T) {
	cases := []struct {
		p     param
		value string
		want  string
	}{
		{sharedBuffers, "lots", `"lots" is not a number`},
		{sharedBuffers, "128mb", `unknown unit "mb"`},
		{sharedBuffers, "128XB", `unknown unit "XB"`},
		{sharedBuffers, "5min", `unknown unit "min"`},
		{sharedBuffers, "8", "8 is outside 16..1073741823 (in units of 8kB)"},
		{workMem, "32kB", "32 is outside 64..2147483647"},
		{maxConns, "10MB", "takes no unit"},
		{completion, "1.5", "1.5 is outside 0..1"},
		{hugePages, "maybe", `"maybe" is not one of this server's values: off, on, try`},
		{walCompr, "on", `"on" is not one of this server's values`}, // pglz is the server's name for it
		{param{Name: "wal_compression", Vartype: "enum", EnumVals: []string{"pglz", "off"}}, "lz4", "pglz, off"},
		{fsync, "o", "not a boolean"},
		{fsync, "", "not a boolean"},
	}
	for _, c := range cases {
		got, err := canonical(c.p, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("canonical(%s, %q) = %q, %v; want an error containing %q", c.p.Name, c.value, got, err, c.want)
		}
	}
}

func TestSameSetting(t *testing.T) {
	cases := []struct {
		p    param
		a, b string
		want bool
	}{
		{sharedBuffers, "16384", "16384", true},
		{sharedBuffers, "16384", "16385", false},
		{completion, "0.9", "0.9", true},
		{completion, "0.9", "0.90000000000000002", true},
		{completion, "0.9", "0.91", false},
		{vacuumDelay, "2", "2.0", true},
		{hugePages, "on", "try", false},
		{appName, "a", "A", false},
	}
	for _, c := range cases {
		if got := sameSetting(c.p, c.a, c.b); got != c.want {
			t.Errorf("sameSetting(%s, %q, %q) = %v, want %v", c.p.Name, c.a, c.b, got, c.want)
		}
	}
}

func TestQuoteLiteral(t *testing.T) {
	cases := map[string]string{
		"256MB":               `'256MB'`,
		"it's":                `'it''s'`,
		`C:\dir`:              `E'C:\\dir'`,
		`{"a":"b"}`:           `'{"a":"b"}'`,
		`it's \ both`:         `E'it''s \\ both'`,
		"":                    `''`,
		"pglab.tune_applied":  `'pglab.tune_applied'`,
		"line\nbreak kept as": "'line\nbreak kept as'",
	}
	for in, want := range cases {
		if got := quoteLiteral(in); got != want {
			t.Errorf("quoteLiteral(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"shared_buffers", "pglab.tune_applied", "auto_explain.log_min_duration", "x$1"} {
		if !validName(ok) {
			t.Errorf("validName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", "Shared_Buffers", "a;b", "a b", "a.b.c", "1abc", "work_mem = '1'", "a.", ".a"} {
		if validName(bad) {
			t.Errorf("validName(%q) = true", bad)
		}
	}
}

func TestIsLocalHost(t *testing.T) {
	for host, want := range map[string]bool{
		"/var/run/postgresql": true, "/tmp": true, "localhost": true, "LOCALHOST": true,
		"127.0.0.1": true, "127.0.0.2": true, "::1": true,
		"db.example.com": false, "10.0.0.5": false, "": false, "::": false,
	} {
		if got := isLocalHost(host); got != want {
			t.Errorf("isLocalHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestRemoteLabelHasNoPassword(t *testing.T) {
	s, err := Remote("", "postgres://alice:s3cret@db.example.com:6543/app?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	if s.Label != "alice@db.example.com:6543/app" || s.Local || s.Managed || s.Restart != nil || s.RecordFile != "" {
		t.Errorf("server = %+v", s)
	}
	s, err = Remote("", "host=/var/run/postgresql port=5433 user=bob password=hunter2 dbname=x")
	if err != nil {
		t.Fatal(err)
	}
	if s.Label != "bob@/var/run/postgresql:5433/x" || !s.Local {
		t.Errorf("server = %+v", s)
	}
	_, err = Remote("", "postgres://alice:s3cret@db.example.com:notaport/app")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.HasPrefix(err.Error(), "invalid DSN: ") {
		t.Errorf("bad DSN error = %v", err)
	}
}
