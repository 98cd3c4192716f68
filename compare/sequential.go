package compare

import (
	"fmt"
	"math"
	"strings"
)

// applyDesign replaces the test of a U-test change (samples b of the
// baseline and t of the target, in repetition order) by the sequential
// test of d over its looks: P becomes Looks × the smallest p of the looks
// n ≤ min(len(b), len(t)) (each the U test of the first n repetitions of
// each side), MinP the smallest such value the sample sizes allow, and
// the equivalence interval (SameLo, SameHi) the 1 − 2·Alpha/L interval of
// the first look at which it lies inside ± floor, else of all the
// repetitions. With no look reached, P and MinP are 1: the change cannot
// be called.
func (d Design) applyDesign(c *Change, b, t []float64, floor float64) {
	l := len(d.Looks)
	level := math.Min(2*d.LookAlpha(), 1)
	n := min(len(b), len(t))
	c.Looks, c.Look, c.SameLook = l, 0, 0
	best, last := math.Inf(1), 0
	for _, look := range d.Looks {
		if look > n {
			break
		}
		last = look
		_, p, err := uTest(b[:look], t[:look])
		if err != nil {
			p = 1 // every value equal
		}
		if p < best {
			best, c.Look = p, look
		}
		if c.SameLook == 0 {
			lo, hi, _ := newEffect(b[:look], t[:look]).interval(level)
			if lo >= 1-floor && hi <= 1+floor {
				c.SameLook, c.SameLo, c.SameHi = look, lo, hi
			}
		}
	}
	if last == 0 {
		c.P, c.MinP = 1, 1
		return
	}
	c.P = math.Min(1, float64(l)*best)
	c.MinP = math.Min(1, float64(l)*uTestMinP(last, last))
	if c.SameLook == 0 {
		c.SameLo, c.SameHi, _ = newEffect(b, t).interval(level)
	}
}

// Resolution is what the stopping rule makes of one change at a look.
type Resolution int

const (
	// Pending: more repetitions could change the change's outcome.
	Pending Resolution = iota
	// ResolvedCalled: p* ≤ Alpha/Family and the estimate clears the
	// floor, a call whatever the rest of the family; or an exact metric
	// whose values differ.
	ResolvedCalled
	// ResolvedSame: same at a look; or an exact metric whose values are
	// equal.
	ResolvedSame
	// ResolvedOutOfReach: p* is above Alpha and stays above it whatever
	// the repetitions up to the cap.
	ResolvedOutOfReach
)

// resolutionNames are the reasons a case stops for, by Resolution.
var resolutionNames = []string{"pending", "called", "same", "out of reach"}

// String returns "pending", "called", "same" or "out of reach".
func (r Resolution) String() string {
	if r < 0 || int(r) >= len(resolutionNames) {
		return fmt.Sprintf("Resolution(%d)", int(r))
	}
	return resolutionNames[r]
}

// Stop reasons of a case that are not resolutions (CaseLook.Reason).
const (
	// StopCap: the case reached the design's cap with changes pending.
	StopCap = "cap"
	// StopBudget: the run's time budget ended the case with changes
	// pending (set by the runner, never by Decide).
	StopBudget = "budget"
)

// CaseLook is the stopping rule's decision for one case at one look.
type CaseLook struct {
	// N is the repetitions per side the case has reached: the fewest of
	// any side of its callable cells.
	N int

	// Done reports that the case needs no more repetitions.
	Done bool

	// Reason says why it is done: the resolutions of its changes joined
	// ("called", "same, out of reach"), StopCap, or "" while not done.
	// A case without callable changes is done with reason "no primary
	// figures".
	Reason string

	// Counts counts the case's callable changes by resolution.
	Counts map[Resolution]int

	// Pending names the changes that are still pending, "key: target".
	Pending []string
}

// NoPrimary is the reason of a case that has no callable change: nothing
// it measures can be called, so its repetitions cannot be chosen by the
// data.
const NoPrimary = "no primary figures"

