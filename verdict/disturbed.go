package verdict

import (
	"slices"
)

// DisturbedMargin is how far, in points of all CPUs' time, other
// processes' CPU during a round (foreign_cpu_pct, the larger of its
// targets' steps) must exceed the study's median round for the round to
// count as disturbed. A steady neighbour moves every round alike, which
// comparing round by round takes out; a burst moves one round, and one
// side of it more than the other.
const DisturbedMargin = 25.0

// ForeignMetric is the step figure of other processes' CPU.
const ForeignMetric = "foreign_cpu_pct"

// Disturbed returns, per case key of a study, the rounds in which
// other processes' CPU on any of targets exceeded the study's median
// round by DisturbedMargin. Which rounds is decided from the machine's
// figures alone, the same for every target, so leaving them out of a
// paired comparison keeps its tests valid. Nil when the study has no
// such figures (a user's server).
func Disturbed(sg StudyGroup, targets []string) map[string][]int {
	type round struct {
		caseKey string
		rep     int
	}
	worst := map[round]float64{}
	for _, cg := range sg.Cases {
		for _, mg := range cg.Metrics {
			if mg.Name != ForeignMetric {
				continue
			}
			for _, t := range targets {
				for i, v := range mg.Samples[t] {
					if i < len(mg.Rounds[t]) {
						k := round{cg.Key, mg.Rounds[t][i]}
						worst[k] = max(worst[k], v)
					}
				}
			}
		}
	}
	if len(worst) == 0 {
		return nil
	}
	var all []float64
	for _, v := range worst {
		all = append(all, v)
	}
	slices.Sort(all)
	median := all[len(all)/2]
	if len(all)%2 == 0 {
		median = (all[len(all)/2-1] + all[len(all)/2]) / 2
	}
	out := map[string][]int{}
	for k, v := range worst {
		if v >= median+DisturbedMargin {
			out[k.caseKey] = append(out[k.caseKey], k.rep)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}
