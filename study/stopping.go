package study

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pglab/pglab/results"
)

// Stopping chooses each case's repetitions by the data (--reps auto). The
// runner runs every case to the first look, then, at each look, asks
// Decide about each case still running and adds rounds (the next look's
// repetitions) only to those not done, as long as the run's time budget
// affords them. The statistics behind it live with the caller (compare
// and the report's family); the runner only counts and asks.
type Stopping interface {
	// Looks returns the repetitions per side at which the cases of a
	// study are looked at, ascending, the last the cap; nil runs the
	// study's own fixed count (a study with nothing to call).
	Looks(study string, plan Plan) []int

	// Decide says whether a case is done, and why, from the study's
	// measurements so far, of every case on every target (targets in
	// report order, the first the baseline; every target has the same
	// repetitions): a measure is tested across its cases. recorded says
	// that the study's runs record into cases of their own (Plan.Recorded):
	// its one planned case owns them all.
	Decide(study string, c Case, targets []string, ms []results.Measurement, recorded bool) (done bool, reason string, err error)

	// Afford reports whether the run's time budget leaves room for the
	// study to spend d more, from now; a Stopping without a budget
	// always does.
	Afford(study string, d time.Duration) bool

	// Caps returns the most repetitions each case of a study may run, by
	// case key (a missing case keeps the study's last look), chosen once,
	// at the study's first look, from what one round of each case has
	// cost so far (costs, by case key): before anything was decided from
	// the cases' data, so that a case's looks are fixed in advance.
	Caps(study string, costs map[string]time.Duration) map[string]int
}

// Exempter is a Stopping whose budget leaves out time the user asked to
// spend beside the measurement: the profiler's (--profile), whose attach
// and read would otherwise cut every case's rounds to a fraction of those
// of the same run unprofiled. The runner reports that time as it is spent.
type Exempter interface {
	// Exempt leaves d, just spent, out of the budget.
	Exempt(d time.Duration)
}

// CaseReps is how many repetitions per target a case ran, and why it
// stopped there under --reps auto.
type CaseReps struct {
	Case Case
	// N is the repetitions per target.
	N int
	// Reason is the stopping rule's ("called", "same", "cap", "budget"),
	// empty for a fixed count.
	Reason string
	// Cap is the most repetitions the stopping rule let the case run (0:
	// the study's last look).
	Cap int
}

// runState is what the rounds of one study share: its sessions, the
// progress count and the cases still running.
type runState struct {
	st       Study
	info     Info
	sessions []*Session
	done     int // repetitions run, over all cases and targets
	total    int // planned, lowered as cases stop
}

// rounds runs the repetitions of every case on every target, interleaved
// in rounds (rep 1: case 1 on A, B; case 2 on B, A; …; see roundOrder):
// to the one look of a fixed count, or under r.Stopping up to each look of
// the study, every case stopping on its own at a look. It records each case's repetitions in out.
func (r *Runner) rounds(ctx context.Context, rs *runState, plan Plan, looks []int, auto bool, out *Outcome) error {
	cap := looks[len(looks)-1]
	rs.total = cap * len(plan.Cases) * len(rs.sessions)
	active := make([]int, len(plan.Cases))
	reached := make([]CaseReps, len(plan.Cases))
	for ci, c := range plan.Cases {
		active[ci], reached[ci] = ci, CaseReps{Case: c}
	}
	defer func() { out.CaseReps = reached }()
	from := 1
	for _, look := range looks {
		for rep := from; rep <= look; rep++ {
			for _, ci := range active {
				if err := r.repetition(ctx, rs, plan.Cases[ci], ci, rep, cap); err != nil {
					return err
				}
				reached[ci].N = rep
			}
		}
		from = look + 1
		if !auto {
			break
		}
		if look == looks[0] {
			r.caps(rs, plan, active, reached)
		}
		var err error
		if active, err = r.look(rs, plan, active, reached, look, looks); err != nil {
			return err
		}
		if len(active) == 0 {
			break
		}
	}
	return r.storeReps(ctx, rs.info.Name, looks, auto, reached)
}

