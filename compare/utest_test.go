package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aclements/go-moremath/stats"
)

// tailPermutationP is the two-sided exact p by enumeration, with the
// definition uTest uses: twice the smaller tail of U1's distribution given
// the ties, at most 1 (1 when U1 = U2).
func tailPermutationP(x1, x2 []float64) float64 {
	pooled := append(slices.Clone(x1), x2...)
	sorted := slices.Clone(pooled)
	slices.Sort(sorted)
	twoRank := func(v float64) int { // twice the mid-rank
		first := slices.Index(sorted, v)
		last := first
		for last+1 < len(sorted) && sorted[last+1] == v {
			last++
		}
		return first + last + 2
	}
	ranks := make([]int, len(pooled))
	for i, v := range pooled {
		ranks[i] = twoRank(v)
	}
	n1, n2 := len(x1), len(x2)
	obs := 0
	for _, r := range ranks[:n1] {
		obs += r
	}
	if obs-n1*(n1+1) == n1*n2 { // 2·U1 = n1·n2: U1 = U2
		return 1
	}
	var le, ge, total float64
	var walk func(start, left, sum int)
	walk = func(start, left, sum int) {
		if left == 0 {
			total++
			if sum <= obs {
				le++
			}
			if sum >= obs {
				ge++
			}
			return
		}
		for i := start; i <= len(ranks)-left; i++ {
			walk(i+1, left-1, sum+ranks[i])
		}
	}
	walk(0, n1, 0)
	return math.Min(1, 2*math.Min(le, ge)/total)
}

// TestPZeroImpossible: samples of 3 against 2 can never give p below 0.2,
// and no p is ever below the smallest attainable one. benchmath gave p=0
// for the first two (issue 21).
func TestPZeroImpossible(t *testing.T) {
	tests := []struct {
		base, new []float64
		p         float64
	}{
		{[]float64{50, 50, 50}, []float64{33.3, 33.3}, 0.2},
		{[]float64{100, 100, 100}, []float64{100, 50}, 0.8},
		{[]float64{100, 100, 100}, []float64{50, 50}, 0.2},
		{[]float64{33.3, 33.3}, []float64{50, 50, 50}, 0.2},
		{[]float64{1, 1, 2}, []float64{3, 3}, 0.2},
	}
	for _, tt := range tests {
		_, _, c := analyzePair(t, Metric{Unit: Percent, Direction: HigherIsBetter}, tt.base, tt.new, Options{})
		if math.Abs(c.P-tt.p) > 1e-12 || c.Significant || c.MinP != 0.2 {
			t.Errorf("%v vs %v: p=%v significant=%v minP=%v; want p=%v, not significant", tt.base, tt.new, c.P, c.Significant, c.MinP, tt.p)
		}
		fam, err := AnalyzeFamily([]Cell{{Key: "x", Callable: true, Floor: NoFloor, Input: Input{
			Metric: Metric{Unit: Percent}, Baseline: "a", Samples: map[string][]float64{"a": tt.base, "b": tt.new}}}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fc, _ := fam.Change("x", "b"); fc.Called || fc.InFamily || fam.M != 0 {
			t.Errorf("%v vs %v: family called=%v inFamily=%v m=%d", tt.base, tt.new, fc.Called, fc.InFamily, fam.M)
		}
	}
}

// TestUTestTiesAgainstEnumeration checks the exact p with ties against a
// full enumeration of the splits, on random small samples with heavy ties,
// and the bound p ≥ UTestMinP.
func TestUTestTiesAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for range 300 {
		n1, n2 := 1+rng.IntN(6), 1+rng.IntN(6)
		levels := 1 + rng.IntN(4)
		draw := func(n int) []float64 {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(rng.IntN(levels))
			}
			return x
		}
		x1, x2 := draw(n1), draw(n2)
		_, p, err := uTest(x1, x2)
		if err != nil {
			if err != errSamplesEqual {
				t.Fatal(err)
			}
			continue
		}
		want := tailPermutationP(x1, x2)
		if math.Abs(p-want) > 1e-9 {
			t.Fatalf("%v vs %v: p=%v, enumeration %v", x1, x2, p, want)
		}
		if p < UTestMinP(n1, n2)*(1-1e-9) {
			t.Fatalf("%v vs %v: p=%v below the smallest attainable %v", x1, x2, p, UTestMinP(n1, n2))
		}
	}
}

// TestUTestMatchesBenchmathWithoutTies: without ties the p is the one
// benchmath (go-moremath) gives.
func TestUTestMatchesBenchmathWithoutTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n1, n2 := 2+rng.IntN(12), 2+rng.IntN(12)
		x1, x2 := make([]float64, n1), make([]float64, n2)
		for i := range x1 {
			x1[i] = rng.NormFloat64()
		}
		for i := range x2 {
			x2[i] = rng.NormFloat64() + 0.7
		}
		_, p, err := uTest(x1, x2)
		if err != nil {
			t.Fatal(err)
		}
		r, err := stats.MannWhitneyUTest(x1, x2, stats.LocationDiffers)
		if err != nil {
			t.Fatal(err)
		}
		if want := r.P; math.Abs(p-want) > 1e-9 {
			t.Fatalf("n=%d+%d: p=%v, go-moremath %v", n1, n2, p, want)
		}
	}
}

// TestUTestMinP checks the table of the doc comments.
func TestUTestMinP(t *testing.T) {
	for n, want := range map[int]float64{3: 0.1, 4: 0.0286, 5: 0.00794, 6: 0.00216, 7: 0.000583, 8: 0.000155, 10: 0.0000108} {
		if got := UTestMinP(n, n); math.Abs(got-want)/want > 0.005 {
			t.Errorf("UTestMinP(%d, %d) = %.4g, want %.4g", n, n, got, want)
		}
	}
	if got := UTestMinP(3, 2); got != 0.2 {
		t.Errorf("UTestMinP(3, 2) = %v, want 0.2", got)
	}
}
