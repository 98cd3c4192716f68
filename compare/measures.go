package compare

import (
	"math"
	"slices"
)

// The measures of a paired family: each measure of two or more paired
// cases gets a test of its own (Stouffer's sum of its cases' z, for a
// change they share) and a pooled estimate (for "the measure is the
// same"). See paired_family.go for how both enter the family. A case's z
// is its t test's without the bound a case's own call has at few rounds
// (pairedEffect.tTest): a chance pattern of one case is diluted in the
// sum, and a change shared by four cases is found at four rounds.

// test sets the measure's test and pooled estimate from its paired
// cases, before the family's correction.
func (g *measureGroup) test(alpha float64) {
	g.paired = g.paired[:0]
	for _, pc := range g.changes {
		if pc.pe != nil {
			g.paired = append(g.paired, pc)
		}
	}
	g.pool(g.paired, alpha)
	if len(g.paired) < 2 {
		return
	}
	r := &g.res
	r.Tested = true
	zs := make([]float64, len(g.paired))
	for i, pc := range g.paired {
		zs[i] = pc.seq.zAt(math.MaxInt) // 0 for a case short of its first look
	}
	r.RawP = stoufferP(zs)
	r.P = r.RawP
	if looks, capN, ok := measureSchedule(g.paired); ok {
		r.P, r.Look = g.sequentialP(looks, capN)
	}
}

// lookP returns the measure's own p at a look of n rounds (its cases' z
// at their last look so far, summed), false for a measure without a test
// of its own.
func (g *measureGroup) lookP(n int) (float64, bool) {
	if !g.res.Tested {
		return 0, false
	}
	zs := make([]float64, len(g.paired))
	for i, pc := range g.paired {
		zs[i] = pc.seq.zAt(n)
	}
	return stoufferP(zs), true
}

// stoufferP returns the two-sided p of Stouffer's sum of z.
func stoufferP(zs []float64) float64 {
	s := 0.0
	for _, z := range zs {
		s += z
	}
	return math.Min(1, 2*upperTail(math.Abs(s)/math.Sqrt(float64(len(zs)))))
}

// measureSchedule returns the looks of a measure whose cases all ran
// under a design: the union of its cases' looks, up to the largest cap.
func measureSchedule(paired []*pairedChange) (looks []int, capN int, ok bool) {
	for _, pc := range paired {
		if pc.seq.looks == nil {
			return nil, 0, false
		}
		looks = append(looks, pc.seq.looks...)
		capN = max(capN, pc.seq.capN)
	}
	slices.Sort(looks)
	return slices.Compact(looks), capN, true
}

// sequentialP returns the measure's sequential p over its looks and the
// look that gave it: at each look the cases' z at their last look so far
// (a case that stopped keeps its last), summed.
func (g *measureGroup) sequentialP(looks []int, capN int) (float64, int) {
	lastReached := 0
	for _, pc := range g.paired {
		if n := len(pc.seq.reached); n > 0 {
			lastReached = max(lastReached, pc.seq.reached[n-1])
		}
	}
	var ps []float64
	var at []int
	for _, l := range looks {
		if l > lastReached {
			break
		}
		p, _ := g.lookP(l)
		ps = append(ps, p)
		at = append(at, l)
	}
	if len(ps) == 0 {
		return 1, 0
	}
	p, k := planSpending(looks, capN, callRho, false).sequentialP(ps)
	return p, at[k]
}

