package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
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

// cellKey names a cell of the family.
func cellKey(study, caseKey, metric string) string {
	return study + "\x00" + caseKey + "\x00" + metric
}

// CellCase returns the key of the case a family cell of FamilyCells
// belongs to.
func CellCase(c compare.Cell) string {
	parts := strings.SplitN(c.Key, "\x00", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// measureKey names a measure of the family: one metric of a study,
// whose cells are its cases.
func measureKey(study, metric string) string {
	return study + "\x00" + metric
}

// measureMetric returns the metric of a measure's key.
func measureMetric(key string) string {
	_, metric, _ := strings.Cut(key, "\x00")
	return metric
}

// callable reports whether a metric of a study presented as p can be
// called a change: the study's primary metrics (the headline tables; a
// study without a presentation has every metric primary). Facts,
// resources (CPU, disk, waits) and the further metrics are auxiliary:
// shown with their tests, never called, and not in the family, whose size
// decides how small a p a call needs.
func callable(p *results.Presentation, metric string) bool {
	if p == nil {
		return true
	}
	for _, f := range p.Facts {
		if f.Metric == metric {
			return false
		}
	}
	for _, m := range p.Primary {
		if m.Metric == metric {
			return true
		}
	}
	return false
}

// twinOf returns the primary metric whose test a metric of a study
// presented as p repeats, or "" (see results.MetricHead.Twin).
func twinOf(p *results.Presentation, metric string) string {
	if p == nil {
		return ""
	}
	for _, m := range p.Primary {
		if m.Metric == metric {
			return m.Twin
		}
	}
	return ""
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
		disturbed := disturbedRounds(sg, targets)
		for _, cg := range sg.Cases {
			byCase[cg.Key] = map[string]*compare.Result{}
			for _, mg := range cg.Metrics {
				in := d.input(mg, targets)
				if in.Baseline == "" {
					res, err := compare.Analyze(in, compare.Options{Alpha: d.alpha()})
					if err != nil {
						return nil, fmt.Errorf("%s %s: %w", sg.Study, mg.Name, err)
					}
					byCase[cg.Key][mg.Name] = res
					continue
				}
				in.Disturbed = disturbed[cg.Key]
				cell := familyCell(d.presentation(sg.Study), sg.Study, cg, mg, in)
				cell.Design = d.studyDesign(sg.Study)
				partFloor(&cell, d.presentation(sg.Study), cg, mg, d.minChange())
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

// familyCell is the family's cell of one metric of a case of a study
// presented as p, with its input.
func familyCell(p *results.Presentation, study string, cg CaseGroup, mg MetricGroup, in compare.Input) compare.Cell {
	cell := compare.Cell{
		Key:      cellKey(study, cg.Key, mg.Name),
		Measure:  measureKey(study, mg.Name),
		Input:    in,
		Callable: callable(p, mg.Name),
		Floor:    metricFloor(mg),
	}
	if twin := twinOf(p, mg.Name); twin != "" && hasMetric(cg, twin) {
		cell.Twin = cellKey(study, cg.Key, twin)
	}
	return cell
}

// FamilyCells returns the cells that measurements ms (of one study
// presented as p, on targets, the first the baseline) make in a report's
// family: one per case and metric, callable when p presents the metric as
// primary (every metric when p is nil), with its twin and floor, samples in
// repetition order. The stopping rule of --reps auto decides on the cells
// of one case as the report will analyse them.
func FamilyCells(p *results.Presentation, targets []string, ms []results.Measurement) []compare.Cell {
	d := &Dataset{Measurements: ms}
	for _, t := range targets {
		d.Targets = append(d.Targets, results.Target{Name: t})
	}
	var cells []compare.Cell
	for _, sg := range d.Groups() {
		disturbed := disturbedRounds(sg, targets)
		for _, cg := range sg.Cases {
			for _, mg := range cg.Metrics {
				if in := d.input(mg, targets); in.Baseline != "" {
					in.Disturbed = disturbed[cg.Key]
					cell := familyCell(p, sg.Study, cg, mg, in)
					partFloor(&cell, p, cg, mg, compare.DefaultMinChange)
					cells = append(cells, cell)
				}
			}
		}
	}
	return cells
}

// input is the statistics' input of one metric over the given targets, the
// first being the baseline.
func (d *Dataset) input(mg MetricGroup, names []string) compare.Input {
	dir, _ := compare.ParseDirection(string(mg.Direction))
	samples := map[string][]float64{}
	for _, n := range names {
		samples[n] = mg.Samples[n]
	}
	in := compare.Input{
		Metric:  compare.Metric{Name: mg.Name, Unit: compare.Unit(mg.Unit), Direction: dir, Exact: mg.Exact},
		Order:   names,
		Samples: samples,
	}
	if d.Interleaved() {
		// One run: the targets of a round ran next to each other.
		in.Rounds = map[string][]int{}
		for _, n := range names {
			in.Rounds[n] = mg.Rounds[n]
		}
	}
	if len(names) > 1 {
		in.Baseline = names[0]
	}
	return in
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

// partFloor sets the floor of a cell whose metric its presentation p
// declares a part of another (results.MetricHead.PartOf): minChange of
// the whole's baseline median, as a share of the part's, when that is
// larger than minChange — "±4.2 ms, 5 % of Time for all updates".
func partFloor(cell *compare.Cell, p *results.Presentation, cg CaseGroup, mg MetricGroup, minChange float64) {
	var whole, head string
	if p != nil {
		for _, m := range p.Primary {
			if m.Metric == mg.Name {
				whole = m.PartOf
			}
		}
		head = whole
		for _, m := range p.Primary {
			if whole != "" && m.Metric == whole && m.Head != "" {
				head = strings.ToLower(m.Head[:1]) + m.Head[1:]
			}
		}
	}
	base := cell.Input.Baseline
	if whole == "" || minChange <= 0 {
		return
	}
	for _, w := range cg.Metrics {
		if w.Name != whole || w.Unit != mg.Unit {
			continue
		}
		wm, pm := medianValue(w.Samples[base]), medianValue(mg.Samples[base])
		if !(wm > 0 && pm > 0) || minChange*wm/pm <= minChange {
			return
		}
		cell.Floor = minChange * wm / pm
		cell.FloorText = fmt.Sprintf("±%s, %s of %s", compare.FormatValue(minChange*wm, compare.Unit(mg.Unit)),
			formatPercent(minChange), head)
	}
}

// medianValue returns the median of x, 0 when empty.
func medianValue(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// metricFloors are practical floors of metrics noisier than the default
// allows, as fractions of the baseline.
var metricFloors = map[string]float64{}

// metricFloor returns a metric's practical floor: its own, or 0 for the
// default (0 for exact metrics, the report's minimum change otherwise).
func metricFloor(mg MetricGroup) float64 {
	return metricFloors[mg.Name]
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

// familyLines say how many comparisons the report's calls come from and
// how many of its calls may be false, and for an A/A run that every call
// is a false one.
func (v *view) familyLines() []string {
	f := v.Family
	if f == nil {
		return nil
	}
	var out []string
	if v.d.AA() {
		out = append(out, fmt.Sprintf("A/A run: the targets are identical servers, so every called change is a false one. Called: %d of %s (by chance at most a %s chance of any call); exact metrics that differ: %d.",
			f.Called, plural(f.M, "comparison"), formatPercent(f.Alpha), f.ExactCalled))
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

// formatPercent formats a fraction as a percentage: 0.05 → "5 %".
func formatPercent(x float64) string {
	return strconv.FormatFloat(x*100, 'g', 3, 64) + " %"
}

// howToReadChanges explains the change columns: the test, the family, the
// floor and the three outcomes.
func (v *view) howToReadChanges(base, a string, exact bool) []string {
	floor := formatPercent(compare.DefaultMinChange)
	m := 0
	if v.Family != nil {
		floor, m = formatPercent(v.Family.MinChange), v.Family.M
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

// hasMetric reports whether a case has a metric.
func hasMetric(cg CaseGroup, metric string) bool {
	for _, mg := range cg.Metrics {
		if mg.Name == metric {
			return true
		}
	}
	return false
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
