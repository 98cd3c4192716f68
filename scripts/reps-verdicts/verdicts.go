package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// verdicts is one run's row of the verdicts table (issue 29): its
// primary cells' outcomes and the family's calls.
type verdicts struct {
	run     string
	machine string // quiet, noisy, or – (no marker)
	aa      bool   // an A/A run (its directory is aa…)
	d       *doc   // nil when the run has no report
	err     error

	cells, changed, same, unresolved int
	outside                          int      // primary cells outside the family's tests (twins)
	called                           []string // the called primary cells
}

// calls is how many calls the family made: its calls and the primary
// exact figures that differ, twins not counted again.
func (v *verdicts) calls() int {
	if v.d == nil || v.d.Family == nil {
		return 0
	}
	return v.d.Family.Called + v.d.Family.ExactCalled
}

// unresolvedShare is the unresolved primary cells' share, percent.
func (v *verdicts) unresolvedShare() float64 {
	if v.cells == 0 {
		return 0
	}
	return 100 * float64(v.unresolved) / float64(v.cells)
}

// verdictTable prints one row per A/A (aa…) and versions (vs…) run of
// dir, then the criteria of issue 29 over them.
func verdictTable(dir string) {
	var names []string
	for _, pattern := range []string{"aa*", "vs*"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern, "report.json"))
		names = append(names, m...)
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	var rows []*verdicts
	for _, f := range names {
		rows = append(rows, readVerdicts(dir, filepath.Base(filepath.Dir(f))))
	}
	fmt.Printf("\nVerdicts per run (primary cells)\n\n| run | machine | took | primary cells | changed | same | unresolved | calls | exact | measures changed | rounds disturbed | foreign CPU %% | called (A/A) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range rows {
		printVerdicts(v)
	}
	footnote(rows)
	unresolvedCriteria(rows)
	aaCriterion(rows)
	for _, v := range rows {
		if !v.aa && v.d != nil {
			realDifferences(v)
		}
	}
}

// readVerdicts reads run's report and marker and counts its primary
// cells.
func readVerdicts(dir, run string) *verdicts {
	v := &verdicts{run: run, machine: machineOf(filepath.Join(dir, run)), aa: strings.HasPrefix(run, "aa")}
	v.d, v.err = load(dir, run)
	if v.err != nil {
		v.d = nil
		return v
	}
	for _, s := range v.d.Studies {
		for _, m := range s.Metrics {
			if !m.Primary {
				continue
			}
			for _, c := range m.Changes {
				v.count(c.Outcome, c.InFamily)
				if c.Called {
					v.called = append(v.called, cellKey(s.Name, m.Case, m.Metric, c.Target))
				}
			}
		}
	}
	return v
}

// count adds one primary cell with its outcome.
func (v *verdicts) count(outcome string, inFamily bool) {
	v.cells++
	switch outcome {
	case "changed":
		v.changed++
	case "same":
		v.same++
	default:
		v.unresolved++
	}
	if !inFamily {
		v.outside++
	}
}

// printVerdicts prints v's row.
func printVerdicts(v *verdicts) {
	if v.d == nil {
		fmt.Printf("| %s | %s | – | (no report: %v) | | | | | | | | | |\n", v.run, v.machine, v.err)
		return
	}
	run := v.run
	if v.aa && !v.d.AA {
		run += " (not an A/A report)"
	}
	exact, called := 0, "–"
	if v.d.Family != nil {
		exact = v.d.Family.ExactCalled
	}
	if v.aa {
		called = strings.Join(v.called, "; ")
	}
	disturbed, foreign := noiseFigures(v.d)
	fmt.Printf("| %s | %s | %s | %d | %d | %d | %d (%.1f %%) | %s | %d | %s | %s | %s | %s |\n",
		run, v.machine, took(v.d), v.cells, v.changed, v.same, v.unresolved, v.unresolvedShare(),
		levels(v.d), exact, measuresPassed(v.d), disturbed, foreign, called)
}

