package compare

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

const (
	need6 = "need >= 6 samples for confidence interval at level 0.95"
	need4 = "need >= 4 samples to detect a difference at alpha level 0.05"
)

// analyzePair compares new with base ("base" is the baseline).
func analyzePair(t *testing.T, m Metric, base, new []float64, opts Options) (Summary, Summary, Change) {
	t.Helper()
	res, err := Analyze(Input{Metric: m, Baseline: "base", Samples: map[string][]float64{"base": base, "new": new}}, opts)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	if len(res.Targets) != 2 || len(res.Changes) != 1 {
		t.Fatalf("result has %d targets and %d changes, want 2 and 1", len(res.Targets), len(res.Changes))
	}
	return res.Targets[0], res.Targets[1], res.Changes[0]
}

func seq(from, to float64) []float64 {
	var s []float64
	for v := from; v <= to; v++ {
		s = append(s, v)
	}
	return s
}

// binomial returns C(n, k) as a float64.
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// permutationP computes the two-sided exact Mann-Whitney p-value by
// enumerating every way to split the pooled sample into groups of the
// original sizes: twice the probability of a U at most as large as the
// smaller of the observed U1 and U2 (1 when U1 = U2), with mid-ranks for
// ties. This is the definition go-moremath uses, computed independently.
func permutationP(x1, x2 []float64) float64 {
	pooled := append(slices.Clone(x1), x2...)
	sorted := slices.Clone(pooled)
	slices.Sort(sorted)
	rank := func(v float64) float64 { // mid-rank of v in the pooled sample
		first := slices.Index(sorted, v)
		last := first
		for last+1 < len(sorted) && sorted[last+1] == v {
			last++
		}
		return float64(first+last)/2 + 1
	}
	ranks := make([]float64, len(pooled))
	for i, v := range pooled {
		ranks[i] = rank(v)
	}
	n1, n2 := len(x1), len(x2)
	u := func(rankSum float64) float64 { return rankSum - float64(n1*(n1+1))/2 }
	observed := 0.0
	for _, r := range ranks[:n1] {
		observed += r
	}
	u1 := u(observed)
	u2 := float64(n1*n2) - u1
	if u1 == u2 {
		return 1
	}
	usmall := math.Min(u1, u2)
	var count, total float64
	var walk func(start, left int, sum float64)
	walk = func(start, left int, sum float64) {
		if left == 0 {
			total++
			if u(sum) <= usmall+1e-9 {
				count++
			}
			return
		}
		for i := start; i <= len(ranks)-left; i++ {
			walk(i+1, left-1, sum+ranks[i])
		}
	}
	walk(0, n1, 0)
	return 2 * count / total
}

func TestUTestAgainstPermutation(t *testing.T) {
	tests := []struct {
		name      string
		base, new []float64
	}{
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}},
		{"separated 5+5", []float64{10.1, 10.4, 10.2, 10.3, 10.5}, []float64{9.1, 9.3, 9.2, 9.0, 9.4}},
		{"overlapping 6+6", []float64{1, 3, 5, 7, 9, 11}, []float64{2, 4, 6, 8, 10, 12}},
		{"unequal 4+7", []float64{3.1, 2.7, 3.3, 2.9}, []float64{3.0, 3.4, 3.6, 3.2, 3.8, 3.5, 3.9}},
		{"ties 5+6", []float64{1, 2, 2, 3, 4}, []float64{2, 3, 3, 5, 6, 7}},
		{"ties 4+5", []float64{10, 10, 11, 12}, []float64{11, 12, 12, 13, 14}},
		{"ties 8+8", []float64{1, 2, 2, 3, 3, 3, 4, 5}, []float64{3, 3, 4, 4, 5, 5, 6, 7}},
		{"constant sides 5+5", []float64{5, 5, 5, 5, 5}, []float64{6, 6, 6, 6, 6}},
		{"negative 6+6", []float64{-3.5, -2.5, -4, -3, -2.8, -3.3}, []float64{-1, -1.5, -2.6, -0.5, -2, -1.2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, c := analyzePair(t, Metric{Unit: Seconds}, tt.base, tt.new, Options{})
			want := permutationP(tt.base, tt.new)
			if math.Abs(c.P-want) > 1e-9 {
				t.Errorf("P = %v, permutation test gives %v", c.P, want)
			}
			if c.Significant != (want <= 0.05) {
				t.Errorf("Significant = %v with p = %v", c.Significant, want)
			}
		})
	}
}

