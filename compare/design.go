package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultCap is the most repetitions per side of --reps auto when a
// design is planned with cap 0.
const DefaultCap = 10

// Design is the sequential design of `--reps auto`: the repetition counts
// per side at which the runner may look at a case's data (its looks), and
// the family the calls are made in.
//
// The rule. Let L be the number of looks. At each look the U test of a
// change is read at level Alpha/L (Bonferroni over the looks), which gives
// every change of a primary cell one p-value for the whole procedure, its
// sequential p:
//
//	p* = min(1, L · min over the looks n ≤ N of p_n)
//
// where p_n is the two-sided exact Mann-Whitney p of the first n
// repetitions of each side. p* is a valid p-value whatever the stopping
// rule: P(p* ≤ x) ≤ Σ_looks P(p_n ≤ x/L) ≤ x under the null, and a case
// that stops early has taken a subset of the looks, whose minimum is no
// smaller. The report's calls are Benjamini-Hochberg at q = Alpha over the
// p* of its family and the practical floor on the estimate at the data the
// case ended with (AnalyzeFamily with Options.Design), so the issue-21
// guarantees hold: in an A/A report P(any call) ≤ Alpha (for independent
// or positively dependent tests, as for BH at a fixed n).
//
// "same" is read the same way: the 1 − 2·Alpha/L Moses interval of the
// ratio inside ± the floor at some look (two one-sided tests at Alpha/L
// per look), a valid level-Alpha equivalence test over all the looks.
//
// A case stops at a look when each change of its primary cells is
// resolved (see Decide): called (p* ≤ Alpha/Family, which passes BH
// whatever the rest of the family, and the estimate clears the floor),
// same, out of reach (even if every later repetition fell beyond all
// values so far, L·p at the cap would stay above Alpha, and p* is above
// Alpha already), or an exact metric with MinExactReps per side. At the
// last look (the cap) every case stops. A call made at a case's look
// stands in the report: the case's data end at that look.
type Design struct {
	// Looks are the repetition counts per side at which the data are
	// looked at, ascending; the last is the cap.
	Looks []int

	// Family is the number of tests the run's family was planned with
	// (m): the callable changes of every study, known before the run.
	// The stopping rule calls a change only when p* ≤ Alpha/Family;
	// Decide needs it, AnalyzeFamily does not (0 there is fine).
	Family int

	// Alpha is the level of the calls (the BH q); 0 means DefaultAlpha.
	Alpha float64

	// Paired marks the design of a paired family (Options.Paired,
	// PlanPairedDesign): Family then counts the measures' gates, and
	// Decide reads the whole study's cells.
	Paired bool
}

// DefaultPairedStart is the first look of a paired design when none is
// given: four rounds, two mirrored pairs.
const DefaultPairedStart = 4

// DefaultPairedCap is the most rounds a case of a paired design runs when
// no cap is given: enough for a case whose two sides differ by ±10 % from
// round to round to be found the same within ±5 %.
const DefaultPairedCap = 40

// PlanPairedDesign returns the design of a paired family of tests tests
// (the report's planned tests: each primary case's and each measure's of
// two or more cases, × the targets compared with the baseline) at level
// alpha (0: DefaultAlpha): looks at start rounds (0: DefaultPairedStart)
// and after every mirrored pair of rounds up to cap (0: DefaultPairedCap).
// A case's cap may be lower (Cell.Cap): its looks end there. With start ≥
// cap the only look is cap. It panics on tests < 1 or a negative start
// or cap.
func PlanPairedDesign(tests int, alpha float64, start, cap int) Design {
	if tests < 1 || start < 0 || cap < 0 {
		panic(fmt.Sprintf("compare: PlanPairedDesign(%d, %v, %d, %d): need tests ≥ 1, start and cap ≥ 0", tests, alpha, start, cap))
	}
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if cap == 0 {
		cap = DefaultPairedCap
	}
	if start == 0 {
		start = DefaultPairedStart
	}
	return Design{Looks: lookSchedule(start, cap), Family: tests, Alpha: alpha, Paired: true}
}

// PlanDesign returns the design for a family of m tests at level alpha (0
// means DefaultAlpha) with at most cap repetitions per side (0 means
// DefaultCap): looks at the start s, then every second repetition (a
// mirrored pair of rounds, ABBA) and at the cap, with s the fewest
// repetitions at which a lone change can be called at its look's level —
// UTestMinP(s, s) ≤ alpha/(m·L) for the L looks from s on. When no s below
// the cap can, the only look is the cap. It panics on m < 1 or cap < 1.
//
// For alpha = 0.05 and cap 10: m = 1 starts at 5 (looks 5, 7, 9 and 10),
// m = 2-7 at 6 (6, 8, 10), 8-28 at 7 (7, 9, 10), 29-160 at 8 (8 and 10,
// each at 0.025: a quick or seed-size comparison of two versions, about 70
// tests), 161-607 at 9 (9, 10); larger families look once, at the cap.
func PlanDesign(m int, alpha float64, cap int) Design {
	if m < 1 || cap < 0 {
		panic(fmt.Sprintf("compare: PlanDesign(%d, %v, %d): need m ≥ 1 and cap ≥ 0", m, alpha, cap))
	}
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if cap == 0 {
		cap = DefaultCap
	}
	for s := 2; s <= cap; s++ {
		looks := lookSchedule(s, cap)
		if uTestMinP(s, s) <= alpha/float64(m*len(looks))*(1+1e-9) {
			return Design{Looks: looks, Family: m, Alpha: alpha}
		}
	}
	return Design{Looks: []int{cap}, Family: m, Alpha: alpha}
}

