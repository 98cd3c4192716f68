package cli_test

// PostgreSQL's conventions that pglab keeps: an empty DSN means libpq's
// environment, pgbench's application_name, a plan read from standard
// input.

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/cmd/pglab/internal/cli"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// runIn runs pglab in-process with args and stdin as its standard input.
func runIn(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// setPGEnv points libpq's environment variables at the server of dsn
// (and unsets the others), for the test's duration.
func setPGEnv(t *testing.T, dsn string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	for _, k := range []string{"PGSERVICE", "PGAPPNAME", "PGOPTIONS", "PGSSLMODE"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{"PGHOST": u.Hostname(), "PGPORT": u.Port(), "PGUSER": u.User.Username(),
		"PGPASSWORD": pw, "PGDATABASE": strings.TrimPrefix(u.Path, "/")} {
		t.Setenv(k, v)
	}
}

// TestTargetEmptyDSN: --target NAME= takes the whole connection from the
// PG* environment variables, as libpq does for an empty connection string:
// tune reads the server's version from it, bench and study run on it.
func TestTargetEmptyDSN(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	setPGEnv(t, dsn)
	r := run(t, "tune", "--target", "prod=", "--diff", "--memory", "1GB", "--cpus", "1", "--storage", "ssd")
	if r.code != 0 || !strings.Contains(r.stdout, "PostgreSQL 17") || !strings.Contains(r.stdout, "shared_buffers") {
		t.Errorf("tune --target prod= --diff: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "--quiet", "bench", "-i", "-s", "1", "-q", "--target", "prod="); r.code != 0 {
		t.Fatalf("bench -i --target prod=: exit %d: %s", r.code, r.stderr)
	}
	r = run(t, "bench", "-S", "-t", "5", "--target", "prod=")
	if r.code != 0 || !strings.Contains(r.stdout, "number of transactions actually processed: 5/5") {
		t.Errorf("bench --target prod=: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	store := filepath.Join(t.TempDir(), "r.db")
	r = run(t, "--quiet", "study", "copy-errors", "--target", "prod=", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "prod: PostgreSQL 17") {
		t.Errorf("study --target prod=: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Without the variables, libpq's defaults: a failure to connect
	// (exit 1), not a refused command line.
	t.Setenv("PGHOST", "127.0.0.1")
	t.Setenv("PGPORT", "1")
	r = run(t, "--quiet", "study", "copy-errors", "--target", "prod=", "--store", store)
	assertOneLineError(t, r, "target prod: connect")
}

// TestBenchApplicationName: pglab bench's connections say
// application_name "pgbench", as pgbench's do, unless the connection
// string, its fallback_application_name or PGAPPNAME says otherwise.
func TestBenchApplicationName(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "create table seen (name text)"); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "name.sql")
	if err := os.WriteFile(script, []byte("insert into seen select current_setting('application_name');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGAPPNAME", "")
	os.Unsetenv("PGAPPNAME")
	cases := []struct {
		name, dsn, env, want string
	}{
		{"default", dsn, "", "pgbench"},
		{"in the DSN", dsn + "&application_name=mine", "", "mine"},
		{"fallback in the DSN", dsn + "&fallback_application_name=fb", "", "fb"},
		{"PGAPPNAME", dsn, "from-env", "from-env"},
		{"PGAPPNAME over a fallback", dsn + "&fallback_application_name=fb", "from-env", "from-env"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("PGAPPNAME", c.env)
			}
			if _, err := conn.Exec(ctx, "truncate seen"); err != nil {
				t.Fatal(err)
			}
			if r := run(t, "bench", "-n", "-c", "2", "-t", "1", "-f", script, c.dsn); r.code != 0 {
				t.Fatalf("bench: exit %d: %s", r.code, r.stderr)
			}
			var names []string
			rows, err := conn.Query(ctx, "select name from seen order by 1")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var n string
				rows.Scan(&n)
				names = append(names, n)
			}
			if strings.Join(names, ",") != c.want+","+c.want {
				t.Errorf("application_name of the clients = %v, want %s", names, c.want)
			}
		})
	}
}

// TestPlanStdin: pglab plan - reads the plan from standard input; its
// errors name it "stdin" with the line and column.
func TestPlanStdin(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	bad := runIn(t, "versions: [17]\nstudies:\n  - nosuch\n", "--quiet", "plan", "-")
	assertUsageError(t, bad, `stdin:3:5: studies[0]: unknown study "nosuch"`)
	out := filepath.Join(t.TempDir(), "report")
	plan := "versions: [17]\nstudies: [copy-errors]\nreps: 1\nstore: " + store + "\nout: " + out + "\n"
	r := runIn(t, plan, "--quiet", "plan", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "copy-errors") {
		t.Fatalf("plan -: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Errorf("plan - wrote no report: %v", err)
	}
	if rec, _ := storedRun(t, store); rec.Kind != "plan" {
		t.Errorf("the run is stored as %q, want plan", rec.Kind)
	}
}

// TestBenchJoinTimeoutDuration: the coordinator's --join-timeout takes a
// duration, as worker's does, and a bare number as seconds, as it did.
func TestBenchJoinTimeoutDuration(t *testing.T) {
	dsn := pgtest.CreateDB(t, pgtest.Shared(t, "17"))
	for _, v := range []string{"1s", "1"} {
		r := run(t, "--quiet", "bench", "--listen", "127.0.0.1:0", "--expect-workers", "1", "--join-timeout", v, "-c", "1", "-t", "1", dsn)
		if r.code != 2 || !strings.Contains(r.stderr, "only 0 of 1 workers joined") || !strings.Contains(r.stderr, "within 1s") {
			t.Errorf("--join-timeout %s: exit %d\n%s", v, r.code, r.stderr)
		}
	}
	r := run(t, "bench", "--listen", "127.0.0.1:0", "--expect-workers", "1", "--join-timeout", "soon", dsn)
	if r.code != 1 || !strings.Contains(r.stderr, `invalid value "soon" for option --join-timeout (a duration such as 90s or 5m`) {
		t.Errorf("--join-timeout soon: exit %d\n%s", r.code, r.stderr)
	}
}

// TestDeprecatedSpellings: the old spellings of renamed flags still work,
// each with a one-line note on stderr naming the new one.
func TestDeprecatedSpellings(t *testing.T) {
	tune := []string{"--memory", "1GB", "--cpus", "1", "--storage", "ssd"}
	for _, c := range []struct {
		old, new []string
		note     string
	}{
		{append([]string{"tune", "--pg-version", "11"}, tune...), append([]string{"tune", "--versions", "11"}, tune...), "pglab: --pg-version is deprecated: use --versions\n"},
		{[]string{"capture", "--settings", "--version", "15", "--format", "jsonlog"}, []string{"capture", "--settings", "--versions", "15", "--log-format", "jsonlog"},
			"pglab: --format is deprecated: use --log-format\npglab: --version is deprecated: use --versions\n"},
	} {
		old, now := run(t, c.old...), run(t, c.new...)
		if old.code != 0 || now.code != 0 || old.stdout != now.stdout || old.stderr != c.note || now.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q; %v: exit %d, stderr %q; same output %v", c.old, old.code, old.stderr, c.new, now.code, now.stderr, old.stdout == now.stdout)
		}
	}
	if r := run(t, "tune", "--help"); strings.Contains(r.stdout, "pg-version") {
		t.Errorf("tune --help shows the old spelling:\n%s", r.stdout)
	}
	// pg start --version: the same server as --versions.
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	r := run(t, "pg", "start", "--version", "17", "--name", "old")
	t.Cleanup(func() { run(t, "--quiet", "pg", "stop", "old", "--remove") })
	if r.code != 0 || !strings.HasPrefix(r.stderr, "pglab: --version is deprecated: use --versions\n") || !strings.HasPrefix(r.stdout, "postgres://") {
		t.Errorf("pg start --version 17: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	assertUsageError(t, run(t, "pg", "start", "--versions", "16,17"), "one version, one server")
}

// TestConnFlags: psql's -h, -p, -U and -d on the commands that connect:
// they override the --target DSN's parts, or alone connect as psql would;
// help is -?.
func TestConnFlags(t *testing.T) {
	inst := pgtest.Shared(t, "17")
	u, err := url.Parse(pgtest.CreateDB(t, inst))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSWORD", inst.Password())
	conn := []string{"-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), "-d", strings.TrimPrefix(u.Path, "/")}
	tune := []string{"--memory", "1GB", "--cpus", "1", "--storage", "ssd", "--diff"}
	if r := run(t, append(append([]string{"tune"}, conn...), tune...)...); r.code != 0 || !strings.Contains(r.stdout, "PostgreSQL 17") {
		t.Errorf("tune -h -p -U -d --diff: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// -p overrides the port of a DSN that names another one.
	wrong := "prod=postgres://" + u.User.Username() + "@" + u.Hostname() + ":1" + u.Path
	if r := run(t, "tune", "--target", wrong, "-p", u.Port(), "--memory", "1GB", "--cpus", "1", "--storage", "ssd", "--diff"); r.code != 0 {
		t.Errorf("tune --target DSN -p: exit %d\n%s", r.code, r.stderr)
	}
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, append([]string{"--quiet", "study", "copy-errors", "--target", "mine=", "--store", store}, conn...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "mine: PostgreSQL 17") {
		t.Errorf("study --target mine= -h -p -U -d: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	assertUsageError(t, run(t, "--quiet", "study", "copy-errors", "--versions", "17", "-h", "db1"), "-h, -p, -U and -d go with --target NAME=DSN")
	assertUsageError(t, run(t, "tune", "--target", "pg17", "-h", "db1", "--diff"), "not with the instance pg17")
	for _, cmd := range []string{"tune", "study", "compare", "worker"} {
		if r := run(t, cmd, "-?"); r.code != 0 || !strings.Contains(r.stdout, "-h, --host string") || !strings.Contains(r.stdout, "-?, --help") {
			t.Errorf("%s -?: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
	}
}

// TestCompletion: pglab completion bash|zsh|fish writes cobra's scripts;
// the values they ask for are study names, --param keys, versions,
// managed instances and formats.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if r := run(t, "completion", sh); r.code != 0 || !strings.Contains(r.stdout, "__complete") {
			t.Errorf("completion %s: exit %d, %d bytes\n%s", sh, r.code, len(r.stdout), r.stderr)
		}
	}
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	if r := run(t, "--quiet", "pg", "start", "--versions", "17", "--name", "compl"); r.code != 0 {
		t.Fatalf("pg start: %s", r.stderr)
	}
	t.Cleanup(func() { run(t, "--quiet", "pg", "stop", "compl", "--remove") })
	complete := func(args ...string) []string {
		r := run(t, append([]string{"__complete"}, args...)...)
		if r.code != 0 {
			t.Errorf("__complete %v: exit %d: %s", args, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		return lines[:len(lines)-1] // the last line is the directive
	}
	has := func(got []string, want string) bool {
		for _, g := range got {
			if strings.SplitN(g, "\t", 2)[0] == want {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"study", ""}, "vacuum"},
		{[]string{"compare", "--studies", "vacuum,t"}, "vacuum,tps"},
		{[]string{"compare", "--param", "vac"}, "vacuum.rows="},
		{[]string{"study", "vacuum", "--param", ""}, "rows="},
		{[]string{"compare", "--versions", "16,"}, "16,17"},
		{[]string{"compare", "--versions", ""}, pgtest.Binaries(t, "17").Version.String()},
		{[]string{"study", "vacuum", "--target", ""}, "compl"},
		{[]string{"pg", "stop", ""}, "compl"},
		{[]string{"report", "--format", ""}, "junit"},
		{[]string{"tune", "--format", ""}, "alter"},
		{[]string{"capture", "--log-format", ""}, "jsonlog"},
	} {
		if got := complete(c.args...); !has(got, c.want) {
			t.Errorf("__complete %q: %q lacks %q", c.args, got, c.want)
		}
	}
}
