package compare

import (
	"fmt"
	"math"
	"slices"
)

// A paired family: measures first, then their cases.
//
// With Options.Paired, AnalyzeFamily reads a report as a tree. Its
// measures (Cell.Measure: one metric of one study) are the first level,
// their cases (the cells) the second. For each measure and target:
//
//  1. The gate: the stratified randomization test of the paired rounds of
//     all its cases (gate.go), Looks × the smallest p of the looks under
//     a sequential design. The gates of all measures form one
//     Benjamini-Hochberg family at q = Alpha (MeasureResult.Q); R of the
//     M gates pass.
//  2. Its cases, only when the gate passed: each case's paired t test
//     (paired.go), Benjamini-Hochberg among the measure's cases at
//     q·R/M (Benjamini and Bogomolov's selective rule, which keeps the
//     false discovery rate over the measures selected at q). A case that
//     passes and clears the floor is called at LevelCase. Its Q is the
//     larger of its gate's and its own adjusted p scaled by M/R, so that
//     Q ≤ Alpha is the call.
//  3. The measure as a whole: the mean of its cases' round changes,
//     each weighted by its precision (a fixed-effect estimate), with a
//     Student interval of its standard error. The
//     measure changed when its gate passed and that estimate clears the
//     floor; it is the same when its 1 − 2·Alpha interval lies within
//     ± the floor and, if its gate passed, every case's estimate too (a
//     change smaller than the floor that its cases share).
//  4. A case not resolved by its own test takes its measure's outcome
//     (LevelMeasure): changed when the measure changed, the case's own p
//     is at most Alpha and its estimate lies on the measure's side beyond
//     the floor; same when the measure is the same and the case's own
//     estimate lies within the floor. A case whose estimate is beyond the
//     floor in a measure that is the same stays unresolved.
//
// Under the null hypothesis of a whole report (an A/A comparison) a call
// at either level needs a gate to pass, so the chance of any call in the
// report is at most Alpha, whatever the cases' distributions, their
// drift and the number of cases. A call at LevelMeasure says that the
// measure moved and that this case moved with it; a call at LevelCase
// that the case moved on its own evidence.

// Level is the level of a paired family at which a change's outcome was
// reached.
type Level int

const (
	// LevelNone: no outcome was reached by a paired family (unresolved,
	// exact, or not paired).
	LevelNone Level = iota
	// LevelCase: the change's own test or interval decided.
	LevelCase
	// LevelMeasure: the change took its measure's outcome.
	LevelMeasure
)

// levelNames lists the names Level.String returns, by value.
var levelNames = []string{"", "case", "measure"}

// String returns "case", "measure", or "" for LevelNone.
func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// MarshalText implements encoding.TextMarshaler.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// MeasureResult is the test of one measure of a paired family for one
// target against the baseline.
type MeasureResult struct {
	// Key is the measure's key (Cell.Measure), Metric its metric.
	Key    string
	Metric Metric

	// Baseline and Target name the compared targets.
	Baseline, Target string

	// Cases is the number of its cases in the family; Units the rounds
	// whose change carried a sign in the gate.
	Cases, Units int

	// P is the gate's p (sequential under a design: Looks × the
	// smallest p of its looks), RawP its p over all the rounds, and Q
	// its Benjamini-Hochberg adjusted p among the measures. MinP is the
	// smallest P its rounds could have given.
	P, RawP, Q, MinP float64

	// Passed reports that the gate passed (Q ≤ Alpha): its cases are
	// tested.
	Passed bool

	// RatioEst is the measure's change as a whole, the geometric mean of
	// its cases' paired estimates; RatioLo and RatioHi its 1 − Alpha
	// limits, SameLo and SameHi its 1 − 2·Alpha limits (per look under a
	// design). NaN when no case was paired.
	RatioEst, RatioLo, RatioHi, SameLo, SameHi float64

	// Floor is the practical floor of its cases.
	Floor float64

	// Outcome is the measure's: changed, same or unresolved; Verdict the
	// direction of a change.
	Outcome Outcome
	Verdict Verdict

	// CaseCalls and MeasureCalls count its cases called at each level.
	CaseCalls, MeasureCalls int
}

// pairedChange is one change of a paired family with what its decision
// needs.
type pairedChange struct {
	c        *Change
	pe       *pairedEffect // nil when tested unpaired
	e        *effect       // the unpaired effect; nil for an exact comparison
	callable bool
	group    *measureGroup
}

