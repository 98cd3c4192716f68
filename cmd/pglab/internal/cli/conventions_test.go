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
