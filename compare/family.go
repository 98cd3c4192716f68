package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"golang.org/x/perf/benchmath"
)

// DefaultMinChange is the practical floor when Options.MinChange is 0: a
// change smaller than 5 % of the baseline is never called, and a change
// whose 90 % interval lies within ±5 % is "same".
//
// 5 % is a starting point for timings and rates on shared machines, where
// run-to-run noise of 1-5 % is common (verdicts.md §1). Revisit it from A/A
// data: run `pglab compare --aa` with the repetitions the studies use and
// look at the distribution of |RatioEst − 1| over the primary cells. The
// floor should sit above the 99th percentile of that distribution (so that
// noise alone almost never reaches it) and below the smallest change worth
// reporting. If most A/A cells come out "unresolved" rather than "same",
// the floor is below what the repetitions can resolve: raise the floor or
// the repetitions (PlanReps).
const DefaultMinChange = 0.05

// NoFloor, as Options.MinChange or Cell.Floor, sets the practical floor to
// 0: every change that passes the test is called.
const NoFloor = -1.0

// MinExactReps is the fewest repetitions per side an exact metric needs to
// be called changed or same: one repetition cannot show that a value is
// reproducible.
const MinExactReps = 2

// Cell is one cell of a report: one metric of one case on several targets.
type Cell struct {
	// Key identifies the cell, e.g. "tps/clients=10/tps". It must be
	// unique within a family and non-empty.
	Key string

	// Input holds the samples; it must have a Baseline.
	Input Input

	// Callable marks a primary cell: its changes form the
	// Benjamini-Hochberg family and can be called. Auxiliary cells
	// (Callable false) are analysed — p, interval, MDE — but never
	// called and not counted in the family.
	Callable bool

	// Floor is the practical floor as a fraction (0.05 = 5 %). 0 means
	// the default: 0 for an exact metric, else Options.MinChange.
	// NoFloor (any negative value) means a floor of 0.
	Floor float64

	// FloorText, when set, says Floor in the report's words, e.g. "±4.2
	// ms, 5 % of the time for all updates" for a figure that is a part of
	// another; the changes' outcome texts use it.
	FloorText string

	// Design, when set, is the sequential design this cell's
	// repetitions were chosen by, in place of Options.Design (a report
	// whose studies ran under --reps auto and at fixed counts).
	Design *Design

	// Cap, when positive, is the most rounds the cell's case was planned
	// to run under its design (a cap per case, chosen from the cost of
	// its rounds before its data could be seen); 0 means the design's
	// cap. Its looks are the design's below it, then the cap.
	Cap int

	// Measure names the measure the cell is a case of: the cells of one
	// metric of one study across its cases (row sizes, client counts,
	// commit patterns) share it. A paired analysis (Options.Paired) tests
	// each measure as a whole before its cases. Empty makes the cell a
	// measure of its own.
	Measure string

	// Twin, when set, is the key of another cell of the family whose test
	// this one repeats: a figure derived from the same measurements by a
	// monotone function (a throughput from the time of the same step, a
	// time per operation from the time of all of them), whose ranks and
	// so whose p are the same. A twin is not a test of its own: it does
	// not enlarge the family, and it is called when its twin passes
	// Benjamini-Hochberg and it clears its own floor. A Twin that names no
	// cell, or a cell that is itself a twin, is an error.
	Twin string
}

// CellResult is the analysis of one Cell.
type CellResult struct {
	// Key and Callable are the cell's.
	Key      string
	Callable bool

	// Floor is the floor used, as a fraction.
	Floor float64

	// Result is the cell's analysis; its Changes carry the outcomes.
	Result *Result
}

