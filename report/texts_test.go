package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// TestOutputsInReports checks that the studies' text artefacts reach the
// reports: the COPY transcripts under the matrix in Markdown, VACUUM
// VERBOSE per case and target folded in the HTML (first repetition), and
// every repetition's text in the JSON; and that a metric's note marks the
// "–" of the target lacking it.
func TestOutputsInReports(t *testing.T) {
	md, html, js := renderFixture(t)
	m := md.String()
	matrix := strings.Index(m, "| ON_ERROR ignore |")
	said := strings.Index(m, "### What the server said")
	if matrix < 0 || said < matrix {
		t.Errorf("Markdown: the transcripts are not under the matrix (matrix at %d, transcripts at %d)", matrix, said)
	}
	for _, want := range []string{
		"NOTICE:  skipping row due to data type incompatibility at line 3 for column \"abalance\"",
		"pg16, pg17:\n\n```\nCOPY t FROM STDIN;\n1,x\n\\.\nERROR:  invalid input syntax",
		"| 95 % | yes | dead_tuple_bytes | – ¹ |",
		"- ¹ PostgreSQL 16 has no pg_stat_progress_vacuum.dead_tuple_bytes (new in 17)",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(m, "VACUUM VERBOSE output") {
		t.Errorf("Markdown shows VACUUM VERBOSE output (HTML and JSON only)")
	}

	h := html.String()
	for _, c := range []string{"95 % updated, with index", "95 % updated, no index", "50 % updated, with index", "5 % updated, with index"} {
		want := `<details class="output" data-output="` + c + `"><summary>` + c + `</summary>`
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks the folded VACUUM VERBOSE of %q", c)
		}
		for _, tg := range []string{"pg16", "pg17"} {
			if !strings.Contains(h, "("+c+", "+tg+", repetition 1)") {
				t.Errorf("HTML lacks %s's VACUUM VERBOSE of %q", tg, c)
			}
		}
	}
	if !strings.Contains(h, `<p class="who">pg16 (repetition 1 of 2)</p>`) {
		t.Errorf("HTML does not say which repetition it shows")
	}
	if strings.Contains(h, "pg16, repetition 2)") || strings.Contains(h, "pg17, repetition 2)") {
		t.Errorf("HTML shows a second repetition's text")
	}

	var doc struct {
		Studies []struct {
			Name    string `json:"name"`
			Outputs []struct {
				Name, Case, Target, Text string
				Rep                      int
			} `json:"outputs"`
			Notes []struct {
				Target, Metric, Text string
			} `json:"notes"`
		} `json:"studies"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	metricNotes := 0
	for _, s := range doc.Studies {
		for _, o := range s.Outputs {
			counts[s.Name+"/"+o.Name]++
			if o.Target == "" || o.Text == "" || o.Case == "" {
				t.Errorf("%s: output lacks fields: %+v", s.Name, o)
			}
		}
		for _, n := range s.Notes {
			if n.Metric == "dead_tuple_bytes" && n.Target == "pg16" {
				metricNotes++
			}
		}
	}
	if counts["vacuum/vacuum-verbose"] != 16 || counts["copy-errors/copy-output"] != 6 {
		t.Errorf("JSON outputs %v, want 16 VACUUM VERBOSE texts (4 cases × 2 targets × 2 repetitions) and 6 COPY transcripts", counts)
	}
	var runNotes struct {
		RunNotes []struct{ Target, Text string } `json:"run_notes"`
	}
	if err := json.Unmarshal(js.Bytes(), &runNotes); err != nil || len(runNotes.RunNotes) == 0 {
		t.Errorf("JSON: no run_notes (%v)", err)
	}
	if metricNotes != 4 {
		t.Errorf("JSON: %d notes on pg16's dead_tuple_bytes, want 4 (one per case)", metricNotes)
	}
}

// TestTimeSplit checks the setup's split of wall time: per study and for
// the whole run (11 min 42 s from its start to its end, plus 25 s
// starting the servers).
func TestTimeSplit(t *testing.T) {
	md, html, js := renderFixture(t)
	for _, want := range []string{
		"- **Time:** measured steps: 4 min 36 s of 12 min 7 s (38 %); set-up 7 min 31 s, of which 25 s starting the servers",
		"| study | took | in measured steps | in set-up |",
		"| vacuum | 4 min 20 s | 36 s (14 %) | 3 min 45 s |",
		"| copy-errors | 3.2 s | 0.0 s (1 %) | 3.2 s |",
		"| whole run | 12 min 7 s | 4 min 36 s (38 %) | 7 min 31 s |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if !strings.Contains(html.String(), "<dt>Time</dt><dd>measured steps: 4 min 36 s of 12 min 7 s") {
		t.Errorf("HTML lacks the time line")
	}
	var doc struct {
		Runs []struct {
			Time *struct {
				WallMS     float64 `json:"wall_ms"`
				MeasuredMS float64 `json:"measured_ms"`
				Studies    []struct {
					Study string `json:"study"`
				} `json:"studies"`
			} `json:"time"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Time == nil || doc.Runs[0].Time.WallMS != 727e3 || doc.Runs[0].Time.MeasuredMS != 275541 || len(doc.Runs[0].Time.Studies) != 3 {
		t.Errorf("JSON time: %+v", doc.Runs[0].Time)
	}
}

// TestBriefMarkdown checks what compare prints on a terminal: the
// summary, the setup with the time line, each study's primary metrics (one
// table when a study has several), and a line saying what was left out;
// no further metrics, no outputs, no time table.
func TestBriefMarkdown(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	var full, brief bytes.Buffer
	if err := WriteMarkdown(&full, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdownOpts(&brief, d, view.Options{Brief: true}); err != nil {
		t.Fatal(err)
	}
	b := brief.String()
	for _, want := range []string{
		"## Summary", "## Setup", "- **Time:** measured steps:",
		"| rows updated | index | metric | pg16 | pg17 | pg17 vs pg16 |",
		"| 95 % | yes | VACUUM time | 10.4 s ± 2 % | 1.8 s ± 2 % | **5.8× faster (p=0.000 q=0.000 n=6)** |",
		"| 95 % | yes | WAL written by VACUUM | 226 MB ± <1 % |",
		"Left out here (--details shows them): 12 rows of further metrics, VACUUM VERBOSE output.",
		"Left out here (--details shows them): what the server said.",
		"| ON_ERROR ignore | ERROR: option \"on_error\" not recognized | **3 rows loaded, 1 skipped, 1 notice** |",
		"How to read this: each figure is the median",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("brief Markdown lacks %q", want)
		}
	}
	for _, bad := range []string{"### Further metrics", "### What the server said", "| whole run |", "## How to read this", "dead_tuple_bytes"} {
		if strings.Contains(b, bad) {
			t.Errorf("brief Markdown has %q", bad)
		}
	}
	if nb, nf := strings.Count(b, "\n"), strings.Count(full.String(), "\n"); nb >= nf*2/3 {
		t.Errorf("brief Markdown has %d lines, the full one %d", nb, nf)
	}
}

// renderFixture writes run A of the fixture as Markdown, HTML and JSON.
func renderFixture(t *testing.T) (md, html, js *bytes.Buffer) {
	t.Helper()
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	md, html, js = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	for _, w := range []struct {
		write func(io.Writer, *runs.Dataset) error
		to    *bytes.Buffer
	}{{WriteMarkdown, md}, {WriteHTML, html}, {WriteJSON, js}} {
		if err := w.write(w.to, d); err != nil {
			t.Fatal(err)
		}
	}
	return md, html, js
}