// TestUTestKnownValues checks p-values known in closed form: two samples
// of n values with no overlap give the smallest two-sided p, 2/C(2n, n)
// (0.1, 0.0286, 0.00794, 0.00216 for n = 3..6, as R's wilcox.test).
func TestUTestKnownValues(t *testing.T) {
	known := map[int]float64{1: 1, 2: 1.0 / 3, 3: 0.1, 4: 2.0 / 70, 5: 2.0 / 252, 6: 2.0 / 924}
	for n := 1; n <= 6; n++ {
		base := seq(1, float64(n))
		new := seq(101, float64(100+n))
		_, _, c := analyzePair(t, Metric{Unit: Milliseconds}, base, new, Options{})
		if math.Abs(c.P-known[n]) > 1e-12 {
			t.Errorf("n=%d: P = %v, want %v", n, c.P, known[n])
		}
		if got := uTestMinP(n, n); math.Abs(got-known[n]) > 1e-12 {
			t.Errorf("uTestMinP(%d, %d) = %v, want %v", n, n, got, known[n])
		}
	}
}

// TestUTestNormalApproximation checks a large sample (normal
// approximation in go-moremath) against the textbook formula with
// continuity correction, computed here.
func TestUTestNormalApproximation(t *testing.T) {
	var base, new []float64
	for i := range 60 {
		base = append(base, float64(i)*1.0)
		new = append(new, float64(i)*1.0+6.5) // interleaved, no ties
	}
	_, _, c := analyzePair(t, Metric{Unit: Seconds}, base, new, Options{})
	// U1 for base: count of pairs (b, n) with b > n.
	u1 := 0.0
	for _, b := range base {
		for _, x := range new {
			if b > x {
				u1++
			}
		}
	}
	n1, n2 := float64(len(base)), float64(len(new))
	mu := n1 * n2 / 2
	sigma := math.Sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
	z := (math.Abs(u1-mu) - 0.5) / sigma
	want := math.Erfc(z / math.Sqrt2) // two-sided: 2 * (1 - Φ(z))
	if math.Abs(c.P-want) > 1e-9 {
		t.Errorf("P = %v, normal approximation gives %v", c.P, want)
	}
	if !strings.HasPrefix(c.Stats, "p=0.") || !strings.HasSuffix(c.Stats, " n=60") {
		t.Errorf("Stats = %q", c.Stats)
	}
}

// binomialCoverage is the probability that the population median lies
// between the l-th and the h-th order statistics (1-based) of n samples.
func binomialCoverage(n, l, h int) float64 {
	sum := 0.0
	for k := l; k < h; k++ {
		sum += binomial(n, k)
	}
	return sum / math.Pow(2, float64(n))
}