// Family is the analysis of a report's cells as one family of tests.
//
// Its figures count changes (a cell with two targets against the baseline
// has two), which is what the tests are.
type Family struct {
	// Alpha is the level of the calls, used as the false discovery
	// rate q of Benjamini-Hochberg and as the per-test level of the
	// uncorrected figures. MinChange is the default floor used.
	Alpha, MinChange float64

	// Cells holds the results in the order of the input.
	Cells []CellResult

	// M is the number of tests in the family: changes of callable cells
	// compared with the U test whose sample sizes can reach p ≤ Alpha.
	// Changes that cannot reach Alpha whatever the data (say 3 against
	// 2 repetitions after failures) are left out, as in Tarone's method:
	// whether they could be called depends only on their sample sizes,
	// so leaving them out keeps the error rate and spares the others.
	M int

	// RawSignificant is the number of family tests with p ≤ Alpha before
	// the correction.
	RawSignificant int

	// Called is the number of family tests called changes.
	// ExactCalled is the number of callable exact comparisons called
	// (deterministic, outside the family).
	Called, ExactCalled int

	// Cutoff is the p-value up to which family tests passed
	// Benjamini-Hochberg: Alpha·R/M with R the number that passed
	// (whether or not they cleared the floor); 0 when none did.
	Cutoff float64

	// ExpectedFalseCalls is Alpha·Called. Benjamini-Hochberg keeps the
	// expected share of false calls among the calls at most q = Alpha
	// (E[V/R] ≤ q·M0/M ≤ q, for independent or positively dependent
	// tests), so of the Called calls about Alpha·Called may be false.
	// When nothing changed at all (an A/A comparison) the chance of any
	// call is at most Alpha. The floor only removes calls, so both bounds
	// hold for the calls made.
	ExpectedFalseCalls float64

	// Design is the sequential design the repetitions were chosen by
	// (Options.Design), nil for a fixed count.
	Design *Design

	// Paired reports a paired analysis (Options.Paired): Measures holds
	// the measures' tests and outcomes, MeasureTests counts the measures
	// tested on their own in the family and MeasuresCalled the measures
	// whose outcome is changed; Tests is the size of the family (the
	// cases' tests and the measures', at least the planned count of a
	// stopping rule) and Discoveries how many of them passed
	// Benjamini-Hochberg. CaseCalled equals Called.
	Paired                       bool
	Measures                     []MeasureResult
	MeasureTests, MeasuresCalled int
	Tests, Discoveries           int
	CaseCalled                   int

	// ExpectedFalseRaw is Alpha·M: how many of the M tests would show
	// p ≤ Alpha by chance if nothing had changed (Node's
	// benchmark/compare.R warning), to compare with RawSignificant.
	ExpectedFalseRaw float64
}

// Change returns the change of target in the cell key.
func (f *Family) Change(key, target string) (Change, bool) {
	for _, cr := range f.Cells {
		if cr.Key == key {
			return cr.Result.Change(target)
		}
	}
	return Change{}, false
}

// Text returns the family in one line, e.g. "48 comparisons; 3 called;
// about 0.15 false calls expected at q=0.05", with "; 2 exact metrics
// differ" when callable exact metrics were called.
func (f *Family) Text() string {
	if f.Paired {
		return f.pairedText()
	}
	s := fmt.Sprintf("%s; %d called; about %s false %s expected at q=%v",
		plural(f.M, "comparison"), f.Called, formatExpected(f.ExpectedFalseCalls),
		pluralWord(f.ExpectedFalseCalls, "call"), f.Alpha)
	switch {
	case f.ExactCalled == 1:
		s += "; 1 exact metric differs"
	case f.ExactCalled > 1:
		s += fmt.Sprintf("; %d exact metrics differ", f.ExactCalled)
	}
	return s
}

// pairedText is Text for a paired family: "66 comparisons and 11
// measures tested in one family; 9 called, 3 measures changed; about 0.45
// false calls expected at q=0.05".
func (f *Family) pairedText() string {
	s := fmt.Sprintf("%s; %d called", plural(f.M, "comparison"), f.Called)
	if f.MeasureTests > 0 {
		s = fmt.Sprintf("%s and %s tested in one family; %d called", plural(f.M, "comparison"), plural(f.MeasureTests, "measure"), f.Called)
	}
	if f.MeasuresCalled > 0 {
		s += fmt.Sprintf(", %s changed", plural(f.MeasuresCalled, "measure"))
	}
	s += fmt.Sprintf("; about %s false %s expected at q=%v", formatExpected(f.ExpectedFalseCalls),
		pluralWord(f.ExpectedFalseCalls, "call"), f.Alpha)
	switch {
	case f.ExactCalled == 1:
		s += "; 1 exact metric differs"
	case f.ExactCalled > 1:
		s += fmt.Sprintf("; %d exact metrics differ", f.ExactCalled)
	}
	return s
}

