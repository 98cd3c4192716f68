package compare

import (
	"fmt"
	"math"
	"slices"
)

// A paired family: every case on its own rounds, every measure beside
// its cases, one correction over both.
//
// With Options.Paired, AnalyzeFamily reads a report's cells as cases of
// measures (Cell.Measure: one metric of one study over its cases). Each
// change whose two sides ran round by round is decided on its own rounds
// alone:
//
//  1. Its test: the paired t test of its rounds' changes d = log(target/
//     baseline) (paired.go), sequential over the looks of its design
//     (spending.go: the smallest level at which an alpha-spending rule
//     would have crossed at one of its looks), or at all its rounds
//     without one.
//  2. Its measure's test, for a measure of two or more paired cases: the
//     sum of its cases' z (each case's t test turned into a z through
//     its p, with the sign of its change) over √cases, Stouffer's
//     combination, sequential over the measure's looks the same way. A
//     change shared by the cases reaches a small p with few rounds, where
//     no case alone could.
//  3. One Benjamini-Hochberg family at q = Alpha over the tests of both
//     kinds. A case is changed when its own test passes and its estimate
//     clears the floor; it is the same when its own 1 − 2·a interval lies
//     within ± the floor at one of its looks, a being the nominal level
//     of that look's one-sided boundary of an alpha-spending rule at
//     Alpha (at all its rounds without a design: the 1 − 2·Alpha
//     interval, two one-sided tests); otherwise it is unresolved. Its
//     measure's outcome never becomes the case's.
//  4. The measure's own outcome, a statement about the measure: changed
//     when its test passes and the precision-weighted mean of its cases'
//     changes clears the floor, or when one of its cases is called; the
//     same when that mean's interval lies within ± the floor and no case
//     was called; else unresolved. A single-case measure takes its case's.
//
// A change confined to one case is found by that case's own test, at
// the level a lone test has in the family (Alpha over the family's
// tests); one spread over the cases by the measure's. Under the null
// hypothesis of a whole report (an A/A comparison) every call, of a case
// or of a measure, is a discovery of one Benjamini-Hochberg family, so the
// chance of any call is at most Alpha (for independent or positively
// dependent tests, as the cases' rounds are), whatever the stopping.

// MeasureResult is the test and outcome of one measure of a paired family
// for one target against the baseline: a statement about the measure as
// a whole, never the outcome of one of its cases.
type MeasureResult struct {
	// Key is the measure's key (Cell.Measure), Metric its metric.
	Key    string
	Metric Metric

	// Baseline and Target name the compared targets.
	Baseline, Target string

	// Cases is the number of its cases in the family, Paired how many
	// of them were compared round by round.
	Cases, Paired int

	// Tested reports that the measure had a test of its own in the
	// family (two or more paired cases). P is then its sequential p,
	// RawP its p over all the rounds, Q its Benjamini-Hochberg adjusted p
	// and Look the rounds of the look that gave P; NaN (Look 0)
	// otherwise.
	Tested     bool
	P, RawP, Q float64
	Look       int

	// RatioEst is the measure's change as a whole: the mean of its paired
	// cases' round changes weighted by their precision; RatioLo and
	// RatioHi its 1 − Alpha limits, SameLo and SameHi the limits its
	// "same" was read from. NaN when no case was paired. A single-case
	// measure carries its case's.
	RatioEst, RatioLo, RatioHi, SameLo, SameHi float64

	// Floor is the practical floor of its cases.
	Floor float64

	// Outcome is the measure's: changed, same or unresolved; Verdict the
	// direction of a change.
	Outcome Outcome
	Verdict Verdict

	// CaseCalls counts its cases called, CaseSame those found the same
	// on their own rounds.
	CaseCalls, CaseSame int
}

// callRho and sameRho are the shapes of the alpha-spending rules of a
// call (two-sided, at the level the family gives a change) and of "same"
// (one-sided at Alpha, each side of the equivalence test): alpha·t^rho
// spent by the information t of a look. Chosen by simulating --reps auto
// on quick-shaped A/A reports under a drifting load (compare/doc.go): the
// share of cells left unresolved at caps of 10, 20 and 40 rounds fell from
// rho 1 to 3 for "same" (40.9/25.4/10.2 % to 36.8/20.5/7.2 % with runs of
// 1-10 % noise), which spends little at the first looks, where an
// interval is wide anyway; the call's shape changed neither the power
// for a change in one case nor the calls of A/A reports.
const (
	callRho = 2.0
	sameRho = 3.0
)

