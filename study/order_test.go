package study

import (
	"slices"
	"testing"
)

func TestRoundOrderMirrorsPairs(t *testing.T) {
	o := roundOrder{seed: 42}
	for _, n := range []int{1, 2, 3, 5} {
		for ci := 0; ci < 4; ci++ {
			for rep := 1; rep <= 9; rep += 2 {
				first := o.targets(rep, ci, n)
				second := o.targets(rep+1, ci, n)
				if len(first) != n || len(second) != n {
					t.Fatalf("n=%d: orders %v, %v", n, first, second)
				}
				rev := slices.Clone(first)
				slices.Reverse(rev)
				if !slices.Equal(second, rev) {
					t.Errorf("n=%d case %d: round %d runs %v, round %d %v: want the mirror", n, ci, rep, first, rep+1, second)
				}
				sorted := slices.Clone(first)
				slices.Sort(sorted)
				for i, k := range sorted {
					if i != k {
						t.Fatalf("n=%d: %v is not a permutation", n, first)
					}
				}
			}
		}
	}
}

// A linear drift adds the same to every target over each pair of rounds:
// the sums of the slots a target ran in are equal.
func TestRoundOrderCancelsLinearDrift(t *testing.T) {
	o := roundOrder{seed: 7}
	for _, n := range []int{2, 3, 4} {
		sums := make([]int, n)
		slot := 0
		for rep := 1; rep <= 8; rep++ {
			for _, k := range o.targets(rep, 0, n) {
				sums[k] += slot
				slot++
			}
		}
		for k := 1; k < n; k++ {
			if sums[k] != sums[0] {
				t.Errorf("n=%d: slot sums %v differ: a linear drift would favour a target", n, sums)
				break
			}
		}
	}
}

// The order is random across pairs and cases (both AB BA and BA AB occur,
// so neither target is always first) and repeats with the seed.
func TestRoundOrderIsSeededAndRandom(t *testing.T) {
	o := roundOrder{seed: 1234}
	firsts := map[int]int{}
	for rep := 1; rep <= 199; rep += 2 {
		firsts[o.targets(rep, 0, 2)[0]]++
	}
	if firsts[0] < 30 || firsts[1] < 30 {
		t.Errorf("first target over 100 pairs: %v; want both often", firsts)
	}
	again := roundOrder{seed: 1234}
	other := roundOrder{seed: 1235}
	same, differ := true, false
	for rep := 1; rep <= 40; rep++ {
		for ci := 0; ci < 3; ci++ {
			a, b := o.targets(rep, ci, 4), again.targets(rep, ci, 4)
			if !slices.Equal(a, b) {
				same = false
			}
			if !slices.Equal(a, other.targets(rep, ci, 4)) {
				differ = true
			}
		}
	}
	if !same {
		t.Error("the same seed gave another order")
	}
	if !differ {
		t.Error("another seed gave the same order in 120 rounds")
	}
}

func TestNewOrderSeedKeepsAGivenSeed(t *testing.T) {
	if got := newOrderSeed(99); got != 99 {
		t.Errorf("newOrderSeed(99) = %d", got)
	}
	if newOrderSeed(0) == 0 {
		t.Error("newOrderSeed(0) = 0")
	}
}
