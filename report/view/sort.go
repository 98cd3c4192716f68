package view

import (
	"math"
	"sort"

	"github.com/pglab/pglab/compare"
)

// sortCases orders the study's cases by the change of metric, worst
// first: by how much the last target's median exceeds the first's (for a
// metric where less is better; the other way round where more is better),
// so that a replay's queries that add the most time come first; with one
// target, by its median, the largest first. Cases without the metric come
// first, in their order (the whole workload before its queries); ties keep
// their order.
func (sv *Study) sortCases(metric string) {
	key := func(c Case) (float64, bool) {
		res := sv.Results[c.Key][metric]
		if res == nil || len(sv.Targets) == 0 {
			return 0, false
		}
		sign := 1.0
		if res.Metric.Direction == compare.HigherIsBetter {
			sign = -1
		}
		if len(sv.Targets) == 1 {
			s, ok := res.Target(sv.Targets[0])
			return s.Center, ok && s.N > 0
		}
		ch, ok := res.Change(sv.Targets[len(sv.Targets)-1])
		d := sign * (ch.Center - ch.BaseCenter)
		return d, ok && !math.IsNaN(d)
	}
	sort.SliceStable(sv.Cases, func(i, j int) bool {
		ki, oki := key(sv.Cases[i])
		kj, okj := key(sv.Cases[j])
		if oki != okj {
			return !oki
		}
		return oki && ki > kj
	})
}