// measureGroup is one measure of a paired family for one target.
type measureGroup struct {
	res     MeasureResult
	changes []*pairedChange
}

// analyzePaired is AnalyzeFamily with Options.Paired. planned, when
// positive, is the number of gates the whole report will test (the
// stopping rule's view of one study): the gates' family is then at least
// that large.
func analyzePaired(cells []Cell, opts Options, planned int) (*Family, error) {
	alpha, _, _ := opts.levels()
	minChange, _ := opts.minChange()
	f := &Family{Alpha: alpha, MinChange: minChange, Design: opts.Design, Paired: true}
	var all []*pairedChange
	for _, cell := range cells {
		pcs, res, err := analyzePairedCell(cell, opts, minChange)
		if err != nil {
			return nil, err
		}
		f.Cells = append(f.Cells, CellResult{Key: cell.Key, Callable: cell.Callable, Floor: cell.floor(minChange), Result: res})
		all = append(all, pcs...)
	}
	groups := groupMeasures(cells, all)
	f.gates(groups, opts, planned)
	f.testCases(groups)
	for _, g := range groups {
		g.pool(opts.Design, alpha)
	}
	for _, pc := range all {
		f.decidePaired(pc)
	}
	if err := f.adoptPairedTwins(cells); err != nil {
		return nil, err
	}
	for _, pc := range all {
		f.setPairedMDE(pc)
	}
	for _, g := range groups {
		f.Measures = append(f.Measures, g.res)
	}
	f.ExpectedFalseCalls = alpha * float64(f.Called)
	f.ExpectedFalseRaw = alpha * float64(f.M)
	return f, nil
}

// analyzePairedCell analyses one cell: its summaries, and each change
// paired when both sides carry rounds (else with the U test).
func analyzePairedCell(cell Cell, opts Options, minChange float64) ([]*pairedChange, *Result, error) {
	res, es, err := analyze(cell.Input, opts, true)
	if err != nil {
		return nil, nil, fmt.Errorf("cell %q: %w", cell.Key, err)
	}
	floor := cell.floor(minChange)
	d := cell.design(opts)
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
			c.Disturbed = pairedRounds(cell.Input, c.Baseline, c.Target) - pe.n()
			if pe.ok() && pe.n() >= 2 {
				pc.pe = pe
				applyPaired(c, pe, d, res.Alpha, floor)
			} else if d != nil && cell.Callable {
				d.applyDesign(c, b.Values, t.Values, floor)
			}
			c.InFamily = pc.callable && (pc.pe != nil || c.MinP <= res.Alpha*(1+1e-9))
		}
		out = append(out, pc)
	}
	return out, res, nil
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

// applyPaired replaces the unpaired test of c by the paired one of pe:
// P (sequential over d's looks), the estimate and the intervals.
func applyPaired(c *Change, pe *pairedEffect, d *Design, alpha, floor float64) {
	c.Pairs = pe.n()
	c.RelativeDiff = pe.scale == scaleDiff
	c.RatioEst = pe.estimate()
	c.RatioLo, c.RatioHi = pe.interval(alpha)
	c.RatioConfidence = 1 - alpha
	c.MinP = 0
	c.RawP = pe.test()
	c.P = c.RawP
	sameAlpha := math.Min(2*alpha, 1)
	c.SameLo, c.SameHi = pe.interval(sameAlpha)
	if d != nil {
		c.P, c.Looks, c.Look, c.SameLook = sequentialPaired(pe, d, floor)
		if c.SameLook > 0 {
			c.SameLo, c.SameHi = pe.upTo(c.SameLook).interval(math.Min(2*d.LookAlpha(), 1))
		} else {
			c.SameLo, c.SameHi = pe.interval(math.Min(2*d.LookAlpha(), 1))
		}
	}
	c.Significant = c.P <= alpha*(1+1e-9)
	c.Stats = fmt.Sprintf("p=%.3f n=%d", c.P, c.Pairs)
	c.Warnings = slices.DeleteFunc(c.Warnings, func(w string) bool {
		return w != "exact metric varied between repetitions: compared with the U test"
	})
	if c.Metric.Exact && len(c.Warnings) > 0 {
		c.Warnings[0] = "exact metric varied between repetitions: compared round by round"
	}
}