// caps asks the stopping rule for each active case's cap from what its
// rounds cost so far, and keeps them in reached.
func (r *Runner) caps(rs *runState, plan Plan, active []int, reached []CaseReps) {
	costs := map[string]time.Duration{}
	for _, ci := range active {
		costs[caseKeyOf(plan, plan.Cases[ci])] = rs.roundCost(plan.Cases[ci])
	}
	caps := r.Stopping.Caps(rs.info.Name, costs)
	for _, ci := range active {
		reached[ci].Cap = caps[caseKeyOf(plan, plan.Cases[ci])]
	}
}

// caseKeyOf returns the key the stopping rule knows a case by: its labels'
// key, or "" for a study whose runs record into cases of their own (its one
// planned case owns them all).
func caseKeyOf(plan Plan, c Case) string {
	if plan.Recorded > 0 {
		return ""
	}
	return results.CaseKey(c.Labels)
}

// look decides, at a look of n repetitions, which of the active cases go
// on: the stopping rule's, then the budget's, which must afford each
// case's rounds to the next look. It returns the cases that go on and sets
// the reasons of those that stop.
func (r *Runner) look(rs *runState, plan Plan, active []int, reached []CaseReps, n int, looks []int) ([]int, error) {
	names := make([]string, len(rs.sessions))
	for i, s := range rs.sessions {
		names[i] = s.Target.Name
	}
	next := 0
	for _, l := range looks {
		if l > n {
			next = l
			break
		}
	}
	var goOn []int
	var cost time.Duration
	for _, ci := range active {
		c := plan.Cases[ci]
		done, why, err := r.Stopping.Decide(rs.info.Name, c, names, rs.measurements(), plan.Recorded > 0)
		if err != nil {
			return nil, fmt.Errorf("study %s: %s: stopping rule: %w", rs.info.Name, caseTitle(c), err)
		}
		switch {
		case done:
			reached[ci].Reason = why
		case next == 0 || reached[ci].Cap > 0 && next > reached[ci].Cap:
			reached[ci].Reason = "cap"
		case !r.Stopping.Afford(rs.info.Name, cost+rs.roundCost(c)*time.Duration(next-n)):
			reached[ci].Reason = "budget"
		default:
			cost += rs.roundCost(c) * time.Duration(next-n)
			goOn = append(goOn, ci)
			continue
		}
		rs.total -= (looks[len(looks)-1] - n) * len(rs.sessions)
		r.say("%s: %s stops at %d repetitions (%s)", rs.info.Name, caseTitle(c), n, reached[ci].Reason)
	}
	return goOn, nil
}

// measurements returns the study's measurements so far, of every case on
// every target.
func (rs *runState) measurements() []results.Measurement {
	var out []results.Measurement
	for _, s := range rs.sessions {
		s.mu.Lock()
		out = append(out, s.all...)
		s.mu.Unlock()
	}
	return out
}

// roundCost returns what one round of case c has cost so far on average:
// its repetitions' time on every target over the rounds run, the
// profiler's left out (Exempter).
func (rs *runState) roundCost(c Case) time.Duration {
	key := results.CaseKey(c.Labels)
	var total time.Duration
	rounds := 0
	for _, s := range rs.sessions {
		s.mu.Lock()
		if t, ok := s.tallies[key]; ok {
			total += t.run - t.profile
			rounds = max(rounds, t.reps)
		}
		s.mu.Unlock()
	}
	if rounds == 0 {
		return 0
	}
	return total / time.Duration(rounds)
}

// storeReps keeps how many repetitions each case ran and why it stopped
// (artefact results.StudyRepsArtefact).
func (r *Runner) storeReps(ctx context.Context, study string, looks []int, auto bool, reached []CaseReps) error {
	if r.Store == nil {
		return nil
	}
	sr := results.StudyReps{Study: study}
	if auto {
		sr.Looks = looks
	}
	for _, c := range reached {
		sr.Cases = append(sr.Cases, results.CaseReps{Name: caseTitle(c.Case), Labels: c.Case.Labels, N: c.N, Reason: c.Reason, Cap: c.Cap})
	}
	data, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	return r.Store.AddArtefact(ctx, results.Artefact{Study: study, Name: results.StudyRepsArtefact, ContentType: "application/json", Data: data})
}
