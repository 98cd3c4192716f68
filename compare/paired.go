package compare

import (
	"math"
	"slices"
	"sync"

	"github.com/aclements/go-moremath/stats"
)

// Paired rounds.
//
// pglab's runner runs the targets of a case next to each other in every
// round (repetition), in mirrored pairs of rounds whose orientation is
// drawn at random per pair and case (ABBA or BAAB). Whatever moves the
// machine between rounds — another process, the page cache, the
// hypervisor — moves both sides of a round together, so the change of a
// round, d = log(target/baseline) of that round, is free of it, while two
// unpaired samples carry it as noise on each side. A paired change is the
// mean of its rounds' d (the geometric mean of the per-round ratios), its
// test the one-sample t test of the d and its intervals Student's.
//
// When a value is ≤ 0 the logs are impossible: d is then (target −
// baseline) / |median of the baseline| and the "ratio" 1 + d, as for the
// unpaired estimate (effect.go).

// pairedEffect holds the per-round changes of one target against the
// baseline.
type pairedEffect struct {
	scale  effectScale
	rounds []int     // ascending round numbers with a value on both sides
	d      []float64 // the change of each round, on the effect's scale
}

// newPairedEffect pairs the baseline's values b (in rounds rb) with the
// target's t (in rounds rt) by round. A round missing on one side is
// left out; a round listed twice on a side keeps its first value.
func newPairedEffect(b, t []float64, rb, rt []int) *pairedEffect {
	e := &pairedEffect{}
	if len(rb) != len(b) || len(rt) != len(t) {
		return e
	}
	tv := map[int]float64{}
	for i, r := range rt {
		if _, ok := tv[r]; !ok {
			tv[r] = t[i]
		}
	}
	type pair struct {
		round int
		b, t  float64
	}
	var ps []pair
	seen := map[int]bool{}
	for i, r := range rb {
		if v, ok := tv[r]; ok && !seen[r] {
			seen[r] = true
			ps = append(ps, pair{r, b[i], v})
		}
	}
	if len(ps) == 0 {
		return e
	}
	slices.SortFunc(ps, func(x, y pair) int { return x.round - y.round })
	positive := true
	bs := make([]float64, len(ps))
	for i, p := range ps {
		bs[i] = p.b
		positive = positive && p.b > 0 && p.t > 0
	}
	div := 1.0
	if positive {
		e.scale = scaleLog
	} else {
		if div = math.Abs(median(bs)); div == 0 {
			return e
		}
		e.scale = scaleDiff
	}
	for _, p := range ps {
		e.rounds = append(e.rounds, p.round)
		if positive {
			e.d = append(e.d, math.Log(p.t)-math.Log(p.b))
		} else {
			e.d = append(e.d, (p.t-p.b)/div)
		}
	}
	return e
}

// n returns the number of paired rounds.
func (e *pairedEffect) n() int { return len(e.d) }

// ok reports whether there is an estimate.
func (e *pairedEffect) ok() bool { return e.scale != scaleNone && len(e.d) > 0 }

// upTo returns the pairs of the rounds ≤ look (the first look repetitions
// of each side).
func (e *pairedEffect) upTo(look int) *pairedEffect {
	k := 0
	for k < len(e.rounds) && e.rounds[k] <= look {
		k++
	}
	return &pairedEffect{scale: e.scale, rounds: e.rounds[:k], d: e.d[:k]}
}

// ratio maps a difference on the effect's scale to a ratio.
func (e *pairedEffect) ratio(d float64) float64 {
	switch e.scale {
	case scaleLog:
		return math.Exp(d)
	case scaleDiff:
		return 1 + d
	}
	return math.NaN()
}

// meanSD returns the mean and the sample standard deviation of d (the
// deviation is 0 for a single round).
func (e *pairedEffect) meanSD() (mean, sd float64) {
	n := float64(len(e.d))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range e.d {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range e.d {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1))
}

// estimate returns the paired estimate of the ratio: the ratio of the
// mean change (the geometric mean of the rounds' ratios on the log
// scale).
func (e *pairedEffect) estimate() float64 {
	if !e.ok() {
		return math.NaN()
	}
	m, _ := e.meanSD()
	return e.ratio(m)
}

// constantD reports that every round changed by the same amount (an
// exact figure that differs by a fixed amount, or none at all).
func (e *pairedEffect) constantD() bool {
	for _, x := range e.d {
		if x != e.d[0] {
			return false
		}
	}
	return true
}

// test returns the two-sided p of the paired t test of mean d = 0.
// Fewer than 2 rounds give 1. Rounds that all changed by the same amount
// have no spread to test against: p is 1 when that amount is 0, else the
// p of a randomization test of the signs (2/2^n: every round agreed), so
// that a figure moving in one step in every round is never taken for
// certain from a handful of rounds.
func (e *pairedEffect) test() float64 {
	n := len(e.d)
	if !e.ok() || n < 2 {
		return 1
	}
	if e.constantD() {
		if e.d[0] == 0 {
			return 1
		}
		return math.Min(1, math.Ldexp(2, -n))
	}
	m, sd := e.meanSD()
	t := m / (sd / math.Sqrt(float64(n)))
	return 2 * stats.TDist{V: float64(n - 1)}.CDF(-math.Abs(t))
}

// halfWidth returns half the width of the two-sided 1 − alpha Student
// interval of mean d: +Inf with fewer than 2 rounds, 0 when every round
// changed by the same amount.
func (e *pairedEffect) halfWidth(alpha float64) float64 {
	n := len(e.d)
	switch {
	case !e.ok() || n < 2:
		return math.Inf(1)
	case e.constantD():
		return 0
	}
	_, sd := e.meanSD()
	return tQuantile(1-alpha/2, n-1) * sd / math.Sqrt(float64(n))
}

// interval returns the ratio's two-sided 1 − alpha limits. Unbounded
// limits are 0 (−Inf on the difference scale) and +Inf; NaN without an
// estimate.
func (e *pairedEffect) interval(alpha float64) (lo, hi float64) {
	if !e.ok() {
		return math.NaN(), math.NaN()
	}
	m, _ := e.meanSD()
	hw := e.halfWidth(alpha)
	return e.ratio(m - hw), e.ratio(m + hw)
}

// halfWidthPercent returns the half-width of the 1 − alpha interval in
// percent of the baseline, as effect.halfWidthPercent.
func (e *pairedEffect) halfWidthPercent(alpha float64) float64 {
	if !e.ok() {
		return math.NaN()
	}
	hw := e.halfWidth(alpha)
	if e.scale == scaleLog {
		return math.Expm1(hw) * 100
	}
	return hw * 100
}

// tQuantile returns the p quantile of Student's t with df degrees of
// freedom (df ≥ 1), cached: a report asks for a few levels at a few
// sample sizes many times.
func tQuantile(p float64, df int) float64 {
	k := tKey{p, df}
	if q, ok := tCache.Load(k); ok {
		return q.(float64)
	}
	q := stats.InvCDF(stats.TDist{V: float64(df)})(p)
	tCache.Store(k, q)
	return q
}

// tKey is a key of tCache.
type tKey struct {
	p  float64
	df int
}

// tCache holds tQuantile's results.
var tCache sync.Map