// pairedChange is one change of a paired family with what its decision
// needs.
type pairedChange struct {
	c        *Change
	pe       *pairedEffect // nil when tested unpaired
	e        *effect       // the unpaired effect; nil for an exact comparison
	callable bool
	group    *measureGroup
	seq      *sequence // its looks; nil without a design
}

// measureGroup is one measure of a paired family for one target.
type measureGroup struct {
	res     MeasureResult
	changes []*pairedChange
	paired  []*pairedChange // its changes compared round by round
	same    bool            // its pooled interval lies within the floor
}

// analyzePaired is AnalyzeFamily with Options.Paired. planned, when
// positive, is the number of tests the whole report will make (the
// stopping rule's view of one study): the family is then at least that
// large.
func analyzePaired(cells []Cell, opts Options, planned int) (*Family, error) {
	alpha, _, _ := opts.levels()
	minChange, _ := opts.minChange()
	f := &Family{Alpha: alpha, MinChange: minChange, Design: opts.Design, Paired: true}
	var all []*pairedChange
	for _, cell := range cells {
		pcs, res, err := analyzePairedCell(cell, opts, alpha, minChange)
		if err != nil {
			return nil, err
		}
		f.Cells = append(f.Cells, CellResult{Key: cell.Key, Callable: cell.Callable, Floor: cell.floor(minChange), Result: res})
		all = append(all, pcs...)
	}
	groups := groupMeasures(all)
	for _, g := range groups {
		g.test(alpha)
	}
	for _, pc := range all {
		if pc.pe == nil {
			continue
		}
		measureP := func(int) (float64, bool) { return 0, false }
		if pc.group != nil {
			measureP = pc.group.lookP
		}
		pc.finishCase(measureP)
	}
	f.correct(all, groups, planned)
	for _, pc := range all {
		f.decidePaired(pc)
	}
	if err := f.adoptPairedTwins(cells); err != nil {
		return nil, err
	}
	ownCalls := 0
	for _, g := range groups {
		if g.decide(alpha) {
			ownCalls++
		}
		for _, pc := range g.changes {
			pc.c.MeasureOutcome, pc.c.MeasureRatio = g.res.Outcome, g.res.RatioEst
		}
		f.Measures = append(f.Measures, g.res)
		if g.res.Outcome == OutcomeChanged {
			f.MeasuresCalled++
		}
	}
	for _, pc := range all {
		f.setPairedMDE(pc)
	}
	f.ExpectedFalseCalls = alpha * float64(f.Called+ownCalls)
	f.ExpectedFalseRaw = alpha * float64(f.M)
	return f, nil
}

