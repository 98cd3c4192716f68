package cli_test

// Secrets: every command is run with a DSN holding a known password (a
// role the test makes on a named instance), on success and error paths,
// and the password must appear in no output, progress line, log, store
// byte, report or artefact. Also: store files are 0600, managed servers
// listen on 127.0.0.1 and a 0700 socket directory with scram-sha-256
// only, and PGPASSWORD and .pgpass supply passwords to bench and study.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

const canary = "Canary-pw-7c1e-do-not-print"

// secretLab is a named instance with a role "canary" whose password is
// canary, and DSNs for it.
type secretLab struct {
	dsn     string // canary's DSN with password, database lab
	noPW    string // the same without password
	baseDSN string // the instance's own DSN (for set-up)
	inst    *pgserver.Instance
}

func newSecretLab(t *testing.T) *secretLab {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	t.Setenv("PGLAB_TMPDIR", pgtest.TempDir(t))
	base := startInstance(t, "sec")
	inst, err := pgserver.OpenNamed("sec")
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, base)
	for _, q := range []string{
		"CREATE ROLE canary LOGIN SUPERUSER PASSWORD '" + canary + "'",
		"CREATE DATABASE lab OWNER canary",
		"CREATE DATABASE storedb OWNER canary",
	} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u, _ := url.Parse(base)
	u.User = url.UserPassword("canary", canary)
	u.Path = "/lab"
	l := &secretLab{dsn: u.String(), baseDSN: base, inst: inst}
	u.User = url.User("canary")
	l.noPW = u.String()
	return l
}

// withDB returns dsn pointing at another database.
func withDB(dsn, db string) string {
	u, _ := url.Parse(dsn)
	u.Path = "/" + db
	return u.String()
}

func TestSecretsNeverLeak(t *testing.T) {
	l := newSecretLab(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	pgStore := withDB(l.dsn, "storedb")
	out := filepath.Join(dir, "report")
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte(fmt.Sprintf("targets:\n  far: %s\nstudies:\n  - copy-errors\nreps: 1\nstore: %s\nout: %s\n", l.dsn, store, filepath.Join(dir, "planreport"))), 0o600)
	wrongDB := withDB(l.dsn, "nosuchdb")

	commands := [][]string{
		{"bench", "-i", "-s", "1", l.dsn},
		{"bench", "-t", "50", "-c", "2", "-P", "1", "-r", l.dsn},
		{"bench", "-t", "20", "--json", "--debug", l.dsn},
		{"bench", "-t", "20", "-l", "--log-prefix", filepath.Join(dir, "pgbench_log"), "--target", l.dsn},
		{"bench", "-t", "1", wrongDB},
		{"bench", "-t", "1", "-h", "127.0.0.1", "-p", "1", l.dsn},
		{"study", "commit", "--target", "far=" + l.dsn, "--param", "updates=200", "--param", "rows=200", "--reps", "1", "--store", store},
		{"study", "copy-errors", "--target", "far=" + l.dsn, "--json", "--store", store},
		{"study", "copy-errors", "--target", "far=" + l.dsn, "--store", pgStore},
		{"study", "commit", "--target", "far=" + wrongDB, "--store", store},
		{"compare", "--target", "far=" + l.dsn, "--studies", "copy-errors,commit", "--param", "commit.updates=200", "--param", "commit.rows=200", "--reps", "1", "--store", store, "--out", out},
		{"plan", plan},
		{"runs", "--store", store},
		{"runs", "--store", pgStore},
		{"report", "last", "--store", store, "--format", "text"},
		{"report", "last", "--store", store, "--format", "csv", "--out", filepath.Join(dir, "r.csv")},
		{"report", "last", "--store", store, "--format", "json", "--out", filepath.Join(dir, "r.json")},
		{"report", "last", "--store", store, "--out", filepath.Join(dir, "all") + "/"},
		{"report", "last", "--store", pgStore, "--format", "md"},
		{"tune", "--target", l.dsn, "--memory", "1GB", "--cpus", "2", "--diff"},
		{"tune", "--target", l.dsn, "--memory", "1GB", "--cpus", "2", "--apply"},
		{"tune", "--target", wrongDB, "--memory", "1GB", "--cpus", "2", "--diff"},
	}
	for _, args := range commands {
		r := run(t, args...)
		name := strings.ReplaceAll(strings.Join(args[:2], " "), l.dsn, "DSN")
		t.Logf("%s: exit %d", name, r.code)
		for stream, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if strings.Contains(text, canary) || strings.Contains(text, url.QueryEscape(canary)) {
				t.Errorf("%v: password on %s:\n%s", strings.Join(args, " "), stream, text)
			}
		}
		if strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%s: stack trace:\n%s", name, r.stderr)
		}
	}
	// The successful runs did what they should (a leak test that only
	// ran error paths would prove nothing).
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("compare wrote no report: %v", err)
	}
	if r := run(t, "runs", "--store", store); strings.Count(r.stdout, "done") < 3 {
		t.Errorf("fewer than 3 finished runs in the store:\n%s", r.stdout)
	}

	// Every file written: the store (raw SQLite bytes, WAL included),
	// reports, pgbench logs, pglab's state (instance records, server logs).
	for _, root := range []string{dir, os.Getenv("XDG_STATE_HOME"), os.Getenv("PGLAB_TMPDIR")} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			if bytes.Contains(data, []byte(canary)) && path != plan {
				t.Errorf("password stored in %s", path)
			}
			return nil
		})
	}
	for _, p := range []string{store} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	// The PostgreSQL store: no password in any of its text.
	conn := pgtest.Connect(t, withDB(l.baseDSN, "storedb"))
	var n int
	if err := conn.QueryRow(context.Background(), `
		SELECT count(*) FROM (
			SELECT to_jsonb(t)::text AS row FROM pglab_results.runs t
			UNION ALL SELECT to_jsonb(t)::text FROM pglab_results.targets t
			UNION ALL SELECT to_jsonb(t)::text FROM pglab_results.artefacts t
		) x WHERE row LIKE '%' || $1 || '%'`, canary).Scan(&n); err != nil {
		t.Logf("reading the PostgreSQL store's tables: %v", err)
	} else if n > 0 {
		t.Errorf("%d rows of the PostgreSQL store hold the password", n)
	}
}

