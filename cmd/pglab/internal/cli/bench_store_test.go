package cli_test

import (
	"context"
	"io"
	"log"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pglab/pglab/cmd/pglab/internal/serve"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

// TestBenchStoreOneMachine is issue 38's "done when" for a plain run:
// 'pglab bench --store' on one machine (no --listen) against a real
// server keeps the run (kind bench); 'pglab runs' lists it, 'pglab report'
// renders its figures and pgbench's summary, and serve's page of the run
// shows them.
func TestBenchStoreOneMachine(t *testing.T) {
	dsn := pgtest.CreateDB(t, pgtest.Shared(t, pgtest.DefaultVersion()))
	if r := run(t, "bench", "-i", "-s", "1", "-q", dsn); r.code != 0 {
		t.Fatalf("bench -i: exit %d: %s", r.code, r.stderr)
	}
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, "bench", "--store", store, "-S", "-c", "2", "-j", "1", "-t", "50", dsn)
	if r.code != 0 {
		t.Fatalf("bench --store: exit %d: %s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`pglab: run (\S+) stored in ` + regexp.QuoteMeta(store)).FindStringSubmatch(r.stderr)
	if m == nil || !strings.Contains(r.stdout, "number of transactions actually processed: 100/100") {
		t.Fatalf("bench --store printed:\n%s\n%s", r.stdout, r.stderr)
	}
	id := m[1]

	runs := run(t, "runs", "--store", store)
	if runs.code != 0 || !regexp.MustCompile(`(?m)^`+id+`\s+bench\s+done\s`).MatchString(runs.stdout) {
		t.Errorf("pglab runs (exit %d) does not list %s as a done bench run:\n%s%s", runs.code, id, runs.stdout, runs.stderr)
	}
	rep := run(t, "report", id, "--store", store, "--format", "md")
	if rep.code != 0 {
		t.Fatalf("pglab report: exit %d: %s", rep.code, rep.stderr)
	}
	for _, want := range []string{"bench on db", "### Throughput\n\n| clients | db |", " tps |", "### p99 latency",
		"| connection | host=127.0.0.1 port="} {
		if !strings.Contains(rep.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, rep.stdout)
		}
	}
	if strings.Contains(rep.stdout, "| part |") {
		t.Errorf("a run of one process shows a part column:\n%s", rep.stdout)
	}
	html := run(t, "report", id, "--store", store, "--format", "html")
	for _, want := range []string{"pgbench&#39;s summary", "number of transactions actually processed: 100/100", "transaction type: &lt;builtin: select only&gt;"} {
		if html.code != 0 || !strings.Contains(html.stdout, want) {
			t.Errorf("HTML report (exit %d) lacks %q", html.code, want)
		}
	}

	st, err := results.OpenReadOnly(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := serve.New(serve.Options{Store: st, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for path, wants := range map[string][]string{
		"/":           {`href="/runs/` + id + `"`, "bench"},
		"/runs/" + id: {"Throughput", "tps", "number of transactions actually processed: 100/100"},
	} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for _, want := range wants {
			if res.StatusCode != 200 || !strings.Contains(string(body), want) {
				t.Errorf("GET %s (%d) lacks %q", path, res.StatusCode, want)
			}
		}
	}
}
