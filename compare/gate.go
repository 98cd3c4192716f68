package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// The gate of a measure: one test of all its cases.
//
// A measure (a metric of a study, e.g. COPY TO time) has several cases
// (row sizes, client counts, commit patterns). Before any case is called
// the measure is tested as one question, "did any case change?", by a
// stratified randomization test of the cases' paired rounds: the
// statistic is
//
//	T = Σ over cases c of (Σ_r d_cr) / sqrt(Σ_r d_cr²)
//
// each case's sum of round changes over its own (sign-invariant) norm, so
// that every case weighs the same whatever its noise and no round can
// carry more than its case. Under the null hypothesis that the targets
// are interchangeable — the runner draws which target runs first in each
// round at random — flipping the sign of any round's change gives an
// equally likely outcome, and the p-value is the share of the 2^U sign
// assignments of the U rounds whose |T| reaches the observed one: exact
// for U ≤ gateExactUnits, else from gateDraws random assignments (a valid
// Monte Carlo p, (1 + hits)/(1 + draws)). It assumes neither a
// distribution nor a common scale across cases, and a change that is
// consistent across cases reaches a small p with few rounds: 4 cases of 3
// rounds that all agree give p = 2/2^12 ≈ 0.0005, where one case alone
// could not go below 2/2^3 = 0.25.

// gateExactUnits is the most rounds whose sign assignments the gate
// enumerates; above it, it draws gateDraws of them.
const gateExactUnits = 16

// gateDraws is the number of random sign assignments of a Monte Carlo
// gate: its p is at least 1/(gateDraws+1) ≈ 5e-5.
const gateDraws = 20000

// gateSeed seeds the Monte Carlo draws, so that a report is the same each
// time it is rendered.
const gateSeed = 0x70676c6162 // "pglab"

// gateP returns the two-sided p of the stratified randomization test of
// the strata (each case's round changes) and the number of rounds that
// carry a sign (rounds that changed by exactly 0 carry none). Without such
// rounds p is 1.
func gateP(strata [][]float64) (p float64, units int) {
	var w []float64 // each round's contribution d/‖d_c‖
	for _, d := range strata {
		norm := 0.0
		for _, x := range d {
			norm += x * x
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for _, x := range d {
			if x != 0 {
				w = append(w, x/norm)
			}
		}
	}
	if len(w) == 0 {
		return 1, 0
	}
	obs := 0.0
	for _, x := range w {
		obs += x
	}
	obs = math.Abs(obs) * (1 - 1e-12) // ties with the observed count as reaching it
	if len(w) <= gateExactUnits {
		return gateExact(w, obs), len(w)
	}
	return gateMonteCarlo(w, obs), len(w)
}

// gateExact enumerates the sign assignments of w in Gray-code order (one
// sign flips from one assignment to the next) and returns the share whose
// |sum| reaches obs.
func gateExact(w []float64, obs float64) float64 {
	n := len(w)
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	neg := make([]bool, n)
	hits := 0
	if math.Abs(sum) >= obs {
		hits++
	}
	for k := uint32(1); k < 1<<n; k++ {
		i := bits.TrailingZeros32(k) // the sign that flips
		if neg[i] {
			sum += 2 * w[i]
		} else {
			sum -= 2 * w[i]
		}
		neg[i] = !neg[i]
		if math.Abs(sum) >= obs {
			hits++
		}
	}
	return float64(hits) / float64(uint64(1)<<n)
}

// gateHits is the number of draws reaching the observed statistic after
// which a Monte Carlo gate stops (Besag and Clifford's sequential p).
const gateHits = 100

// gateMonteCarlo draws sign assignments of w and returns the sequential
// Monte Carlo p of Besag and Clifford (1991): stopping once gateHits draws
// reached obs, after l draws, p = gateHits/l; else, after gateDraws, p =
// (1 + hits)/(1 + gateDraws). Both are valid p-values; an unremarkable
// statistic stops after a few hundred draws. A statistic so far out that
// Hoeffding's bound on the tail of a sum of random signs, 2·exp(−obs² /
// (2·Σw²)), is below what the draws could show gets that bound, which is
// at least the exact p.
func gateMonteCarlo(w []float64, obs float64) float64 {
	ss := 0.0
	for _, x := range w {
		ss += x * x
	}
	if bound := 2 * math.Exp(-obs*obs/(2*ss)); bound < 1/float64(1+gateDraws) {
		return bound
	}
	table := signTable(w)
	rng := rand.New(rand.NewPCG(gateSeed, uint64(len(w))))
	hits := 0
	for l := 1; l <= gateDraws; l++ {
		s := 0.0
		var signs uint64
		for g, sums := range table {
			if g%8 == 0 {
				signs = rng.Uint64()
			}
			s += sums[signs&0xff]
			signs >>= 8
		}
		if math.Abs(s) >= obs {
			if hits++; hits == gateHits {
				return float64(hits) / float64(l)
			}
		}
	}
	return float64(1+hits) / float64(1+gateDraws)
}

// signTable splits w into groups of 8 and gives, for each group, the sum
// of its values under each of the 256 sign assignments (bit i set: the
// group's value i counts negative), so that a draw costs one lookup per 8
// values.
func signTable(w []float64) [][256]float64 {
	table := make([][256]float64, (len(w)+7)/8)
	for g := range table {
		for b := range 256 {
			s := 0.0
			for i := range 8 {
				k := 8*g + i
				if k >= len(w) {
					break
				}
				if b&(1<<i) != 0 {
					s -= w[k]
				} else {
					s += w[k]
				}
			}
			table[g][b] = s
		}
	}
	return table
}

// gateMinP returns the smallest p the gate can give with units rounds.
func gateMinP(units int) float64 {
	if units <= 0 {
		return 1
	}
	if units <= gateExactUnits {
		return math.Ldexp(2, -units)
	}
	return math.Max(math.Ldexp(2, -min(units, 62)), 1/float64(1+gateDraws))
}
