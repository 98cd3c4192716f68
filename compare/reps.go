package compare

import (
	"fmt"
	"math"
)

// Repetition arithmetic.
//
// With n repetitions a side and no ties, the smallest two-sided p the
// exact Mann-Whitney test can give is 2/C(2n, n) (UTestMinP), reached only
// when the two samples do not overlap at all:
//
//	n = 3:  2/20     = 0.1       can never reach α = 0.05
//	n = 4:  2/70     = 0.0286    only complete separation reaches 0.05
//	n = 5:  2/252    = 0.00794
//	n = 6:  2/924    = 0.00216
//	n = 7:  2/3432   = 0.000583
//	n = 8:  2/12870  = 0.000155
//	n = 10: 2/184756 = 0.0000108
//
// Benjamini-Hochberg over a family of m tests calls the R smallest p when
// p_(R) ≤ R·α/m. A lone change (R = 1) therefore needs p ≤ α/m, which
// n can reach only when 2/C(2n, n) ≤ α/m, i.e. m ≤ α/UTestMinP(n, n):
//
//	n              4      5      6      7      8       10
//	largest m      1      6      23     85     321     4618    (α = 0.05)
//
// So at n = 5 a family of 60 calls nothing unless at least
// ⌈60·0.00794/0.05⌉ = 10 cells are completely separated at once, and at
// n = 6 a lone change in a family of 60 (α/m = 0.00083 < 0.00216) can
// never be called; n = 7 is the fewest repetitions for a lone call among
// 24-85 tests, n = 8 among 86-321. The floor does not change this
// arithmetic: it only removes calls.

// RepsPlan is what n repetitions per side can do in a family of m tests at
// level Alpha (see PlanReps).
type RepsPlan struct {
	// N is the repetitions per side, Family the number of tests m, Alpha
	// the level (the BH q).
	N, Family int
	Alpha     float64

	// MinP is the smallest p at N+N, UTestMinP(N, N).
	MinP float64

	// LoneP is the p a lone change needs under Benjamini-Hochberg:
	// Alpha/Family.
	LoneP float64

	// LoneCallable reports whether a lone change can be called at N:
	// MinP ≤ LoneP.
	LoneCallable bool

	// MaxFamily is the largest family in which a lone change can be
	// called at N: ⌊Alpha/MinP⌋.
	MaxFamily int

	// MinCalls is the fewest changes that must be called together for
	// any call at N: ⌈Family·MinP/Alpha⌉ (1 when LoneCallable), or 0 when
	// MinP > Alpha (nothing can ever be called at N).
	MinCalls int

	// NeedN is the fewest repetitions per side at which a lone change
	// can be called in this family (MinRepsForFamily).
	NeedN int
}

// PlanReps returns what n repetitions per side can call in a family of m
// tests at level alpha (0 means DefaultAlpha): the arithmetic of the
// package comment above, for one (n, m). It panics on n < 1 or m < 1.
func PlanReps(n, m int, alpha float64) RepsPlan {
	if n < 1 || m < 1 {
		panic(fmt.Sprintf("compare: PlanReps(%d, %d): need n ≥ 1 and m ≥ 1", n, m))
	}
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	p := RepsPlan{N: n, Family: m, Alpha: alpha, MinP: uTestMinP(n, n), LoneP: alpha / float64(m)}
	const slack = 1 + 1e-9
	p.LoneCallable = p.MinP <= p.LoneP*slack
	p.MaxFamily = int(math.Floor(alpha / p.MinP * slack))
	if p.MinP <= alpha*slack {
		p.MinCalls = max(1, int(math.Ceil(float64(m)*p.MinP/alpha/slack)))
	}
	p.NeedN = MinRepsForFamily(m, alpha)
	return p
}

// String describes the plan in one line, e.g. "n=6 in a family of 60 at
// q=0.05: min p 0.00216 > 0.00083 needed by a lone change; at least 3
// changes must be called together; a lone change needs n=7".
func (p RepsPlan) String() string {
	s := fmt.Sprintf("n=%d in a family of %d at q=%v: min p %.3g", p.N, p.Family, p.Alpha, p.MinP)
	switch {
	case p.LoneCallable:
		return s + fmt.Sprintf(" ≤ %.2g needed by a lone change (lone calls possible up to %d tests)", p.LoneP, p.MaxFamily)
	case p.MinCalls == 0:
		return s + fmt.Sprintf(" > %v: nothing can be called; a lone change needs n=%d", p.Alpha, p.NeedN)
	}
	return s + fmt.Sprintf(" > %.2g needed by a lone change; at least %d changes must be called together; a lone change needs n=%d",
		p.LoneP, p.MinCalls, p.NeedN)
}

// MinRepsForFamily returns the fewest repetitions per side at which a lone
// change can be called in a family of m tests at level alpha (0 means
// DefaultAlpha): the smallest n with UTestMinP(n, n) ≤ alpha/m. For
// alpha = 0.05: 4 for m = 1, 5 up to m = 6, 6 up to 23, 7 up to 85, 8 up
// to 321, 9 up to 1215, 10 up to 4618.
func MinRepsForFamily(m int, alpha float64) int {
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	m = max(m, 1)
	target := alpha / float64(m) * (1 + 1e-9)
	n := 1
	for uTestMinP(n, n) > target {
		n++
	}
	return n
}
