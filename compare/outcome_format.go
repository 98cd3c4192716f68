package compare

import (
	"fmt"
	"math"
	"strings"
)

// shortOutcome is Text after AnalyzeFamily.
func (c Change) shortOutcome() string {
	switch {
	case c.N1 == 0 || c.N2 == 0:
		return "?"
	case c.Outcome == OutcomeChanged:
		return c.effectText()
	case c.Outcome == OutcomeSame && c.isExact():
		return "="
	case c.Outcome == OutcomeSame:
		return "same"
	}
	return "~"
}

// isExact reports whether c is an exact comparison (no test was done).
func (c Change) isExact() bool {
	return (c.Metric.Exact || c.Repeated) && math.IsNaN(c.MinP)
}

// OutcomeText returns the outcome of a change decided by AnalyzeFamily,
// for a report's change column:
//
//   - changed: the change and its direction with the test, "5.7× faster
//     (p=0.002 q=0.031 n=6)", "−44 %, better (p=0.002 q=0.02 n=6)",
//     "+12 %, higher (…)", "+5.0 pp, better (…)"; an exact metric prints
//     its change alone ("+1 rows", "−69 %");
//   - same: "same (within ±5 %; n=6)", "same (+3.0 %, within ±5 %; n=6)"
//     when the test detected a change below the floor, or "=" for an exact
//     metric;
//   - in a paired family every outcome is the case's own; an unresolved
//     case whose measure as a whole is the same, or changed, says so
//     beside its own: "~ (could not see changes under ±7.2 %; n=4;
//     measure: same within ±5 %)";
//   - unresolved: "~ (could not see changes under ±7.2 %; n=4)"; "~ (+3.1
//     %, below the 5 % floor; n=6)" when the test passed below the floor;
//     "~ (n=3+2: too few repetitions to call a change)" when the sample
//     sizes cannot reach Alpha, "~ (n=6: too few repetitions for a call
//     among 60 tests)" when they cannot reach the p a call needs in the
//     family (see PlanReps); an auxiliary cell that
//     passed its own test prints its change with "(auxiliary, not called;
//     p=0.002 n=6)";
//   - "?" when a side has no samples.
//
// The size of a statistical change is RatioEst, the Hodges-Lehmann
// estimate, which is what the floor and the interval refer to. Before
// AnalyzeFamily (OutcomeNone) it returns Text.
func (c Change) OutcomeText() string {
	text := c.ownOutcomeText()
	if c.Outcome == OutcomeUnresolved && strings.HasSuffix(text, ")") {
		switch c.MeasureOutcome {
		case OutcomeSame:
			text = strings.TrimSuffix(text, ")") + "; measure: same within " + c.floorText() + ")"
		case OutcomeChanged:
			text = strings.TrimSuffix(text, ")") + "; measure: changed)"
		}
	}
	return text
}

// ownOutcomeText is OutcomeText without its measure's.
func (c Change) ownOutcomeText() string {
	n := c.nText()
	switch {
	case c.Outcome == OutcomeNone:
		return c.Text()
	case c.N1 == 0 || c.N2 == 0:
		return "?"
	case c.Outcome == OutcomeChanged && c.isExact():
		return c.effectText()
	case c.Outcome == OutcomeChanged:
		return c.effectText() + " (" + c.testText() + ")"
	case c.Outcome == OutcomeSame && c.isExact() && !c.BelowFloor:
		return "="
	case c.Outcome == OutcomeSame && c.BelowFloor:
		return fmt.Sprintf("same (%s %%, within %s; %s)", formatSignedNumber((c.RatioEst-1)*100), c.floorText(), n)
	case c.Outcome == OutcomeSame:
		return fmt.Sprintf("same (within %s; %s)", c.floorText(), n)
	case c.isExact():
		return fmt.Sprintf("~ (exact metric: need %d repetitions per side; %s)", MinExactReps, n)
	case c.BelowFloor:
		if c.FloorText != "" {
			return fmt.Sprintf("~ (%s %%, below the floor, %s; %s)", formatSignedNumber((c.RatioEst-1)*100), c.FloorText, n)
		}
		return fmt.Sprintf("~ (%s %%, below the %s %% floor; %s)", formatSignedNumber((c.RatioEst-1)*100), formatPct(c.Floor*100), n)
	case !c.familyTest() && attainable(c.P, c.MinP, c.Alpha):
		return c.effectText() + " (auxiliary, not called; " + c.testText() + ")"
	case c.MinP > c.needP()*(1+1e-9) && c.familyTest() && c.Pairs > 0:
		return fmt.Sprintf("~ (%s: too few rounds paired for a call on its own among %s)", c.pairsText(), plural(c.FamilySize, "test"))
	case c.MinP > c.needP()*(1+1e-9) && c.familyTest():
		return fmt.Sprintf("~ (%s: too few repetitions for a call among %s)", n, plural(c.FamilySize, "test"))
	case c.MinP > c.needP()*(1+1e-9):
		return fmt.Sprintf("~ (%s: too few repetitions to call a change)", n)
	case math.IsNaN(c.MDEPercent):
		return fmt.Sprintf("~ (%s)", c.Stats)
	}
	return fmt.Sprintf("~ (could not see changes under ±%s %%; %s)", formatPct(c.MDEPercent), n)
}

