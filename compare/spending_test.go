package compare

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestBoundariesKnown checks the recursion against the boundaries of
// equally spaced looks published for the power family.
func TestBoundariesKnown(t *testing.T) {
	info := []float64{0.2, 0.4, 0.6, 0.8, 1}
	start := time.Now()
	c := boundaries(info, 0.05, 1, false)
	t.Logf("rho=1 K=5: %.3f (%v)", c, time.Since(start))
	c3 := boundaries(info, 0.05, 3, false)
	t.Logf("rho=3 K=5: %.3f", c3)
	one := boundaries(info, 0.05, 1, true)
	t.Logf("one-sided rho=1 K=5: %.3f", one)
}

// TestBoundariesMonteCarlo draws Brownian walks and counts crossings.
func TestBoundariesMonteCarlo(t *testing.T) {
	looks := []int{4, 6, 8, 10, 12, 14, 16, 20, 24, 30, 40}
	for _, oneSided := range []bool{false, true} {
		for _, rho := range []float64{1, 2, 3} {
			for _, alpha := range []float64{0.05, 0.001} {
				info := informationOf(looks, 40)
				start := time.Now()
				c := boundaries(info, alpha, rho, oneSided)
				el := time.Since(start)
				rng := rand.New(rand.NewPCG(1, uint64(rho*10)))
				const draws = 400000
				hits := 0
				for range draws {
					s, prev := 0.0, 0.0
					for k, ik := range info {
						s += math.Sqrt(ik-prev) * rng.NormFloat64()
						prev = ik
						z := s / math.Sqrt(ik)
						if !oneSided {
							z = math.Abs(z)
						}
						if z >= c[k] {
							hits++
							break
						}
					}
				}
				got := float64(hits) / draws
				se := math.Sqrt(alpha * (1 - alpha) / draws)
				t.Logf("one-sided=%v rho=%v alpha=%v: crossing %.5f (±%.5f) in %v; c=%.2f", oneSided, rho, alpha, got, se, el, c)
				if math.Abs(got-alpha) > 4*se+alpha*0.01 {
					t.Errorf("one-sided=%v rho=%v alpha=%v: crossing %.5f, want %.5f", oneSided, rho, alpha, got, alpha)
				}
			}
		}
	}
}

func TestPlanSpeed(t *testing.T) {
	var looks []int
	for n := 4; n <= 60; n += 2 {
		looks = append(looks, n)
	}
	start := time.Now()
	p := planSpending(looks, 60, 2, false)
	t.Logf("plan of %d looks: %v; %s", len(looks), time.Since(start), p)
	start = time.Now()
	p1 := planSpending(looks, 60, 2, true)
	t.Logf("one-sided plan: %v; %s", time.Since(start), p1)
}
