package report

import (
	"sort"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

// Dataset is what a report is made from: a run's targets and measurements
// (as stored, or as a study just produced them).
type Dataset struct {
	Run          results.RunRecord
	Targets      []results.Target
	Measurements []results.Measurement
	// Notes are remarks per study and case (bottlenecks, skipped targets).
	Notes []Note
	// Alpha is the significance level (0 means compare.DefaultAlpha).
	Alpha float64
}

// Note is a remark attached to a study's case on a target.
type Note struct {
	Study  string
	Case   map[string]string
	Target string
	Text   string
	// Outcome marks the one-cell result of a behaviour probe: studies
	// with outcomes are shown as a matrix (case × target).
	Outcome bool
}

// TargetNames returns the targets in run order; the first is the
// baseline.
func (d *Dataset) TargetNames() []string {
	if len(d.Targets) > 0 {
		out := make([]string, len(d.Targets))
		for i, t := range d.Targets {
			out[i] = t.Name
		}
		return out
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range d.Measurements {
		if !seen[m.Target] {
			seen[m.Target] = true
			out = append(out, m.Target)
		}
	}
	return out
}

// StudyGroup is the measurements of one study, by case.
type StudyGroup struct {
	Study string
	Cases []CaseGroup
}

// CaseGroup is the measurements of one case, by metric.
type CaseGroup struct {
	Labels  map[string]string
	Key     string
	Metrics []MetricGroup
}

// MetricGroup is one metric of one case: its samples per target.
type MetricGroup struct {
	Name      string
	Unit      string
	Exact     bool
	Direction results.Direction
	Samples   map[string][]float64
}

// Groups organises the measurements by study, case and metric, each in the
// order first measured.
func (d *Dataset) Groups() []StudyGroup {
	var studies []StudyGroup
	studyIdx := map[string]int{}
	caseIdx := map[string]map[string]int{}
	metricIdx := map[string]map[string]map[string]int{}
	ms := append([]results.Measurement(nil), d.Measurements...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Rep < ms[j].Rep })
	for _, m := range ms {
		si, ok := studyIdx[m.Study]
		if !ok {
			si = len(studies)
			studyIdx[m.Study] = si
			studies = append(studies, StudyGroup{Study: m.Study})
			caseIdx[m.Study] = map[string]int{}
			metricIdx[m.Study] = map[string]map[string]int{}
		}
		key := m.CaseKey
		if key == "" {
			key = results.CaseKey(m.Case)
		}
		ci, ok := caseIdx[m.Study][key]
		if !ok {
			ci = len(studies[si].Cases)
			caseIdx[m.Study][key] = ci
			studies[si].Cases = append(studies[si].Cases, CaseGroup{Labels: m.Case, Key: key})
			metricIdx[m.Study][key] = map[string]int{}
		}
		cg := &studies[si].Cases[ci]
		mi, ok := metricIdx[m.Study][key][m.Metric]
		if !ok {
			mi = len(cg.Metrics)
			metricIdx[m.Study][key][m.Metric] = mi
			cg.Metrics = append(cg.Metrics, MetricGroup{Name: m.Metric, Unit: m.Unit, Exact: m.Exact, Direction: m.Direction, Samples: map[string][]float64{}})
		}
		mg := &cg.Metrics[mi]
		mg.Samples[m.Target] = append(mg.Samples[m.Target], m.Value)
	}
	return studies
}

// Analyze runs the statistics of one metric across targets, the first
// target being the baseline.
func (d *Dataset) Analyze(mg MetricGroup) (*compare.Result, error) {
	names := d.TargetNames()
	dir, _ := compare.ParseDirection(string(mg.Direction))
	in := compare.Input{
		Metric:  compare.Metric{Name: mg.Name, Unit: compare.Unit(mg.Unit), Direction: dir, Exact: mg.Exact},
		Order:   names,
		Samples: mg.Samples,
	}
	if len(names) > 1 {
		in.Baseline = names[0]
	}
	return compare.Analyze(in, compare.Options{Alpha: d.Alpha})
}
