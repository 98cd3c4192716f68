package cli_test

// The bad-input catalogue: every command given wrong flags, values, files,
// scripts, plans, DSNs, unreachable hosts, wrong passwords and versions
// that cannot be installed. Each must end with one clear line (pgbench's
// text and exit code where pglab bench mirrors pgbench), no stack trace,
// nothing on stdout, and nothing written to the results store. A command
// line refused exits 64; a server that cannot be reached or refuses, a
// store that cannot be written, a version not installed exit 1.

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

type badCase struct {
	args []string
	want string // a substring of the error line
	// bench: pgbench-style output (may have a hint or detail line after
	// the error; continuation lines start with a tab).
	bench bool
	code  int // 0 means 64 (a usage error), 1 for bench (pgbench's)
	// banner: pgbench prints its banner on stdout before this error.
	banner bool
}

func TestBadInputCatalogue(t *testing.T) {
	state := pgtest.TempDir(t)
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("PGLAB_TMPDIR", pgtest.TempDir(t))
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")

	// A real server for the cases that need one: wrong password, not a
	// pgbench database.
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	wrongPW := func(d string) string {
		u, _ := url.Parse(d)
		u.User = url.UserPassword(u.User.Username(), "not-the-password")
		return u.String()
	}(dsn)
	const secret = "sekret-in-dsn"

	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badScript := write("bad.sql", "\\set x 1 +\nSELECT :x;\n")
	unknownMeta := write("meta.sql", "SELECT 1;\n\\frobnicate 3\n")
	emptyScript := write("empty.sql", "-- nothing\n")
	planSyntax := write("syntax.yaml", "versions: [16\n")
	planField := write("field.yaml", "versions: 17\nbogus: 1\n")
	planStudy := write("study.yaml", "versions: 17\nstudies:\n  - nosuch\n")
	planVersion := write("version.yaml", "versions: 12\n")
	planReps := write("reps.yaml", "versions: 17\nreps: -1\n")
	planEmpty := write("empty.yaml", "")
	planNoTargets := write("notargets.yaml", "studies: [commit]\n")
	if st, err := results.Open(context.Background(), store); err != nil {
		t.Fatal(err)
	} else {
		st.Close()
	}
	notSQLite := write("notdb.db", "this is not an SQLite file, just text that is long enough to be read\n")
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}

	s := func(args ...string) []string { return args }
	cases := []badCase{
		// Commands and flags.
		{args: s("nosuch"), want: `unknown command "nosuch"`},
		{args: s("--nosuchflag"), want: "unknown flag: --nosuchflag"},
		{args: s("version", "extra"), want: `unknown command "extra"`},
		{args: s("runs", "--limit", "abc"), want: `invalid argument "abc"`},
		{args: s("runs", "--limit", "-1", "--store", store), want: "--limit"},
		{args: s("study", "commit", "--versions"), want: "flag needs an argument: --versions"},

		// study
		{args: s("study"), want: "name one study"},
		{args: s("study", "nosuch", "--versions", "17"), want: `unknown study "nosuch"`},
		{args: s("study", "commit", "--versions", "12"), want: "PostgreSQL 12 is not supported"},
		{args: s("study", "commit", "--versions", "abc"), want: `invalid PostgreSQL version "abc"`},
		{args: s("study", "commit", "--versions", "19", "--no-install"), want: "PostgreSQL 19", code: 1},
		{args: s("study", "commit", "--versions", "17.99", "--no-install"), want: "17.99", code: 1},
		{args: s("study", "commit", "--versions", "17", "--param", "rows=abc"), want: "want an integer"},
		{args: s("study", "vacuum", "--versions", "17", "--param", "cases=nonsense"), want: "cases"},
		{args: s("study", "commit", "--versions", "17", "--reps", "-1"), want: "--reps: want auto, auto:N (a cap of N rounds per case) or a whole number of at least 1"},
		{args: s("study", "commit", "--versions", "17", "--checksums", "maybe"), want: "--checksums must be on or off"},
		{args: s("study", "commit", "--versions", "17", "--set", "a=b\nc"), want: "line break"},
		{args: s("study", "commit", "--target", "bad/name=postgres://u@h/d"), want: "--target"},
		{args: s("study", "commit", "--target", "a=host=127.0.0.1 port=notaport"), want: "target a"},
		{args: s("study", "commit", "--target", "a=postgres://u:"+secret+"@127.0.0.1:1/db?connect_timeout=5"), want: "target a: connect", code: 1},
		{args: s("study", "commit", "--target", "a="+wrongPW), want: "password authentication failed", code: 1},
		{args: s("study", "commit", "--target", "a="+dsn+"&keepalives=maybe"), want: "keepalives"},
		{args: s("study", "tune", "--target", "a="+dsn), want: "use --versions"},
		{args: s("study", "commit", "--target", "nosuchinstance"), want: `no such instance "nosuchinstance"`},
		{args: s("study", "commit", "--versions", "17", "--store", filepath.Join(dir, "adir")), want: "results store", code: 1},
		{args: s("study", "commit", "--versions", "17", "--store", notSQLite), want: "is not an SQLite database", code: 1},
		{args: s("study", "commit", "--versions", "17", "--store", "postgres://u:"+secret+"@127.0.0.1:1/db?connect_timeout=5"), want: "results store", code: 1},

		// compare
		{args: s("compare"), want: "name the servers"},
		{args: s("compare", "--versions", "17", "--studies", "nosuch"), want: `"nosuch"`},
		{args: s("compare", "--versions", "17", "--alpha", "2"), want: "alpha"},
		{args: s("compare", "--versions", "17", "--config", "bad"), want: "--config"},
		{args: s("compare", "--versions", "17", "--param", "nosuch.rows=1"), want: "nosuch"},
		{args: s("compare", "--versions", "17", "--reps", "-3"), want: "--reps"},
		{args: s("compare", "extra"), want: `unknown command "extra"`},

		// plan
		{args: s("plan"), want: "plan"},
		{args: s("plan", filepath.Join(dir, "nosuch.yaml")), want: "nosuch.yaml"},
		{args: s("plan", planSyntax), want: "syntax.yaml:1:"},
		{args: s("plan", planField), want: "field.yaml:2:1: bogus: unknown field"},
		{args: s("plan", planStudy), want: `unknown study "nosuch"`},
		{args: s("plan", planVersion), want: "PostgreSQL 12 is not supported"},
		{args: s("plan", planReps), want: "reps"},
		{args: s("plan", planEmpty), want: "empty.yaml"},
		{args: s("plan", planNoTargets), want: "name the servers"},

		// bench (pgbench's texts and codes)
		{bench: true, args: s("bench", "-c", "0"), want: "-c/--clients must be in range"},
		{bench: true, args: s("--quiet", "bench", "-c", "0"), want: "-c/--clients must be in range"},
		{bench: true, args: s("bench", "-c", "abc"), want: "invalid value \"abc\" for option -c/--clients"},
		{bench: true, args: s("bench", "-j", "0"), want: "-j/--jobs must be in range"},
		{bench: true, args: s("bench", "-T", "0"), want: "-T/--time must be in range"},
		{bench: true, args: s("bench", "-t", "10", "-T", "10"), want: "specify either a number of transactions (-t) or a duration (-T), not both"},
		{bench: true, args: s("bench", "-M", "carrier"), want: "invalid query mode"},
		{bench: true, args: s("bench", "-b", "nosuch"), want: `no builtin script found for name "nosuch"`},
		{bench: true, args: s("bench", "-f", filepath.Join(dir, "nosuch.sql")), want: "could not open file"},
		{bench: true, args: s("bench", "-f", badScript), want: "bad.sql:1"},
		{bench: true, args: s("bench", "-f", unknownMeta), want: "invalid command"},
		{bench: true, args: s("bench", "-f", emptyScript), want: "empty"},
		{bench: true, args: s("bench", "-i", "-I", "xyz"), want: "unrecognized initialization step"},
		{bench: true, args: s("bench", "-i", "--partition-method=list"), want: "invalid partition method"},
		{bench: true, args: s("bench", "-i", "-c", "4"), want: "some of the specified options cannot be used in initialization (-i) mode"},
		{bench: true, args: s("bench", "-i", "-s", "0"), want: "-s/--scale must be in range"},
		{bench: true, args: s("bench", "--nosuch"), want: "unrecognized option '--nosuch'"},
		{bench: true, args: s("bench", "-R", "-5"), want: "invalid rate limit"},
		{bench: true, args: s("bench", "--sampling-rate", "0.5"), want: "log sampling (--sampling-rate) is allowed only when logging transactions (-l)"},
		{bench: true, args: s("bench", "-D", "novalue"), want: `invalid variable definition: "novalue"`},
		{bench: true, args: s("bench", "--random-seed=abc"), want: "error while setting random seed"},
		{bench: true, args: s("bench", "--max-tries=-1"), want: "invalid number of maximum tries"},
		{bench: true, args: s("bench", "a", "b"), want: `too many command-line arguments (first is "b")`},
		{bench: true, args: s("bench", "--target", "nosuchinstance"), want: "--target nosuchinstance: no managed instance"},
		{bench: true, args: s("bench", "host=127.0.0.1 port=1 user=x password="+secret), want: "Connection refused"},
		{bench: true, args: s("bench", "-t", "1", wrongPW), want: "password authentication failed"},
		{bench: true, banner: true, args: s("bench", "-t", "1", dsn), want: `relation "pgbench_branches" does not exist`},
		{bench: true, args: s("bench", "-t", "1", dsn+"&tcp_user_timeout=soon"), want: "tcp_user_timeout"},

		// report and runs
		{args: s("report", "nosuchrun", "--store", store), want: "nosuchrun"},
		{args: s("report", "--format", "pdf", "--store", store), want: "pdf"},
		{args: s("report", "--store", notSQLite), want: "is not an SQLite database"},
		{args: s("runs", "--store", filepath.Join(dir, "adir")), want: "results store"},

		// tune
		{args: s("tune", "--memory", "lots"), want: "memory lots"},
		{args: s("tune", "--memory", "0GB"), want: "must be greater than zero"},
		{args: s("tune", "--memory", "9223372036854775807TB"), want: "PGTune's maximum"},
		{args: s("tune", "--cpus", "0"), want: "cpus"},
		{args: s("tune", "--versions", "9"), want: "versions"},
		{args: s("tune", "--type", "nosuch"), want: "type"},
		{args: s("tune", "--format", "xml"), want: "format"},
		{args: s("tune", "--os", "beos"), want: "os"},
		{args: s("tune", "--storage", "floppy"), want: "storage"},
		{args: s("tune", "--target", "nosuch", "--diff"), want: "nosuch"},
		{args: s("tune", "--apply"), want: "--target"},

		// pg
		{args: s("pg", "start", "--versions", "12"), want: "PostgreSQL 12 is not supported"},
		{args: s("pg", "start", "--versions", "17", "--name", "bad/name"), want: "bad/name"},
		{args: s("pg", "start", "--versions", "19", "--no-install"), want: "19", code: 1},
		{args: s("pg", "start", "--versions", "17", "--set", "nope"), want: `invalid setting "nope"`},
		{args: s("pg", "start", "--versions", "17", "--name", "badset", "--set", "no_such_param=1"), want: "no_such_param"},
		{args: s("pg", "stop", "nosuch"), want: "nosuch"},
		{args: s("pg", "install", "abc"), want: `invalid PostgreSQL version "abc"`},
	}
	if len(cases) < 60 {
		t.Fatalf("the catalogue has %d cases, want at least 60", len(cases))
	}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			args := c.args
			if !c.bench {
				args = append([]string{"--quiet"}, args...)
			}
			r := run(t, args...)
			checkBadInput(t, r, c)
			for _, out := range []string{r.stdout, r.stderr} {
				if strings.Contains(out, secret) || strings.Contains(out, inst.Password()) {
					t.Errorf("password printed: %s", out)
				}
			}
		})
	}
	if _, err := os.Stat(store); err == nil {
		st, err := results.OpenReadOnly(context.Background(), store)
		if err != nil {
			t.Fatalf("the store no longer opens: %v", err)
		}
		defer st.Close()
		runs, _ := st.Runs(context.Background(), results.RunFilter{})
		for _, r := range runs {
			t.Errorf("bad input left run %s (%s, %s) in the store", r.ID, r.Status, r.Command)
		}
	}
	if left := postgresProcessesUnder(state); len(left) > 0 {
		t.Errorf("servers left running: %v", left)
	}
}