// effectText formats a called change from RatioEst: "5.7× faster" for a
// factor of 2 or more of a speed metric, else the percentage (percentage
// points for a metric in percent) and the verdict's word.
func (c Change) effectText() string {
	if c.isExact() || math.IsNaN(c.RatioEst) {
		return c.centersText()
	}
	// The word follows the estimate, also for an auxiliary change that
	// was not called (whose Verdict is "~").
	d := c
	d.Verdict = verdict(Metric{Direction: c.Metric.Direction}, true, 1, c.RatioEst)
	word := d.Word()
	if c.Metric.Unit.info().kind == kindPercent {
		return formatSignedNumber(c.Center-c.BaseCenter) + " pp, " + word
	}
	if speedWords(c.Metric) && !c.RelativeDiff {
		f := c.RatioEst
		if f < 1 {
			f = 1 / f
		}
		if f >= factorThreshold {
			return formatFactor(f) + timesSign + " " + word
		}
	}
	return formatSignedNumber((c.RatioEst-1)*100) + " %, " + word
}

// testText formats the test's figures: "p=0.002 q=0.031 n=6", without q
// outside the family.
func (c Change) testText() string {
	s := fmt.Sprintf("p=%.3f", c.P)
	if c.familyTest() {
		s += fmt.Sprintf(" q=%.3f", c.Q)
	}
	return s + " " + c.nText()
}

// pairsText says the rounds a paired change was tested on: "n=4", or
// "n=6, 4 paired (2 disturbed left out)".
func (c Change) pairsText() string {
	if c.Disturbed > 0 {
		return fmt.Sprintf("%s, %d paired (%d disturbed left out)", c.nText(), c.Pairs, c.Disturbed)
	}
	return fmt.Sprintf("n=%d", c.Pairs)
}

// nText formats the sample sizes as benchstat: "n=6" or "n=6+5".
func (c Change) nText() string {
	if c.N1 == c.N2 {
		return fmt.Sprintf("n=%d", c.N1)
	}
	return fmt.Sprintf("n=%d+%d", c.N1, c.N2)
}

// IntervalText formats the estimated change with its interval in percent
// of the baseline, e.g. "+4.1 % [+2.6, +5.3]" (the 1 − Alpha Moses
// interval), "+4.1 % [−100, +∞]" when the samples are too small for a
// bounded interval, "?" without an estimate.
func (c Change) IntervalText() string {
	if math.IsNaN(c.RatioEst) {
		return "?"
	}
	pct := func(r float64) string {
		switch {
		case math.IsInf(r, 1):
			return "+∞"
		case math.IsInf(r, -1):
			return minusSign + "∞"
		case r == 1:
			return "0"
		}
		return formatSignedNumber((r - 1) * 100)
	}
	return pct(c.RatioEst) + " % [" + pct(c.RatioLo) + ", " + pct(c.RatioHi) + "]"
}

// formatPct formats a non-negative percentage without sign: "7.2", "12",
// "5", "0.35".
func formatPct(x float64) string {
	if math.IsInf(x, 1) {
		return "∞"
	}
	s := strings.TrimPrefix(formatSignedNumber(math.Abs(x)), "+")
	return trimZeros(s)
}

// floorText names the change's floor: "±5 %", or the cell's own words for
// a floor set from another figure (Cell.FloorText).
func (c Change) floorText() string {
	if c.FloorText != "" {
		return c.FloorText
	}
	return "±" + formatPct(c.Floor*100) + " %"
}

// familyTest reports whether the change is decided by the family's
// correction: a test of the family, or a twin of one (its Q is its
// twin's).
func (c Change) familyTest() bool { return c.InFamily || c.Twin != "" }

// needP returns the p a call of the change needs, on the scale of P: the
// level of its MDE, times its looks for a U test under a design (whose P
// is then Looks × the smallest p of its looks; a paired change's P is
// already on the family's scale).
func (c Change) needP() float64 {
	if c.Pairs > 0 {
		return c.MDEAlpha
	}
	return c.MDEAlpha * float64(max(c.Looks, 1))
}