// UncorrectedText returns the figures before the correction, in the
// style of Node's benchmark/compare.R, e.g. "before the correction 5 of
// 48 comparisons had p ≤ 0.05; about 2.4 would by chance alone".
func (f *Family) UncorrectedText() string {
	return fmt.Sprintf("before the correction %d of %s had p ≤ %v; about %s would by chance alone",
		f.RawSignificant, plural(f.M, "comparison"), f.Alpha, formatExpected(f.ExpectedFalseRaw))
}

// plural formats a count with its noun.
func plural(n int, noun string) string {
	return strconv.Itoa(n) + " " + pluralWord(float64(n), noun)
}

// pluralWord returns noun, with an s unless x is 1.
func pluralWord(x float64, noun string) string {
	if x == 1 {
		return noun
	}
	return noun + "s"
}

// formatExpected formats an expected count to two significant digits.
func formatExpected(x float64) string {
	return strconv.FormatFloat(x, 'g', 2, 64)
}

// AnalyzeFamily analyses the cells of a report as one family of tests and
// decides each change's outcome (see Outcome):
//
//   - The changes of callable cells compared with the U test form the
//     family (see Family.M); their p-values are adjusted with
//     Benjamini-Hochberg (Change.Q).
//   - changed: Q ≤ Alpha, the p attainable for the sample sizes, and
//     |RatioEst − 1| ≥ the floor. This is the point rule (Perfherder's):
//     the estimate, not the whole interval, must clear the floor. The
//     interval rule (whole 95 % interval beyond the floor) would
//     leave changes just above the floor unresolved for ever at the
//     repetitions pglab can afford, and a false call needs a false test
//     anyway, which BH already bounds; the floor removes calls, it never
//     adds any. A change that passes the test below the floor is
//     BelowFloor, never changed.
//   - same: the 1 − 2·Alpha (90 %) Moses interval of the ratio lies
//     within [1 − floor, 1 + floor] (TOST at level Alpha).
//   - unresolved: otherwise, with MDEPercent at the level a call in this
//     family needs, Alpha·(R+1)/M for R calls (Alpha/M for a lone change).
//   - Exact metrics whose repetitions agree within each side are compared
//     exactly, outside the family: changed when the values differ, same
//     when equal, unresolved with fewer than MinExactReps per side. One
//     whose values vary falls back to the U test (in the family if
//     callable) with the cell's floor (0 by default).
//   - Auxiliary cells get same or unresolved (an exact metric changed),
//     never a call.
//
// Significant is set to Outcome == OutcomeChanged, and Verdict and Delta
// follow. AnalyzeFamily returns an error for a cell without key or
// baseline, a repeated key, and whatever Analyze rejects.
func AnalyzeFamily(cells []Cell, opts Options) (*Family, error) {
	if err := checkCells(cells, opts); err != nil {
		return nil, err
	}
	if opts.Paired {
		return analyzePaired(cells, opts, 0)
	}
	alpha, _, _ := opts.levels()
	minChange, _ := opts.minChange()
	f := &Family{Alpha: alpha, MinChange: minChange, Design: opts.Design}
	var effects [][]*effect
	for _, cell := range cells {
		res, es, err := analyze(cell.Input, opts, true)
		if err != nil {
			return nil, fmt.Errorf("cell %q: %w", cell.Key, err)
		}
		floor := cell.floor(minChange)
		for i := range res.Changes {
			c := &res.Changes[i]
			c.Floor = floor
			if d := cell.design(opts); d != nil && cell.Callable && es[i] != nil {
				b, _ := res.Target(c.Baseline)
				t, _ := res.Target(c.Target)
				d.applyDesign(c, b.Values, t.Values, floor)
			}
			c.InFamily = cell.Callable && cell.Twin == "" && es[i] != nil && c.MinP <= alpha*(1+1e-9)
		}
		f.Cells = append(f.Cells, CellResult{Key: cell.Key, Callable: cell.Callable, Floor: floor, Result: res})
		effects = append(effects, es)
	}
	f.adjust()
	if err := f.adoptTwins(cells); err != nil {
		return nil, err
	}
	for i, cr := range f.Cells {
		for j := range cr.Result.Changes {
			f.decide(&cr.Result.Changes[j], effects[i][j], cr.Callable)
		}
	}
	// The MDE of a family test depends on how many were called.
	for i, cr := range f.Cells {
		for j, e := range effects[i] {
			if e != nil {
				f.setMDE(&cr.Result.Changes[j], e)
			}
		}
	}
	f.ExpectedFalseCalls = alpha * float64(f.Called)
	f.ExpectedFalseRaw = alpha * float64(f.M)
	return f, nil
}