// TestManagedServerExposure checks how a managed server can be reached:
// TCP on 127.0.0.1 only, a Unix socket in a 0700 directory, scram-sha-256
// for every connection, no trust line.
func TestManagedServerExposure(t *testing.T) {
	l := newSecretLab(t)
	conn := pgtest.Connect(t, l.baseDSN)
	show := func(name string) string { return pgtest.QueryString(t, conn, "SELECT current_setting($1)", name) }
	if v := show("listen_addresses"); v != "127.0.0.1" {
		t.Errorf("listen_addresses = %q, want 127.0.0.1", v)
	}
	if v := show("password_encryption"); v != "scram-sha-256" {
		t.Errorf("password_encryption = %q", v)
	}
	sock := show("unix_socket_directories")
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory %s: %v %v, want mode 0700", sock, st.Mode().Perm(), err)
	}
	rows, err := conn.Query(context.Background(), "SELECT type, auth_method FROM pg_hba_file_rules WHERE error IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	lines := 0
	for rows.Next() {
		var typ, method string
		rows.Scan(&typ, &method)
		lines++
		if method != "scram-sha-256" {
			t.Errorf("pg_hba.conf has a %s line with %s, want scram-sha-256 only", typ, method)
		}
	}
	if lines == 0 {
		t.Errorf("no pg_hba.conf rules read")
	}
	// The instance's password file is private.
	if st, err := os.Stat(filepath.Join(l.inst.Dir(), "password")); err == nil && st.Mode().Perm()&0o077 != 0 {
		t.Errorf("password file mode %v, want no group or other access", st.Mode().Perm())
	}
}

// TestPasswordFromEnvironmentAndPgpass: bench and study --target find the
// password in PGPASSWORD, and in ~/.pgpass, as libpq does.
func TestPasswordFromEnvironmentAndPgpass(t *testing.T) {
	l := newSecretLab(t)
	if r := run(t, "bench", "-i", "-s", "1", "-q", l.dsn); r.code != 0 {
		t.Fatalf("bench -i: %s", r.stderr)
	}
	u, _ := url.Parse(l.noPW)
	try := func(t *testing.T) {
		t.Helper()
		if r := run(t, "bench", "-t", "5", l.noPW); r.code != 0 {
			t.Errorf("bench: exit %d: %s", r.code, r.stderr)
		}
		store := filepath.Join(t.TempDir(), "r.db")
		if r := run(t, "--quiet", "study", "copy-errors", "--target", "far="+l.noPW, "--store", store); r.code != 0 {
			t.Errorf("study: exit %d: %s", r.code, r.stderr)
		}
	}
	t.Run("no password", func(t *testing.T) {
		t.Setenv("PGPASSWORD", "")
		t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))
		if r := run(t, "bench", "-t", "5", l.noPW); r.code == 0 {
			t.Fatalf("bench connected without a password: the cases below would prove nothing")
		}
	})
	t.Run("PGPASSWORD", func(t *testing.T) {
		t.Setenv("PGPASSWORD", canary)
		t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))
		try(t)
	})
	t.Run(".pgpass", func(t *testing.T) {
		home := t.TempDir()
		line := fmt.Sprintf("%s:%s:*:canary:%s\n", u.Hostname(), u.Port(), canary)
		if err := os.WriteFile(filepath.Join(home, ".pgpass"), []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("HOME", home)
		t.Setenv("PGPASSWORD", "")
		os.Unsetenv("PGPASSWORD")
		os.Unsetenv("PGPASSFILE")
		try(t)
	})
}
