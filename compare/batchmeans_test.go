package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBatchMeans(t *testing.T) {
	// Five batches of two: means 1, 2, 3, 4, 5 (mean 3, s = √2.5).
	x := []float64{9, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5} // the oldest value is dropped
	mean, hw, ok := BatchMeans(x, 5)
	want := 2.776 * math.Sqrt(2.5) / math.Sqrt(5)
	if !ok || mean != 3 || math.Abs(hw-want) > 1e-12 {
		t.Errorf("BatchMeans = %v ± %v (%v), want 3 ± %v", mean, hw, ok, want)
	}
	for _, bad := range []struct {
		n, k int
	}{{9, 5}, {10, 1}, {100, 40}} {
		if _, _, ok := BatchMeans(make([]float64, bad.n), bad.k); ok {
			t.Errorf("BatchMeans(%d values, %d batches) ok", bad.n, bad.k)
		}
	}
}

// TestBatchMeansCoverage: on an AR(1) series (a per-second throughput
// whose seconds are correlated, rho 0.5) the interval of 5 batches covers
// the true mean about 95 % of the time once batches are long, where the
// naive interval of the seconds as if independent covers much less.
func TestBatchMeansCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, n, rho = 2000, 40, 0.5
	covered, naive := 0, 0
	for range trials {
		x := make([]float64, n)
		e := rng.NormFloat64() / math.Sqrt(1-rho*rho)
		for i := range x {
			e = rho*e + rng.NormFloat64()
			x[i] = 1000 + 10*e
		}
		mean, hw, _ := BatchMeans(x, 5)
		if math.Abs(mean-1000) <= hw {
			covered++
		}
		m, ss := 0.0, 0.0
		for _, v := range x {
			m += v
		}
		m /= n
		for _, v := range x {
			ss += (v - m) * (v - m)
		}
		if math.Abs(m-1000) <= 2.023*math.Sqrt(ss/(n-1)/n) {
			naive++
		}
	}
	cov, nv := float64(covered)/trials, float64(naive)/trials
	t.Logf("coverage of the 95 %% interval, AR(1) rho 0.5, 40 s: batch means %.3f, seconds as if independent %.3f", cov, nv)
	if cov < 0.90 || nv > cov-0.05 {
		t.Errorf("coverage: batch means %.3f, naive %.3f", cov, nv)
	}
}