// analyzePairedCell analyses one cell: its summaries, and each change
// paired when both sides carry rounds (else with the U test).
func analyzePairedCell(cell Cell, opts Options, alpha, minChange float64) ([]*pairedChange, *Result, error) {
	res, es, err := analyze(cell.Input, opts, true)
	if err != nil {
		return nil, nil, fmt.Errorf("cell %q: %w", cell.Key, err)
	}
	floor := cell.floor(minChange)
	d := cell.design(opts)
	looks, capN := cell.schedule(opts)
	measure := cell.Measure
	if measure == "" {
		measure = cell.Key
	}
	var out []*pairedChange
	for i := range res.Changes {
		c := &res.Changes[i]
		c.Floor, c.Measure, c.FloorText = floor, measure, cell.FloorText
		pc := &pairedChange{c: c, e: es[i], callable: cell.Callable && cell.Twin == ""}
		b, _ := res.Target(c.Baseline)
		t, _ := res.Target(c.Target)
		if es[i] != nil && repeatedExactly(b, t) {
			// A figure that repeated to the unit in every round on each
			// side (WAL of a deterministic step) is compared exactly.
			c.Repeated = true
			c.compareExactly(b, t)
			pc.e = nil
		}
		if pc.e != nil {
			pe := newPairedEffect(b.Values, t.Values, cell.Input.Rounds[c.Baseline], cell.Input.Rounds[c.Target], cell.Input.Disturbed)
			if cov := cell.Input.Covariate; cov != nil {
				pe.withCovariate(cov[c.Baseline], cov[c.Target], cell.Input.Rounds[c.Baseline], cell.Input.Rounds[c.Target], cell.Input.Disturbed)
				if pe.lost > 0 {
					c.Adjusted, c.AdjustCorr = cell.Input.CovariateName, pe.corr
				}
			}
			c.Disturbed = pairedRounds(cell.Input, c.Baseline, c.Target) - pe.n()
			if pe.ok() && pe.n() >= 2 {
				pc.pe = pe
				pc.seq = applyPaired(c, pe, looks, capN, alpha, floor)
			} else if d != nil && cell.Callable {
				d.applyDesign(c, b.Values, t.Values, floor)
			}
			c.InFamily = pc.callable && (pc.pe != nil || c.MinP <= alpha*(1+1e-9))
		}
		out = append(out, pc)
	}
	return out, res, nil
}

// schedule returns the looks a cell's changes are tested at and its
// cap: the design's looks below the cell's cap (Cell.Cap, else the
// design's), then the cap; nil without a design.
func (c Cell) schedule(opts Options) (looks []int, capN int) {
	d := c.design(opts)
	if d == nil {
		return nil, 0
	}
	capN = d.Cap()
	if c.Cap > 0 {
		capN = c.Cap
	}
	for _, l := range d.Looks {
		if l < capN {
			looks = append(looks, l)
		}
	}
	return append(looks, capN), capN
}

// pairedRounds counts the rounds in which both targets have a value.
func pairedRounds(in Input, base, target string) int {
	have := map[int]bool{}
	for _, r := range in.Rounds[base] {
		have[r] = true
	}
	n := 0
	for _, r := range in.Rounds[target] {
		if have[r] {
			n++
			have[r] = false
		}
	}
	return n
}

// minRepeated is the fewest rounds per side in which a figure must have
// repeated exactly to be compared as an exact one.
const minRepeated = 3

// repeatedExactly reports whether each side's values are all equal, over
// at least minRepeated rounds.
func repeatedExactly(b, t Summary) bool {
	return b.N >= minRepeated && t.N >= minRepeated && constant(b.Values) && constant(t.Values)
}

// sequence is a paired change's statistics at the looks it reached.
type sequence struct {
	looks   []int     // the looks of its design; nil without one (one look, at all its rounds)
	capN    int       // its cap under a design
	reached []int     // the looks reached (rounds); without a design its last round
	pairs   []int     // the paired rounds at each look reached
	p       []float64 // its t test's p (tTest) at each look reached
	z       []float64 // the same as a z with the sign of its change
}

// zAt returns the change's z at the last look reached at or before n
// rounds (0 before its first look).
func (s *sequence) zAt(n int) float64 {
	z := 0.0
	for k, l := range s.reached {
		if l > n {
			break
		}
		z = s.z[k]
	}
	return z
}

// applyPaired replaces the unpaired test of c by the paired one of pe:
// the estimate and the intervals, "same" at its look, and its t test at
// each look reached (its P is set by finishCase, once its measure's test
// is known). It returns the change's sequence.
func applyPaired(c *Change, pe *pairedEffect, looks []int, capN int, alpha, floor float64) *sequence {
	c.Pairs = pe.n()
	c.RelativeDiff = pe.scale == scaleDiff
	c.RatioEst = pe.estimate()
	c.RatioLo, c.RatioHi = pe.interval(alpha)
	c.RatioConfidence = 1 - alpha
	c.MinP = 0
	c.SameLo, c.SameHi = pe.interval(math.Min(2*alpha, 1))
	seq := &sequence{looks: looks, capN: capN}
	if looks == nil {
		seq.add(pe, pe.rounds[len(pe.rounds)-1])
	} else {
		last := pe.rounds[len(pe.rounds)-1]
		for _, l := range looks {
			if l > last {
				break
			}
			seq.add(pe.upTo(l), l)
		}
		c.Looks = len(looks)
		sameAtLook(c, pe, seq, alpha, floor)
	}
	c.Warnings = slices.DeleteFunc(c.Warnings, func(w string) bool {
		return w != "exact metric varied between repetitions: compared with the U test"
	})
	if c.Metric.Exact && len(c.Warnings) > 0 {
		c.Warnings[0] = "exact metric varied between repetitions: compared round by round"
	}
	return seq
}

