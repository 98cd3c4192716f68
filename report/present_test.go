package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"

	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	_ "github.com/pglab/pglab/study/studies"
	"github.com/pglab/pglab/verdict"
)

// renderAll renders a dataset in every format, brief and in full.
func renderAll(t *testing.T, d *runs.Dataset) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range []Format{Markdown, HTML, JSON, CSV, PlainText} {
		var b bytes.Buffer
		if err := Write(&b, d, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[string(f)] = b.String()
	}
	var b bytes.Buffer
	if err := WriteMarkdownOpts(&b, d, view.Options{Brief: true}); err != nil {
		t.Fatal(err)
	}
	out["brief md"] = b.String()
	return out
}

// withStoredPresentations returns d as the runs of its studies' first
// versions would store it: each study's description with the version and
// presentation of the study of that name (a study pglab does not know
// keeps none, at version 1). A study whose presentation changed since
// (version 2 and later: commit and tps added the server's CPU per
// operation) stores its first version's, the legacy table's.
func withStoredPresentations(t *testing.T, d *runs.Dataset) *runs.Dataset {
	t.Helper()
	nd := *d
	nd.Studies = append([]runs.StudyInfo(nil), d.Studies...)
	for i := range nd.Studies {
		si := &nd.Studies[i]
		si.Version, si.Presentation = 1, nil
		st, err := study.Get(si.Name)
		switch {
		case err != nil:
		case st.Info().Version > 1:
			p := runs.LegacyPresentations[si.Name]
			si.Presentation = &p
		default:
			si.Version, si.Presentation = st.Info().Version, st.Info().Presentation
		}
	}
	return &nd
}

// withoutVersions removes the studies' versions from a report.json, which
// a run stored before studies had them does not show.
func withoutVersions(t *testing.T, doc string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	for _, s := range m["studies"].([]any) {
		delete(s.(map[string]any), "version")
	}
	out, _ := json.MarshalIndent(m, "", "  ")
	return string(out)
}

// sameRendering checks that old, a dataset of runs stored before studies
// carried their presentations, renders in every format as its studies'
// own presentations render it.
func sameRendering(t *testing.T, old *runs.Dataset) {
	t.Helper()
	before := renderAll(t, old)
	now := withStoredPresentations(t, old)
	after := renderAll(t, now)
	// The stored presentations were read: report.json says the studies'
	// versions.
	if !strings.Contains(after["json"], `"version": 1`) {
		t.Error("report.json of runs with versions does not say them")
	}
	before["json"], after["json"] = withoutVersions(t, before["json"]), withoutVersions(t, after["json"])
	for f, b := range before {
		if a := after[f]; a != b {
			t.Errorf("%s differs between the legacy table and the studies' presentations:\n%s", f, firstDiff(b, a))
		}
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nlegacy: %s\n   now: %s", i+1, x, y)
		}
	}
	return ""
}

// TestStoredPresentationsRenderAsBefore: a run stored now, with each
// study's presentation from its Info, renders exactly as a run stored
// before (through the legacy table; the golden files hold that rendering):
// the fixture's studies, and tune and replay.
func TestStoredPresentationsRenderAsBefore(t *testing.T) {
	path := fixtureStore(t)
	t.Run("compare", func(t *testing.T) { sameRendering(t, loadFixture(t, path, fixtureRunA)) })
	t.Run("two runs", func(t *testing.T) { sameRendering(t, loadFixture(t, path, fixtureRunA, fixtureRunB)) })
	t.Run("tune", func(t *testing.T) { sameRendering(t, tuneDataset()) })
	t.Run("replay", func(t *testing.T) { sameRendering(t, replayDataset()) })
}

