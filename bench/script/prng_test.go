package script

import (
	"errors"
	"math"
	"testing"
)

func TestPRNGSeeding(t *testing.T) {
	// pg_prng_seed fills the state with the first two splitmix64 outputs;
	// for seed 0 those are splitmix64's well-known first values.
	r := NewPRNG(0)
	if s0, s1 := r.State(); s0 != 0xe220a8397b1dcdaf || s1 != 0x6e789e6aa1b965f4 {
		t.Errorf("seed 0 state %#x %#x", s0, s1)
	}
	// An all-zero state is replaced (pg_prng_seed_check).
	r.SetState(0, 0)
	if s0, s1 := r.State(); s0 != 0x5851F42D4C957F2D || s1 != 0x14057B7EF767814F {
		t.Errorf("zero state became %#x %#x", s0, s1)
	}
	a, b := NewPRNG(5432), NewPRNG(5432)
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed, different sequences")
		}
	}
	saved := a
	x := a.Uint64()
	a = saved
	if a.Uint64() != x {
		t.Error("restoring a copied state does not replay the sequence")
	}
}

func TestPRNGRanges(t *testing.T) {
	r := NewPRNG(7)
	for i := 0; i < 100000; i++ {
		if v := r.Uint64Range(10, 13); v < 10 || v > 13 {
			t.Fatalf("Uint64Range(10, 13) = %d", v)
		}
		if v := r.Double(); v < 0 || v >= 1 {
			t.Fatalf("Double() = %v", v)
		}
		if v := r.Int64p(); v < 0 {
			t.Fatalf("Int64p() = %d", v)
		}
		if v := r.Int32p(); v < 0 {
			t.Fatalf("Int32p() = %d", v)
		}
	}
	if v := r.Uint64Range(5, 5); v != 5 {
		t.Errorf("empty range gave %d", v)
	}
	if v := r.Uint64Range(9, 3); v != 9 {
		t.Errorf("inverted range gave %d", v)
	}
	// The full range does not loop forever.
	_ = r.Uint64Range(0, math.MaxUint64)
}

func TestDeriveRunRandom(t *testing.T) {
	rr := DeriveRunRandom(12345, 3, 2, false)
	base := NewPRNG(12345)
	for i := 0; i < 3; i++ {
		if want := NewPRNG(base.Uint64()); rr.Clients[i] != want {
			t.Errorf("client %d state", i)
		}
	}
	if int64(base.Uint64()) != rr.DefaultSeed || !rr.HasDefaultSeed {
		t.Error("default_seed is not the draw after the clients")
	}
	for i := 0; i < 2; i++ {
		if rr.Threads[i].Choose != NewPRNG(base.Uint64()) || rr.Threads[i].Throttle != NewPRNG(base.Uint64()) ||
			rr.Threads[i].Sample != NewPRNG(base.Uint64()) {
			t.Errorf("thread %d states", i)
		}
	}
	if rr.Base != base {
		t.Error("base state after derivations")
	}
	// With -D default_seed nothing is drawn for it: the threads' states
	// follow the clients' directly.
	rr2 := DeriveRunRandom(12345, 3, 2, true)
	base = NewPRNG(12345)
	for i := 0; i < 3; i++ {
		base.Uint64()
	}
	if rr2.HasDefaultSeed || rr2.Threads[0].Choose != NewPRNG(base.Uint64()) {
		t.Error("thread states with -D default_seed")
	}
}

