package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// analysis is the statistics of a whole report: every cell (a metric of a
// case of a study, on the study's targets) analysed as one family of
// tests, so that Benjamini-Hochberg and the practical floor decide each
// change's outcome across the report (compare.AnalyzeFamily).
type analysis struct {
	family *compare.Family
	// results maps study → case key → metric → the cell's result.
	results map[string]map[string]map[string]*compare.Result
}

// analyzeAll runs the statistics of every group: the cells with a
// baseline and another target as one family, the others (a study on one
// target) as summaries alone.
func (d *Dataset) analyzeAll(groups []StudyGroup) (*analysis, error) {
	a := &analysis{results: map[string]map[string]map[string]*compare.Result{}}
	var cells []compare.Cell
	for _, sg := range groups {
		targets := d.studyTargets(sg.Study)
		byCase := map[string]map[string]*compare.Result{}
		a.results[sg.Study] = byCase
		disturbed := verdict.Disturbed(sg, targets)
		for _, cg := range sg.Cases {
			byCase[cg.Key] = map[string]*compare.Result{}
			for _, mg := range cg.Metrics {
				in := verdict.Input(mg, targets, d.Interleaved())
				if in.Baseline == "" {
					res, err := compare.Analyze(in, compare.Options{Alpha: d.alpha()})
					if err != nil {
						return nil, fmt.Errorf("%s %s: %w", sg.Study, mg.Name, err)
					}
					byCase[cg.Key][mg.Name] = res
					continue
				}
				in.Disturbed = disturbed[cg.Key]
				cell := verdict.Cell(d.presentation(sg.Study), sg.Study, cg, mg, in)
				cell.Design = d.studyDesign(sg.Study)
				verdict.PartFloor(&cell, d.presentation(sg.Study), cg, mg, d.minChange())
				cells = append(cells, cell)
			}
		}
	}
	fam, err := compare.AnalyzeFamily(cells, compare.Options{Alpha: d.alpha(), MinChange: d.minChange(), Paired: true})
	if err != nil {
		return nil, err
	}
	a.family = fam
	for _, cr := range fam.Cells {
		parts := strings.SplitN(cr.Key, "\x00", 3)
		a.results[parts[0]][parts[1]][parts[2]] = cr.Result
	}
	return a, nil
}

// studyTargets returns the study's columns: the report's targets that
// have measurements or outcomes in it, in report order.
func (d *Dataset) studyTargets(study string) []string {
	has := map[string]bool{}
	for _, m := range d.Measurements {
		if m.Study == study {
			has[m.Target] = true
		}
	}
	for _, n := range d.Notes {
		if n.Study == study && n.Outcome {
			has[n.Target] = true
		}
	}
	var out []string
	for _, t := range d.TargetNames() {
		if has[t] {
			out = append(out, t)
		}
	}
	return out
}

// runExtra is what a run's manifest keeps of its statistics.
type runExtra struct {
	Alpha     float64 `json:"alpha"`
	MinChange float64 `json:"min_change"`
	AA        bool    `json:"aa"`
}

