package lab

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/pglab/pglab/verdict"
)

// autoReps is --reps auto, the study runner's stopping rule: compare's
// paired design (compare.PlanPairedDesign) for the run's tests, whose
// number is known before the run — every study's primary cases' tests and
// its measures' of two or more cases, × the targets compared with the
// baseline — and the report's cells of each study (verdict.Cells, built
// with the run's floor, the study's design and its cases' caps) to decide
// on: a measure's test reads all its cases, so a study's cases are decided
// together at each look. Each case's cap is chosen at the study's first
// look from what its rounds cost and the study's share of the budget, so
// that cheap cases run the rounds that resolving them takes. A study
// without primary metrics, or without a presentation (whose family cannot
// be known in advance), runs its fixed count.
type autoReps struct {
	design    compare.Design
	minChange float64
	// chosen are the studies whose cases the design chooses, with their
	// presentations.
	chosen map[string]*results.Presentation
	budget *budget
	// quick is --quick, under which no study's looks are scaled.
	quick bool

	// mu guards designs, caps and last.
	mu sync.Mutex
	// designs are the studies' own designs (their looks scaled by
	// Plan.LookScale), set when each begins; caps each study's cases'
	// caps by case key, set at its first look.
	designs map[string]compare.Design
	caps    map[string]map[string]int
	// last holds the decisions of a study's cases at its latest look,
	// reused while the runner asks about each case in turn.
	last struct {
		study string
		sum   uint64 // measurementsSum of what they were decided from
		cases map[string]*compare.CaseLook
	}
}

// newAutoReps returns the stopping rule of spec for a run on targets
// servers, or nil when nothing can be chosen by the data: a fixed --reps,
// one target, or no study with primary figures. past, when not nil,
// estimates a study's first look from the store's last run of it on this
// machine (pastFirstLook): any such run for a study whose plan gives no
// RoundEstimate, one that recorded the same parameters for one that does.
func newAutoReps(spec *Spec, targets int, past func(name string, plan study.Plan, recorded bool) time.Duration) *autoReps {
	if spec.Reps > 0 || targets < 2 {
		return nil
	}
	a := &autoReps{minChange: spec.MinChange, chosen: map[string]*results.Presentation{}, quick: spec.Quick,
		designs: map[string]compare.Design{}, caps: map[string]map[string]int{}}
	tests, pending := 0, map[string]claim{}
	for _, sr := range spec.Studies {
		info := sr.Study.Info()
		plan, err := sr.Study.Plan(sr.Params)
		k := ownTests(info.Presentation)
		if k == 0 || err != nil {
			continue
		}
		a.chosen[info.Name] = info.Presentation
		tests += plannedTests(k, len(plan.Cases)) * (targets - 1)
		first := firstLookEstimate(plan, spec.Quick, targets)
		if past != nil {
			// A stored run of the same parameters beats the plan's
			// estimate, which leaves out each run's own set-up.
			if d := past(info.Name, plan, first > 0); d > 0 {
				first = d
			}
		}
		pending[info.Name] = claim{weight: max(len(plan.Cases), 1), firstLook: first}
	}
	if tests == 0 {
		return nil
	}
	a.design = compare.PlanPairedDesign(tests, spec.Alpha, pairedStart(spec.Quick), spec.RepsCap)
	if b := spec.budget(); b > 0 {
		a.budget = &budget{total: b, start: time.Now(), pending: pending}
	}
	return a
}

// lookScale is the study's Plan.LookScale at the seeds' sizes, its
// Plan.QuickLookScale under --quick (0 or 1: the design's looks).
func lookScale(plan study.Plan, quick bool) int {
	if quick {
		return plan.QuickLookScale
	}
	return plan.LookScale
}

// firstLookEstimate is at least what a study's first look will take on
// targets servers, from its Plan.RoundEstimate (0 when it has none): every
// case's rounds to the first look, in its own units.
func firstLookEstimate(plan study.Plan, quick bool, targets int) time.Duration {
	rounds := pairedStart(quick) * max(lookScale(plan, quick), 1)
	return plan.RoundEstimate * time.Duration(len(plan.Cases)*rounds*targets)
}