// sequentialPaired returns the sequential p of pe over d's looks (Looks ×
// the smallest p of the looks reached), the number of looks, the look
// that gave it, and the first look at which the 1 − 2·Alpha/L interval
// lies within ± floor (0 if none). A look is reached when a round at or
// after it was paired.
func sequentialPaired(pe *pairedEffect, d *Design, floor float64) (p float64, looks, look, sameLook int) {
	level := math.Min(2*d.LookAlpha(), 1)
	last := pe.rounds[len(pe.rounds)-1]
	best := math.Inf(1)
	for _, l := range d.Looks {
		if l > last {
			break
		}
		sub := pe.upTo(l)
		if q := sub.test(); q < best {
			best, look = q, l
		}
		if lo, hi := sub.interval(level); sameLook == 0 && lo >= 1-floor && hi <= 1+floor {
			sameLook = l
		}
	}
	if math.IsInf(best, 1) {
		return 1, len(d.Looks), 0, 0
	}
	return math.Min(1, float64(len(d.Looks))*best), len(d.Looks), look, sameLook
}

// groupMeasures groups the family's tested changes by measure and target,
// in the order first met.
func groupMeasures(cells []Cell, all []*pairedChange) []*measureGroup {
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
				Floor: pc.c.Floor, RatioEst: nan, RatioLo: nan, RatioHi: nan, SameLo: nan, SameHi: nan, Q: nan}}
			index[k] = g
			groups = append(groups, g)
		}
		g.changes = append(g.changes, pc)
		g.res.Floor = min(g.res.Floor, pc.c.Floor)
		g.res.Cases++
		pc.group = g
	}
	return groups
}

// gates tests each measure as a whole and corrects the gates with
// Benjamini-Hochberg (at least planned tests).
func (f *Family) gates(groups []*measureGroup, opts Options, planned int) {
	ps := make([]float64, len(groups))
	for i, g := range groups {
		g.res.P, g.res.RawP, g.res.Units = g.gateP(opts.Design)
		g.res.MinP = g.gateMinP(opts.Design)
		ps[i] = g.res.P
	}
	m := max(len(groups), planned)
	for len(ps) < m {
		ps = append(ps, 1) // the report's other gates, unknown here
	}
	qs := AdjustBH(ps)
	f.MeasureTests = m
	for i, g := range groups {
		g.res.Q = qs[i]
		g.res.Passed = qs[i] <= f.Alpha*(1+1e-9)
		if g.res.Passed {
			f.MeasuresPassed++
		}
	}
}

// gateP returns the gate's p (sequential under d), its p over all the
// rounds and the rounds it counted. The gate takes the smaller of two
// tests, doubled (Bonferroni): the stratified randomization test of the
// paired cases (gate.go), which a change shared by the cases passes with
// few rounds, and Simes' combination of the cases' own U tests of the
// same rounds, which a lone strong case among noisy ones passes (the U
// test stays valid, if conservative, when the machine moves whole rounds:
// each round holds one run of each side). A measure without paired cases
// combines its cases' p by Simes' rule.
func (g *measureGroup) gateP(d *Design) (p, raw float64, units int) {
	var paired []*pairedEffect
	var unpaired []float64
	for _, pc := range g.changes {
		if pc.pe != nil {
			paired = append(paired, pc.pe)
		} else {
			unpaired = append(unpaired, pc.c.P)
		}
	}
	if len(paired) == 0 {
		p = simes(unpaired)
		return p, p, 0
	}
	at := func(look int) (float64, int) {
		var strata [][]float64
		var us []float64
		for _, pe := range paired {
			if look > 0 {
				pe = pe.upTo(look)
			}
			strata = append(strata, pe.d)
			if _, u, err := uTest(pe.b, pe.t); err == nil && len(pe.b) > 0 {
				us = append(us, u)
			} else {
				us = append(us, 1)
			}
		}
		r, units := gateP(strata)
		return math.Min(1, 2*math.Min(r, simes(us))), units
	}
	raw, units = at(0)
	if d == nil {
		return raw, raw, units
	}
	last := 0
	for _, pe := range paired {
		last = max(last, pe.rounds[len(pe.rounds)-1])
	}
	best := 1.0
	for _, l := range d.Looks {
		if l > last {
			break
		}
		q, _ := at(l)
		best = math.Min(best, q)
	}
	return math.Min(1, float64(len(d.Looks))*best), raw, units
}

