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
// paired design (compare.PlanPairedDesign) for the run's measures, whose
// number is known before the run — every study's primary metrics that are
// tests of their own × the targets compared with the baseline — and the
// report's cells of each study (verdict.Cells, with the study's
// presentation) to decide on: a measure's gate reads all its cases, so a
// study's cases are decided together at each look. A study without
// primary metrics, or without a presentation (whose family cannot be
// known in advance), runs its fixed count.
type autoReps struct {
	design    compare.Design
	minChange float64
	// chosen are the studies whose cases the design chooses, with their
	// presentations.
	chosen map[string]*results.Presentation
	budget *budget
	// quick is --quick, under which no study's looks are scaled.
	quick bool
	// designs are the studies' own designs (their looks scaled by
	// Plan.LookScale), set when each begins; guarded by mu.
	designs map[string]compare.Design

	// mu guards designs and last: the decisions of a study's cases at its latest
	// look, reused while the runner asks about each case in turn.
	mu   sync.Mutex
	last struct {
		study string
		sum   uint64 // measurementsSum of what they were decided from
		cases map[string]*compare.CaseLook
	}
}

// newAutoReps returns the stopping rule of spec for a run on targets
// servers, or nil when nothing can be chosen by the data: a fixed --reps,
// one target, or no study with primary figures.
func newAutoReps(spec *Spec, targets int) *autoReps {
	if spec.Reps > 0 || targets < 2 {
		return nil
	}
	a := &autoReps{minChange: spec.MinChange, chosen: map[string]*results.Presentation{}, quick: spec.Quick, designs: map[string]compare.Design{}}
	m := 0
	for _, sr := range spec.Studies {
		info := sr.Study.Info()
		k := ownTests(info.Presentation)
		if _, err := sr.Study.Plan(sr.Params); k == 0 || err != nil {
			continue
		}
		a.chosen[info.Name] = info.Presentation
		m += k * (targets - 1)
	}
	if m == 0 {
		return nil
	}
	a.design = compare.PlanPairedDesign(m, spec.Alpha, pairedStart(spec.Quick), 0)
	if b := spec.budget(); b > 0 {
		a.budget = &budget{total: b, start: time.Now(), left: len(spec.Studies)}
	}
	return a
}

// pairedStart is the first look of --reps auto: 4 rounds for --quick,
// 3 at the seeds' sizes, where one round of every study takes about a
// quarter of an hour on two CPUs and a measure over several cases can
// pass its gate at 3 rounds.
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

// Looks returns the design's looks for a study whose cases it chooses
// (each times the study's Plan.LookScale at the seeds' sizes), and
// starts the study's share of the budget.
func (a *autoReps) Looks(name string, plan study.Plan) []int {
	a.budget.begin()
	if _, ok := a.chosen[name]; !ok {
		return nil
	}
	d := a.design
	if plan.LookScale > 1 && !a.quick {
		d.Looks = make([]int, len(a.design.Looks))
		for i, l := range a.design.Looks {
			d.Looks[i] = l * plan.LookScale
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

// Decide applies the design's rule to one case of a study from the
// study's measurements so far (ms: every case's). The cases of a study
// are decided together, once per look; a study whose runs record into
// cases of their own (replay) has one planned case, which owns them all.
func (a *autoReps) Decide(name string, c study.Case, targets []string, ms []results.Measurement, recorded bool) (bool, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sum := measurementsSum(ms)
	if a.last.study != name || a.last.sum != sum || a.last.cases == nil {
		cells := slices.DeleteFunc(verdict.Cells(a.chosen[name], targets, ms), func(c compare.Cell) bool { return !c.Callable })
		caseOf := func(cell compare.Cell) string {
			if recorded {
				return ""
			}
			return verdict.CellCase(cell)
		}
		d := a.studyDesign(name)
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

// budget is --budget: the run's time for repetitions beyond each study's
// first look. Each study, when it begins, gets an equal share of what is
// left of the budget among the studies still to run (what one does not use
// passes on); a case goes past a look only when the rounds it needs, at
// the cost of its rounds so far, still fit in its study's share. The
// rounds to the first look always run.
type budget struct {
	total time.Duration
	start time.Time
	left  int // studies not yet begun

	mu    sync.Mutex
	began time.Time
	share time.Duration
}

// begin starts the next study's share. A nil budget does nothing.
func (b *budget) begin() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.began = time.Now()
	rest := b.total - time.Since(b.start)
	b.share = max(rest, 0) / time.Duration(max(b.left, 1))
	b.left--
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