// add appends the look at l rounds, with the pairs of pe up to it.
func (s *sequence) add(pe *pairedEffect, l int) {
	p := pe.tTest()
	s.reached = append(s.reached, l)
	s.pairs = append(s.pairs, pe.n())
	s.p = append(s.p, p)
	s.z = append(s.z, signedZ(pe, p))
}

// sameAtLook sets SameLook to the first look at which the change's 1 − 2·a
// interval lies within ± floor, a being that look's nominal level of the
// one-sided spending rule at alpha, with SameLo and SameHi from that look
// (else from its last).
func sameAtLook(c *Change, pe *pairedEffect, seq *sequence, alpha, floor float64) {
	same := planSpending(seq.looks, seq.capN, sameRho, true)
	for k, l := range seq.reached {
		lo, hi := pe.upTo(l).interval(math.Min(2*same.nominalAt(k, alpha), 1))
		c.SameLo, c.SameHi = lo, hi
		if lo >= 1-floor && hi <= 1+floor {
			c.SameLook = l
			return
		}
	}
}

// finishCase sets the P of a paired change from its looks: at each look
// its t test's p, which below minTrustedRounds pairs counts only down to
// the randomization bound 2/2^n, or down to its measure's own p at that
// look when the measure has a test (measureP) — a handful of rounds is
// taken at Student's word only when the case's measure, over all its
// cases, says as much. Under a design P is the sequential p over the
// looks reached (spending.go); RawP is the p of its last look.
func (pc *pairedChange) finishCase(measureP func(look int) (float64, bool)) {
	c, s := pc.c, pc.seq
	ps := make([]float64, len(s.reached))
	for k, p := range s.p {
		if n := s.pairs[k]; n < minTrustedRounds && n >= 2 {
			bound := math.Ldexp(2, -n)
			mp, backed := measureP(s.reached[k])
			if backed {
				bound = math.Min(bound, mp)
			} else if k == len(s.p)-1 {
				c.MinP = bound // no call below it on these rounds
			}
			p = math.Max(p, bound)
		}
		ps[k] = p
	}
	c.RawP, c.P = 1, 1
	if len(ps) > 0 {
		c.RawP, c.P = ps[len(ps)-1], ps[len(ps)-1]
	}
	if s.looks != nil && len(ps) > 0 {
		p, k := planSpending(s.looks, s.capN, callRho, false).sequentialP(ps)
		c.P, c.Look = p, s.reached[k]
	}
	c.Significant = c.P <= c.Alpha*(1+1e-9)
	c.Stats = fmt.Sprintf("p=%.3f n=%d", c.P, c.Pairs)
}

// signedZ returns the z of a two-sided p with the sign of pe's change.
func signedZ(pe *pairedEffect, p float64) float64 {
	if !(p < 1) {
		return 0
	}
	z := math.Sqrt2 * math.Erfcinv(math.Max(p, 1e-300))
	if m, _ := pe.meanSD(); m < 0 {
		z = -z
	}
	return z
}

// groupMeasures groups the family's tested changes by measure and target,
// in the order first met.
func groupMeasures(all []*pairedChange) []*measureGroup {
	var groups []*measureGroup
	index := map[[2]string]*measureGroup{}
	for _, pc := range all {
		if !pc.c.InFamily {
			continue
		}
		k := [2]string{pc.c.Measure, pc.c.Target}
		g, ok := index[k]
		if !ok {
			nan := math.NaN()
			g = &measureGroup{res: MeasureResult{Key: pc.c.Measure, Metric: pc.c.Metric, Baseline: pc.c.Baseline, Target: pc.c.Target,
				Floor: pc.c.Floor, RatioEst: nan, RatioLo: nan, RatioHi: nan, SameLo: nan, SameHi: nan, P: nan, RawP: nan, Q: nan}}
			index[k] = g
			groups = append(groups, g)
		}
		g.changes = append(g.changes, pc)
		g.res.Floor = min(g.res.Floor, pc.c.Floor)
		g.res.Cases++
		if pc.pe != nil {
			g.res.Paired++
		}
		pc.group = g
	}
	return groups
}

