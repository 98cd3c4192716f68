package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Group sequential boundaries by alpha spending.
//
// A case of --reps auto is looked at after every mirrored pair of rounds,
// from the design's start up to its own cap, and may stop at any look.
// Testing each look at the full level would call a change that is not
// there far more often than the level says (every look is another
// chance); dividing the level among the looks (Bonferroni) keeps it but
// wastes most of it, since the statistics of two looks a pair of rounds
// apart are nearly the same number. Lan and DeMets' alpha spending
// (Biometrika 70:659–663, 1983) spends the level as the information
// grows: by the look at n of the cap's N rounds at most
// alpha·f(n/N) has been spent, with f(t) = t^rho (Kim and DeMets'
// power family: rho = 1 spends evenly, like Pocock's boundary; rho = 3
// keeps most of it for the last looks, like O'Brien and Fleming's). The
// boundary of each look is the z that makes the chance of crossing there
// for the first time, under the null hypothesis, exactly the increment
// spent there, given the statistic's joint law over the looks: a sum of
// independent rounds, Z_k = S_k/√n_k, Brownian in the rounds (Armitage,
// McPherson and Rowe's recursive integration, as in Jennison and
// Turnbull, "Group Sequential Methods", ch. 19).
//
// The paired t statistic of each look is turned into that z through its
// p-value (the same nominal level), exact in each look's margin and close
// to the Brownian law jointly; TestSpendingCalibration checks the whole
// procedure under the null, with Student's tails at four rounds.
//
// A change's sequential p is the smallest level at which the rule would
// have crossed at one of the looks it reached: p* = inf{a : the nominal
// p of some look k ≤ its last is ≤ the nominal level of look k's
// boundary at a}. P(p* ≤ a) ≤ a under the null whatever the stopping
// (stopping early only takes looks away), so p* enters
// Benjamini-Hochberg like any p. The looks must be fixed before the data
// of the case is seen; a case's cap, chosen from the cost of its rounds,
// is.

// spendingKey identifies a spending plan: its looks, cap, shape and
// sides.
type spendingKey struct {
	looks    string // the looks, comma-separated
	cap      int
	rho      float64
	oneSided bool
}

// spendingPlan is the boundaries of one schedule of looks, computed at
// the levels of levelGrid as they are needed, for reading sequential
// p-values off.
type spendingPlan struct {
	looks    []int
	info     []float64
	rho      float64
	oneSided bool

	mu sync.Mutex
	// nominal[i][k] is the nominal level of look k's boundary at
	// levelGrid[i] (two-sided, or one-sided for a one-sided plan); nil
	// until computed.
	nominal [][]float64
	// at holds the nominal levels at other levels, by level.
	at map[float64][]float64
}

// levelGrid is the levels whose boundaries a plan can hold: 1e-12 to 1,
// four to a decade.
var levelGrid = func() []float64 {
	var g []float64
	for e := -48; e <= 0; e++ {
		g = append(g, math.Pow(10, float64(e)/4))
	}
	return g
}()

// spendingPlans caches the plans by spendingKey: a report asks about a
// few schedules many times.
var spendingPlans sync.Map

// planSpending returns the plan of looks (ascending, ≥ 1) with the given
// cap (information n/cap, at most 1), shape rho and sides.
func planSpending(looks []int, cap int, rho float64, oneSided bool) *spendingPlan {
	parts := make([]string, len(looks))
	for i, l := range looks {
		parts[i] = strconv.Itoa(l)
	}
	key := spendingKey{strings.Join(parts, ","), cap, rho, oneSided}
	if p, ok := spendingPlans.Load(key); ok {
		return p.(*spendingPlan)
	}
	p := &spendingPlan{looks: slices.Clone(looks), info: informationOf(looks, cap), rho: rho, oneSided: oneSided,
		nominal: make([][]float64, len(levelGrid)), at: map[float64][]float64{}}
	actual, _ := spendingPlans.LoadOrStore(key, p)
	return actual.(*spendingPlan)
}

