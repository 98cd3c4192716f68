package verdict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

// Key names a cell of the family: study, case key and metric.
func Key(study, caseKey, metric string) string {
	return study + "\x00" + caseKey + "\x00" + metric
}

// CellCase returns the key of the case a family cell of Cells
// belongs to.
func CellCase(c compare.Cell) string {
	parts := strings.SplitN(c.Key, "\x00", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// MeasureKey names a measure of the family: one metric of a study,
// whose cells are its cases.
func MeasureKey(study, metric string) string {
	return study + "\x00" + metric
}

// MeasureMetric returns the metric of a measure's key.
func MeasureMetric(key string) string {
	_, metric, _ := strings.Cut(key, "\x00")
	return metric
}

// Callable reports whether a metric of a study presented as p can be
// called a change: the study's primary metrics (the headline tables; a
// study without a presentation has every metric primary). Facts,
// resources (CPU, disk, waits) and the further metrics are auxiliary:
// shown with their tests, never called, and not in the family, whose size
// decides how small a p a call needs.
func Callable(p *results.Presentation, metric string) bool {
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

// TwinOf returns the primary metric whose test a metric of a study
// presented as p repeats, or "" (see results.MetricHead.Twin).
func TwinOf(p *results.Presentation, metric string) string {
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

// Cell is the family's cell of one metric of a case of a study
// presented as p, with its input.
func Cell(p *results.Presentation, study string, cg CaseGroup, mg MetricGroup, in compare.Input) compare.Cell {
	cell := compare.Cell{
		Key:      Key(study, cg.Key, mg.Name),
		Measure:  MeasureKey(study, mg.Name),
		Input:    in,
		Callable: Callable(p, mg.Name),
		Floor:    metricFloor(mg),
	}
	if twin := TwinOf(p, mg.Name); twin != "" && hasMetric(cg, twin) {
		cell.Twin = Key(study, cg.Key, twin)
	}
	return cell
}

// Options say how a study's cells are built: with the run's floor, its
// targets' rounds, and the design and caps its cases' rounds were chosen
// by. The stopping rule of --reps auto and the report build them with the
// same options, so that a run decides its rounds and its calls on one
// family.
type Options struct {
	// MinChange is the run's practical floor as compare.Options has it:
	// 0 for compare.DefaultMinChange, negative (compare.NoFloor) for 0.
	MinChange float64
	// Interleaved says that the targets ran in rounds of one run (each
	// sample's repetition is its round); the report of several runs
	// compares them unpaired.
	Interleaved bool
	// Design is the sequential design the study's rounds were chosen by,
	// nil for a fixed count.
	Design *compare.Design
	// Caps holds each case's cap under Design, by case key (missing or 0:
	// the design's).
	Caps map[string]int
}

// Floor returns the floor o.MinChange stands for, as a fraction.
func (o Options) Floor() float64 {
	switch {
	case o.MinChange == 0:
		return compare.DefaultMinChange
	case o.MinChange < 0:
		return 0
	}
	return o.MinChange
}

// StudyCells returns the family's cells of one study sg presented as p,
// on targets (the first the baseline): one per case and metric that has a
// baseline and another target, callable when p presents the metric as
// primary (every metric when p is nil), with its twin, its floor (a part
// of another figure's floor from the run's floor), its disturbed rounds,
// design and cap, samples in repetition order.
func StudyCells(p *results.Presentation, sg StudyGroup, targets []string, o Options) []compare.Cell {
	var cells []compare.Cell
	disturbed := Disturbed(sg, targets)
	for _, cg := range sg.Cases {
		for _, mg := range cg.Metrics {
			in := Input(mg, targets, o.Interleaved)
			if in.Baseline == "" || len(targets) < 2 {
				continue
			}
			in.Disturbed = disturbed[cg.Key]
			if o.Interleaved && p != nil && p.SpeedCovariate {
				addSpeed(&in, cg, mg, targets)
			}
			cell := Cell(p, sg.Study, cg, mg, in)
			cell.Design, cell.Cap = o.Design, o.Caps[cg.Key]
			PartFloor(&cell, p, cg, mg, o.Floor())
			cells = append(cells, cell)
		}
	}
	return cells
}

// Cells returns the cells that measurements ms (of one study presented as
// p, on targets, the first the baseline) make in a report's family, as
// StudyCells builds them: the stopping rule of --reps auto decides on the
// cells of a study as the report will analyse them.
func Cells(p *results.Presentation, targets []string, ms []results.Measurement, o Options) []compare.Cell {
	var cells []compare.Cell
	for _, sg := range Group(nil, ms, nil) {
		cells = append(cells, StudyCells(p, sg, targets, o)...)
	}
	return cells
}

// SpeedMetric is the figure a time is adjusted by for the machine's
// speed: pglab's own CPU over the step (observe's client_cpu_ms), the
// same work against every target (compare's covariate.go).
const SpeedMetric = "client_cpu_ms"

// addSpeed gives a time of a case the case's SpeedMetric as its
// covariate, aligned with its samples by round (a round without it gets
// 0, which leaves the change unadjusted).
func addSpeed(in *compare.Input, cg CaseGroup, mg MetricGroup, targets []string) {
	switch mg.Unit {
	case "ms", "us", "s":
	default:
		return
	}
	if mg.Name == SpeedMetric {
		return
	}
	var speed *MetricGroup
	for i := range cg.Metrics {
		if cg.Metrics[i].Name == SpeedMetric {
			speed = &cg.Metrics[i]
		}
	}
	if speed == nil {
		return
	}
	cov := map[string][]float64{}
	for _, t := range targets {
		byRound := map[int]float64{}
		for i, r := range speed.Rounds[t] {
			if i < len(speed.Samples[t]) {
				byRound[r] = speed.Samples[t][i]
			}
		}
		vals := make([]float64, len(mg.Rounds[t]))
		for i, r := range mg.Rounds[t] {
			vals[i] = byRound[r]
		}
		cov[t] = vals
	}
	in.Covariate, in.CovariateName = cov, SpeedMetric
}

// Input is the statistics' input of one metric over the given targets,
// the first being the baseline; interleaved says that the targets ran in
// rounds of one run (each sample's repetition is its round).
func Input(mg MetricGroup, names []string, interleaved bool) compare.Input {
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
	if interleaved {
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

// PartFloor sets the floor of a cell whose metric its presentation p
// declares a part of another (results.MetricHead.PartOf): minChange of
// the whole's baseline median, as a share of the part's, when that is
// larger than minChange — "±4.2 ms, 5 % of Time for all updates".
func PartFloor(cell *compare.Cell, p *results.Presentation, cg CaseGroup, mg MetricGroup, minChange float64) {
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
		wm, pm := Median(w.Samples[base]), Median(mg.Samples[base])
		if !(wm > 0 && pm > 0) || minChange*wm/pm <= minChange {
			return
		}
		cell.Floor = minChange * wm / pm
		cell.FloorText = fmt.Sprintf("±%s, %s of %s", compare.FormatValue(minChange*wm, compare.Unit(mg.Unit)),
			Percent(minChange), head)
	}
}

// Median returns the median of x, 0 when empty.
func Median(x []float64) float64 {
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

// hasMetric reports whether a case has a metric.
func hasMetric(cg CaseGroup, metric string) bool {
	for _, mg := range cg.Metrics {
		if mg.Name == metric {
			return true
		}
	}
	return false
}

// Percent formats a fraction as a percentage: 0.05 → "5 %".
func Percent(x float64) string {
	return strconv.FormatFloat(x*100, 'g', 3, 64) + " %"
}