// checkCells returns an error for options out of range, a design that
// cannot be used, a cell without key or baseline and a repeated key.
func checkCells(cells []Cell, opts Options) error {
	if _, _, err := opts.levels(); err != nil {
		return err
	}
	if _, err := opts.minChange(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, c := range cells {
		if d := c.design(opts); d != nil {
			if err := d.Check(); err != nil {
				return fmt.Errorf("cell %q: %w", c.Key, err)
			}
		}
		switch {
		case c.Key == "":
			return fmt.Errorf("compare: a cell has an empty key")
		case seen[c.Key]:
			return fmt.Errorf("compare: cell %q appears twice", c.Key)
		case c.Input.Baseline == "":
			return fmt.Errorf("compare: cell %q has no baseline", c.Key)
		}
		seen[c.Key] = true
	}
	return nil
}

// design returns the cell's design, else the options'.
func (c Cell) design(opts Options) *Design {
	if c.Design != nil {
		return c.Design
	}
	return opts.Design
}

// floor returns the cell's floor given the default floor.
func (c Cell) floor(minChange float64) float64 {
	switch {
	case c.Floor < 0:
		return 0
	case c.Floor > 0:
		return c.Floor
	case c.Input.Metric.Exact:
		return 0
	}
	return minChange
}

// minChange returns Options.MinChange with the default filled in.
func (o Options) minChange() (float64, error) {
	switch {
	case math.IsNaN(o.MinChange) || o.MinChange >= 1:
		return 0, fmt.Errorf("compare: minimum change %v must be below 1", o.MinChange)
	case o.MinChange == 0:
		return DefaultMinChange, nil
	case o.MinChange < 0:
		return 0, nil
	}
	return o.MinChange, nil
}

// adjust computes the family's Q values, M, RawSignificant and Cutoff.
func (f *Family) adjust() {
	var members []*Change
	var ps []float64
	for _, cr := range f.Cells {
		for j := range cr.Result.Changes {
			if c := &cr.Result.Changes[j]; c.InFamily {
				members = append(members, c)
				ps = append(ps, c.P)
			}
		}
	}
	f.M = len(members)
	qs := AdjustBH(ps)
	passed := 0
	for i, c := range members {
		c.Q, c.FamilySize = qs[i], f.M
		if attainable(c.P, c.MinP, f.Alpha) {
			f.RawSignificant++
		}
		if c.Q <= f.Alpha*(1+1e-9) {
			passed++
		}
	}
	if passed > 0 {
		f.Cutoff = f.Alpha * float64(passed) / float64(f.M)
	}
}

// AdjustBH returns the Benjamini-Hochberg adjusted p-values (q-values) of
// p, in the same order: q_(i) = min over j ≥ i of p_(j)·m/j for the
// p-values sorted ascending, at most 1. A test is a discovery at false
// discovery rate q when its adjusted p is ≤ q. NaN p-values are taken as
// 1.
func AdjustBH(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	val := func(i int) float64 {
		if math.IsNaN(p[i]) {
			return 1
		}
		return p[i]
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch va, vb := val(a), val(b); {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	})
	q := make([]float64, m)
	running := 1.0
	for r := m - 1; r >= 0; r-- {
		i := idx[r]
		running = math.Min(running, val(i)*float64(m)/float64(r+1))
		q[i] = running
	}
	return q
}

// decide sets the outcome of one change.
func (f *Family) decide(c *Change, e *effect, callable bool) {
	switch {
	case c.N1 == 0 || c.N2 == 0:
		c.Outcome = OutcomeUnresolved
		c.Significant = false
	case e == nil:
		f.decideExact(c, callable)
	default:
		f.decideTested(c, callable)
	}
}

// decideExact sets the outcome of an exact comparison of consistent values.
func (f *Family) decideExact(c *Change, callable bool) {
	switch {
	case c.N1 < MinExactReps || c.N2 < MinExactReps:
		c.Outcome = OutcomeUnresolved
		c.Significant = false
		c.Verdict = NotSignificant
		c.Delta = "~"
		c.Warnings = append(c.Warnings, fmt.Sprintf("need >= %d repetitions per side to compare an exact metric", MinExactReps))
	case c.BaseCenter == c.Center:
		c.Outcome = OutcomeSame
	default:
		c.Outcome = OutcomeChanged
		c.Called = callable
		if callable {
			f.ExactCalled++
		}
	}
}

// adoptTwins gives each twin's changes the Q of their twin's (see
// Cell.Twin).
func (f *Family) adoptTwins(cells []Cell) error {
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
			if !ok || !t.InFamily || !cell.Callable {
				continue
			}
			c.Twin, c.Q, c.FamilySize = cell.Twin, t.Q, t.FamilySize
		}
	}
	return nil
}