// tuneDataset is a tune study's figures on its defaults and tuned servers.
func tuneDataset() *runs.Dataset {
	d := &runs.Dataset{Targets: []results.Target{{Name: "defaults"}, {Name: "tuned"}}}
	c := map[string]string{"clients": "30"}
	for rep := 1; rep <= 5; rep++ {
		for i, tg := range []string{"defaults", "tuned"} {
			f := 1 + 0.2*float64(i) + 0.01*float64(rep%3)
			d.Measurements = append(d.Measurements,
				results.Measurement{Target: tg, Study: "tune", Case: c, Rep: rep, Metric: "tps", Value: 1000 * f, Unit: "tps", Direction: results.DirectionHigher},
				results.Measurement{Target: tg, Study: "tune", Case: c, Rep: rep, Metric: "latency_avg_ms", Value: 30 / f, Unit: "ms", Direction: results.DirectionLower},
				results.Measurement{Target: tg, Study: "tune", Case: c, Rep: rep, Metric: "latency_p50_ms", Value: 28 / f, Unit: "ms", Direction: results.DirectionLower})
			d.Outputs = append(d.Outputs, runs.Output{Study: "tune", Case: c, Target: tg, Rep: rep, Name: results.SummaryArtefact, Body: "tps = 1000"})
		}
	}
	d.Studies = []runs.StudyInfo{{Name: "tune", Title: "PGTune", Reps: 5, Cases: []runs.CaseInfo{{Name: "30 clients", Labels: c}}}}
	return d
}

// replayDataset is a replay's figures per query fingerprint on two
// servers, with a plan that differs.
func replayDataset() *runs.Dataset {
	d := &runs.Dataset{Targets: []results.Target{{Name: "pg16"}, {Name: "pg17"}}}
	queries := []map[string]string{
		{"query": "SELECT * FROM t WHERE id = $1", "fingerprint": "a1"},
		{"query": "UPDATE t SET v = $1 WHERE id = $2", "fingerprint": "b2"},
	}
	for rep := 1; rep <= 4; rep++ {
		for qi, q := range queries {
			for i, tg := range []string{"pg16", "pg17"} {
				f := 1 + float64(i*qi) + 0.02*float64(rep%2)
				add := func(metric, unit string, v float64, exact bool) {
					d.Measurements = append(d.Measurements, results.Measurement{Target: tg, Study: "replay", Case: q, Rep: rep, Metric: metric, Value: v, Unit: unit, Direction: results.DirectionLower, Exact: exact})
				}
				add("median_ms", "ms", 0.5*f, false)
				add("p95_ms", "ms", 0.9*f, false)
				add("total_ms", "ms", 50*f, false)
				add("calls", "count", 100, true)
			}
		}
	}
	d.Outputs = append(d.Outputs, runs.Output{Study: "replay", Case: queries[1], Target: "pg17", Rep: 1, Name: "plan", Body: "Update on t\n  -> Seq Scan on t"})
	d.Studies = []runs.StudyInfo{{Name: "replay", Title: "your workload", Reps: 4, Cases: []runs.CaseInfo{{Name: "round", Labels: map[string]string{"round": "1"}}}}}
	return d
}

// TestReportReadsStoredPresentation: the report shows a study as its run
// stored it, not as the legacy table or any study code would: another
// headline under a known name, every metric in one table for a study
// stored without a presentation, and a title of the study's own.
func TestReportReadsStoredPresentation(t *testing.T) {
	d := tuneDataset()
	d.Studies[0].Version = 2
	d.Studies[0].Presentation = &results.Presentation{
		Primary: []results.MetricHead{{Metric: "latency_p50_ms", Head: "Median latency, as stored"}},
		Titles:  map[string]string{"tps": "transactions per second, as stored"},
	}
	var b bytes.Buffer
	if err := WriteMarkdownOpts(&b, d, view.Options{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"Median latency, as stored", "transactions per second, as stored"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report does not show %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Average latency") || strings.Contains(md, "Throughput") {
		t.Errorf("the report shows the legacy presentation of tune:\n%s", md)
	}
	cells := verdict.Cells(d.Studies[0].Presentation, []string{"defaults", "tuned"}, d.Measurements, verdict.Options{Interleaved: true})
	for _, c := range cells {
		if c.Callable != strings.HasSuffix(c.Key, "latency_p50_ms") {
			t.Errorf("cell %q callable %v", c.Key, c.Callable)
		}
	}

	d.Studies[0].Presentation = nil // stored without one
	b.Reset()
	if err := WriteMarkdownOpts(&b, d, view.Options{}); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "| 30 | latency, p50 |") || strings.Contains(md, "Further metrics") || strings.Contains(md, "Median latency, as stored") {
		t.Errorf("a study stored without a presentation is not shown in one table:\n%s", md)
	}
	for _, c := range verdict.Cells(nil, []string{"defaults", "tuned"}, d.Measurements, verdict.Options{Interleaved: true}) {
		if !c.Callable {
			t.Errorf("without a presentation, cell %q is not callable", c.Key)
		}
	}
}