// machineOf reads the marker a run's directory holds (noise.txt): quiet
// or noisy, "–" without one.
func machineOf(out string) string {
	b, err := os.ReadFile(filepath.Join(out, markerFile))
	if err != nil {
		return "–"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return strings.TrimSuffix(f[0], ":")
	}
	return "–"
}

// levels is the family's calls, each on its own rounds.
func levels(d *doc) string {
	if d.Family == nil {
		return "–"
	}
	return fmt.Sprint(d.Family.Called)
}

// measuresPassed is "changed of tested" of the family's measures.
func measuresPassed(d *doc) string {
	if d.Family == nil || d.Family.MeasureTests == 0 {
		return "–"
	}
	return fmt.Sprintf("%d of %d", d.Family.MeasuresChanged, d.Family.MeasureTests)
}

// noiseFigures sums the rounds the studies' noise statements name as
// disturbed, and gives other processes' CPU during the measured steps:
// the studies' medians, lowest–highest, and the highest maximum.
func noiseFigures(d *doc) (disturbed, foreign string) {
	rounds, seen := 0, false
	var medians []float64
	var most float64
	for _, s := range d.Studies {
		for _, n := range s.Noise {
			seen = true
			rounds += len(n.Disturbed)
			if n.ForeignMedian != nil {
				medians = append(medians, *n.ForeignMedian)
			}
			if n.ForeignMax != nil {
				most = max(most, *n.ForeignMax)
			}
		}
	}
	if !seen {
		return "–", "–"
	}
	if len(medians) == 0 {
		return fmt.Sprint(rounds), "–"
	}
	sort.Float64s(medians)
	return fmt.Sprint(rounds), fmt.Sprintf("%.1f–%.1f (max %.0f)", medians[0], medians[len(medians)-1], most)
}

// footnote says what the table counted.
func footnote(rows []*verdicts) {
	cells, outside := 0, 0
	for _, v := range rows {
		cells += v.cells
		outside += v.outside
	}
	fmt.Printf("\nPrimary cells: every change (a target against the baseline) of every metric marked primary, in every case of every study, twins included "+
		"(a throughput or time per update repeating the test of its elapsed_ms or tps: %d of the %d cells above are outside the family's tests); "+
		"changed / same / unresolved are their outcomes. Calls (each on its own rounds), exact calls (primary exact figures that differ) "+
		"and measures changed (of those tested on their own) are the family's, twins not counted again. Rounds disturbed and foreign CPU (other processes' CPU during the measured steps, "+
		"%% of all CPUs: the studies' medians, lowest–highest, and the highest maximum) are from the studies' noise statements. "+
		"Machine: from %s in the run's directory (– none: not started by this driver).\n", outside, cells, markerFile)
}

// unresolvedCriteria prints the unresolved share of the versions runs
// by machine: over all their primary cells, and the most in one run.
func unresolvedCriteria(rows []*verdicts) {
	want := map[string]string{"quiet": "want ≤ 20 %", "noisy": "want ≤ 35 %", "–": "no marker: quiet or noisy unknown"}
	label := map[string]string{"quiet": "quiet", "noisy": "noisy neighbour", "–": "unmarked"}
	for _, machine := range []string{"quiet", "noisy", "–"} {
		runs, cells, unresolved, most := 0, 0, 0, 0.0
		for _, v := range rows {
			if v.aa || v.d == nil || v.machine != machine {
				continue
			}
			runs++
			cells += v.cells
			unresolved += v.unresolved
			most = max(most, v.unresolvedShare())
		}
		if runs == 0 || cells == 0 {
			continue
		}
		fmt.Printf("\nVersions runs, %s: %d of %d primary cells unresolved over %d run(s) (%.1f %%), at most %.1f %% in one (%s).\n",
			label[machine], unresolved, cells, runs, 100*float64(unresolved)/float64(cells), most, want[machine])
	}
}

