package compare

import (
	"fmt"
	"math"
)

// DefaultCap is the most repetitions per side Sequential adds rounds up
// to when Sequential.Cap is 0.
const DefaultCap = 10

// Sequential is the stopping rule of `--reps auto`: after each interleaved
// round (one more repetition of every cell on every target) the runner
// calls Next with all samples so far, and adds a round while it says so.
//
// The rule:
//
//  1. Below Start repetitions per side, add a round.
//  2. At Cap, stop: the report is the family analysis at Cap.
//  3. Between them, stop early only when every callable change is
//     resolved without a call: same (its 90 % interval inside ± the
//     floor), an exact comparison with MinExactReps per side, or out of
//     reach (even if every later repetition fell on the far side of all
//     values so far, its p at Cap would stay above Alpha). Otherwise —
//     while any callable change is unresolved or currently called — add a
//     round.
//
// Why calls wait for the cap: every look at the data with the power to
// call is another chance of a false call (stopping at the first
// significant look turns 5 % into 20-30 % after a few looks). Here an
// early stop happens only in a state with no statistical call, so a
// report that calls anything has run to Cap and calls exactly what a
// fixed-Cap analysis of the same data calls. Pathwise, the procedure's
// false calls are a subset of the fixed-Cap analysis's: P(any false call)
// ≤ P(any false call at n = Cap) ≤ Alpha under Benjamini-Hochberg, with
// no alpha spent on the looks. The price is that a report with a real
// change runs to Cap; what the rule saves is the rounds of comparisons
// that come out "same" (an A/A run on a quiet machine, a change that
// touched nothing). Early "same" stops can miss a change near the floor
// (each look's equivalence test errs at most Alpha per side), which costs
// power, never false calls. The calibration test simulates the whole
// procedure (doc.go).
type Sequential struct {
	// Start is the fewest repetitions per side before any stop. 0
	// means MinRepsForFamily(m, Alpha) for the family's size m: the
	// fewest at which a lone change could be called, so that a report
	// that stops "same" did look with repetitions able to call.
	Start int

	// Cap is the most repetitions per side. 0 means DefaultCap.
	Cap int
}

// Step is Sequential's decision after one round.
type Step struct {
	// Continue reports whether to run another interleaved round.
	Continue bool

	// N is the repetitions per side reached: the fewest samples of any
	// side of a callable cell (of any cell when none is callable).
	N int

	// Start and Cap are the rule's, defaults filled in.
	Start, Cap int

	// Reason explains the decision in a few words, e.g. "3 primary
	// cells unresolved at n=7".
	Reason string

	// Pending lists the keys of the callable cells that keep the run
	// going: a change unresolved (and within reach) or called before
	// the cap. Empty when Continue is false, except at the cap where it
	// lists those still unresolved.
	Pending []string

	// Family is the analysis of the samples so far. When Continue is
	// false it is the report's analysis.
	Family *Family

	// Plan is what Cap repetitions can call in this family
	// (PlanReps(Cap, m, Alpha)); when Plan.LoneCallable is false a lone
	// change cannot be called even at the cap, and Start was lowered to
	// Cap.
	Plan RepsPlan
}

// Next decides whether to add a round, given the samples of every cell so
// far (cells as for AnalyzeFamily).
func (s Sequential) Next(cells []Cell, opts Options) (*Step, error) {
	fam, err := AnalyzeFamily(cells, opts)
	if err != nil {
		return nil, err
	}
	if s.Cap < 0 || s.Start < 0 {
		return nil, fmt.Errorf("compare: sequential rule with start %d and cap %d", s.Start, s.Cap)
	}
	st := &Step{Family: fam, N: reached(fam), Cap: s.Cap}
	if st.Cap == 0 {
		st.Cap = DefaultCap
	}
	m := familySize(fam)
	st.Plan = PlanReps(st.Cap, m, fam.Alpha)
	st.Start = s.Start
	if st.Start == 0 {
		st.Start = MinRepsForFamily(m, fam.Alpha)
	}
	st.Start = min(st.Start, st.Cap)
	var pending, unresolved []string
	for _, cr := range fam.Cells {
		if !cr.Callable {
			continue
		}
		p, u := false, false
		for _, c := range cr.Result.Changes {
			if c.Outcome != OutcomeSame && c.Outcome != OutcomeChanged || c.Called && !c.isExact() {
				u = u || c.Outcome == OutcomeUnresolved
				p = p || !outOfReach(cr.Result, c, st.Cap, fam.Alpha)
			}
		}
		if p {
			pending = append(pending, cr.Key)
		}
		if u {
			unresolved = append(unresolved, cr.Key)
		}
	}
	switch {
	case st.N >= st.Cap:
		st.Pending = unresolved
		st.Reason = fmt.Sprintf("cap of %d repetitions reached", st.Cap)
	case st.N < st.Start:
		st.Continue, st.Pending = true, pending
		st.Reason = fmt.Sprintf("n=%d is below the start of %d", st.N, st.Start)
	case len(pending) == 0:
		st.Reason = fmt.Sprintf("every primary cell resolved without a call at n=%d", st.N)
	default:
		st.Continue, st.Pending = true, pending
		st.Reason = fmt.Sprintf("%s pending at n=%d", plural(len(pending), "primary cell"), st.N)
	}
	return st, nil
}

// reached returns the fewest samples of any side of a callable cell, or of
// any cell when none is callable.
func reached(f *Family) int {
	n, any := math.MaxInt, false
	for _, callableOnly := range []bool{true, false} {
		for _, cr := range f.Cells {
			if callableOnly && !cr.Callable {
				continue
			}
			for _, s := range cr.Result.Targets {
				n, any = min(n, s.N), true
			}
		}
		if any {
			return n
		}
	}
	return 0
}

// familySize returns the number of tests the family will hold once every
// side can reach Alpha: the callable changes that are not exact
// comparisons.
func familySize(f *Family) int {
	m := 0
	for _, cr := range f.Cells {
		if !cr.Callable {
			continue
		}
		for _, c := range cr.Result.Changes {
			if !c.isExact() || c.N1 == 0 || c.N2 == 0 {
				m++
			}
		}
	}
	return max(m, 1)
}

// outOfReach reports whether a U-test change could not be called at the
// cap whatever the coming repetitions: even if each side's new values all
// fell beyond every value so far (the target's above and the baseline's
// below, or the reverse), the pairs already inverted would keep p at the
// cap above alpha, the most any test of a BH family may have.
func outOfReach(res *Result, c Change, cap int, alpha float64) bool {
	if c.isExact() || c.N1 == 0 || c.N2 == 0 || math.IsNaN(c.P) {
		return false
	}
	bs, _ := res.Target(c.Baseline)
	ts, _ := res.Target(c.Target)
	b, t := bs.Values, ts.Values
	if len(b) == 0 || len(t) == 0 {
		return false
	}
	u1 := pairsAbove(b, t) // pairs in which the baseline is higher
	u2 := float64(len(b)*len(t)) - u1
	c1, c2 := max(len(b), cap), max(len(t), cap)
	best := 2 * uCDF(c1, c2, math.Min(u1, u2))
	return best > alpha*(1+1e-9)
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
