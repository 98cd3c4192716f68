package study

import (
	"slices"
	"time"

	"github.com/pglab/pglab/results"
)

// caseTally is where one case's repetitions on one target spent their
// time.
type caseTally struct {
	c                           Case
	reps                        int
	run, measured, reset, waits time.Duration
	// profile is the profiler's time in the case's steps (--profile):
	// part of run, not of its cost to the budget.
	profile time.Duration
}

// tallyLocked returns the current case's tally (s.mu held), nil outside a
// repetition.
func (s *Session) tallyLocked() *caseTally {
	if s.rep == 0 {
		return nil
	}
	key := results.CaseKey(s.cur.Labels)
	if s.tallies == nil {
		s.tallies = map[string]*caseTally{}
	}
	t, ok := s.tallies[key]
	if !ok {
		t = &caseTally{c: s.cur}
		s.tallies[key] = t
		s.order = append(s.order, key)
	}
	return t
}

// addRunTime counts one repetition of c that took d (the runner's clock
// around Run).
func (s *Session) addRunTime(c Case, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, rep := s.cur, s.rep
	s.cur, s.rep = c, max(rep, 1)
	if t := s.tallyLocked(); t != nil {
		t.reps++
		t.run += d
	}
	s.cur, s.rep = cur, rep
}

// addProfileTime counts d of the profiler's time (attaching perf, reading
// its samples) in the current repetition: not charged to the run's budget
// (Exempter), nor to the case's cost per round.
func (s *Session) addProfileTime(d time.Duration) {
	if d <= 0 {
		return
	}
	s.mu.Lock()
	if t := s.tallyLocked(); t != nil {
		t.profile += d
	}
	s.profiled += d
	s.mu.Unlock()
	if s.runner != nil {
		if e, ok := s.runner.Stopping.(Exempter); ok {
			e.Exempt(d)
		}
	}
}

// addDataUse records one load of a dataset: in a repetition a reset of
// its case (building a missing cache entry counts as set-up, waiting for
// another process as waiting), in Setup the study's data.
func (s *Session) addDataUse(u results.DataUse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.Case = s.cur.Labels
	s.uses = append(s.uses, u)
	if t := s.tallyLocked(); t != nil {
		t.reset += msDuration(u.MS - u.WaitMS - u.BuildMS)
		t.waits += msDuration(u.WaitMS)
	}
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// addTimes adds the sessions' case tallies and dataset loads to a study's
// time split.
func addTimes(st *results.StudyTime, sessions []*Session) {
	cases := map[string]*results.CaseTime{}
	var order []string
	for _, s := range sessions {
		s.mu.Lock()
		for _, key := range s.order {
			t := s.tallies[key]
			ct, ok := cases[key]
			if !ok {
				ct = &results.CaseTime{Case: t.c.Labels, Name: caseTitle(t.c)}
				cases[key] = ct
				order = append(order, key)
			}
			ct.Reps += t.reps
			ct.RunMS += msOf(t.run)
			ct.MeasuredMS += msOf(t.measured)
			ct.ResetMS += msOf(t.reset)
			ct.WaitMS += msOf(t.waits)
			st.ResetMS += msOf(t.reset)
		}
		for _, u := range s.uses {
			st.WaitMS += u.WaitMS
			st.BuildMS += u.BuildMS
			if u.Rep == 0 {
				st.DataMS += u.MS
			}
		}
		st.Data = append(st.Data, summarise(s.uses)...)
		s.mu.Unlock()
	}
	for _, key := range order {
		st.Cases = append(st.Cases, *cases[key])
	}
}

// summarise groups a target's dataset loads by dataset and method.
func summarise(uses []results.DataUse) []results.DataSummary {
	var out []results.DataSummary
	times, clones := map[int][]float64{}, map[int][]float64{}
	for _, u := range uses {
		k := slices.IndexFunc(out, func(d results.DataSummary) bool {
			return d.Target == u.Target && d.Dataset == u.Dataset && d.Method == u.Method && d.PerRep == (u.Rep > 0)
		})
		if k < 0 {
			out = append(out, results.DataSummary{Target: u.Target, Dataset: u.Dataset, Method: u.Method, Entry: u.Entry,
				Bytes: u.Bytes, PerRep: u.Rep > 0, FromCache: u.Method != results.DataInPlace})
			k = len(out) - 1
		}
		d := &out[k]
		d.Loads++
		d.WaitMS += u.WaitMS
		if u.Built {
			d.FromCache = false
			d.BuildMS += u.BuildMS
		}
		load := u.MS - u.WaitMS - u.BuildMS
		d.TotalMS += load
		times[k] = append(times[k], load)
		if u.CloneMS > 0 {
			clones[k] = append(clones[k], u.CloneMS)
		}
	}
	for k := range out {
		out[k].MedianMS = median(times[k])
		out[k].CloneMedianMS = median(clones[k])
	}
	return out
}

// median returns the middle of v (the upper one of an even count), 0 for
// none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}
