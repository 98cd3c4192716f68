package verdict

import (
	"sort"

	"github.com/pglab/pglab/results"
)

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
	// Rounds holds each sample's repetition (its round), in the order
	// of Samples.
	Rounds map[string][]int
}

// Group organises measurements by study, case and metric, each in the
// order first measured (studies and cases that infos, the runs'
// descriptions, list come in their order, before any they do not list);
// studies and cases with no measurement are dropped unless kept says to
// keep them.
func Group(infos []results.StudyInfo, measurements []results.Measurement, kept func(study, caseKey string) bool) []StudyGroup {
	var studies []StudyGroup
	studyIdx := map[string]int{}
	caseIdx := map[string]map[string]int{}
	metricIdx := map[string]map[string]map[string]int{}
	addStudy := func(name string) int {
		si, ok := studyIdx[name]
		if !ok {
			si = len(studies)
			studyIdx[name] = si
			studies = append(studies, StudyGroup{Study: name})
			caseIdx[name] = map[string]int{}
			metricIdx[name] = map[string]map[string]int{}
		}
		return si
	}
	addCase := func(si int, labels map[string]string, key string) int {
		name := studies[si].Study
		ci, ok := caseIdx[name][key]
		if !ok {
			ci = len(studies[si].Cases)
			caseIdx[name][key] = ci
			studies[si].Cases = append(studies[si].Cases, CaseGroup{Labels: labels, Key: key})
			metricIdx[name][key] = map[string]int{}
		}
		return ci
	}
	// Studies and cases as the runs described them come first, in their
	// order; they are dropped again below if nothing was measured.
	for _, s := range infos {
		si := addStudy(s.Name)
		for _, c := range s.Cases {
			addCase(si, c.Labels, results.CaseKey(c.Labels))
		}
	}
	measured := map[string]map[string]bool{}
	ms := append([]results.Measurement(nil), measurements...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Rep < ms[j].Rep })
	for _, m := range ms {
		si := addStudy(m.Study)
		key := m.CaseKey
		if key == "" {
			key = results.CaseKey(m.Case)
		}
		ci := addCase(si, m.Case, key)
		if measured[m.Study] == nil {
			measured[m.Study] = map[string]bool{}
		}
		measured[m.Study][key] = true
		cg := &studies[si].Cases[ci]
		mi, ok := metricIdx[m.Study][key][m.Metric]
		if !ok {
			mi = len(cg.Metrics)
			metricIdx[m.Study][key][m.Metric] = mi
			cg.Metrics = append(cg.Metrics, MetricGroup{Name: m.Metric, Unit: m.Unit, Exact: m.Exact, Direction: m.Direction, Samples: map[string][]float64{}, Rounds: map[string][]int{}})
		}
		mg := &cg.Metrics[mi]
		mg.Samples[m.Target] = append(mg.Samples[m.Target], m.Value)
		mg.Rounds[m.Target] = append(mg.Rounds[m.Target], m.Rep)
	}
	// Keep the studies and cases that have measurements, or that kept
	// says to keep (behaviour probes' outcomes).
	out := studies[:0]
	for _, sg := range studies {
		cases := sg.Cases[:0]
		for _, cg := range sg.Cases {
			if measured[sg.Study][cg.Key] || kept != nil && kept(sg.Study, cg.Key) {
				cases = append(cases, cg)
			}
		}
		sg.Cases = cases
		if len(cases) > 0 {
			out = append(out, sg)
		}
	}
	return out
}
