package cli_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/results"
)

// storedRuns writes two runs into a new store with the results API, as
// pglab study would (no server needed): run A measured vacuum on pg16 and
// pg17 (6 repetitions, pg17 clearly faster) and a behaviour probe; run B,
// an hour later, vacuum on one pg17. It returns the store's path.
func storedRuns(t *testing.T) (store, runA, runB string) {
	t.Helper()
	ctx := context.Background()
	store = filepath.Join(t.TempDir(), "results.db")
	s, err := results.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	runA, runB = "20261130-090000-aaaa", "20261130-100000-bbbb"
	caseA := map[string]string{"update_pct": "95", "index": "yes"}
	info := `{"name":"vacuum","title":"VACUUM after updates","source":"seed 000 §4","reps":6,"cases":[{"name":"95 % updated, with index","labels":{"update_pct":"95","index":"yes"}}]}`
	write := func(id string, at time.Time, targets map[string]float64, order []string, probe bool) {
		run, err := s.BeginRun(ctx, results.RunInfo{ID: id, Kind: results.KindStudy, StartedAt: at, Version: "test",
			Command: []string{"pglab", "study", "vacuum"}, Extra: json.RawMessage(`{"study":"vacuum"}`)})
		if err != nil {
			t.Fatal(err)
		}
		var ms []results.Measurement
		for _, name := range order {
			if err := run.AddTarget(ctx, results.Target{Name: name, Kind: results.TargetManaged, ServerVersion: strings.TrimPrefix(name, "pg") + ".1"}); err != nil {
				t.Fatal(err)
			}
			for rep := 1; rep <= 6; rep++ {
				ms = append(ms, results.Measurement{Target: name, Study: "vacuum", Case: caseA, Rep: rep, Metric: "elapsed_ms",
					Value: targets[name] * (1 + float64(rep)/100), Unit: "ms", Direction: results.DirectionLower})
			}
			if probe {
				ms = append(ms, results.Measurement{Target: name, Study: "copy-errors", Case: map[string]string{"probe": "plain"}, Rep: 1,
					Metric: "rows_loaded", Value: 0, Unit: "rows", Exact: true})
				if err := run.AddArtefact(ctx, results.Artefact{Target: name, Study: "copy-errors", Case: map[string]string{"probe": "plain"}, Rep: 1,
					Name: "outcome", ContentType: "text/plain", Data: []byte(`ERROR: invalid input syntax, "quoted", with commas`)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := run.AddArtefact(ctx, results.Artefact{Study: "vacuum", Name: "study-info", ContentType: "application/json", Data: []byte(info)}); err != nil {
			t.Fatal(err)
		}
		if err := run.AddMeasurements(ctx, ms); err != nil {
			t.Fatal(err)
		}
		if err := run.Finish(ctx, results.StatusDone, nil); err != nil {
			t.Fatal(err)
		}
	}
	write(runA, start, map[string]float64{"pg16": 10431, "pg17": 1815}, []string{"pg16", "pg17"}, true)
	write(runB, start.Add(time.Hour), map[string]float64{"pg17": 1700}, []string{"pg17"}, false)
	return store, runA, runB
}

func TestReportFormats(t *testing.T) {
	store, runA, runB := storedRuns(t)

	// The default: the newest run (B, one target), as Markdown.
	r := run(t, "report", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "# pglab report: run "+runB) || strings.Contains(r.stdout, "pg16") {
		t.Errorf("default report is not of the last run:\n%s", r.stdout)
	}

	// Run A by a prefix: the vacuum table with the seed's shape.
	r = run(t, "report", "20261130-09", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"## vacuum — VACUUM after updates (seed 000 §4)",
		"| rows updated | index | pg16 | pg17 | pg17 vs pg16 |",
		"| 95 % | yes |",
		"× faster (p=0.000 q=",
		"## copy-errors",
		"## How to read this",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report of run A lacks %q:\n%s", want, r.stdout)
		}
	}

	// --alpha: the report's family at q = 0.001.
	r = run(t, "report", runA, "--alpha", "0.001", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "| 95 % | yes |") || !strings.Contains(r.stdout, "expected at q=0.001") || !strings.Contains(r.stdout, "q = 0.001") {
		t.Errorf("--alpha 0.001: exit %d\n%s", r.code, r.stdout)
	}

	// Two runs: targets of both, the clashing pg17 prefixed by run.
	r = run(t, "report", runA, "bbbb", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "| pg16 | aaaa/pg17 | bbbb/pg17 | aaaa/pg17 vs pg16 | bbbb/pg17 vs pg16 |") {
		t.Errorf("two-run report has not the expected columns:\n%s", r.stdout)
	}

	// JSON: every figure, no NaN.
	r = run(t, "report", runA, "--format", "json", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Studies []struct {
			Name    string `json:"name"`
			Metrics []struct {
				Metric    string `json:"metric"`
				Summaries []struct {
					Target string    `json:"target"`
					Values []float64 `json:"values"`
				} `json:"summaries"`
				Changes []struct {
					Verdict string   `json:"verdict"`
					P       *float64 `json:"p"`
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"studies"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, r.stdout)
	}
	if len(doc.Studies) != 2 || doc.Studies[0].Name != "vacuum" {
		t.Fatalf("JSON studies: %+v", doc.Studies)
	}
	m := doc.Studies[0].Metrics[0]
	if m.Metric != "elapsed_ms" || len(m.Summaries) != 2 || len(m.Summaries[1].Values) != 6 || m.Changes[0].Verdict != "better" || m.Changes[0].P == nil {
		t.Errorf("JSON vacuum metric: %+v", m)
	}

	// CSV: loads with a strict RFC 4180 reader, one row per measurement.
	r = run(t, "report", runA, "--format", "csv", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	if len(rows) != 1+2*6+2 {
		t.Errorf("%d CSV rows, want header + 14", len(rows))
	}
	if got := strings.Join(rows[0], ","); got != "run,target,server_version,study,case,case.index,case.probe,case.update_pct,rep,metric,value,unit,exact,direction" {
		t.Errorf("CSV header: %s", got)
	}
	if rows[1][0] != runA || rows[1][1] != "pg16" || rows[1][2] != "16.1" || rows[1][9] != "elapsed_ms" {
		t.Errorf("first CSV row: %q", rows[1])
	}

	// HTML and text.
	r = run(t, "report", runA, "--format", "html", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "<svg") || !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") {
		t.Errorf("HTML report: exit %d, %.200s", r.code, r.stdout)
	}
	r = run(t, "report", runA, "--format", "text", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "vacuum: 95 % updated, with index") {
		t.Errorf("text report: exit %d\n%s", r.code, r.stdout)
	}
}

func TestReportOut(t *testing.T) {
	store, runA, _ := storedRuns(t)
	dir := filepath.Join(t.TempDir(), "out") + "/"
	r := run(t, "report", runA, "--out", dir, "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"report.md", "report.html", "report.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v (%d bytes)", name, err, len(data))
		}
	}
	file := filepath.Join(t.TempDir(), "r.html")
	r = run(t, "report", runA, "--out", file, "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.HasPrefix(string(data), "<!DOCTYPE html>") {
		t.Errorf("--out r.html: %v %.100s", err, data)
	}
	csvFile := filepath.Join(t.TempDir(), "m.txt")
	r = run(t, "report", runA, "--out", csvFile, "--format", "csv", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(csvFile); !strings.HasPrefix(string(data), "run,target,") {
		t.Errorf("--format csv --out m.txt wrote %.100s", data)
	}
}

func TestReportBadInput(t *testing.T) {
	store, runA, _ := storedRuns(t)
	out := filepath.Join(t.TempDir(), "never.md")
	missing := filepath.Join(t.TempDir(), "none.db")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", "nosuchrun", "--store", store, "--out", out}, "run nosuchrun: no such run"},
		{[]string{"report", "2026", "--store", store, "--out", out}, "ambiguous run ID"},
		{[]string{"report", runA, "aaaa", "--store", store, "--out", out}, "run named twice"},
		{[]string{"report", "--format", "pdf", "--store", store}, `unknown report format "pdf"`},
		{[]string{"report", "--store", missing, "--out", out}, "no results store at " + missing},
		{[]string{"report", "--alpha", "1.5", "--store", store}, "--alpha must be between 0 and 1"},
		{[]string{"report", "--out", filepath.Join(t.TempDir(), "x.pdf"), "--store", store}, "cannot tell the format"},
		{[]string{"report", "--out", filepath.Join(t.TempDir(), "nodir", "x.md"), "--store", store}, "does not exist"},
		{[]string{"report", "--nosuchflag", "--store", store}, "unknown flag: --nosuchflag"},
		{[]string{"runs", "--store", missing}, "no results store at " + missing},
		{[]string{"runs", "--limit", "-2", "--store", store}, "--limit must be 0 (all) or more"},
		{[]string{"runs", "extra", "--store", store}, "runs takes no arguments"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			assertUsageError(t, run(t, c.args...), c.want)
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("bad input wrote %s", out)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("reading a missing store created it")
	}
}

func TestRuns(t *testing.T) {
	store, runA, runB := storedRuns(t)
	r := run(t, "runs", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two runs:\n%s", r.stdout)
	}
	for _, w := range []string{"ID", "KIND", "STATUS", "STARTED", "DURATION", "TARGETS", "STUDIES"} {
		if !strings.Contains(lines[0], w) {
			t.Errorf("header %q lacks %s", lines[0], w)
		}
	}
	// Newest first, with targets and studies.
	if f := strings.Fields(lines[1]); f[0] != runB || f[1] != "study" || f[2] != "done" || f[len(f)-2] != "pg17" || f[len(f)-1] != "vacuum" {
		t.Errorf("first run line: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != runA || f[len(f)-2] != "pg16,pg17" || !strings.Contains(lines[2], "2026-11-30 09:00 UTC") {
		t.Errorf("second run line: %q", lines[2])
	}
	r = run(t, "runs", "--limit", "1", "--store", store)
	if got := strings.Count(r.stdout, "\n"); r.code != 0 || got != 2 || !strings.Contains(r.stdout, runB) {
		t.Errorf("--limit 1: exit %d, %d lines:\n%s", r.code, got, r.stdout)
	}

	// An empty store says so.
	empty := filepath.Join(t.TempDir(), "empty.db")
	s, err := results.Open(context.Background(), empty)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	r = run(t, "runs", "--store", empty)
	if r.code != 0 || r.stdout != fmt.Sprintf("no runs in %s\n", empty) {
		t.Errorf("empty store: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// --fail-on regression: exit 3 with one line per called regression, 0
// when the report calls none; a bad value is bad input.
func TestReportFailOnRegression(t *testing.T) {
	store, runA, _ := storedRuns(t)
	// Run A: pg17's VACUUM 5.7× faster than pg16's: no regression.
	r := run(t, "report", runA, "--fail-on", "regression", "--store", store)
	if r.code != 0 || strings.Contains(r.stderr, "regression:") {
		t.Errorf("no regression: exit %d\n%s", r.code, r.stderr)
	}
	// Run B's pg17 first: run A's pg16 is 6× slower than that baseline,
	// and run A's pg17 6.8 % slower.
	r = run(t, "report", "bbbb", runA, "--fail-on", "regression", "--store", store)
	if r.code != 3 {
		t.Fatalf("regressions: exit %d, want 3\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"pglab: regression: vacuum · 95 % updated, with index · VACUUM time: pg16 vs bbbb/pg17 6.1× slower (p=0.002 q=0.002 n=6)\n",
		"pglab: regression: vacuum · 95 % updated, with index · VACUUM time: aaaa/pg17 vs bbbb/pg17 +6.8 %, slower (p=0.002 q=0.002 n=6)\n",
		"pglab: 2 called regressions (--fail-on regression)\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// A floor of 10 %: the 6.8 % change is no longer called.
	r = run(t, "report", "bbbb", runA, "--fail-on", "regression", "--min-change", "10%", "--store", store)
	if r.code != 3 || strings.Count(r.stderr, "pglab: regression:") != 1 || !strings.Contains(r.stderr, "1 called regression (") {
		t.Errorf("--min-change 10%%: exit %d\n%s", r.code, r.stderr)
	}
	for _, bad := range [][]string{{"--fail-on", "slower"}, {"--min-change", "abc"}, {"--min-change", "-1"}} {
		r = run(t, append([]string{"report", runA, "--store", store}, bad...)...)
		if r.code != 64 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, want 64 with one line:\n%s", bad, r.code, r.stderr)
		}
	}
}