// checkBadInput asserts the catalogue's rules on one result.
func checkBadInput(t *testing.T, r result, c badCase) {
	t.Helper()
	want := c.code
	switch {
	case want == 0 && c.bench:
		want = 1
	case want == 0:
		want = 64
	}
	if r.code != want {
		t.Errorf("exit code %d, want %d; stderr:\n%s", r.code, want, r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "internal error") {
		t.Errorf("stack trace or internal error:\n%s", r.stderr)
	}
	if r.stdout != "" && !(c.banner && strings.HasPrefix(r.stdout, "pgbench (pglab, server ") && strings.Count(r.stdout, "\n") == 1) {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	text := strings.TrimRight(r.stderr, "\n")
	if text == "" {
		t.Fatalf("no error message")
	}
	lines := strings.Split(text, "\n")
	if !c.bench {
		if len(lines) != 1 {
			t.Errorf("%d lines on stderr, want one:\n%s", len(lines), r.stderr)
		}
		if !strings.HasPrefix(lines[0], "pglab: ") || !strings.Contains(lines[0], c.want) {
			t.Errorf("error line %q, want 'pglab: …%s…'", lines[0], c.want)
		}
		return
	}
	// pgbench-style: "pglab: error: …" first, possibly followed by what
	// pgbench adds (the server's continuation lines, the script line with a
	// caret, a detail, a hint, the list of builtin scripts).
	if !strings.HasPrefix(lines[0], "pglab: ") && !strings.HasPrefix(lines[0], "pglab bench: ") {
		t.Errorf("first line %q does not start with the program name", lines[0])
	}
	found := false
	for _, l := range lines {
		if strings.Contains(l, c.want) {
			found = true
		}
	}
	if !found {
		t.Errorf("no line says %q:\n%s", c.want, r.stderr)
	}
}
