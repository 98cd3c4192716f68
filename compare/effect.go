package compare

import (
	"math"
	"slices"
	"sync"
)

// The size of a change: Hodges-Lehmann estimate with Moses confidence
// limits.
//
// For samples x (baseline, n1 values) and y (target, n2 values) take the
// n1·n2 pairwise differences D = y_j − x_i, sorted. The Hodges-Lehmann
// estimate of the shift is their median. With u the largest U whose
// two-sided exact Mann-Whitney p (no ties) is at most 1 − level, the Moses
// limits are D(u+1) and D(n1·n2 − u) (1-based): the interval holds every
// shift that the U test would not reject when subtracted from y, which
// makes it exact for continuous data and valid for unequal n. Its actual
// coverage is 1 − 2·P(U ≤ u) ≥ level. When even complete separation is
// not significant at 1 − level (say n = 3+3 at 95 %) there is no such u and
// the interval is unbounded.
//
// On log values the shift is a ratio: exp of the limits bounds
// target/baseline. That needs positive values; when a value is ≤ 0 the
// differences are divided by |median of the baseline| instead, so the
// "ratio" is 1 + shift/|baseline median| (a relative difference), and when
// that median is 0 there is no estimate at all.

// effectScale says on which scale an effect was estimated.
type effectScale int

const (
	scaleNone effectScale = iota // no estimate (baseline median 0)
	scaleLog                     // log values: a ratio
	scaleDiff                    // differences relative to |baseline median|
)

// effect holds the sorted pairwise differences of two samples, from which
// intervals at any level are read.
type effect struct {
	scale  effectScale
	n1, n2 int
	diffs  []float64 // sorted; in log units or in units of |base median|
}

// newEffect computes the pairwise differences of y against x, on the log
// scale when every value is positive.
func newEffect(x, y []float64) *effect {
	e := &effect{n1: len(x), n2: len(y)}
	if e.n1 == 0 || e.n2 == 0 {
		return e
	}
	positive := allPositive(x) && allPositive(y)
	lx, ly := x, y
	div := 1.0
	if positive {
		e.scale = scaleLog
		lx, ly = logs(x), logs(y)
	} else {
		div = math.Abs(median(x))
		if div == 0 {
			return e
		}
		e.scale = scaleDiff
	}
	e.diffs = make([]float64, 0, e.n1*e.n2)
	for _, b := range lx {
		for _, t := range ly {
			e.diffs = append(e.diffs, (t-b)/div)
		}
	}
	slices.Sort(e.diffs)
	return e
}

// allPositive reports whether every value of x is > 0.
func allPositive(x []float64) bool {
	for _, v := range x {
		if !(v > 0) {
			return false
		}
	}
	return true
}

// logs returns the natural logarithms of x.
func logs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Log(v)
	}
	return out
}

// median returns the median of x (NaN when empty).
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := sortedCopy(x)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ok reports whether there is an estimate.
func (e *effect) ok() bool { return e.scale != scaleNone }

// ratio maps a difference on the effect's scale to a ratio target/baseline.
func (e *effect) ratio(d float64) float64 {
	switch e.scale {
	case scaleLog:
		return math.Exp(d)
	case scaleDiff:
		return 1 + d
	}
	return math.NaN()
}

// estimate returns the Hodges-Lehmann estimate of the ratio.
func (e *effect) estimate() float64 {
	if !e.ok() {
		return math.NaN()
	}
	return e.ratio(median(e.diffs))
}

// interval returns the Moses limits of the ratio for a two-sided level
// 1 − alpha and their actual coverage. Unbounded limits are 0 (or −Inf on
// the difference scale) and +Inf with coverage 1; without an estimate all
// three are NaN.
func (e *effect) interval(alpha float64) (lo, hi, coverage float64) {
	if !e.ok() {
		return math.NaN(), math.NaN(), math.NaN()
	}
	u, tail := mosesRank(e.n1, e.n2, alpha)
	if u < 0 {
		return e.ratio(math.Inf(-1)), math.Inf(1), 1
	}
	m := len(e.diffs)
	return e.ratio(e.diffs[u]), e.ratio(e.diffs[m-1-u]), 1 - 2*tail
}

// halfWidthPercent returns half the width of the interval at 1 − alpha in
// percent of the baseline: (exp((log hi − log lo)/2) − 1)·100 on the log
// scale, (hi − lo)/2·100 on the difference scale; +Inf when the interval
// is unbounded, NaN without an estimate.
func (e *effect) halfWidthPercent(alpha float64) float64 {
	if !e.ok() {
		return math.NaN()
	}
	u, _ := mosesRank(e.n1, e.n2, alpha)
	if u < 0 {
		return math.Inf(1)
	}
	hw := (e.diffs[len(e.diffs)-1-u] - e.diffs[u]) / 2
	if e.scale == scaleLog {
		return math.Expm1(hw) * 100
	}
	return hw * 100
}

// mosesRank returns the largest u whose two-sided U-test p for samples of
// n1 and n2 values, 2·P(U ≤ u), is at most alpha, with P(U ≤ u); u is −1
// when there is none.
func mosesRank(n1, n2 int, alpha float64) (u int, tail float64) {
	type key struct {
		n1, n2 int
		alpha  float64
	}
	k := key{n1, n2, alpha}
	if r, ok := mosesCache.Load(k); ok {
		r := r.([2]float64)
		return int(r[0]), r[1]
	}
	u, tail = findMosesRank(n1, n2, alpha)
	mosesCache.Store(k, [2]float64{float64(u), tail})
	return u, tail
}

// mosesCache holds mosesRank's results. Its keys are few in practice: the
// sample sizes of a report's cells and the levels of its family.
var mosesCache sync.Map

// findMosesRank computes mosesRank.
func findMosesRank(n1, n2 int, alpha float64) (u int, tail float64) {
	within := func(k int) bool { return 2*uCDF(n1, n2, float64(k)) <= alpha*(1+1e-9) }
	if n1 == 0 || n2 == 0 || !within(0) {
		return -1, 0
	}
	// P(U ≤ k) grows with k; search the last k below the middle that is
	// still within alpha.
	lo, hi := 0, (n1*n2-1)/2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if within(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, uCDF(n1, n2, float64(lo))
}
