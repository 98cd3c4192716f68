package view

import (
	"math"
	"sort"
	"strconv"

	"github.com/pglab/pglab/results"
)

// buildImpact adds the presentation's impact column, when it has one: each
// case's change of the impact's Change metric (the last target against the
// baseline) times the case's share of the whole (its Share metric over the
// Whole metric of the case that records it, both on the baseline); the
// case that records the whole shows the whole's own change. Cases are then
// ordered by the size of their impact, largest first; those without one
// last, in their order.
func (sv *Study) buildImpact() {
	im := sv.present.Impact
	if im == nil || len(sv.Targets) < 2 || !sv.hasMetric(im.Change, im.Whole) {
		return
	}
	base, other := sv.Targets[0], sv.Targets[len(sv.Targets)-1]
	whole := math.NaN()
	for _, c := range sv.Cases {
		if res := sv.Results[c.Key][im.Whole]; res != nil {
			if s, ok := res.Target(base); ok && s.N > 0 {
				whole = s.Center
			}
		}
	}
	head := im.Head + " (" + other + " vs " + base + ")"
	sv.LabelCols = append(sv.LabelCols, results.LabelColumn{Head: head})
	for i := range sv.Cases {
		c := &sv.Cases[i]
		c.Impact = sv.caseImpact(c.Key, im, base, other, whole)
		val := "–"
		if !math.IsNaN(c.Impact) {
			val = signedPercent(c.Impact)
		}
		c.Values = append(c.Values, val)
	}
	sort.SliceStable(sv.Cases, func(i, j int) bool {
		a, b := math.Abs(sv.Cases[i].Impact), math.Abs(sv.Cases[j].Impact)
		if math.IsNaN(a) || math.IsNaN(b) {
			return !math.IsNaN(a) && math.IsNaN(b)
		}
		return a > b
	})
}

// caseImpact is one case's impact in percent of the whole, NaN when its
// figures are missing.
func (sv *Study) caseImpact(key string, im *results.Impact, base, other string, whole float64) float64 {
	byMetric := sv.Results[key]
	if res := byMetric[im.Whole]; res != nil {
		if ch, ok := res.Change(other); ok {
			return ch.Percent
		}
		return math.NaN()
	}
	change, share := byMetric[im.Change], byMetric[im.Share]
	if change == nil || share == nil || math.IsNaN(whole) || whole <= 0 {
		return math.NaN()
	}
	ch, ok := change.Change(other)
	s, okS := share.Target(base)
	if !ok || !okS || s.N == 0 || math.IsNaN(ch.Percent) {
		return math.NaN()
	}
	return ch.Percent * s.Center / whole
}

// signedPercent writes a change in percent with its sign, to two
// significant digits below 10: "+4.2 %", "−0.31 %", "+120 %".
func signedPercent(p float64) string {
	sign := "+"
	if p < 0 {
		sign = "−"
	}
	a := math.Abs(p)
	digits := 2
	if a >= 10 {
		digits = 0
	}
	if a >= 1 && a < 10 {
		digits = 1
	}
	return sign + strconv.FormatFloat(a, 'f', digits, 64) + " %"
}
