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
	b, t   []float64 // the paired values of each side, in round order

	// The machine's speed (covariate.go): raw are the rounds' changes
	// before the adjustment, x the covariate's change of each round
	// (nil without one), beta and corr the adjustment's slope and the
	// correlation it rests on; lost is the degree of freedom the slope
	// costs (0 when not adjusted).
	raw, x     []float64
	beta, corr float64
	lost       int
	// inflate multiplies the standard error of an adjusted mean: the
	// slope's own uncertainty and the residuals' degree of freedom (1
	// when not adjusted).
	inflate float64
}

// newPairedEffect pairs the baseline's values b (in rounds rb) with the
// target's t (in rounds rt) by round, leaving out the rounds in skip. A
// round missing on one side is left out; a round listed twice on a side
// keeps its first value.
func newPairedEffect(b, t []float64, rb, rt, skip []int) *pairedEffect {
	e := &pairedEffect{}
	if len(rb) != len(b) || len(rt) != len(t) {
		return e
	}
	tv := map[int]float64{}
	for i, r := range rt {
		if _, ok := tv[r]; !ok && !slices.Contains(skip, r) {
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
		e.b, e.t = append(e.b, p.b), append(e.t, p.t)
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
	if e.x != nil {
		sub := &pairedEffect{scale: e.scale, rounds: e.rounds[:k], raw: e.raw[:k], x: e.x[:k], b: e.b[:k], t: e.t[:k]}
		sub.adjust()
		return sub
	}
	return &pairedEffect{scale: e.scale, rounds: e.rounds[:k], d: e.d[:k], b: e.b[:k], t: e.t[:k]}
}

// seFactor returns the factor of the mean's standard error beyond
// sd/√n: 1 unless adjusted for a covariate.
func (e *pairedEffect) seFactor() float64 {
	if e.lost == 0 || e.inflate == 0 {
		return 1
	}
	return e.inflate
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
// certain from a handful of rounds. Below minTrustedRounds rounds the p
// is at least that randomization bound too: a figure with two modes
// (a run that sometimes lands 25 % higher) gives rounds that all jump the
// same way far more often than Student's tails allow.
func (e *pairedEffect) test() float64 {
	p := e.tTest()
	if n := len(e.d); n < minTrustedRounds && n >= 2 {
		p = math.Max(p, math.Ldexp(2, -n))
	}
	return p
}

// tTest is test without the bound of a few rounds: Student's p (or the
// randomization bound of rounds that all changed alike). A measure's test
// sums its cases' (measures.go), where one case's chance pattern counts
// for little.
func (e *pairedEffect) tTest() float64 {
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
	t := m / (sd * e.seFactor() / math.Sqrt(float64(n)))
	return 2 * stats.TDist{V: float64(n - 1 - e.lost)}.CDF(-math.Abs(t))
}

// minTrustedRounds is the fewest rounds whose t test's p is taken below
// the randomization test's smallest, 2/2^n: at 4 rounds one figure in
// 130 with two equally likely modes moves the same way in every round
// under the null hypothesis, and a report has dozens of such figures.
const minTrustedRounds = 6

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
	return tQuantile(1-alpha/2, n-1-e.lost) * sd * e.seFactor() / math.Sqrt(float64(n))
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

// spreads returns the noise of the rounds: the standard deviation of
// their changes (within a round), the pooled standard deviation of each
// side across the rounds, both in percent (exp(sd) − 1 on the log scale),
// and the correlation of the two sides across the rounds — how much of
// each side's spread the machine gave both sides of a round. NaN where
// there are fewer than 3 rounds or a side does not vary.
func (e *pairedEffect) spreads() (round, side, corr float64) {
	nan := math.NaN()
	n := len(e.d)
	if !e.ok() || n < 3 {
		return nan, nan, nan
	}
	x, y := e.b, e.t
	if e.scale == scaleLog {
		x, y = logs(e.b), logs(e.t)
	} else {
		div := math.Abs(median(e.b))
		x, y = divided(e.b, div), divided(e.t, div)
	}
	_, sdD := e.meanSD()
	vx, vy, cxy := covariance(x, y)
	pct := func(sd float64) float64 {
		if e.scale == scaleLog {
			return math.Expm1(sd) * 100
		}
		return sd * 100
	}
	round, side, corr = pct(sdD), pct(math.Sqrt((vx+vy)/2)), nan
	if vx > 0 && vy > 0 {
		corr = cxy / math.Sqrt(vx*vy)
	}
	return round, side, corr
}

// divided returns x divided by div.
func divided(x []float64, div float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v / div
	}
	return out
}

// covariance returns the sample variances of x and y and their
// covariance (x and y of equal length ≥ 2).
func covariance(x, y []float64) (vx, vy, cxy float64) {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	for i := range x {
		vx += (x[i] - mx) * (x[i] - mx)
		vy += (y[i] - my) * (y[i] - my)
		cxy += (x[i] - mx) * (y[i] - my)
	}
	return vx / (n - 1), vy / (n - 1), cxy / (n - 1)
}

// roundsNeeded estimates how many rounds would resolve a change whose
// rounds moved by mean and sd (on the log or difference scale): as same,
// when |mean| is below the floor, the rounds at which the one-sided
// 1 − sameAlpha bound reaches the floor; as a call, when it is beyond,
// those at which the two-sided 1 − callAlpha interval leaves 0. Normal
// quantiles, plus two rounds for Student's tails. 0 when it cannot be
// told (no spread, or the estimate right at the floor).
func roundsNeeded(mean, sd, floorDist, sameAlpha, callAlpha float64) int {
	if !(sd > 0) || math.IsNaN(mean) {
		return 0
	}
	norm := stats.NormalDist{Mu: 0, Sigma: 1}
	var z, gap float64
	if m := math.Abs(mean); m < floorDist {
		z, gap = norm.InvCDF(1-sameAlpha), floorDist-m
	} else {
		z, gap = norm.InvCDF(1-callAlpha/2), m
	}
	if gap < sd*1e-3 {
		return 0
	}
	n := math.Ceil(math.Pow(z*sd/gap, 2)) + 2
	return int(math.Min(n, 1e6))
}