// plannedTests returns the tests a study of k own primary metrics over n
// cases adds to the family: each case's, and each measure's of two or
// more cases.
func plannedTests(k, n int) int {
	if n < 2 {
		return k * max(n, 1)
	}
	return k*n + k
}

// pairedStart is the first look of --reps auto: 4 rounds for --quick,
// 3 at the seeds' sizes, where one round of every study takes about a
// quarter of an hour on two CPUs.
func pairedStart(quick bool) int {
	if quick {
		return 4
	}
	return 3
}

// ownTests returns how many of a study's primary metrics are tests of
// their own (not twins), 0 for a study without a presentation.
func ownTests(p *results.Presentation) int {
	if p == nil {
		return 0
	}
	k := 0
	for _, m := range p.Primary {
		if m.Twin == "" {
			k++
		}
	}
	return k
}

// Exempt leaves the profiler's time out of the budget (study.Exempter).
func (a *autoReps) Exempt(d time.Duration) { a.budget.exempt(d) }

// Looks returns the design's looks for a study whose cases it chooses
// (each times the study's Plan.LookScale at the seeds' sizes, its
// Plan.QuickLookScale under --quick), and
// starts the study's share of the budget.
func (a *autoReps) Looks(name string, plan study.Plan) []int {
	a.budget.begin(name)
	if _, ok := a.chosen[name]; !ok {
		return nil
	}
	d := a.design
	if scale := lookScale(plan, a.quick); scale > 1 {
		d.Looks = make([]int, len(a.design.Looks))
		for i, l := range a.design.Looks {
			d.Looks[i] = l * scale
		}
	}
	a.mu.Lock()
	a.designs[name] = d
	a.mu.Unlock()
	return d.Looks
}

// studyDesign returns the design a study's cases are decided by (a.mu
// held): its own when Looks set one, else the run's.
func (a *autoReps) studyDesign(name string) compare.Design {
	if d, ok := a.designs[name]; ok {
		return d
	}
	return a.design
}

// Caps chooses each case's cap at the study's first look: an equal part
// of what is left of the study's share of the budget for each case, in
// rounds of that case's cost, at least the first look and at most the
// design's cap, on a look. Without a budget every case may run to the
// design's cap.
func (a *autoReps) Caps(name string, costs map[string]time.Duration) map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	d := a.studyDesign(name)
	left := a.budget.leftInShare()
	caps := map[string]int{}
	for key, cost := range costs {
		capN := d.Cap()
		if left >= 0 && cost > 0 {
			extra := float64(left) / float64(len(costs)) / float64(cost)
			capN = lookAtMost(d, d.Start()+int(math.Min(extra, float64(d.Cap()))))
		}
		caps[key] = capN
	}
	a.caps[name] = caps
	return caps
}

// lookAtMost returns the largest look of d at most n (its first look when
// none is).
func lookAtMost(d compare.Design, n int) int {
	best := d.Start()
	for _, l := range d.Looks {
		if l <= n {
			best = l
		}
	}
	return best
}

// Decide applies the design's rule to one case of a study from the
// study's measurements so far (ms: every case's). The cases of a study
// are decided together, once per look; a study whose runs record into
// cases of their own (replay) has one planned case, which owns them all.
func (a *autoReps) Decide(name string, c study.Case, targets []string, ms []results.Measurement, recorded bool) (bool, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sum := measurementsSum(ms)
	if a.last.study != name || a.last.sum != sum || a.last.cases == nil {
		d := a.studyDesign(name)
		caps := a.caps[name]
		if recorded {
			caps = nil // its cases are its runs' own; the planned case's cap is the runner's
		}
		cells := slices.DeleteFunc(verdict.Cells(a.chosen[name], targets, ms,
			verdict.Options{MinChange: a.minChange, Interleaved: true, Design: &d, Caps: caps}),
			func(c compare.Cell) bool { return !c.Callable })
		caseOf := func(cell compare.Cell) string {
			if recorded {
				return ""
			}
			return verdict.CellCase(cell)
		}
		looks, err := d.DecideCases(cells, caseOf, compare.Options{Alpha: d.Alpha, MinChange: a.minChange})
		if err != nil {
			return false, "", err
		}
		a.last.study, a.last.sum, a.last.cases = name, sum, looks
	}
	key := results.CaseKey(c.Labels)
	if recorded {
		key = ""
	}
	cl, ok := a.last.cases[key]
	if !ok {
		return false, "", nil // nothing measured yet in the case
	}
	return cl.Done, cl.Reason, nil
}