// grid returns the nominal levels of the looks at levelGrid[i].
func (p *spendingPlan) grid(i int) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.nominal[i] == nil {
		p.nominal[i] = nominalLevels(boundaries(p.info, levelGrid[i], p.rho, p.oneSided), p.oneSided)
	}
	return p.nominal[i]
}

// levels returns the nominal levels of the looks at level a, computed
// for a itself.
func (p *spendingPlan) levels(a float64) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.at[a]; ok {
		return n
	}
	n := nominalLevels(boundaries(p.info, a, p.rho, p.oneSided), p.oneSided)
	p.at[a] = n
	return n
}

// informationOf returns each look's information as a share of the cap's,
// at most 1.
func informationOf(looks []int, cap int) []float64 {
	info := make([]float64, len(looks))
	for i, l := range looks {
		info[i] = math.Min(1, float64(l)/float64(max(cap, 1)))
	}
	return info
}

// nominalLevels turns z boundaries into nominal levels.
func nominalLevels(c []float64, oneSided bool) []float64 {
	out := make([]float64, len(c))
	for i, z := range c {
		out[i] = upperTail(z)
		if !oneSided {
			out[i] *= 2
		}
	}
	return out
}

// upperTail returns P(Z > z) for a standard normal Z.
func upperTail(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// sequentialP returns the sequential p of nominal p-values ps, ps[k] at
// look k of the plan (fewer than the plan's looks when the case stopped
// early): the smallest level at which some look's nominal p is within
// its boundary's nominal level, interpolated between the grid's levels
// on the log scale, and the look (index) that gives it.
func (p *spendingPlan) sequentialP(ps []float64) (float64, int) {
	best, at := 1.0, -1
	for k, pk := range ps {
		if k >= len(p.looks) {
			break
		}
		if a := p.levelAt(k, pk); a < best || at < 0 {
			best, at = a, k
		}
	}
	return best, at
}

// levelAt returns the smallest level at which look k's boundary admits a
// nominal p of pk.
func (p *spendingPlan) levelAt(k int, pk float64) float64 {
	if math.IsNaN(pk) {
		return 1
	}
	g := levelGrid
	// nominal[i][k] rises with i; find the first level that admits pk.
	i := sort64(len(g), func(i int) bool { return p.grid(i)[k] >= pk })
	switch {
	case i == len(g):
		return 1
	case i == 0:
		// Below the grid: proportionally.
		if n := p.grid(0)[k]; n > 0 {
			return g[0] * pk / n
		}
		return g[0]
	}
	lo, hi := p.grid(i - 1)[k], p.grid(i)[k]
	if lo <= 0 {
		return g[i]
	}
	f := (math.Log(pk) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
	return math.Min(1, math.Exp(math.Log(g[i-1])+f*(math.Log(g[i])-math.Log(g[i-1]))))
}

// nominalAt returns look k's nominal level at level a (0 for a look
// the plan does not have).
func (p *spendingPlan) nominalAt(k int, a float64) float64 {
	if k < 0 || k >= len(p.looks) || !(a > 0) {
		return 0
	}
	return p.levels(a)[k]
}

// sort64 is sort.Search without the import: the smallest i in [0, n)
// with f(i) true, n if none.
func sort64(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// spendingGridPerSD is the grid points per standard deviation of one
// look's increment in the recursive integration.
const spendingGridPerSD = 4

// spendingReach is how many standard deviations of the statistic the
// integration covers where no boundary cuts it.
const spendingReach = 8.0

// boundaries returns the z boundary of each look of the information
// fractions info (ascending, in (0, 1]) for level alpha spent as
// alpha·t^rho, two-sided (|Z_k| ≥ c_k crosses) or one-sided (Z_k ≥ c_k).
// A look where nothing is spent has +Inf.
func boundaries(info []float64, alpha, rho float64, oneSided bool) []float64 {
	c := make([]float64, len(info))
	spent, prevInfo := 0.0, 0.0
	var grid, dens []float64 // the continuation region's S values and sub-density
	for k, ik := range info {
		target := alpha*math.Pow(math.Min(ik, 1), rho) - spent
		delta := ik - prevInfo
		if delta <= 0 {
			c[k] = math.Inf(1)
			continue
		}
		exit := func(z float64) float64 {
			return exitProb(grid, dens, z*math.Sqrt(ik), delta, oneSided, k == 0 || prevInfo == 0)
		}
		switch {
		case target <= 1e-300:
			c[k] = math.Inf(1)
		default:
			c[k] = solveBoundary(exit, target)
		}
		if !math.IsInf(c[k], 1) {
			spent += exit(c[k])
		}
		grid, dens = continueDensity(grid, dens, ik, delta, c[k], oneSided, prevInfo == 0)
		prevInfo = ik
	}
	return c
}

// solveBoundary returns the z at which exit(z) (falling in z) equals
// target, by bisection.
func solveBoundary(exit func(float64) float64, target float64) float64 {
	lo, hi := 0.0, 40.0
	if exit(lo) <= target {
		return lo
	}
	for range 80 {
		m := (lo + hi) / 2
		if exit(m) > target {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// exitProb returns the chance that the walk, continuing from the
// sub-density dens on grid (S values; a point mass at 0 when first),
// crosses the boundary b (on the S scale) after an increment of variance
// delta.
func exitProb(grid, dens []float64, b, delta float64, oneSided, first bool) float64 {
	sd := math.Sqrt(delta)
	tail := func(u float64) float64 {
		p := upperTail((b - u) / sd)
		if !oneSided {
			p += upperTail((b + u) / sd)
		}
		return p
	}
	if first {
		return tail(0)
	}
	w := simpsonWeights(len(grid), grid[1]-grid[0])
	s := 0.0
	for j, u := range grid {
		s += w[j] * dens[j] * tail(u)
	}
	return s
}

// continueDensity returns the grid and sub-density of S at a look of
// information ik whose boundary is c (z scale), from the previous look's.
func continueDensity(grid, dens []float64, ik, delta, c float64, oneSided, first bool) ([]float64, []float64) {
	sd := math.Sqrt(delta)
	reach := spendingReach * math.Sqrt(ik)
	hi := math.Min(c*math.Sqrt(ik), reach)
	lo := -reach
	if !oneSided {
		lo = -hi
	}
	n := int(math.Ceil((hi-lo)/sd*spendingGridPerSD)) + 1
	n = max(n, 33)
	if n%2 == 0 {
		n++ // Simpson's rule wants an odd count
	}
	h := (hi - lo) / float64(n-1)
	out := make([]float64, n)
	g := make([]float64, n)
	var w []float64
	if !first {
		w = simpsonWeights(len(grid), grid[1]-grid[0])
	}
	norm := 1 / (sd * math.Sqrt(2*math.Pi))
	for i := range g {
		s := lo + float64(i)*h
		g[i] = s
		if first {
			out[i] = norm * math.Exp(-s*s/(2*delta))
			continue
		}
		v := 0.0
		for j, u := range grid {
			x := (s - u) / sd
			if x > -spendingReach && x < spendingReach {
				v += w[j] * dens[j] * math.Exp(-x*x/2)
			}
		}
		out[i] = v * norm
	}
	return g, out
}

// simpsonWeights returns Simpson's weights of n (odd) points h apart.
func simpsonWeights(n int, h float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		switch {
		case i == 0 || i == n-1:
			w[i] = h / 3
		case i%2 == 1:
			w[i] = 4 * h / 3
		default:
			w[i] = 2 * h / 3
		}
	}
	return w
}

// String describes a plan for debugging: its looks and the nominal levels
// at 0.05.
func (p *spendingPlan) String() string {
	var b strings.Builder
	for k, l := range p.looks {
		fmt.Fprintf(&b, "%d:%.3g ", l, p.nominalAt(k, 0.05))
	}
	return strings.TrimSpace(b.String())
}