// Decide applies the stopping rule to one case at a look: cells are the
// case's cells (its callable ones decide; twins follow their twin and
// auxiliary cells are ignored), each with the repetitions so far in
// order. See Design for the rule; opts gives the floor (its Design is
// replaced by d).
func (d Design) Decide(cells []Cell, opts Options) (*CaseLook, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	if d.Family < 1 {
		return nil, fmt.Errorf("compare: the stopping rule needs the planned family size, got %d", d.Family)
	}
	if d.Paired {
		return d.decidePaired(cells, opts)
	}
	opts.Alpha, opts.Design = d.alpha(), &d
	fam, err := AnalyzeFamily(cells, opts)
	if err != nil {
		return nil, err
	}
	cl := &CaseLook{N: math.MaxInt, Counts: map[Resolution]int{}}
	for i, cr := range fam.Cells {
		if !cr.Callable || cells[i].Twin != "" {
			continue
		}
		for _, c := range cr.Result.Changes {
			cl.N = min(cl.N, c.N1, c.N2)
			r := d.resolve(cr.Result, c)
			cl.Counts[r]++
			if r == Pending {
				cl.Pending = append(cl.Pending, cr.Key+": "+c.Target)
			}
		}
	}
	switch {
	case cl.N == math.MaxInt:
		cl.N, cl.Done, cl.Reason = reachedAny(fam), true, NoPrimary
	case len(cl.Pending) == 0:
		cl.Done, cl.Reason = true, cl.resolvedText()
	case cl.N >= d.Cap():
		cl.Done, cl.Reason = true, StopCap
	}
	return cl, nil
}

// resolvedText joins the resolutions present: "called, same".
func (cl *CaseLook) resolvedText() string {
	var parts []string
	for _, r := range []Resolution{ResolvedCalled, ResolvedSame, ResolvedOutOfReach} {
		if cl.Counts[r] > 0 {
			parts = append(parts, r.String())
		}
	}
	return strings.Join(parts, ", ")
}

// reachedAny returns the fewest samples of any side of any cell.
func reachedAny(f *Family) int {
	n := math.MaxInt
	for _, cr := range f.Cells {
		for _, s := range cr.Result.Targets {
			n = min(n, s.N)
		}
	}
	if n == math.MaxInt {
		return 0
	}
	return n
}

// resolve classifies one change of a callable cell analysed with d.
func (d Design) resolve(res *Result, c Change) Resolution {
	alpha := d.alpha()
	const slack = 1 + 1e-9
	switch {
	case c.N1 == 0 || c.N2 == 0:
		return Pending
	case c.isExact() && (c.N1 < MinExactReps || c.N2 < MinExactReps):
		return Pending
	case c.isExact() && c.Outcome == OutcomeChanged:
		return ResolvedCalled
	case c.isExact():
		return ResolvedSame
	case c.MinP > alpha*slack:
		return Pending // no look reached yet
	case c.P <= alpha/float64(d.Family)*slack && reachesFloor(c.RatioEst, c.Floor):
		return ResolvedCalled
	case c.SameLook > 0:
		return ResolvedSame
	case c.P > alpha*slack && d.outOfReach(res, c):
		return ResolvedOutOfReach
	}
	return Pending
}

// outOfReach reports whether no look up to the cap can bring the change's
// sequential p to Alpha: even if each side's coming repetitions all fell
// beyond every value so far (the target's above and the baseline's below,
// or the reverse), the pairs already inverted would keep L·p at the cap
// above Alpha.
func (d Design) outOfReach(res *Result, c Change) bool {
	bs, _ := res.Target(c.Baseline)
	ts, _ := res.Target(c.Target)
	b, t := bs.Values, ts.Values
	if len(b) == 0 || len(t) == 0 {
		return false
	}
	u1 := pairsAbove(b, t) // pairs in which the baseline is higher
	u2 := float64(len(b)*len(t)) - u1
	c1, c2 := max(len(b), d.Cap()), max(len(t), d.Cap())
	best := 2 * uCDF(c1, c2, math.Min(u1, u2))
	return float64(len(d.Looks))*best > d.alpha()*(1+1e-9)
}

