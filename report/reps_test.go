package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

// autoDataset is a run of the vacuum study under --reps auto: the case
// "95 % + index" stopped at 8 (VACUUM 2× faster on pg17, WAL the same),
// "5 % + index" ran to the cap of 10 with its time unresolved, and "50 %
// + index" stopped at 8 for the budget.
func autoDataset() *runs.Dataset {
	d := &runs.Dataset{
		Run: results.RunRecord{RunInfo: results.RunInfo{ID: "20261202-100000-auto", Kind: results.KindCompare,
			Extra: json.RawMessage(`{"alpha":0.05,"reps":"auto","design":{"looks":[8,10],"family":8,"alpha":0.05},"budget":"30m0s"}`)}},
		Targets: []results.Target{{Name: "pg16"}, {Name: "pg17"}},
	}
	add := func(pct string, n int, factor float64, spread float64) results.CaseReps {
		labels := map[string]string{"update_pct": pct, "index": "yes"}
		for rep := 1; rep <= n; rep++ {
			for _, tg := range []string{"pg16", "pg17"} {
				f := 1.0
				if tg == "pg17" {
					f = factor
				}
				wobble := 1 + spread*float64((rep*7+len(tg))%5-2)
				d.Measurements = append(d.Measurements,
					results.Measurement{Target: tg, Study: "vacuum", Case: labels, Rep: rep, Metric: "elapsed_ms", Value: 100 * f * wobble, Unit: "ms", Direction: results.DirectionLower},
					results.Measurement{Target: tg, Study: "vacuum", Case: labels, Rep: rep, Metric: "wal_bytes", Value: 1e6 + float64(rep%2), Unit: "bytes", Direction: results.DirectionLower})
			}
		}
		return results.CaseReps{Name: pct + " % + index", Labels: labels, N: n}
	}
	a, b, c := add("95", 8, 0.5, 0.001), add("5", 10, 1.0, 0.1), add("50", 8, 1.0, 0.1)
	a.Reason, b.Reason, c.Reason = "called, same", "cap", "budget"
	d.Reps = []results.StudyReps{{Study: "vacuum", Looks: []int{8, 10}, Cases: []results.CaseReps{a, b, c}}}
	return d
}

func TestReportSaysHowRepsWereChosen(t *testing.T) {
	d := autoDataset()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"- **Repetitions:** Repetitions chosen by the data (--reps auto): every case runs 8 repetitions per side",
		"- **Repetitions per case:** vacuum: 8 repetitions in 1 case (called, same), 8 in 1 case (budget), 10 in 1 case (cap)",
		"- **Budget:** --budget 30m0s: 1 case stopped with a primary figure unresolved when their study's share ran out: vacuum · 50 % + index.",
		"| vacuum | 95 % + index | 8 | called, same |",
		"| vacuum | 5 % + index | 10 | cap |",
		"8–10 repetitions per case and target, chosen by the data per case (cap 10), interleaved",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<dt>Repetitions</dt>", "<dt>Repetitions per case</dt><dd>vacuum: 8 repetitions", "<dt>Budget</dt>", "Repetitions of each case (3 cases)", "<td>called, same</td>"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	// The change of the case that stopped at 8 is the sequential test:
	// 2 × the p of its one look.
	var js bytes.Buffer
	if err := WriteJSON(&js, d); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Repetitions *jsonReps `json:"repetitions"`
		Studies     []struct {
			Metrics []struct {
				Case    string       `json:"case"`
				Metric  string       `json:"metric"`
				Changes []jsonChange `json:"changes"`
			} `json:"metrics"`
		} `json:"studies"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Repetitions == nil || doc.Repetitions.Family != 8 || len(doc.Repetitions.UnresolvedByBudget) != 1 || len(doc.Repetitions.Studies) != 1 {
		t.Fatalf("repetitions: %+v", doc.Repetitions)
	}
	found := false
	for _, m := range doc.Studies[0].Metrics {
		if m.Metric != "elapsed_ms" || !strings.Contains(m.Case, "update_pct=95") {
			continue
		}
		found = true
		c := m.Changes[0]
		if c.Looks != 2 || c.LookN != 8 || c.RawP == nil || c.P == nil || *c.P < 2**c.RawP*0.999 || !c.Called {
			t.Errorf("95 %% case: looks %d look_n %d p %v raw %v called %v", c.Looks, c.LookN, c.P, c.RawP, c.Called)
		}
	}
	if !found {
		t.Error("no VACUUM time of the 95 % case in report.json")
	}
	// A fixed count says nothing of a rule.
	d.Run.Extra = json.RawMessage(`{"alpha":0.05}`)
	d.Reps[0].Looks = nil
	md.Reset()
	WriteMarkdown(&md, d)
	if strings.Contains(md.String(), "**Repetitions") {
		t.Error("a report of fixed counts speaks of repetitions chosen by the data")
	}
}

func TestReportSaysHowLoadRunsWereSized(t *testing.T) {
	d := &runs.Dataset{Targets: []results.Target{{Name: "pg16"}, {Name: "pg17"}},
		Studies: []runs.StudyInfo{{Name: "tps", Params: map[string]string{"precision": "1"}}}}
	for i, w := range []struct{ measured, ci, precise float64 }{{12, 0.9, 1}, {15, 0.8, 1}, {60, 2.5, 0}, {14, 0.7, 1}} {
		for _, m := range []results.Measurement{
			{Metric: "tps", Value: 1000, Unit: "tps"},
			{Metric: "warmup_s", Value: 5, Unit: "s"},
			{Metric: "measured_s", Value: w.measured, Unit: "s"},
			{Metric: "tps_ci_pct", Value: w.ci, Unit: "%"},
			{Metric: "ended_by_precision", Value: w.precise, Unit: "count"},
		} {
			m.Study, m.Target, m.Rep, m.Case = "tps", []string{"pg16", "pg17"}[i%2], i/2+1, map[string]string{"clients": "5"}
			d.Measurements = append(d.Measurements, m)
		}
	}
	want := "Load runs: the first 5 s of each run left out of its figures (warm-up); measured 14 s (median, 12 s–60 s); mean throughput to ±0.85 % (median half-width of its 95 % interval, batch means); 3 of 4 runs ended when they reached the precision asked (±1 %), the others at their duration or transaction count."
	if got := d.LoadLine("tps"); got != want {
		t.Errorf("loadLine:\n got %s\nwant %s", got, want)
	}
	var md bytes.Buffer
	WriteMarkdown(&md, d)
	if !strings.Contains(md.String(), want) {
		t.Error("the Markdown report lacks the load line")
	}
}