func TestMedianCIAgainstBinomial(t *testing.T) {
	for n := 1; n <= 30; n++ {
		// Values n, n-1, …, 1 in repetition order: the i-th smallest
		// is i, so the bounds name their order statistics.
		var values []float64
		for v := n; v >= 1; v-- {
			values = append(values, float64(v))
		}
		res, err := Analyze(Input{Metric: Metric{Unit: Seconds}, Samples: map[string][]float64{"t": values}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Targets[0]
		wantMedian := float64(n+1) / 2
		if s.Center != wantMedian || s.Min != 1 || s.Max != float64(n) || s.N != n {
			t.Errorf("n=%d: center %v min %v max %v N %d, want %v 1 %d %d", n, s.Center, s.Min, s.Max, s.N, wantMedian, n, n)
		}
		if !slices.Equal(s.Values, values) {
			t.Errorf("n=%d: Values %v are not the samples in repetition order %v", n, s.Values, values)
		}
		// The shortest interval of order statistics that reaches 95 %.
		bestWidth := -1
		for w := 1; w <= n-1 && bestWidth < 0; w++ {
			for l := 1; l+w <= n; l++ {
				if binomialCoverage(n, l, l+w) >= 0.95 {
					bestWidth = w
					break
				}
			}
		}
		if bestWidth < 0 {
			if s.HasCI() || s.PctRange != "∞" || !slices.Equal(s.Warnings, []string{need6}) {
				t.Errorf("n=%d: no 95 %% interval exists, got [%v, %v] range %q warnings %q", n, s.Lo, s.Hi, s.PctRange, s.Warnings)
			}
			if n >= 6 {
				t.Errorf("n=%d: binomial says no interval; expected one from n=6", n)
			}
			continue
		}
		if !s.HasCI() || len(s.Warnings) != 0 {
			t.Errorf("n=%d: want a 95 %% interval, got [%v, %v] warnings %q", n, s.Lo, s.Hi, s.Warnings)
			continue
		}
		l, h := int(s.Lo), int(s.Hi)
		if h-l != bestWidth {
			t.Errorf("n=%d: interval [%d, %d] is not of the shortest width %d", n, l, h, bestWidth)
		}
		if cov := binomialCoverage(n, l, h); math.Abs(cov-s.Confidence) > 1e-9 || cov < 0.95 {
			t.Errorf("n=%d: Confidence %v, binomial coverage of [%d, %d] is %v", n, s.Confidence, l, h, cov)
		}
		if s.Lo > s.Center || s.Hi < s.Center {
			t.Errorf("n=%d: interval [%v, %v] does not hold the median %v", n, s.Lo, s.Hi, s.Center)
		}
	}
}

func TestMedianCIKnownValues(t *testing.T) {
	// n=10: the 2nd and 9th order statistics, coverage
	// 1 - 2*(C(10,0)+C(10,1))/2^10 = 0.978515625.
	values := []float64{13, 11, 17, 12, 19, 14, 16, 10, 15, 18}
	res, err := Analyze(Input{Metric: Metric{Unit: Seconds}, Samples: map[string][]float64{"t": values}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Targets[0]
	if s.Center != 14.5 || s.Lo != 11 || s.Hi != 18 || s.Confidence != 0.978515625 {
		t.Errorf("n=10: median %v in [%v, %v] at %v, want 14.5 in [11, 18] at 0.978515625", s.Center, s.Lo, s.Hi, s.Confidence)
	}
	// PctRange is max(18/14.5-1, 1-11/14.5) = 24.1 % → "24%".
	if s.PctRange != "24%" {
		t.Errorf("PctRange = %q, want 24%%", s.PctRange)
	}
	// The input is not reordered.
	if !slices.Equal(values, []float64{13, 11, 17, 12, 19, 14, 16, 10, 15, 18}) {
		t.Errorf("Analyze changed its input: %v", values)
	}

	// A lower confidence level gives a narrower interval: n=5 at 0.90
	// uses the 1st and 5th values (coverage 1 - 2/32 = 0.9375).
	res, err = Analyze(Input{Metric: Metric{Unit: Seconds}, Samples: map[string][]float64{"t": {5, 1, 4, 2, 3}}}, Options{Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	s = res.Targets[0]
	if s.Lo != 1 || s.Hi != 5 || s.Confidence != 0.9375 || len(s.Warnings) != 0 {
		t.Errorf("n=5 at 0.9: [%v, %v] at %v warnings %q, want [1, 5] at 0.9375", s.Lo, s.Hi, s.Confidence, s.Warnings)
	}
}

func TestSampleSizes(t *testing.T) {
	m := Metric{Unit: Seconds, Direction: LowerIsBetter}
	tests := []struct {
		name        string
		base, new   []float64
		opts        Options
		significant bool
		changeWarn  []string
		stats       string
	}{
		{"n=1", []float64{1}, []float64{2}, Options{}, false, []string{need4}, "p=1.000 n=1"},
		{"n=2", []float64{1, 1.1}, []float64{2, 2.1}, Options{}, false, []string{need4}, "p=0.333 n=2"},
		{"n=3", []float64{1, 1.1, 1.2}, []float64{2, 2.1, 2.2}, Options{}, false, []string{need4}, "p=0.100 n=3"},
		{"n=3+4", []float64{1, 1.1, 1.2}, []float64{2, 2.1, 2.2, 2.3}, Options{}, false,
			[]string{"need more samples to detect a difference at alpha level 0.05: the smallest p-value possible with n=3+4 is 0.057"}, "p=0.057 n=3+4"},
		{"n=1+10", []float64{1}, seq(2, 11), Options{}, false,
			[]string{"need more samples to detect a difference at alpha level 0.05: the smallest p-value possible with n=1+10 is 0.182"}, "p=0.182 n=1+10"},
		{"n=3+5", []float64{1, 1.1, 1.2}, []float64{2, 2.1, 2.2, 2.3, 2.4}, Options{}, true, nil, "p=0.036 n=3+5"},
		{"n=4", []float64{1, 1.1, 1.2, 1.3}, []float64{2, 2.1, 2.2, 2.3}, Options{}, true, nil, "p=0.029 n=4"},
		{"n=5", []float64{1, 1.1, 1.2, 1.3, 1.4}, []float64{2, 2.1, 2.2, 2.3, 2.4}, Options{}, true, nil, "p=0.008 n=5"},
		{"n=6", seq(1, 6), seq(11, 16), Options{}, true, nil, "p=0.002 n=6"},
		// p for n=3 is 0.1 up to rounding, so alpha 0.1 would be a
		// coin toss.
		{"n=3 alpha 0.11", []float64{1, 1.1, 1.2}, []float64{2, 2.1, 2.2}, Options{Alpha: 0.11}, true, nil, "p=0.100 n=3"},
		{"n=2 alpha 0.11", []float64{1, 1.1}, []float64{2, 2.1}, Options{Alpha: 0.11}, false,
			[]string{"need >= 3 samples to detect a difference at alpha level 0.11"}, "p=0.333 n=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, n, c := analyzePair(t, m, tt.base, tt.new, tt.opts)
			for _, s := range []Summary{b, n} {
				var want []string
				if s.N < 6 {
					want = []string{need6}
				}
				if !slices.Equal(s.Warnings, want) {
					t.Errorf("%s (n=%d) summary warnings %q; want %q", s.Target, s.N, s.Warnings, want)
				}
			}
			if !slices.Equal(c.Warnings, tt.changeWarn) {
				t.Errorf("change warnings %q; want %q", c.Warnings, tt.changeWarn)
			}
			if c.Stats != tt.stats || c.Significant != tt.significant {
				t.Errorf("change %s significant %v; want stats %q significant %v", c, c.Significant, tt.stats, tt.significant)
			}
			wantVerdict, wantDelta := NotSignificant, "~"
			if tt.significant {
				wantVerdict = Worse // new is slower
				wantDelta = "+"
			}
			if c.Verdict != wantVerdict || !strings.HasPrefix(c.Delta, wantDelta) {
				t.Errorf("verdict %v delta %q; want %v and a delta starting %q", c.Verdict, c.Delta, wantVerdict, wantDelta)
			}
		})
	}
}

func TestAllEqualAndTies(t *testing.T) {
	m := Metric{Unit: Count, Direction: HigherIsBetter}

	// All samples of both sides equal: benchstat reports p=1.
	b, n, c := analyzePair(t, m, []float64{7, 7, 7, 7, 7, 7}, []float64{7, 7, 7, 7, 7, 7}, Options{})
	if c.P != 1 || c.String() != "~ (p=1.000 n=6)" || !slices.Equal(c.Warnings, []string{"all samples are equal"}) {
		t.Errorf("all equal: %s warnings %q, want ~ (p=1.000 n=6) with \"all samples are equal\"", c, c.Warnings)
	}
	if c.Verdict != NotSignificant || c.Ratio != 1 || c.Percent != 0 || c.Text() != "~" {
		t.Errorf("all equal: verdict %v ratio %v percent %v text %q", c.Verdict, c.Ratio, c.Percent, c.Text())
	}
	if b.PctRange != "0%" || n.Lo != 7 || n.Hi != 7 {
		t.Errorf("all equal: range %q, interval [%v, %v]", b.PctRange, n.Lo, n.Hi)
	}

	// Each side constant, but the sides differ: ties within the sides do
	// not prevent a significant result.
	_, _, c = analyzePair(t, m, []float64{5, 5, 5, 5, 5}, []float64{6, 6, 6, 6, 6}, Options{})
	if !c.Significant || c.Verdict != Better || c.Delta != "+20.00%" {
		t.Errorf("constant sides: %s verdict %v, want a significant +20.00%%", c, c.Verdict)
	}

	// Ties across the sides and equal medians, not significant.
	_, _, c = analyzePair(t, m, []float64{1, 2, 3, 3, 3, 4, 5}, []float64{2, 3, 3, 3, 4}, Options{})
	if c.Significant || c.Verdict != NotSignificant || c.Ratio != 1 || len(c.Warnings) != 0 {
		t.Errorf("tied, equal medians: %s verdict %v ratio %v warnings %q", c, c.Verdict, c.Ratio, c.Warnings)
	}
}

func TestExactMetrics(t *testing.T) {
	rows := Metric{Name: "rows", Unit: "rows", Exact: true, Direction: Neutral}

	b, n, c := analyzePair(t, rows, []float64{10000, 10000, 10000}, []float64{10000, 10000, 10000}, Options{})
	if c.Significant || c.Verdict != Same || c.String() != "0.00% (n=3)" || c.Text() != "=" || len(c.Warnings) != 0 {
		t.Errorf("equal: %s verdict %v text %q warnings %q", c, c.Verdict, c.Text(), c.Warnings)
	}
	if b.PctRange != "0%" || n.Confidence != 1 || len(b.Warnings)+len(n.Warnings) != 0 {
		t.Errorf("equal: summaries %+v %+v", b, n)
	}
	if got := c.Detail(); got != "10,000 rows → 10,000 rows, =" {
		t.Errorf("equal: Detail = %q", got)
	}

	// A single repetition against three: no test, the values differ.
	_, _, c = analyzePair(t, rows, []float64{10000}, []float64{10001, 10001, 10001}, Options{})
	if !c.Significant || c.Verdict != Higher || c.String() != "+0.01% (n=1+3)" || c.Ratio != 1.0001 {
		t.Errorf("unequal: %s verdict %v ratio %v", c, c.Verdict, c.Ratio)
	}
	if got := c.Detail(); got != "10,000 rows → 10,001 rows, +0.01 %" {
		t.Errorf("unequal: Detail = %q", got)
	}
	_, _, c = analyzePair(t, Metric{Unit: Count, Exact: true, Direction: LowerIsBetter}, []float64{2000000}, []float64{1999999}, Options{})
	if c.Verdict != Better || c.Text() != "−1" || c.Detail() != "2,000,000 → 1,999,999, −1" {
		t.Errorf("tiny exact change: verdict %v text %q detail %q", c.Verdict, c.Text(), c.Detail())
	}

	// An exact metric that varied: the most frequent value, with
	// benchstat's warning.
	b, _, c = analyzePair(t, rows, []float64{7, 9, 9, 9, 8}, []float64{9, 9, 9, 9, 9}, Options{})
	if b.Center != 9 || b.Min != 7 || b.Max != 9 || !slices.Equal(b.Warnings, []string{"exact distribution expected, but values range from 7 to 9"}) {
		t.Errorf("varied: summary %+v", b)
	}
	if c.Verdict != Same || c.String() != "0.00% (n=5)" {
		t.Errorf("varied: %s verdict %v", c, c.Verdict)
	}
	if got := FormatSummary(b, rows); got != "9 rows (7 rows … 9 rows)" {
		t.Errorf("varied: FormatSummary = %q", got)
	}
}

func TestBaselineZero(t *testing.T) {
	m := Metric{Unit: Bytes, Direction: LowerIsBetter}
	_, _, c := analyzePair(t, m, []float64{0, 0, 0, 0, 0, 0}, []float64{1024, 2048, 3072, 1024, 2048, 3072}, Options{})
	if !c.Significant || c.Delta != "?" || !math.IsNaN(c.Ratio) || !math.IsNaN(c.Percent) {
		t.Errorf("0 → 2 kB: %s ratio %v percent %v", c, c.Ratio, c.Percent)
	}
	if c.Verdict != Worse || c.Text() != "?" || c.Detail() != "0 bytes → 2 kB" {
		t.Errorf("0 → 2 kB: verdict %v text %q detail %q", c.Verdict, c.Text(), c.Detail())
	}

	_, _, c = analyzePair(t, m, []float64{0, 0, 0}, []float64{0, 0, 0}, Options{})
	if c.Ratio != 1 || c.Percent != 0 || c.Delta != "~" || c.P != 1 {
		t.Errorf("0 → 0: %s ratio %v percent %v", c, c.Ratio, c.Percent)
	}
}

func TestNegativeValues(t *testing.T) {
	m := Metric{Unit: Milliseconds, Direction: HigherIsBetter}
	b, _, c := analyzePair(t, m, []float64{-10, -11, -9, -10.5, -9.5, -10}, []float64{-5, -5.5, -4.5, -5, -4, -6}, Options{})
	if b.Center != -10 || b.PctRange == "?" {
		t.Errorf("baseline summary %+v", b)
	}
	// benchstat's delta is new/old-1 (-50%); Percent follows the sign of
	// the difference.
	if !c.Significant || c.Delta != "-50.00%" || c.Ratio != 0.5 || c.Percent != 50 || c.Verdict != Better {
		t.Errorf("−10 → −5: %s ratio %v percent %v verdict %v", c, c.Ratio, c.Percent, c.Verdict)
	}
	if c.Text() != "+50 %" || c.Detail() != "−10 ms → −5 ms, +50 %" {
		t.Errorf("−10 → −5: text %q detail %q", c.Text(), c.Detail())
	}

	// An interval that spans zero cannot be printed as a percentage.
	res, err := Analyze(Input{Metric: m, Samples: map[string][]float64{"t": {-2, -1, 0.5, 1, 2, 3}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Targets[0]; s.PctRange != "?" || s.Center != 0.75 {
		t.Errorf("interval spanning zero: center %v range %q", s.Center, s.PctRange)
	}
}

func TestVerdicts(t *testing.T) {
	up := [2][]float64{seq(10, 15), seq(20, 25)}
	down := [2][]float64{seq(20, 25), seq(10, 15)}
	tests := []struct {
		metric  Metric
		samples [2][]float64
		verdict Verdict
		word    string
	}{
		{Metric{Unit: TPS, Direction: HigherIsBetter}, up, Better, "faster"},
		{Metric{Unit: TPS, Direction: HigherIsBetter}, down, Worse, "slower"},
		{Metric{Unit: MegabytesPerSecond, Direction: HigherIsBetter}, up, Better, "faster"},
		{Metric{Unit: Seconds, Direction: LowerIsBetter}, down, Better, "faster"},
		{Metric{Unit: Milliseconds, Direction: LowerIsBetter}, up, Worse, "slower"},
		{Metric{Unit: Bytes, Direction: LowerIsBetter}, down, Better, "better"},
		{Metric{Unit: Bytes, Direction: LowerIsBetter}, up, Worse, "worse"},
		{Metric{Unit: Percent, Direction: HigherIsBetter}, up, Better, "better"},
		{Metric{Unit: Count, Direction: Neutral}, up, Higher, "higher"},
		{Metric{Unit: Seconds, Direction: Neutral}, down, Lower, "lower"},
		{Metric{Unit: Seconds, Direction: HigherIsBetter}, up, Better, "better"},
	}
	for _, tt := range tests {
		_, _, c := analyzePair(t, tt.metric, tt.samples[0], tt.samples[1], Options{})
		if c.Verdict != tt.verdict || c.Word() != tt.word {
			t.Errorf("%s %v %v: verdict %v word %q, want %v %q", tt.metric.Unit, tt.metric.Direction, tt.samples, c.Verdict, c.Word(), tt.verdict, tt.word)
		}
	}
}

func TestNoSamples(t *testing.T) {
	m := Metric{Unit: Seconds, Direction: LowerIsBetter}
	res, err := Analyze(Input{
		Metric:   m,
		Baseline: "pg16",
		Order:    []string{"pg16", "pg17", "pg18"},
		Samples:  map[string][]float64{"pg16": seq(1, 6), "pg17": nil},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pg17", "pg18"} {
		s, ok := res.Target(name)
		if !ok || s.N != 0 || !math.IsNaN(s.Center) || s.HasCI() || !slices.Equal(s.Warnings, []string{"no samples"}) || FormatSummary(s, m) != "?" {
			t.Errorf("%s: summary %+v", name, s)
		}
		c, ok := res.Change(name)
		if !ok || c.Verdict != Unknown || !math.IsNaN(c.P) || c.String() != "? (n=6+0)" || c.Word() != "?" ||
			!slices.Equal(c.Warnings, []string{"no samples for " + name}) || c.Detail() != "3.5 s → ?" {
			t.Errorf("%s: change %s verdict %v warnings %q detail %q", name, c, c.Verdict, c.Warnings, c.Detail())
		}
	}

	// A baseline without samples: every comparison is Unknown.
	res, err = Analyze(Input{Metric: m, Baseline: "old", Samples: map[string][]float64{"new": seq(1, 6)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != 2 || res.Targets[0].Target != "old" || len(res.Changes) != 1 || res.Changes[0].Verdict != Unknown {
		t.Errorf("missing baseline: %+v", res)
	}
}

func TestOrder(t *testing.T) {
	samples := map[string][]float64{"b": {1}, "a": {2}, "pg17": {3}, "pg16": {4}}
	names := func(res *Result) (targets, changes []string) {
		for _, s := range res.Targets {
			targets = append(targets, s.Target)
		}
		for _, c := range res.Changes {
			changes = append(changes, c.Target)
		}
		return targets, changes
	}
	tests := []struct {
		baseline       string
		order          []string
		targets, comps []string
	}{
		{"pg17", nil, []string{"pg17", "a", "b", "pg16"}, []string{"a", "b", "pg16"}},
		{"", nil, []string{"a", "b", "pg16", "pg17"}, nil},
		{"pg16", []string{"pg17", "pg16"}, []string{"pg17", "pg16", "a", "b"}, []string{"pg17", "a", "b"}},
		{"a", []string{"pg16"}, []string{"pg16", "a", "b", "pg17"}, []string{"pg16", "b", "pg17"}},
	}
	for _, tt := range tests {
		res, err := Analyze(Input{Metric: Metric{Unit: TPS}, Baseline: tt.baseline, Order: tt.order, Samples: samples}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		targets, comps := names(res)
		if !slices.Equal(targets, tt.targets) || !slices.Equal(comps, tt.comps) {
			t.Errorf("baseline %q order %q: targets %q changes %q; want %q %q", tt.baseline, tt.order, targets, comps, tt.targets, tt.comps)
		}
		if res.Baseline != tt.baseline || res.Alpha != DefaultAlpha || res.Confidence != DefaultConfidence {
			t.Errorf("result header %q %v %v", res.Baseline, res.Alpha, res.Confidence)
		}
	}
}

func TestAnalyzeErrors(t *testing.T) {
	ok := map[string][]float64{"a": {1, 2}, "b": {3, 4}}
	tests := []struct {
		name string
		in   Input
		opts Options
		want string
	}{
		{"no targets", Input{Metric: Metric{Name: "tps"}}, Options{}, `compare "tps": no targets`},
		{"NaN", Input{Samples: map[string][]float64{"a": {1, math.NaN()}}}, Options{}, `target "a", repetition 2: value NaN is not a finite number`},
		{"Inf", Input{Samples: map[string][]float64{"a": {math.Inf(-1)}}}, Options{}, `value -Inf is not a finite number`},
		{"empty name", Input{Samples: map[string][]float64{"": {1}}}, Options{}, "empty name"},
		{"empty name in order", Input{Order: []string{""}, Samples: ok}, Options{}, "empty name"},
		{"repeated order", Input{Order: []string{"a", "b", "a"}, Samples: ok}, Options{}, `target "a" appears twice`},
		{"alpha", Input{Samples: ok}, Options{Alpha: 1.5}, "alpha 1.5 must be in (0, 1)"},
		{"negative alpha", Input{Samples: ok}, Options{Alpha: -0.05}, "alpha -0.05 must be in (0, 1)"},
		{"confidence", Input{Samples: ok}, Options{Confidence: 1}, "confidence 1 must be in (0, 1)"},
		{"NaN confidence", Input{Samples: ok}, Options{Confidence: math.NaN()}, "confidence NaN must be in (0, 1)"},
	}
	for _, tt := range tests {
		res, err := Analyze(tt.in, tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Analyze = %v, %v; want an error containing %q", tt.name, res, err, tt.want)
		}
	}
}

func TestGeomeanErrorsAndOrder(t *testing.T) {
	mk := func(m Metric, baseline string, samples map[string][]float64) *Result {
		res, err := Analyze(Input{Metric: m, Baseline: baseline, Samples: samples}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tps := Metric{Unit: TPS, Direction: HigherIsBetter}
	r1 := mk(tps, "pg16", map[string][]float64{"pg16": {100, 110}, "pg17": {200, 220}})
	r2 := mk(tps, "pg16", map[string][]float64{"pg16": {400, 440}, "pg18": {100, 110}, "pg17": {200, 220}})

	if _, err := Geomean(nil); err == nil {
		t.Error("Geomean(nil) succeeded")
	}
	if _, err := Geomean([]*Result{r1, nil}); err == nil {
		t.Error("Geomean with a nil result succeeded")
	}
	if _, err := Geomean([]*Result{r1, mk(Metric{Unit: Seconds}, "pg16", map[string][]float64{"pg16": {1}})}); err == nil || !strings.Contains(err.Error(), "unit") {
		t.Errorf("mixed units: %v", err)
	}
	if _, err := Geomean([]*Result{r1, mk(tps, "pg17", map[string][]float64{"pg17": {1}})}); err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("mixed baselines: %v", err)
	}

	row, err := Geomean([]*Result{r1, r2})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range row.Targets {
		names = append(names, g.Target)
	}
	if !slices.Equal(names, []string{"pg16", "pg17", "pg18"}) {
		t.Fatalf("targets %q", names)
	}
	// pg16: sqrt(105*420) = 210; pg17: ratios 2 and 0.5 → 1.
	g16, g17, g18 := row.Targets[0], row.Targets[1], row.Targets[2]
	if math.Abs(g16.Value-210) > 1e-9 || g16.HasRatio || g16.Delta != "" || g16.Cases != 2 {
		t.Errorf("pg16: %+v", g16)
	}
	if math.Abs(g17.Value-210) > 1e-9 || !g17.HasRatio || math.Abs(g17.Ratio-1) > 1e-12 || g17.Delta != "+0.00%" || len(g17.Warnings) != 0 {
		t.Errorf("pg17: %+v", g17)
	}
	if math.Abs(g18.Ratio-0.25) > 1e-12 || g18.Delta != "-75.00%" || g18.Percent != -75 ||
		!slices.Equal(g18.Warnings, []string{"benchmark set differs from baseline; geomeans may not be comparable"}) {
		t.Errorf("pg18: %+v", g18)
	}
}

func TestParseDirection(t *testing.T) {
	for in, want := range map[string]Direction{"": Neutral, "neutral": Neutral, "Higher": HigherIsBetter, "higher-is-better": HigherIsBetter, " lower ": LowerIsBetter, "down": LowerIsBetter} {
		got, err := ParseDirection(in)
		if err != nil || got != want {
			t.Errorf("ParseDirection(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseDirection(got.String()); err != nil || back != got {
			t.Errorf("ParseDirection(%v.String()) = %v, %v", got, back, err)
		}
	}
	if _, err := ParseDirection("sideways"); err == nil {
		t.Error(`ParseDirection("sideways") succeeded`)
	}
}

// BenchmarkAnalyze measures one case: three targets of 20 repetitions,
// without ties between the values and with many (the exact U distribution
// with ties costs much more).
func BenchmarkAnalyze(b *testing.B) {
	for _, tc := range []struct {
		name string
		jit  float64
	}{{"distinct", 0.001}, {"ties", 0}} {
		in := Input{Metric: Metric{Unit: TPS, Direction: HigherIsBetter}, Baseline: "pg16", Samples: map[string][]float64{}}
		for i, name := range []string{"pg16", "pg17", "pg18"} {
			for r := range 20 {
				in.Samples[name] = append(in.Samples[name], 1000+float64(i*7)+float64((r*37)%20)+float64(i)*tc.jit)
			}
		}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Analyze(in, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestTextMarshaling(t *testing.T) {
	type doc struct {
		Metric  Metric
		Verdict Verdict
	}
	in := doc{Metric: Metric{Name: "wal", Unit: Bytes, Direction: LowerIsBetter}, Verdict: Better}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"Direction":"lower"`) || !strings.Contains(string(data), `"Verdict":"better"`) {
		t.Errorf("JSON %s lacks the names", data)
	}
	var out doc
	if err := json.Unmarshal(data, &out); err != nil || out != in {
		t.Errorf("round trip: %+v, %v; want %+v", out, err, in)
	}
	for v := Unknown; v <= Lower; v++ {
		text, err := v.MarshalText()
		var back Verdict
		if err != nil || back.UnmarshalText(text) != nil || back != v {
			t.Errorf("verdict %d: %q %v → %v", int(v), text, err, back)
		}
	}
	if _, err := Verdict(99).MarshalText(); err == nil {
		t.Error("Verdict(99).MarshalText succeeded")
	}
	if _, err := Direction(7).MarshalText(); err == nil {
		t.Error("Direction(7).MarshalText succeeded")
	}
	if err := json.Unmarshal([]byte(`{"Direction":"sideways"}`), &Metric{}); err == nil {
		t.Error("unmarshalling direction \"sideways\" succeeded")
	}
}