// pairsAbove counts the pairs (x, y) with x > y, ties counting 1/2.
func pairsAbove(x, y []float64) float64 {
	u := 0.0
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u++
			case a == b:
				u += 0.5
			}
		}
	}
	return u
}

// DecideCases applies the rule of a paired design to the cases of a
// study at once: cells are the study's cells so far, of every case (a
// measure's gate reads them all), and caseOf names a cell's case. It
// returns each case's decision. The study's gates are corrected as if the
// report's other Family − k gates had p = 1, so that what is called here
// stays called in the report. For a design that is not paired each case
// is Decide on its own cells.
func (d Design) DecideCases(cells []Cell, caseOf func(Cell) string, opts Options) (map[string]*CaseLook, error) {
	byCase := map[string][]int{}
	var order []string
	for i, c := range cells {
		k := caseOf(c)
		if _, ok := byCase[k]; !ok {
			order = append(order, k)
		}
		byCase[k] = append(byCase[k], i)
	}
	out := map[string]*CaseLook{}
	if !d.Paired {
		for _, k := range order {
			var own []Cell
			for _, i := range byCase[k] {
				own = append(own, cells[i])
			}
			cl, err := d.Decide(own, opts)
			if err != nil {
				return nil, err
			}
			out[k] = cl
		}
		return out, nil
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	fam, err := d.pairedFamily(cells, opts)
	if err != nil {
		return nil, err
	}
	for _, k := range order {
		out[k] = d.casePaired(fam, cells, byCase[k])
	}
	return out, nil
}

// pairedFamily analyses a study's cells as the stopping rule of a paired
// design sees them.
func (d Design) pairedFamily(cells []Cell, opts Options) (*Family, error) {
	if d.Family < 1 {
		return nil, fmt.Errorf("compare: the stopping rule needs the planned number of measure tests, got %d", d.Family)
	}
	opts.Alpha, opts.Design, opts.Paired = d.alpha(), &d, true
	if err := checkCells(cells, opts); err != nil {
		return nil, err
	}
	return analyzePaired(cells, opts, d.Family)
}

// decidePaired is Decide for a paired design: every cell is the case's.
func (d Design) decidePaired(cells []Cell, opts Options) (*CaseLook, error) {
	fam, err := d.pairedFamily(cells, opts)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(cells))
	for i := range idx {
		idx[i] = i
	}
	return d.casePaired(fam, cells, idx), nil
}

// casePaired decides one case of a paired family from the outcomes of its
// cells (indexes into cells and fam.Cells).
func (d Design) casePaired(fam *Family, cells []Cell, idx []int) *CaseLook {
	cl := &CaseLook{N: math.MaxInt, Counts: map[Resolution]int{}}
	var own []CellResult
	for _, i := range idx {
		cr := fam.Cells[i]
		own = append(own, cr)
		if !cr.Callable || cells[i].Twin != "" {
			continue
		}
		for _, c := range cr.Result.Changes {
			cl.N = min(cl.N, c.N1, c.N2)
			r := resolvePaired(c)
			cl.Counts[r]++
			if r == Pending {
				cl.Pending = append(cl.Pending, cr.Key+": "+c.Target)
			}
		}
	}
	switch {
	case cl.N == math.MaxInt:
		cl.N, cl.Done, cl.Reason = reachedAny(&Family{Cells: own}), true, NoPrimary
	case len(cl.Pending) == 0:
		cl.Done, cl.Reason = true, cl.resolvedText()
	case cl.N >= d.Cap():
		cl.Done, cl.Reason = true, StopCap
	}
	return cl
}

// resolvePaired classifies one change of a callable cell of a paired
// family by its outcome.
func resolvePaired(c Change) Resolution {
	switch {
	case c.N1 == 0 || c.N2 == 0:
		return Pending
	case c.isExact() && (c.N1 < MinExactReps || c.N2 < MinExactReps):
		return Pending
	case c.Outcome == OutcomeChanged:
		return ResolvedCalled
	case c.Outcome == OutcomeSame:
		return ResolvedSame
	}
	return Pending
}