// extras returns the statistics settings of each run of the report.
func (d *Dataset) extras() []runExtra {
	var out []runExtra
	for _, r := range d.runs() {
		var e runExtra
		if json.Unmarshal(r.Extra, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// minChange returns the report's practical floor as a fraction: the
// Dataset's, else the one the (first) run stored, else compare's default.
func (d *Dataset) minChange() float64 {
	if d.MinChange != 0 {
		return d.MinChange
	}
	for _, e := range d.extras() {
		if e.MinChange != 0 && e.MinChange < 1 {
			return e.MinChange // compare.NoFloor (negative) for a floor of 0
		}
	}
	return compare.DefaultMinChange
}

// AA reports whether the report is of an A/A run: two identical servers,
// where every call is a false one.
func (d *Dataset) AA() bool {
	for _, e := range d.extras() {
		if e.AA {
			return true
		}
	}
	return false
}

// Interleaved reports whether the report's targets were measured in one
// run, their repetitions interleaved; runs compared after the fact were
// not, and their differences include whatever changed between the runs.
func (d *Dataset) Interleaved() bool { return len(d.runs()) <= 1 }

// Regressions lists the called changes for the worse of a report, one line
// each ("vacuum · 95 % updated, no index · WAL written by VACUUM: pg17 vs
// pg16 +44 %, worse (p=… q=… n=6)"), for --fail-on regression.
func (d *Dataset) Regressions() ([]string, error) {
	v, err := buildView(d, Options{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sv := range v.Studies {
		for _, cv := range sv.Cases {
			for _, metric := range sv.metricOrder(cv.Key) {
				res := sv.res[cv.Key][metric]
				for _, c := range res.Changes {
					if c.Called && (c.Verdict == compare.Worse) {
						out = append(out, fmt.Sprintf("%s · %s · %s: %s vs %s %s",
							sv.Name, cv.Name, sv.metricHead(metric), c.Target, c.Baseline, c.OutcomeText()))
					}
				}
			}
		}
	}
	return out, nil
}

// metricOrder returns the metrics of a case in the order measured.
func (sv *studyView) metricOrder(caseKey string) []string {
	for _, cg := range sv.group.Cases {
		if cg.Key == caseKey {
			out := make([]string, len(cg.Metrics))
			for i, mg := range cg.Metrics {
				out[i] = mg.Name
			}
			return out
		}
	}
	return nil
}

// FamilyLines say how many comparisons the report's calls come from and
// how many of its calls may be false, and for an A/A run that every call
// is a false one.
func (v *view) FamilyLines() []string {
	f := v.Family
	if f == nil {
		return nil
	}
	var out []string
	if v.d.AA() {
		out = append(out, fmt.Sprintf("A/A run: the targets are identical servers, so every called change is a false one. Called: %d of %s (by chance at most a %s chance of any call); exact metrics that differ: %d.",
			f.Called, plural(f.M, "comparison"), verdict.Percent(f.Alpha), f.ExactCalled))
	}
	if f.M+f.ExactCalled == 0 {
		return append(out, "Calls: none possible: no primary figure has the repetitions a call needs (see each change's n).")
	}
	out = append(out, "Calls: "+f.Text()+" ("+f.UncorrectedText()+"; auxiliary figures are shown, never called).")
	if !v.d.Interleaved() {
		out = append(out, "These runs were not interleaved: each target was measured in its own run, so a change also holds whatever differed between the runs (the machine's load, its caches, the time of day).")
	}
	return out
}

// howToReadChanges explains the change columns: the test, the family, the
// floor and the three outcomes.
func (v *view) howToReadChanges(base, a string, exact bool) []string {
	floor := verdict.Percent(compare.DefaultMinChange)
	m := 0
	if v.Family != nil {
		floor, m = verdict.Percent(v.Family.MinChange), v.Family.M
	}
	measures := 0
	if v.Family != nil {
		measures = v.Family.MeasureTests
	}
	out := []string{
		"Each change compares a target with " + base + " round by round: in every round (repetition) the two ran next to each other, in mirrored pairs of rounds whose order was drawn at random, so whatever moved the machine between rounds moved both. The size of a change is the geometric mean of its rounds' ratios, with Student's confidence interval, and its test the paired t test of their logarithms. (Runs compared after the fact have no rounds in common: their changes use the Mann-Whitney U test and the Hodges-Lehmann ratio of two unpaired samples.)",
		fmt.Sprintf("A report runs many tests, so they are made in two levels. First each measure — a primary figure over all the cases of its study, e.g. COPY TO time over the four row sizes — is tested as one question, by a randomization test of the signs of its rounds' changes (no assumption on their distribution); these %s are adjusted with Benjamini-Hochberg. Only the cases of a measure that passed are tested, Benjamini-Hochberg among them at q·R/M (R of the M measures passed; %s here); q in brackets is the larger of the measure's and the case's. A change is called (bold) when q ≤ %s and it is at least the floor, ±%s (--min-change; exact counts have a floor of 0). A case whose own test falls short is called \"with its measure\" when its measure passed and changed beyond the floor, and it moved the same way beyond the floor with p ≤ %s. When nothing changed at all, the chance of any call is at most %s; of the calls, about %s are expected to be false.", plural(measures, "measure test"), plural(m, "comparison"), a, floor, a, a, a),
		"same means the 90 % confidence interval of the change lies within ± the floor: the targets are equal for practical purposes (two one-sided tests at α); \"its measure within ±5 %\" means the measure as a whole (the mean change over its cases, with its 90 % interval) lies within the floor and so does every case's estimate. ~ means unresolved: neither a call nor same; \"could not see changes under ±7 %\" gives the smallest change these rounds could have detected, and \"below the floor\" a change that passed the test but is smaller than the floor. More rounds (--reps) or a quieter machine narrow what ~ hides.",
		"Auxiliary figures (CPU, disk, wait events, further metrics) are tested and shown but never called: they explain the primary ones.",
		"Times and rates that changed by a factor of 2 or more read \"5.7× faster\" or \"2.3× slower\"; other changes are percentages of the first target's median (\"−69 %\"), and values that are percentages change in percentage points (pp). \"better\" and \"worse\" follow each metric's direction: less time and less WAL are better, more throughput is better.",
	}
	if exact {
		out = append(out, "Counts that should not vary between repetitions (rows loaded, WAL records of a deterministic step) are compared exactly: = when equal, the difference otherwise, without a test.")
	}
	if v.d.AA() {
		out = append(out, "This is an A/A run (pglab compare --aa): both targets are the same version with the same settings, so every call is a false one. Run one on a machine before trusting a comparison there.")
	}
	return out
}

// metricHead names a metric of the study as its headline table does
// ("VACUUM time"), else as the further metrics do.
func (sv *studyView) metricHead(metric string) string {
	for _, t := range sv.Tables {
		if t.Metric == metric {
			return t.Head
		}
	}
	return sv.metricTitle(metric)
}