// gateMinP returns the smallest p the gate could give on the measure's
// rounds: twice the smaller of the randomization test's (2/2^units) and
// the smallest U test p of a case times the cases (Simes'), times the
// looks under a design.
func (g *measureGroup) gateMinP(d *Design) float64 {
	u, k := math.Inf(1), 0
	for _, pc := range g.changes {
		if pc.pe != nil {
			u = math.Min(u, uTestMinP(pc.pe.n(), pc.pe.n()))
			k++
		}
	}
	if k == 0 {
		return 0
	}
	p := 2 * math.Min(gateMinP(g.res.Units), u*float64(k))
	if d != nil {
		p *= float64(len(d.Looks))
	}
	return math.Min(1, p)
}

// simes returns Simes' combined p of ps: the smallest p_(i)·k/i.
func simes(ps []float64) float64 {
	if len(ps) == 0 {
		return 1
	}
	s := slices.Clone(ps)
	slices.Sort(s)
	best := 1.0
	for i, p := range s {
		best = math.Min(best, p*float64(len(s))/float64(i+1))
	}
	return best
}

// testCases tests the cases of each measure that passed its gate:
// Benjamini-Hochberg among them at Alpha·R/M; each case's Q is the larger
// of its gate's Q and its own adjusted p scaled by M/R.
func (f *Family) testCases(groups []*measureGroup) {
	scale := float64(f.MeasureTests) / float64(max(f.MeasuresPassed, 1))
	for _, g := range groups {
		ps := make([]float64, len(g.changes))
		for i, pc := range g.changes {
			ps[i] = pc.c.P
		}
		qs := AdjustBH(ps)
		for i, pc := range g.changes {
			pc.c.Q = math.Max(g.res.Q, math.Min(1, qs[i]*scale))
			pc.c.FamilySize, pc.c.GateMinP = f.MeasureTests, g.res.MinP
			f.M++
			if attainable(pc.c.P, pc.c.MinP, f.Alpha) {
				f.RawSignificant++
			}
		}
	}
}

// pool sets the measure's estimate, limits and outcome from its paired
// cases (before its cases' outcomes, which read it): the mean of the
// cases' mean round changes weighted by their precision (a fixed-effect
// estimate of the change the cases share, which the noisiest cases sway
// least), with a Student interval of its standard error on the cases'
// pooled degrees of freedom. A case's variance counts at least a tenth of
// the median case's, so that a case whose few rounds happened to agree
// (or repeated exactly) does not carry the measure alone.
func (g *measureGroup) pool(d *Design, alpha float64) {
	r := &g.res
	var means, vars []float64
	logScale, df := true, 0
	for _, pc := range g.changes {
		if pc.pe == nil {
			continue
		}
		m, sd := pc.pe.meanSD()
		means, vars = append(means, m), append(vars, sd*sd/float64(pc.pe.n()))
		logScale = logScale && pc.pe.scale == scaleLog
		df += pc.pe.n() - 1
	}
	if len(means) == 0 {
		r.Outcome = OutcomeUnresolved
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
	sameAlpha := math.Min(2*alpha, 1)
	if d != nil {
		sameAlpha = math.Min(2*d.LookAlpha(), 1)
	}
	r.RatioEst = toRatio(mean)
	r.RatioLo, r.RatioHi = toRatio(mean-hw(alpha)), toRatio(mean+hw(alpha))
	r.SameLo, r.SameHi = toRatio(mean-hw(sameAlpha)), toRatio(mean+hw(sameAlpha))
	big := reachesFloor(r.RatioEst, r.Floor)
	switch {
	case r.Passed && big:
		r.Outcome = OutcomeChanged
		r.Verdict = verdict(Metric{Direction: r.Metric.Direction}, true, 1, r.RatioEst)
	case r.SameLo >= 1-r.Floor && r.SameHi <= 1+r.Floor && (!r.Passed || g.casesWithinFloor()):
		r.Outcome = OutcomeSame
		r.Verdict = Same
	default:
		r.Outcome = OutcomeUnresolved
		r.Verdict = NotSignificant
	}
}

// reachesFloor reports whether a change of ratio is at least the floor
// in size (every change does with a floor of 0; a change equal to the
// floor but for rounding does).
func reachesFloor(ratio, floor float64) bool {
	return floor == 0 || math.Abs(ratio-1) >= floor*(1-1e-12)
}

// casesWithinFloor reports that every paired case's estimate lies
// within its floor: a measure whose gate passed is the same only then (a
// change smaller than the floor shared by its cases, not one case that
// moved among many that did not).
func (g *measureGroup) casesWithinFloor() bool {
	for _, pc := range g.changes {
		if pc.pe != nil && reachesFloor(pc.c.RatioEst, pc.c.Floor) {
			return false
		}
	}
	return true
}

// medianFloat returns the median of x (0 when empty).
func medianFloat(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return median(x)
}

// decidePaired sets the outcome of one change of a paired family.
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
	alpha := f.Alpha
	g := pc.group
	big := reachesFloor(c.RatioEst, c.Floor)
	passed := g != nil && g.res.Passed && c.Q <= alpha*(1+1e-9)
	sameCase := c.SameLo >= 1-c.Floor && c.SameHi <= 1+c.Floor
	switch {
	case passed && big:
		c.Outcome, c.Level, c.Called = OutcomeChanged, LevelCase, true
		f.Called++
		f.CaseCalled++
		g.res.CaseCalls++
	case sameCase:
		c.Outcome, c.Level = OutcomeSame, LevelCase
	case g != nil && g.res.Outcome == OutcomeChanged && big && c.P <= alpha*(1+1e-9) &&
		(c.RatioEst > 1) == (g.res.RatioEst > 1):
		c.Outcome, c.Level, c.Called = OutcomeChanged, LevelMeasure, true
		f.Called++
		f.MeasureCalled++
		g.res.MeasureCalls++
	case g != nil && g.res.Outcome == OutcomeSame && !big:
		c.Outcome, c.Level = OutcomeSame, LevelMeasure
	default:
		c.Outcome = OutcomeUnresolved
	}
	c.BelowFloor = passed && !big
	f.setVerdict(c)
}

