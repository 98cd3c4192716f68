package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMosesRanks checks the ranks of the limits in verdicts.md §2.4: with
// u the largest U whose two-sided p ≤ 0.05, the limits are D(u+1) and
// D(n1·n2 − u).
func TestMosesRanks(t *testing.T) {
	tests := []struct {
		n1, n2   int
		alpha    float64
		u        int
		coverage float64
	}{
		{4, 4, 0.05, 0, 0.971},
		{5, 5, 0.05, 2, 0.968},
		{6, 6, 0.05, 5, 0.959},
		{4, 4, 0.10, 1, 0.943},
		{3, 3, 0.05, -1, 0},
		{3, 2, 0.05, -1, 0},
		{3, 5, 0.05, 0, 0.964},
		{1, 1, 0.5, -1, 0},
	}
	for _, tt := range tests {
		u, tail := mosesRank(tt.n1, tt.n2, tt.alpha)
		if u != tt.u || u >= 0 && math.Abs(1-2*tail-tt.coverage) > 0.0005 {
			t.Errorf("mosesRank(%d, %d, %v) = %d with coverage %.4f; want %d, %.3f", tt.n1, tt.n2, tt.alpha, u, 1-2*tail, tt.u, tt.coverage)
		}
	}
}

// TestMosesKnownExamples computes intervals by hand: at n=4 the 95 %
// interval is the whole range of the 16 pairwise ratios, at n=5 it runs
// from the 3rd to the 23rd of the 25.
func TestMosesKnownExamples(t *testing.T) {
	_, _, c := analyzePair(t, Metric{Unit: Seconds}, []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, Options{})
	if !near(c.RatioLo, 5.0/4) || !near(c.RatioHi, 8) || !near(c.RatioConfidence, 1-2.0/70) {
		t.Errorf("n=4: [%v, %v] at %v; want [1.25, 8] at 0.9714", c.RatioLo, c.RatioHi, c.RatioConfidence)
	}
	// Ratios of {6..10} over {1..5}: the 3 smallest are 1.2, 1.4, 1.5,
	// the 3 largest 10, 9, 8.
	_, _, c = analyzePair(t, Metric{Unit: Seconds}, []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, Options{})
	if !near(c.RatioLo, 1.5) || !near(c.RatioHi, 8) {
		t.Errorf("n=5: [%v, %v]; want [1.5, 8]", c.RatioLo, c.RatioHi)
	}
	// The estimate is the median (13th) of the 25 ratios: 8/3, with 12
	// ratios below it and 12 above.
	if !near(c.RatioEst, 8.0/3) {
		t.Errorf("n=5: estimate %v, want 8/3", c.RatioEst)
	}
	// Too few samples for 95 %: unbounded.
	_, _, c = analyzePair(t, Metric{Unit: Seconds}, []float64{1, 2, 3}, []float64{4, 5, 6}, Options{})
	if c.RatioLo != 0 || !math.IsInf(c.RatioHi, 1) || c.RatioConfidence != 1 || !math.IsInf(c.MDEPercent, 1) {
		t.Errorf("n=3: [%v, %v] at %v, MDE %v; want [0, +Inf] at 1, MDE +Inf", c.RatioLo, c.RatioHi, c.RatioConfidence, c.MDEPercent)
	}
	if got := c.IntervalText(); got != "+150 % [−100, +∞]" { // median of 9 ratios: 5/2

		t.Errorf("n=3: IntervalText = %q", got)
	}
}

// TestMosesInvertsTheUTest checks the defining property of the Moses
// interval on random samples of unequal sizes: a ratio just inside the
// limits is not rejected by the U test of x against y/ratio, one just
// outside is.
func TestMosesInvertsTheUTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 100 {
		n1, n2 := 4+rng.IntN(6), 4+rng.IntN(6)
		x, y := make([]float64, n1), make([]float64, n2)
		for i := range x {
			x[i] = 100 * math.Exp(0.05*rng.NormFloat64())
		}
		for i := range y {
			y[i] = 105 * math.Exp(0.05*rng.NormFloat64())
		}
		e := newEffect(x, y)
		lo, hi, _ := e.interval(0.05)
		p := func(r float64) float64 {
			ys := make([]float64, n2)
			for i, v := range y {
				ys[i] = v / r
			}
			_, p, _ := uTest(x, ys)
			return p
		}
		const eps = 1e-9
		if p(lo*(1+eps)) <= 0.05 || p(hi*(1-eps)) <= 0.05 {
			t.Fatalf("n=%d+%d: a ratio just inside [%v, %v] is rejected", n1, n2, lo, hi)
		}
		if p(lo*(1-eps)) > 0.05 || p(hi*(1+eps)) > 0.05 {
			t.Fatalf("n=%d+%d: a ratio just outside [%v, %v] is not rejected", n1, n2, lo, hi)
		}
	}
}

// TestNonPositiveValues: with a value ≤ 0 the effect is a difference
// relative to the baseline median; with a baseline median of 0 there is
// none.
func TestNonPositiveValues(t *testing.T) {
	_, _, c := analyzePair(t, Metric{Unit: Count}, []float64{0, 10, 10, 10, 10, 10}, []float64{12, 12, 12, 12, 12, 12}, Options{})
	if !c.RelativeDiff || !near(c.RatioEst, 1.2) {
		t.Errorf("relative difference: RelativeDiff=%v estimate %v, want true and 1.2", c.RelativeDiff, c.RatioEst)
	}
	_, _, c = analyzePair(t, Metric{Unit: Count}, []float64{0, 0, 0, 0, 1}, []float64{1, 1, 1, 1, 1}, Options{})
	if !math.IsNaN(c.RatioEst) || !math.IsNaN(c.RatioLo) || !math.IsNaN(c.MDEPercent) || c.IntervalText() != "?" {
		t.Errorf("baseline median 0: estimate %v [%v, %v] MDE %v", c.RatioEst, c.RatioLo, c.RatioHi, c.MDEPercent)
	}
}

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}