// measurementsSum is a checksum of measurements (FNV-1a over each one's
// target, case, repetition, metric and value), which tells whether the
// stopping rule was asked about the same data again.
func measurementsSum(ms []results.Measurement) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, m := range ms {
		h.Write([]byte(m.Target + "\x00" + results.CaseKey(m.Case) + "\x00" + m.Metric + "\x00"))
		binary.LittleEndian.PutUint64(buf[:], uint64(m.Rep))
		h.Write(buf[:])
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(m.Value))
		h.Write(buf[:])
	}
	return h.Sum64()
}

// Afford reports whether the budget leaves the study room for d more.
func (a *autoReps) Afford(name string, d time.Duration) bool { return a.budget.afford(d) }

// budget is --budget: the time the whole run may take. Each study, when
// it begins, gets a share of what is left of the budget: at least its own
// first look where that is known before it runs, else its part of what is
// left in proportion to its cases (fill). What one study does not use
// passes on to those after it. A case goes past a look only when the
// rounds it needs, at the cost of its rounds so far, still fit in its
// study's share, and its cap is chosen from its part of that share. The
// rounds to the first look always run.
type budget struct {
	total time.Duration
	start time.Time
	// pending are the studies the design chooses that have not begun.
	pending map[string]claim

	mu    sync.Mutex
	began time.Time
	share time.Duration
}

// claim is what a study asks of the budget: its cases (weight) and its
// first look as far as known before it runs (0: not known).
type claim struct {
	weight    int
	firstLook time.Duration
}

// begin starts the next study's share of what is left of the budget
// (fill). A nil budget does nothing.
func (b *budget) begin(name string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.began = time.Now()
	rest := max(b.total-time.Since(b.start), 0)
	b.share = fill(rest, b.pending)[name]
	delete(b.pending, name)
}

// fill divides rest among the claims: each gets max(first look, λ ×
// its weight), with the time per case λ chosen so that the shares add up
// to rest (0 when the first looks alone need more). A study whose first
// look is longer than its proportional part gets just its first look,
// and the others share the rest by their cases.
func fill(rest time.Duration, claims map[string]claim) map[string]time.Duration {
	capped := map[string]bool{}
	var perCase float64
	for {
		free, weight := float64(rest), 0
		for name, c := range claims {
			if capped[name] {
				free -= float64(c.firstLook)
			} else {
				weight += c.weight
			}
		}
		perCase = 0
		if weight > 0 && free > 0 {
			perCase = free / float64(weight)
		}
		grew := false
		for name, c := range claims {
			if !capped[name] && float64(c.firstLook) > perCase*float64(c.weight) {
				capped[name], grew = true, true
			}
		}
		if !grew {
			break
		}
	}
	shares := map[string]time.Duration{}
	for name, c := range claims {
		shares[name] = max(c.firstLook, time.Duration(perCase*float64(c.weight)))
	}
	return shares
}

// afford reports whether the current study's share has room for d more;
// a nil budget always has.
func (b *budget) afford(d time.Duration) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return time.Since(b.began)+d <= b.share
}

// exempt leaves d, just spent, out of the budget: the run's and the
// current share's clocks start d later. A nil budget does nothing.
func (b *budget) exempt(d time.Duration) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.start = b.start.Add(d)
	b.began = b.began.Add(d)
}

// leftInShare returns what is left of the current study's share, or −1
// without a budget.
func (b *budget) leftInShare() time.Duration {
	if b == nil {
		return -1
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(b.share-time.Since(b.began), 0)
}