// correct puts the cases' and the measures' tests into one
// Benjamini-Hochberg family (at least planned tests) and sets each
// test's Q.
func (f *Family) correct(all []*pairedChange, groups []*measureGroup, planned int) {
	var ps []float64
	var set []func(q float64)
	for _, pc := range all {
		if c := pc.c; c.InFamily {
			ps = append(ps, c.P)
			set = append(set, func(q float64) { c.Q = q })
			f.M++
			if attainable(c.P, c.MinP, f.Alpha) {
				f.RawSignificant++
			}
		}
	}
	for _, g := range groups {
		if r := &g.res; r.Tested {
			ps = append(ps, r.P)
			set = append(set, func(q float64) { r.Q = q })
			f.MeasureTests++
		}
	}
	f.Tests = max(len(ps), planned)
	padded := slices.Clone(ps)
	for len(padded) < f.Tests {
		padded = append(padded, 1) // the report's other tests, unknown here
	}
	qs := AdjustBH(padded)
	for i, s := range set {
		s(qs[i])
		if qs[i] <= f.Alpha*(1+1e-9) {
			f.Discoveries++
		}
	}
	for _, pc := range all {
		if pc.c.InFamily {
			pc.c.FamilySize = f.Tests
		}
	}
}

// decidePaired sets the outcome of one change of a paired family, on its
// own evidence.
func (f *Family) decidePaired(pc *pairedChange) {
	c := pc.c
	switch {
	case c.N1 == 0 || c.N2 == 0:
		c.Outcome, c.Significant = OutcomeUnresolved, false
		return
	case pc.e == nil && c.Repeated:
		f.decideRepeated(c, pc.callable)
		return
	case pc.e == nil:
		f.decideExact(c, pc.callable)
		return
	}
	big := reachesFloor(c.RatioEst, c.Floor)
	passed := c.InFamily && c.Q <= f.Alpha*(1+1e-9) && (pc.pe != nil || attainable(c.P, c.MinP, f.Alpha))
	switch {
	case passed && big:
		c.Outcome, c.Called = OutcomeChanged, true
		f.Called++
		f.CaseCalled++
	case sameOwn(c, pc.seq):
		c.Outcome = OutcomeSame
	default:
		c.Outcome = OutcomeUnresolved
	}
	c.BelowFloor = passed && !big
	f.setVerdict(c)
}

// sameOwn reports whether a change's own interval was found within its
// floor: at one of its looks under a design, else at all its rounds.
func sameOwn(c *Change, seq *sequence) bool {
	if seq != nil && seq.looks != nil {
		return c.SameLook > 0
	}
	return c.SameLo >= 1-c.Floor && c.SameHi <= 1+c.Floor // false for NaN
}

// decideRepeated sets the outcome of a figure that repeated exactly on
// each side: changed when the values differ by at least the floor, else
// the same (below the floor when they differ at all).
func (f *Family) decideRepeated(c *Change, callable bool) {
	if c.BaseCenter == c.Center || !reachesFloor(c.Ratio, c.Floor) {
		c.Outcome = OutcomeSame
		c.BelowFloor = c.BaseCenter != c.Center
		f.setVerdict(c)
		return
	}
	f.decideExact(c, callable)
}

// reachesFloor reports whether a change of ratio is at least the floor
// in size (every change does with a floor of 0; a change equal to the
// floor but for rounding does).
func reachesFloor(ratio, floor float64) bool {
	return floor == 0 || math.Abs(ratio-1) >= floor*(1-1e-12)
}