func TestParseRandomSeed(t *testing.T) {
	for s, want := range map[string]uint64{
		"12345": 12345, " 7": 7, "+9": 9, "0": 0,
		"-1":                   math.MaxUint64,
		"18446744073709551615": math.MaxUint64,
		"99999999999999999999": math.MaxUint64,
	} {
		got, err := ParseRandomSeed(s)
		if err != nil || got != want {
			t.Errorf("ParseRandomSeed(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"one", "", "1x", "12 ", "0x10"} {
		_, err := ParseRandomSeed(s)
		var se *RandomSeedError
		if !errors.As(err, &se) || err.Error() != `unrecognized random seed option "`+s+`"` ||
			se.Detail() != `Expecting an unsigned integer, "time" or "rand".` {
			t.Errorf("ParseRandomSeed(%q): %v", s, err)
		}
	}
	for _, s := range []string{"time", "rand"} {
		if _, err := ParseRandomSeed(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

const draws = 200000

func meanStd(f func() float64) (float64, float64) {
	var sum, sum2 float64
	for i := 0; i < draws; i++ {
		v := f()
		sum += v
		sum2 += v * v
	}
	m := sum / draws
	return m, math.Sqrt(sum2/draws - m*m)
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.5g, want %.5g ± %.3g", what, got, want, tol)
	}
}

func TestUniformDistribution(t *testing.T) {
	r := NewPRNG(1)
	counts := make([]int, 10)
	for i := 0; i < draws; i++ {
		v := r.Uniform(1, 10)
		if v < 1 || v > 10 {
			t.Fatalf("Uniform(1, 10) = %d", v)
		}
		counts[v-1]++
	}
	for i, c := range counts {
		within(t, "share of "+string(rune('1'+i)), float64(c)/draws, 0.1, 0.004)
	}
	m, _ := meanStd(func() float64 { return float64(r.Uniform(-5000, 5000)) })
	within(t, "mean of uniform(-5000, 5000)", m, 0, 20)
}

func TestExponentialDistribution(t *testing.T) {
	r := NewPRNG(2)
	const p = 5.0
	cut := math.Exp(-p)
	// The draw r = -ln(cut + (1-cut)u)/p is an exponential of rate p
	// truncated to [0, 1): its mean is 1/p - cut/(1-cut).
	wantMean := 1000 * (1/p - cut/(1-cut))
	lowShare := 0
	m, _ := meanStd(func() float64 {
		v := r.Exponential(0, 999, p)
		if v < 0 || v > 999 {
			t.Fatalf("Exponential = %d", v)
		}
		if v < 100 {
			lowShare++
		}
		return float64(v)
	})
	within(t, "mean", m, wantMean-0.5, 2)
	within(t, "share below 10%", float64(lowShare)/draws, (1-math.Exp(-p*0.1))/(1-cut), 0.005)
}

func TestGaussianDistribution(t *testing.T) {
	r := NewPRNG(3)
	const p = 2.5
	// A standard normal truncated to [-p, p) has variance
	// 1 - 2p·φ(p)/(2Φ(p)-1).
	phi := math.Exp(-p*p/2) / math.Sqrt(2*math.Pi)
	bigPhi := 0.5 * (1 + math.Erf(p/math.Sqrt2))
	sd := math.Sqrt(1 - 2*p*phi/(2*bigPhi-1))
	m, s := meanStd(func() float64 {
		v := r.Gaussian(0, 999, p)
		if v < 0 || v > 999 {
			t.Fatalf("Gaussian = %d", v)
		}
		return float64(v)
	})
	within(t, "mean", m, 499.5, 2)
	within(t, "stddev", s, 1000*sd/(2*p), 2)
}

func TestZipfianDistribution(t *testing.T) {
	r := NewPRNG(4)
	const n, s = 1000, 1.5
	var h float64
	for k := 1; k <= n; k++ {
		h += math.Pow(float64(k), -s)
	}
	counts := make([]int, n+1)
	for i := 0; i < draws; i++ {
		v := r.Zipfian(1, n, s)
		if v < 1 || v > n {
			t.Fatalf("Zipfian = %d", v)
		}
		counts[v]++
	}
	for _, k := range []int{1, 2, 3, 10} {
		want := math.Pow(float64(k), -s) / h
		within(t, "P("+string(rune('0'+k%10))+")", float64(counts[k])/draws, want, 0.01*want+0.001)
	}
	// A single-value range always gives its value.
	if v := r.Zipfian(7, 7, 2); v != 7 {
		t.Errorf("Zipfian(7, 7) = %d", v)
	}
}

func TestPoisson(t *testing.T) {
	r := NewPRNG(5)
	m, _ := meanStd(func() float64 { return float64(r.Poisson(1000)) })
	within(t, "mean delay", m, 1000, 10)
}

func TestPermuteIsAPermutation(t *testing.T) {
	for size := int64(1); size <= 200; size += 7 {
		seen := make(map[int64]bool)
		for v := int64(0); v < size; v++ {
			p := Permute(v, size, 99)
			if p < 0 || p >= size || seen[p] {
				t.Fatalf("Permute(%d, %d) = %d repeats or is out of range", v, size, p)
			}
			seen[p] = true
		}
	}
	// Inputs are reduced as unsigned values: uint64(-1) % 10 == 5.
	if Permute(-1, 10, 0) != Permute(5, 10, 0) {
		t.Error("negative input")
	}
	if Permute(3, 1, 5) != 0 || Permute(3, 0, 5) != 0 {
		t.Error("size < 2 must give 0")
	}
}

// The distributions use Go's fast exp, log and pow and fall back to the
// correctly rounded functions when their error bounds say the result could
// differ. Check over many draws that the fast paths always give the same
// values, and consume the same random numbers, as the precise ones.
func TestFastPathsEqualPrecise(t *testing.T) {
	type distribution struct {
		name    string
		fast    func(r *PRNG) int64
		precise func(r *PRNG) int64
	}
	var ds []distribution
	for _, c := range []struct{ min, max int64 }{{1, 10}, {1, 1000000}, {-1000000000000, 1000000000000}, {0, 9223372036854775806}} {
		for _, p := range []float64{0.001, 0.5, 2.5, 10, 50} {
			min, max, p := c.min, c.max, p
			ds = append(ds, distribution{"exponential",
				func(r *PRNG) int64 { return r.Exponential(min, max, p) },
				func(r *PRNG) int64 {
					u := 1.0 - r.Double()
					return min + truncToInt64(float64(max-min+1)*exponentialPrecise(u, p))
				}})
		}
		for _, p := range []float64{2, 2.5, 5, 1e9} {
			min, max, p := c.min, c.max, p
			ds = append(ds, distribution{"gaussian",
				func(r *PRNG) int64 { return r.Gaussian(min, max, p) },
				func(r *PRNG) int64 {
					var sd float64
					for {
						sd = r.normalPrecise()
						if !(sd < -p || sd >= p) {
							break
						}
					}
					return min + truncToInt64(float64(max-min+1)*((sd+p)/(p*2.0)))
				}})
		}
		for _, s := range []float64{1.001, 1.07, 1.5, 3, 1000} {
			min, max, s := c.min, c.max, s
			ds = append(ds, distribution{"zipfian",
				func(r *PRNG) int64 { return r.Zipfian(min, max, s) },
				func(r *PRNG) int64 { return min - 1 + r.zipfianPrecise(max-min+1, s) }})
		}
	}
	ds = append(ds, distribution{"poisson",
		func(r *PRNG) int64 { return r.Poisson(1234.5) },
		func(r *PRNG) int64 { return truncToInt64(float64(-cLog(1.0-r.Double())*1234.5) + 0.5) }})
	draws := 3000
	if testing.Short() {
		draws = 300
	}
	for i, d := range ds {
		r1 := NewPRNG(uint64(i) + 1)
		r2 := r1
		for k := 0; k < draws; k++ {
			a, b := d.fast(&r1), d.precise(&r2)
			if a != b || r1 != r2 {
				t.Fatalf("%s #%d draw %d: fast %d, precise %d (states equal: %v)", d.name, i, k, a, b, r1 == r2)
			}
		}
	}
}

// TestCorrectlyRoundedMath checks the double-double functions on values
// whose correctly rounded results are known exactly.
func TestCorrectlyRoundedMath(t *testing.T) {
	// C's M_PI/6 divides the rounded pi at run time; Go's constant
	// math.Pi/6 would be rounded from the exact value.
	pi := math.Pi
	piOver6 := pi / 6
	for _, c := range []struct {
		got, want float64
	}{
		{cExp(1), 2.718281828459045},
		{cExp(-1), 0.36787944117144233},
		{cExp(0), 1},
		{cLog(2), 0.6931471805599453},
		{cLog(10), 2.302585092994046},
		{cLog(1), 0},
		{cPow(2, 10), 1024},
		{cPow(-3, 3), -27},
		{cPow(-2, -3), -0.125},
		{cPow(0, 0), 1},
		{cPow(10, 30), 1e30},
		{cPow(2, 0.5), math.Sqrt2},
		{cSin(piOver6), 0.49999999999999994},
		{cSin(math.Pi), 1.2246467991473532e-16},
		{cSin(3 * math.Pi / 2), -1},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	if !math.IsNaN(cPow(-8, 1.0/3)) || !math.IsInf(cExp(1000), 1) || !math.IsInf(cLog(0), -1) || !math.IsNaN(cLog(-1)) {
		t.Error("special cases")
	}
	// A subnormal result is rounded once.
	if got := cExp(-745.1); got != 5e-324 {
		t.Errorf("exp(-745.1) = %v", got)
	}
}
