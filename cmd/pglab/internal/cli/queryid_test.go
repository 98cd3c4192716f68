package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/workload/sqltext"
)

// TestReplayQueryID: the application runs on a managed 17 that logs as
// pglab capture --settings says (compute_query_id on) and has
// pg_stat_statements; a replay of its csvlog shows, for every query
// fingerprint, the query ids its statements had, in report.json's case
// labels and in report.md's tables, and each is a queryid that
// pg_stat_statements holds for a statement of that very fingerprint.
func TestReplayQueryID(t *testing.T) {
	inst, err := loggingServer(t, pgserver.Setting{Name: "shared_preload_libraries", Value: "pg_stat_statements"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "app.sql")
	if err := os.WriteFile(data, []byte(replayData), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := loadQuietly(ctx, inst, data); err != nil {
		t.Fatal(err)
	}
	admin := pgtest.Connect(t, inst.DSN())
	if _, err := admin.Exec(ctx, "set log_min_duration_statement = -1; create extension pg_stat_statements"); err != nil {
		t.Fatalf("pg_stat_statements (contrib of pglab's PostgreSQL builds): %v", err)
	}
	admin.Close(ctx)
	sent := 0
	for i := 0; i < 2; i++ {
		conn := pgtest.Connect(t, inst.DSN())
		n, _, err := appSession(ctx, conn, i)
		conn.Close(ctx)
		sent += n
		if err != nil {
			t.Fatal(err)
		}
	}
	logFile := filepath.Join(inst.DataDir(), "log", "pg.csv")
	waitSessionsLogged(t, logFile)
	wl := filepath.Join(dir, "app.workload")
	r := run(t, "capture", "--database", "pglab", "--log", logFile, "--out", wl)
	if r.code != 0 || !strings.Contains(r.stdout, "query ids     ") {
		t.Fatalf("capture: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("capture:\n%s", r.stdout)

	out := filepath.Join(dir, "report")
	r = run(t, "--quiet", "compare", "--versions", "17", "--reps", "2", "--studies", "replay", "--out", out,
		"--param", "replay.workload="+wl, "--param", "replay.data="+data, "--store", filepath.Join(dir, "r.db"))
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	js, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}

	// What pg_stat_statements holds: its query text of each queryid.
	admin = pgtest.Connect(t, inst.DSN())
	pgss := map[string]string{}
	rows, err := admin.Query(ctx, "select distinct queryid::text, query from pg_stat_statements where queryid <> 0")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, q string
		if err := rows.Scan(&id, &q); err != nil {
			t.Fatal(err)
		}
		pgss[id] = q
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	fps := 0
	for _, st := range readReplayDoc(t, js).Studies {
		for _, c := range st.Cases {
			fp := c.Labels["fingerprint"]
			if st.Name != "replay" || fp == "all" {
				continue
			}
			fps++
			ids := c.Labels["query_id"]
			if ids == "" {
				t.Errorf("%s: no query_id in report.json", c.Labels["query"])
				continue
			}
			if !strings.Contains(strings.ReplaceAll(string(md), `\*`, "*"), "| "+c.Labels["query"]+" | "+ids+" |") {
				t.Errorf("report.md has no row «%s | %s»", c.Labels["query"], ids)
			}
			for _, id := range strings.Split(ids, ", ") {
				q, ok := pgss[id]
				switch {
				case !ok:
					t.Errorf("%s: query_id %s is not a queryid of pg_stat_statements", c.Labels["query"], id)
				case sqltext.Normalize(q).ID != fp:
					t.Errorf("%s: query_id %s is pg_stat_statements' «%s», another fingerprint", c.Labels["query"], id, q)
				default:
					t.Logf("%-55s query_id %-21s = pg_stat_statements' queryid of «%s»", c.Labels["query"], id, q)
				}
			}
		}
	}
	if fps < 8 {
		t.Errorf("report.json has %d fingerprints, want the application's 8 or more", fps)
	}
}
