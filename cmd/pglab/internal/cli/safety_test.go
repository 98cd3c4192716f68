package cli_test

// Safety on a user's server: pglab drops or overwrites nothing it did not
// create unless --force.

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestBenchInitRefusesForeignTables: `pglab bench -i` drops the four
// pgbench_* tables, as pgbench does. A table of one of those names whose
// columns are not pgbench's is someone's data: pglab refuses to drop it
// unless --force, and drops pgbench's own tables (from an earlier -i)
// without asking.
func TestBenchInitRefusesForeignTables(t *testing.T) {
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func(table string) string {
		return pgtest.QueryString(t, conn, "SELECT count(*)::text FROM "+table)
	}
	// A table of that name in another schema is not in the way.
	exec("CREATE SCHEMA other")
	exec("CREATE TABLE other.pgbench_branches (x int)")
	// pgbench's own tables are re-initialised without --force.
	if r := run(t, "bench", "-i", "-s", "1", "-q", dsn); r.code != 0 {
		t.Fatalf("bench -i: %s", r.stderr)
	}
	if r := run(t, "bench", "-i", "-s", "1", "-q", dsn); r.code != 0 {
		t.Fatalf("bench -i over pgbench's tables: %s", r.stderr)
	}

	exec("DROP TABLE pgbench_history")
	exec("CREATE TABLE pgbench_history (id int PRIMARY KEY, what text)")
	exec("INSERT INTO pgbench_history VALUES (1, 'the accounts of 2019')")
	r := run(t, "bench", "-i", "-s", "1", dsn)
	if r.code != 1 {
		t.Errorf("exit code %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "pgbench_history") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("the refusal does not name the table and --force:\n%s", r.stderr)
	}
	if r.stdout != "" || strings.Contains(r.stderr, "dropping old tables") {
		t.Errorf("the refusal came after work began:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}
	if n := count("pgbench_history"); n != "1" {
		t.Errorf("pgbench_history has %s rows after the refusal, want its 1", n)
	}
	// Without the drop step, nothing is dropped: no question asked (the
	// create step then fails as pgbench's does).
	if r := run(t, "bench", "-i", "-I", "v", dsn); r.code != 0 {
		t.Errorf("bench -i -I v: exit %d: %s", r.code, r.stderr)
	}
	// --force drops it.
	if r := run(t, "bench", "-i", "-s", "1", "-q", "--force", dsn); r.code != 0 {
		t.Fatalf("bench -i --force: exit %d: %s", r.code, r.stderr)
	}
	if n := count("pgbench_history"); n != "0" {
		t.Errorf("pgbench_history has %s rows after -i --force, want pgbench's empty table", n)
	}
	if n := count("pgbench_accounts"); n != "100000" {
		t.Errorf("pgbench_accounts has %s rows", n)
	}
	if n := count("other.pgbench_branches"); n != "0" {
		t.Errorf("other.pgbench_branches: %s", n)
	}
}

// TestStudyRefusesForeignSchema: a study on a user's server works in a
// schema "pglab" it creates and marks; a schema of that name that pglab
// did not create is refused unless --force, and left as it was.
func TestStudyRefusesForeignSchema(t *testing.T) {
	inst := pgtest.Shared(t, "")
	dsn := pgtest.CreateDB(t, inst)
	conn := pgtest.Connect(t, dsn)
	for _, q := range []string{"CREATE SCHEMA pglab", "CREATE TABLE pglab.ledger (id int)", "INSERT INTO pglab.ledger VALUES (1)"} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, "--quiet", "study", "copy-errors", "--target", "mine="+dsn, "--store", store)
	assertOneLineError(t, r, `a schema "pglab" exists that pglab did not create`)
	if !strings.Contains(r.stderr, "--force") {
		t.Errorf("the refusal does not mention --force: %s", r.stderr)
	}
	if n := pgtest.QueryString(t, conn, "SELECT count(*)::text FROM pglab.ledger"); n != "1" {
		t.Errorf("pglab.ledger has %s rows after the refusal", n)
	}
	if r := run(t, "--quiet", "study", "copy-errors", "--target", "mine="+dsn, "--store", store, "--force"); r.code != 0 {
		t.Errorf("with --force: exit %d: %s", r.code, r.stderr)
	}
	if n := pgtest.QueryString(t, conn, "SELECT count(*)::text FROM pglab.ledger"); n != "1" {
		t.Errorf("pglab.ledger has %s rows after the study with --force", n)
	}
}
