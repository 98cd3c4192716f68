package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aclements/go-moremath/stats"
)

// The exact Mann-Whitney U test.
//
// go-moremath (which benchmath calls) computes the exact two-sided p as
// 2·P(U1 ≤ min(U1, U2)), the distribution being that of U1 given the
// ties. Without ties that distribution is symmetric and the formula is
// right. With ties it is not symmetric, and its support need not contain
// min(U1, U2): for [50 50 50] against [33.3 33.3] (U1 = 6, U2 = 0) U1 is
// 1, 3.5 or 6 given those ties, so 2·P(U1 ≤ 0) = 0; for [100 100 100]
// against [100 50] U1 is 2 or 4.5 and 2·P(U1 ≤ 1.5) = 0 as well. Those p=0 were impossible values (the smallest p two samples of 3
// and 2 can give is 0.2) and made reports call changes from 5 numbers.
//
// uTest computes the exact conditional distribution of the rank sum given
// the ties itself and takes the two-sided p as twice the smaller tail,
// 2·min(P(U1 ≤ u1), P(U1 ≥ u1)), at most 1 — which is go-moremath's
// value whenever there are no ties. Large samples (more than 50 a side, or
// more than 25 with ties, go-moremath's limits) use go-moremath's normal
// approximation, which is symmetric and correct.

// Limits of the exact test, as go-moremath's MannWhitneyExactLimit and
// MannWhitneyTiesExactLimit.
const (
	exactLimit     = 50
	tiesExactLimit = 25
)

// errSamplesEqual is go-moremath's error (and benchstat's warning) for two
// samples whose values are all equal.
var errSamplesEqual = stats.ErrSamplesEqual

// uTest runs the two-sided Mann-Whitney U test of x1 against x2 and returns
// U1 (the pairs in which the x1 value is larger, ties counting 1/2) and
// the p-value. It returns errSamplesEqual when every value of both samples
// is the same, and an error when a sample is empty.
func uTest(x1, x2 []float64) (u1, p float64, err error) {
	n1, n2 := len(x1), len(x2)
	if n1 == 0 || n2 == 0 {
		return math.NaN(), math.NaN(), errors.New("compare: U test of an empty sample")
	}
	x1, x2 = sortedCopy(x1), sortedCopy(x2)
	groups, twoR1 := tieGroups(x1, x2)
	u1 = float64(twoR1-n1*(n1+1)) / 2
	if len(groups) == 1 {
		return u1, 1, errSamplesEqual
	}
	ties := len(groups) < n1+n2
	if n1 > exactLimit || n2 > exactLimit || ties && (n1 > tiesExactLimit || n2 > tiesExactLimit) {
		r, err := stats.MannWhitneyUTest(x1, x2, stats.LocationDiffers)
		if err != nil {
			return u1, 1, err
		}
		return u1, math.Min(r.P, 1), nil
	}
	if 2*u1 == float64(n1*n2) {
		return u1, 1, nil // U1 = U2: the middle of the distribution
	}
	var d *rankSumDist
	if ties {
		d = tiedDist(n1, groups)
	} else {
		d = untiedDist(n1, n2)
	}
	lower, upper := d.tails(twoR1)
	return u1, math.Min(1, 2*math.Min(lower, upper)), nil
}

// sortedCopy returns x sorted, copying it only if it is not sorted.
func sortedCopy(x []float64) []float64 {
	if slices.IsSorted(x) {
		return x
	}
	x = slices.Clone(x)
	slices.Sort(x)
	return x
}

// tieGroup is a run of equal values in the pooled sample: how many values
// it holds and the sum of the first and last rank it covers (twice its
// mid-rank, an integer).
type tieGroup struct {
	size, twoRank int
}

// tieGroups merges the sorted samples x1 and x2 into runs of equal values
// and returns them with twice the rank sum of x1's values.
func tieGroups(x1, x2 []float64) (groups []tieGroup, twoR1 int) {
	groups = make([]tieGroup, 0, len(x1)+len(x2))
	i, j, rank := 0, 0, 1
	for i < len(x1) || j < len(x2) {
		var v float64
		switch {
		case j == len(x2) || i < len(x1) && x1[i] <= x2[j]:
			v = x1[i]
		default:
			v = x2[j]
		}
		in1 := 0
		for ; i < len(x1) && x1[i] == v; i++ {
			in1++
		}
		in2 := 0
		for ; j < len(x2) && x2[j] == v; j++ {
			in2++
		}
		size := in1 + in2
		g := tieGroup{size: size, twoRank: 2*rank + size - 1}
		twoR1 += in1 * g.twoRank
		groups = append(groups, g)
		rank += size
	}
	return groups, twoR1
}

// rankSumDist is the exact null distribution of twice the rank sum of the
// first sample: cdf[i] = P(2·R1 ≤ lo+i).
type rankSumDist struct {
	lo  int
	cdf []float64
}

// tails returns P(2·R1 ≤ twoR1) and P(2·R1 ≥ twoR1).
func (d *rankSumDist) tails(twoR1 int) (lower, upper float64) {
	i := twoR1 - d.lo
	at := func(k int) float64 {
		switch {
		case k < 0:
			return 0
		case k >= len(d.cdf):
			return 1
		}
		return d.cdf[k]
	}
	return at(i), 1 - at(i-1)
}