// setVerdict sets Significant, Verdict and Delta from the outcome.
func (f *Family) setVerdict(c *Change) {
	c.Significant = c.Outcome == OutcomeChanged
	switch {
	case c.Significant && !math.IsNaN(c.RatioEst):
		c.Verdict = verdict(Metric{Direction: c.Metric.Direction}, true, 1, c.RatioEst)
		c.Delta = fmt.Sprintf("%+.2f%%", (c.RatioEst-1)*100)
	case c.Significant:
		c.Verdict = verdict(Metric{Direction: c.Metric.Direction}, true, c.BaseCenter, c.Center)
		c.Delta = fmt.Sprintf("%+.2f%%", c.Percent)
	case c.Outcome == OutcomeSame:
		c.Verdict, c.Delta = Same, "~"
	default:
		c.Verdict, c.Delta = NotSignificant, "~"
	}
}

// adoptPairedTwins gives each twin (Cell.Twin) its twin's test: its P, Q
// and, by its own estimate and floor, the same outcome.
func (f *Family) adoptPairedTwins(cells []Cell) error {
	index := map[string]int{}
	for i, c := range cells {
		index[c.Key] = i
	}
	for i, cell := range cells {
		if cell.Twin == "" {
			continue
		}
		k, ok := index[cell.Twin]
		if !ok || cells[k].Twin != "" {
			return fmt.Errorf("compare: cell %q: twin %q is not a cell of its own", cell.Key, cell.Twin)
		}
		for j := range f.Cells[i].Result.Changes {
			c := &f.Cells[i].Result.Changes[j]
			t, ok := f.Cells[k].Result.Change(c.Target)
			if !ok || !t.InFamily || !cell.Callable || c.isExact() {
				continue
			}
			c.Twin, c.Q, c.FamilySize, c.P = cell.Twin, t.Q, t.FamilySize, t.P
			c.Outcome, c.BelowFloor = t.Outcome, t.BelowFloor
			if c.Outcome == OutcomeChanged && !reachesFloor(c.RatioEst, c.Floor) {
				c.Outcome, c.BelowFloor = OutcomeUnresolved, true
			}
			c.Called = c.Outcome == OutcomeChanged
			f.setVerdict(c)
		}
	}
	return nil
}

// setPairedMDE sets the MDE of a tested change: the half-width of its
// interval at the nominal level its last look has for the p a call
// needs in the family — Alpha·(R+1)/T for an uncalled change when R of
// the T tests were discoveries (Alpha/T for a lone change), Alpha·R/T for
// a called one — and, for one still unresolved, the rounds that would
// resolve it at its present estimate and spread.
func (f *Family) setPairedMDE(pc *pairedChange) {
	c := pc.c
	if pc.e == nil || c.Twin != "" {
		return
	}
	c.MDEAlpha = f.Alpha
	if c.InFamily {
		r := float64(f.Discoveries)
		if !c.Called {
			r++
		}
		c.MDEAlpha = math.Min(f.Alpha, f.Alpha*r/float64(max(f.Tests, 1)))
	}
	if pc.pe == nil {
		if c.Looks > 0 {
			c.MDEAlpha /= float64(c.Looks) // each look's level
		}
		c.MDEPercent = pc.e.halfWidthPercent(c.MDEAlpha)
		return
	}
	callLevel, sameLevel := c.MDEAlpha, f.Alpha
	if s := pc.seq; s.looks != nil && len(s.reached) > 0 {
		k := len(s.reached) - 1
		callLevel = planSpending(s.looks, s.capN, callRho, false).nominalAt(k, c.MDEAlpha)
		sameLevel = planSpending(s.looks, s.capN, sameRho, true).nominalAt(k, f.Alpha)
	}
	c.MDEPercent = pc.pe.halfWidthPercent(callLevel)
	c.SpreadRound, c.SpreadSide, c.SideCorrelation = pc.pe.spreads()
	if c.Outcome == OutcomeUnresolved {
		m, sd := pc.pe.meanSD()
		floorDist := math.Log1p(c.Floor)
		if pc.pe.scale == scaleDiff {
			floorDist = c.Floor
		}
		c.RoundsNeeded = roundsNeeded(m, sd, floorDist, sameLevel, callLevel)
	}
}

// medianFloat returns the median of x (0 when empty).
func medianFloat(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return median(x)
}