// decideRepeated sets the outcome of a figure that repeated exactly on
// each side: changed when the values differ by at least the floor, else
// the same (below the floor when they differ at all).
func (f *Family) decideRepeated(c *Change, callable bool) {
	if c.BaseCenter == c.Center || !reachesFloor(c.Ratio, c.Floor) {
		c.Outcome, c.Level = OutcomeSame, LevelCase
		c.BelowFloor = c.BaseCenter != c.Center
		f.setVerdict(c)
		return
	}
	f.decideExact(c, callable)
	c.Level = LevelCase
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

// adoptPairedTwins gives each twin (Cell.Twin) its twin's test: its P, Q,
// level and, by its own estimate and floor, the same outcome.
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
			c.Outcome, c.Level, c.BelowFloor = t.Outcome, t.Level, t.BelowFloor
			big := reachesFloor(c.RatioEst, c.Floor)
			if c.Outcome == OutcomeChanged && !big {
				c.Outcome, c.Level, c.BelowFloor = OutcomeUnresolved, LevelNone, true
			}
			c.Called = c.Outcome == OutcomeChanged
			f.setVerdict(c)
		}
	}
	return nil
}

// setPairedMDE sets the MDE of a tested change: the half-width of its
// interval at the level a lone call of a case needs, Alpha·R/M (at least
// one measure passed) per look.
func (f *Family) setPairedMDE(pc *pairedChange) {
	c := pc.c
	if pc.e == nil || c.Twin != "" {
		return
	}
	c.MDEAlpha = f.Alpha
	if c.InFamily {
		c.MDEAlpha = f.Alpha * float64(max(f.MeasuresPassed, 1)) / float64(max(f.MeasureTests, 1))
	}
	if c.Looks > 0 {
		c.MDEAlpha /= float64(c.Looks)
	}
	if pc.pe != nil {
		c.MDEPercent = pc.pe.halfWidthPercent(c.MDEAlpha)
		c.SpreadRound, c.SpreadSide, c.SideCorrelation = pc.pe.spreads()
		if c.Outcome == OutcomeUnresolved {
			m, sd := pc.pe.meanSD()
			floorDist := math.Log1p(c.Floor)
			if pc.pe.scale == scaleDiff {
				floorDist = c.Floor
			}
			sameAlpha := f.Alpha
			if c.Looks > 0 {
				sameAlpha /= float64(c.Looks)
			}
			c.RoundsNeeded = roundsNeeded(m, sd, floorDist, sameAlpha, c.MDEAlpha)
		}
	} else {
		c.MDEPercent = pc.e.halfWidthPercent(c.MDEAlpha)
	}
}
