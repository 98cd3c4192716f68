package study

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// OrderScheme names how the runner orders the targets within a round, as
// the run records it (results.StudyInfo.Order).
const OrderScheme = "mirrored pairs of rounds (ABBA), target order drawn per case and pair from a seeded shuffle"

// roundOrder gives the order in which the targets of one case run in one
// round (repetition). Rounds come in mirrored pairs: round 2j-1 runs the
// targets in an order drawn at random for that pair and case, round 2j in
// the reverse order (AB then BA; ABC then CBA). A linear drift of the
// machine over a pair then adds the same to every target (in AB BA, A sits
// in slots 1 and 4, B in 2 and 3: both average 2.5), and the random draw
// per pair breaks periodic interference and any state a target leaves for
// the next one (the page cache, the disk's write-back). With an odd number
// of rounds the last one is a fresh draw without its mirror.
//
// The order depends only on seed, the pair and the case, so a run repeats
// with the seed it recorded, and adding rounds (--reps auto) does not
// change the order of those already run.
type roundOrder struct {
	seed uint64
}

// targets returns the indexes 0…n-1 of n targets in the order they run in
// round rep (1-based) of the case with index caseIdx.
func (o roundOrder) targets(rep, caseIdx, n int) []int {
	pair := uint64((rep - 1) / 2)
	rng := rand.New(rand.NewPCG(o.seed, pair<<20|uint64(caseIdx)))
	order := rng.Perm(n)
	if rep%2 == 0 {
		slices.Reverse(order)
	}
	return order
}

// newOrderSeed returns seed, or a random seed when it is 0.
func newOrderSeed(seed uint64) uint64 {
	for seed == 0 {
		seed = rand.Uint64()
	}
	return seed
}

// OrderSeedText formats an order seed as the run records and the flag
// --order-seed accepts it.
func OrderSeedText(seed uint64) string { return fmt.Sprintf("%d", seed) }