// decideTested sets the outcome of a U-test comparison.
func (f *Family) decideTested(c *Change, callable bool) {
	alpha := f.Alpha
	var passed bool
	if c.familyTest() {
		passed = c.Q <= alpha*(1+1e-9) && attainable(c.P, c.MinP, alpha)
	} else {
		passed = attainable(c.P, c.MinP, alpha)
	}
	big := reachesFloor(c.RatioEst, c.Floor)
	same := c.SameLo >= 1-c.Floor && c.SameHi <= 1+c.Floor // false for NaN
	switch {
	case c.familyTest() && passed && big:
		c.Outcome = OutcomeChanged
		c.Called = true
		if c.InFamily {
			f.Called++ // a twin's call is its twin's test again
		}
	case same:
		c.Outcome = OutcomeSame
	default:
		c.Outcome = OutcomeUnresolved
	}
	c.BelowFloor = passed && !big
	c.Significant = c.Outcome == OutcomeChanged
	switch {
	case c.Significant && !math.IsNaN(c.RatioEst):
		c.Verdict = verdict(Metric{Direction: c.Metric.Direction}, true, 1, c.RatioEst)
		c.Delta = benchmath.Comparison{}.FormatDelta(c.BaseCenter, c.Center)
	case c.Significant:
		c.Verdict = verdict(Metric{Direction: c.Metric.Direction}, true, c.BaseCenter, c.Center)
		c.Delta = benchmath.Comparison{}.FormatDelta(c.BaseCenter, c.Center)
	case c.Outcome == OutcomeSame:
		c.Verdict = Same
		c.Delta = "~"
	default:
		c.Verdict = NotSignificant
		c.Delta = "~"
	}
}

// setMDE sets the MDE of a U-test comparison: at Alpha outside the family;
// inside it at the p a call needs under Benjamini-Hochberg given the
// others, Alpha·(R+1)/M for an uncalled change when R were called (Alpha/M
// for a lone change), Alpha·R/M for a called one.
func (f *Family) setMDE(c *Change, e *effect) {
	c.MDEAlpha = f.Alpha
	if c.familyTest() {
		r := float64(f.Called)
		if !c.Called {
			r++
		}
		c.MDEAlpha = math.Min(f.Alpha, f.Alpha*r/float64(f.M))
	}
	if c.Looks > 0 {
		c.MDEAlpha /= float64(c.Looks) // each look's level
	}
	c.MDEPercent = e.halfWidthPercent(c.MDEAlpha)
}