// newRankSumDist computes the distribution of twice the rank sum of n1
// values drawn without replacement from the pooled sample described by
// groups, by dynamic programming over the groups: ways[k][s] counts the
// choices of k values (weighted by the binomial number of ways to pick
// them within their groups) whose doubled ranks sum to s.
func newRankSumDist(n1 int, groups []tieGroup) *rankSumDist {
	maxSum := 0
	for _, g := range groups {
		maxSum += min(g.size, n1) * g.twoRank
	}
	width := maxSum + 1
	ways := make([]float64, (n1+1)*width)
	ways[0] = 1
	taken, top := 0, 0 // values seen so far; largest reachable sum
	for _, g := range groups {
		taken += g.size
		top += min(g.size, n1) * g.twoRank
		choose := binomialRow(g.size)
		for k := min(n1, taken); k >= 1; k-- {
			row := ways[k*width : k*width+top+1]
			for j := 1; j <= min(g.size, k); j++ {
				prev := ways[(k-j)*width:]
				shift, c := j*g.twoRank, choose[j]
				for s := shift; s <= top; s++ {
					if w := prev[s-shift]; w != 0 {
						row[s] += w * c
					}
				}
			}
		}
	}
	last := ways[n1*width : n1*width+width]
	lo, hi := 0, len(last)-1
	for lo < hi && last[lo] == 0 {
		lo++
	}
	for hi > lo && last[hi] == 0 {
		hi--
	}
	total := 0.0
	for _, w := range last[lo : hi+1] {
		total += w
	}
	d := &rankSumDist{lo: lo, cdf: make([]float64, hi-lo+1)}
	sum := 0.0
	for i, w := range last[lo : hi+1] {
		sum += w
		d.cdf[i] = sum / total
	}
	return d
}

// binomialRow returns C(n, 0..n).
func binomialRow(n int) []float64 {
	row := make([]float64, n+1)
	row[0] = 1
	for k := 1; k <= n; k++ {
		row[k] = row[k-1] * float64(n-k+1) / float64(k)
	}
	return row
}

// untiedCache holds the distributions without ties by sample sizes.
var untiedCache sync.Map // [2]int → *rankSumDist

// untiedDist returns the distribution of 2·R1 without ties for samples of
// n1 and n2 values.
func untiedDist(n1, n2 int) *rankSumDist {
	key := [2]int{n1, n2}
	if d, ok := untiedCache.Load(key); ok {
		return d.(*rankSumDist)
	}
	groups := make([]tieGroup, n1+n2)
	for i := range groups {
		groups[i] = tieGroup{size: 1, twoRank: 2 * (i + 1)}
	}
	d := newRankSumDist(n1, groups)
	untiedCache.Store(key, d)
	return d
}

// tiedCache holds distributions with ties by n1 and tie pattern. It stops
// growing at tiedCacheMax entries, so that a long-lived server does not
// keep every pattern it ever saw.
var tiedCache struct {
	sync.Mutex
	m map[string]*rankSumDist
}

const tiedCacheMax = 4096

// tiedDist returns the distribution of 2·R1 given the tie groups.
func tiedDist(n1 int, groups []tieGroup) *rankSumDist {
	var b strings.Builder
	b.WriteString(strconv.Itoa(n1))
	for _, g := range groups {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(g.size))
	}
	key := b.String()
	tiedCache.Lock()
	d, ok := tiedCache.m[key]
	tiedCache.Unlock()
	if ok {
		return d
	}
	d = newRankSumDist(n1, groups)
	tiedCache.Lock()
	if tiedCache.m == nil {
		tiedCache.m = map[string]*rankSumDist{}
	}
	if len(tiedCache.m) < tiedCacheMax {
		tiedCache.m[key] = d
	}
	tiedCache.Unlock()
	return d
}

// uCDF returns P(U ≤ u) for the U statistic without ties for samples of
// n1 and n2 values: exact up to exactLimit values a side, else the normal
// approximation with continuity correction.
func uCDF(n1, n2 int, u float64) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	if n1 > exactLimit || n2 > exactLimit {
		mean := float64(n1*n2) / 2
		sd := math.Sqrt(float64(n1*n2) * float64(n1+n2+1) / 12)
		return stats.StdNormal.CDF((math.Floor(u) + 0.5 - mean) / sd)
	}
	// 2·R1 = 2·U1 + n1(n1+1); U takes whole values without ties.
	lower, _ := untiedDist(n1, n2).tails(2*int(math.Floor(u)) + n1*(n1+1))
	return lower
}

// UTestMinP returns the smallest two-sided p-value the exact Mann-Whitney
// U test can give for samples of n1 and n2 values: the two samples
// completely apart and no ties, 2/C(n1+n2, n1), at most 1. Ties can only
// make the smallest p larger. For n1 = n2 = n:
//
//	n        2     3     4       5       6        7         8         10
//	min p    0.33  0.10  0.0286  0.0079  0.00216  0.000583  0.000155  0.0000108
//
// A change with fewer repetitions than the test needs to reach the level
// (UTestMinP > alpha) can never be significant.
func UTestMinP(n1, n2 int) float64 {
	return uTestMinP(n1, n2)
}

// needSamplesWarning is benchmath's warning for two samples that are both
// too small for the U test to reach alpha, or "" when one of them is large
// enough.
func needSamplesWarning(n1, n2 int, alpha float64) string {
	// benchmath's table holds n = 1..9 and answers "> 10" beyond it.
	op, need := ">", 10
	for n := 1; n <= 9; n++ {
		if uTestMinP(n, n) <= alpha {
			op, need = ">=", n
			break
		}
	}
	if n1 < need && n2 < need {
		return fmt.Sprintf("need %s %d samples to detect a difference at alpha level %v", op, need, alpha)
	}
	return ""
}