// FixedDesign is the design of a fixed number of repetitions: one look at
// n. AnalyzeFamily with it equals AnalyzeFamily without a design.
func FixedDesign(n, m int, alpha float64) Design {
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	return Design{Looks: []int{n}, Family: max(m, 1), Alpha: alpha}
}

// lookSchedule returns s, s+2, … below cap, then cap.
func lookSchedule(s, cap int) []int {
	var looks []int
	for n := s; n < cap; n += 2 {
		looks = append(looks, n)
	}
	return append(looks, cap)
}

// Start returns the first look: the repetitions every case runs.
func (d Design) Start() int { return d.Looks[0] }

// Cap returns the last look: the most repetitions a case runs.
func (d Design) Cap() int { return d.Looks[len(d.Looks)-1] }

// LookAlpha returns the level of each look, Alpha/L.
func (d Design) LookAlpha() float64 { return d.alpha() / float64(len(d.Looks)) }

// alpha returns Alpha with the default filled in.
func (d Design) alpha() float64 {
	if d.Alpha == 0 {
		return DefaultAlpha
	}
	return d.Alpha
}

// IsLook reports whether n repetitions per side is one of the looks.
func (d Design) IsLook(n int) bool {
	for _, l := range d.Looks {
		if l == n {
			return true
		}
	}
	return false
}

// Check returns an error for a design that cannot be used: no looks,
// looks not ascending or below 1, a negative family or a level outside
// (0, 1).
func (d Design) Check() error {
	if len(d.Looks) == 0 {
		return fmt.Errorf("compare: a design without looks")
	}
	for i, n := range d.Looks {
		if n < 1 || i > 0 && n <= d.Looks[i-1] {
			return fmt.Errorf("compare: looks %v: want ascending counts ≥ 1", d.Looks)
		}
	}
	if d.Family < 0 {
		return fmt.Errorf("compare: a design for a family of %d tests", d.Family)
	}
	if a := d.alpha(); !(a > 0 && a < 1) {
		return fmt.Errorf("compare: design level %v must be in (0, 1)", a)
	}
	return nil
}

// LooksText lists the looks: "8 and 10", "5, 7, 9 and 10", "10".
func (d Design) LooksText() string {
	parts := make([]string, len(d.Looks))
	for i, n := range d.Looks {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Text states the rule in one paragraph for a report, e.g. "Repetitions
// chosen by the data (--reps auto): every case runs 8 repetitions per
// side, then 2 more while one of its primary figures is unresolved, up to
// 10; …".
func (d Design) Text() string {
	if len(d.Looks) == 1 {
		return fmt.Sprintf("Repetitions fixed at %d per side.", d.Cap())
	}
	if d.Paired {
		return d.pairedText()
	}
	l := len(d.Looks)
	return fmt.Sprintf("Repetitions chosen by the data (--reps auto): every case runs %d repetitions per side, "+
		"then more in mirrored pairs of rounds while one of its primary figures is unresolved, up to %d; "+
		"its figures are looked at after %s repetitions (%d looks). "+
		"Each look tests at %s/%d = %s (Bonferroni over the looks), so a change's p is %d × the smallest p of its looks; "+
		"those p are corrected with Benjamini-Hochberg over the family of %s as at a fixed count, and same needs the %s interval inside ± the floor at a look. "+
		"A case stops early when every primary change is called (p ≤ %s, a lone call in the family), same, or out of reach of a call by the cap; "+
		"a call made at its look stands, on the data the case ended with.",
		d.Start(), d.Cap(), d.LooksText(), l,
		strconv.FormatFloat(d.alpha(), 'g', -1, 64), l, formatLevel(d.LookAlpha()), l,
		plural(d.Family, "planned test"), formatPercentLevel(1-2*d.LookAlpha()),
		formatLevel(d.LookAlpha()/float64(d.Family)))
}

// formatLevel formats a level to three significant digits: "0.025",
// "0.000379".
func formatLevel(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// formatPercentLevel formats a confidence level: "95 %", "97.5 %".
func formatPercentLevel(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/10, 'g', -1, 64) + " %"
}

// pairedText is Text for a paired design.
func (d Design) pairedText() string {
	return fmt.Sprintf("Rounds chosen by the data (--reps auto): every case runs %d rounds (both targets next to each other in each), "+
		"then more, a mirrored pair at a time, while one of its primary figures is unresolved, up to its cap "+
		"(at most %d, fewer for a case whose rounds cost more than its share of the time); "+
		"its figures are looked at after every pair. Each look tests at the level an alpha-spending rule leaves it "+
		"(level·t^%g for a call, t^%g for each side of same, t the share of its cap's rounds run), so that a change's sequential p stays a p whatever the stopping; "+
		"the p of each case and of each measure over its cases form one family of %s, and same needs the case's own interval "+
		"within ± the floor at a look, read at that look's level of a spending rule at %s a side. "+
		"A case stops when every primary figure is called or same on its own rounds; a call made at its look stands, on the data the case ended with.",
		d.Start(), d.Cap(), callRho, sameRho, plural(d.Family, "planned test"), strconv.FormatFloat(d.alpha(), 'g', -1, 64))
}