// pool sets the measure's estimate and limits from its paired cases: the
// mean of the cases' mean round changes weighted by their precision (a
// fixed-effect estimate of the change the cases share, which the
// noisiest cases sway least), with a Student interval of its standard
// error on the cases' pooled degrees of freedom. A case's variance counts
// at least a tenth of the median case's, so that a case whose few rounds
// happened to agree (or repeated exactly) does not carry the measure
// alone. Its "same" interval is read at the nominal level of the last
// look of the cases' one-sided spending rule at alpha (1 − 2·alpha
// without a design).
func (g *measureGroup) pool(paired []*pairedChange, alpha float64) {
	r := &g.res
	var means, vars []float64
	logScale, df := true, 0
	sameLevel := alpha
	for _, pc := range paired {
		m, sd := pc.pe.meanSD()
		means, vars = append(means, m), append(vars, sd*sd/float64(pc.pe.n()))
		logScale = logScale && pc.pe.scale == scaleLog
		df += pc.pe.n() - 1
		if s := pc.seq; s.looks != nil && len(s.reached) > 0 {
			plan := planSpending(s.looks, s.capN, sameRho, true)
			sameLevel = math.Min(sameLevel, plan.nominalAt(len(s.reached)-1, alpha))
		}
	}
	if len(means) == 0 {
		return
	}
	floorVar := math.Max(medianFloat(vars)/10, 1e-12)
	sumW, sumWM := 0.0, 0.0
	for i, m := range means {
		w := 1 / math.Max(vars[i], floorVar)
		sumW += w
		sumWM += w * m
	}
	toRatio := func(x float64) float64 {
		if logScale {
			return math.Exp(x)
		}
		return 1 + x
	}
	mean, se := sumWM/sumW, math.Sqrt(1/sumW)
	hw := func(a float64) float64 { return tQuantile(1-a/2, max(df, 1)) * se }
	r.RatioEst = toRatio(mean)
	r.RatioLo, r.RatioHi = toRatio(mean-hw(alpha)), toRatio(mean+hw(alpha))
	r.SameLo, r.SameHi = toRatio(mean-hw(math.Min(2*sameLevel, 1))), toRatio(mean+hw(math.Min(2*sameLevel, 1)))
	g.same = r.SameLo >= 1-r.Floor && r.SameHi <= 1+r.Floor
}

// decide sets the measure's outcome from its test and its cases'
// outcomes (after the cases were decided). It reports whether the
// measure was called on its own test with none of its cases called.
func (g *measureGroup) decide(alpha float64) bool {
	r := &g.res
	same, called := 0, []*Change{}
	for _, pc := range g.changes {
		switch pc.c.Outcome {
		case OutcomeChanged:
			called = append(called, pc.c)
		case OutcomeSame:
			same++
		}
	}
	r.CaseCalls, r.CaseSame = len(called), same
	if !r.Tested {
		g.takeCase(called, same)
		return false
	}
	own := r.Q <= alpha*(1+1e-9) && reachesFloor(r.RatioEst, r.Floor)
	switch {
	case own:
		r.Outcome, r.Verdict = OutcomeChanged, verdict(Metric{Direction: r.Metric.Direction}, true, 1, r.RatioEst)
	case len(called) > 0:
		r.Outcome, r.Verdict = OutcomeChanged, majorityVerdict(called)
	case g.same:
		r.Outcome, r.Verdict = OutcomeSame, Same
	default:
		r.Outcome, r.Verdict = OutcomeUnresolved, NotSignificant
	}
	return own && len(called) == 0
}

// takeCase sets the outcome of a measure without a test of its own: a
// single case's, or for cases compared otherwise (unpaired, exact)
// changed when one was called, the same when all were.
func (g *measureGroup) takeCase(called []*Change, same int) {
	r := &g.res
	if len(g.changes) == 1 {
		c := g.changes[0].c
		r.RatioEst, r.RatioLo, r.RatioHi, r.SameLo, r.SameHi = c.RatioEst, c.RatioLo, c.RatioHi, c.SameLo, c.SameHi
	}
	switch {
	case len(called) > 0:
		r.Outcome, r.Verdict = OutcomeChanged, majorityVerdict(called)
	case same == len(g.changes):
		r.Outcome, r.Verdict = OutcomeSame, Same
	default:
		r.Outcome, r.Verdict = OutcomeUnresolved, NotSignificant
	}
}

// majorityVerdict returns the verdict most of the called changes share
// (the first's on a tie).
func majorityVerdict(called []*Change) Verdict {
	count := map[Verdict]int{}
	best := called[0].Verdict
	for _, c := range called {
		count[c.Verdict]++
		if count[c.Verdict] > count[best] {
			best = c.Verdict
		}
	}
	return best
}