// aaCriterion prints the A/A criterion: how many A/A reports call
// anything, and the most cells one calls.
func aaCriterion(rows []*verdicts) {
	n, calling, most := 0, 0, 0
	byMachine := map[string]int{}
	for _, v := range rows {
		if !v.aa || v.d == nil {
			continue
		}
		n++
		byMachine[v.machine]++
		if v.calls() > 0 {
			calling++
		}
		most = max(most, v.calls())
	}
	if n == 0 {
		return
	}
	fmt.Printf("\nA/A: %d of %d A/A reports call anything (%d quiet, %d noisy, %d unmarked; want at most 1 of 13: ten quiet, three noisy); "+
		"the most cells called in one: %d (want ≤ 1; the family's calls and exact calls).\n",
		calling, n, byMachine["quiet"], byMachine["noisy"], byMachine["–"], most)
}

// realDifferences prints whether a versions run still calls the real
// differences: COPY TO faster (copy-out elapsed_ms lower in every case)
// and VACUUM's WAL smaller with 95 % updated and no index (vacuum
// wal_bytes lower).
func realDifferences(v *verdicts) {
	lower, all := 0, 0
	for _, c := range primaryChanges(v.d, "copy-out", "elapsed_ms", nil) {
		all++
		if c.called && c.lower {
			lower++
		}
	}
	copyOut := fmt.Sprintf("%d of %d cases called lower: %s", lower, all, yes(all > 0 && lower == all))
	if all == 0 {
		copyOut = "not in the report"
	}
	wal := "not in the report"
	if cs := primaryChanges(v.d, "vacuum", "wal_bytes", isNoIndex95); len(cs) > 0 {
		wal = strings.Join(describe(cs), ", ")
	}
	fmt.Printf("\n%s: COPY TO faster (copy-out elapsed_ms) — %s; VACUUM WAL 95 %% no index smaller (vacuum wal_bytes) — %s.\n", v.run, copyOut, wal)
}

// change is one change of a metric, as realDifferences reads it.
type change struct {
	outcome string
	called  bool
	lower   bool     // its ratio estimate is below 1
	ratio   *float64 // the ratio estimate, nil when there is none
}

// primaryChanges returns the changes of metric in study, of the cases
// keep accepts (every case when keep is nil).
func primaryChanges(d *doc, study, metric string, keep func(name string, labels map[string]string) bool) []change {
	var out []change
	for _, s := range d.Studies {
		if s.Name != study {
			continue
		}
		labels := map[string]map[string]string{}
		for _, c := range s.Cases {
			labels[c.Name] = c.Labels
		}
		for _, m := range s.Metrics {
			if m.Metric != metric || (keep != nil && !keep(m.Case, labels[m.Case])) {
				continue
			}
			for _, c := range m.Changes {
				out = append(out, change{outcome: c.Outcome, called: c.Called, lower: c.RatioEst != nil && *c.RatioEst < 1, ratio: c.RatioEst})
			}
		}
	}
	return out
}

// isNoIndex95 accepts vacuum's case with update_pct 95 and no index (by
// its labels, or by its name when a report has none).
func isNoIndex95(name string, labels map[string]string) bool {
	if labels != nil {
		return labels["update_pct"] == "95" && labels["index"] == "no"
	}
	return strings.HasPrefix(name, "95 %") && strings.Contains(name, "no index")
}

// describe says of each change whether it is called lower: "yes
// (changed, ratio 0.56)".
func describe(cs []change) []string {
	var out []string
	for _, c := range cs {
		ratio := ""
		if c.ratio != nil {
			ratio = fmt.Sprintf(", ratio %.2f", *c.ratio)
		}
		out = append(out, fmt.Sprintf("%s (%s%s)", yes(c.called && c.lower), c.outcome, ratio))
	}
	return out
}
