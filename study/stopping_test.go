package study

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// countingStudy records one value per repetition and remembers the order
// in which it ran (case, target, repetition).
type countingStudy struct {
	mu  sync.Mutex
	ran []string
}

func (s *countingStudy) Info() Info {
	return Info{Name: "counting", Title: "counts repetitions", Version: 1}
}

func (s *countingStudy) Plan(Params) (Plan, error) {
	var cases []Case
	for _, n := range []string{"a", "b", "c", "d"} {
		cases = append(cases, Case{Name: n, Labels: map[string]string{"case": n}})
	}
	return Plan{Cases: cases, Reps: 3}, nil
}

func (s *countingStudy) Setup(context.Context, *Session) error    { return nil }
func (s *countingStudy) Teardown(context.Context, *Session) error { return nil }

func (s *countingStudy) Run(_ context.Context, ss *Session, c Case, rep int) error {
	s.mu.Lock()
	s.ran = append(s.ran, c.Name+"/"+ss.Target.Name)
	s.mu.Unlock()
	ss.Record("x", float64(rep), "ms", LowerIsBetter())
	time.Sleep(time.Millisecond)
	return nil
}

// scriptedStopping stops case a at the first look, b at the second, lets
// c run to the cap, and does not afford d's rounds at the first look.
type scriptedStopping struct {
	looks []int
	seen  map[string][]int // case → repetitions per target at each look
	asked []time.Duration  // what Afford was asked, in turn
	// costs counts the cases Caps was asked about, each time; unpriced
	// names those asked about without a cost.
	costs    []int
	unpriced []string
}

func (s *scriptedStopping) Looks(study string, plan Plan) []int { return s.looks }

func (s *scriptedStopping) Decide(study string, c Case, targets []string, ms []results.Measurement, recorded bool) (bool, string, error) {
	per := map[string]int{}
	for _, m := range ms {
		if results.CaseKey(m.Case) == results.CaseKey(c.Labels) {
			per[m.Target]++
		}
	}
	n := per[targets[0]]
	for _, t := range targets {
		if per[t] != n {
			return false, "", nil // caught below: both sides must match
		}
	}
	s.seen[c.Name] = append(s.seen[c.Name], n)
	switch {
	case c.Name == "a":
		return true, "called", nil
	case c.Name == "b" && n == s.looks[1]:
		return true, "same", nil
	}
	return false, "", nil
}

func (s *scriptedStopping) Caps(study string, costs map[string]time.Duration) map[string]int {
	s.costs = append(s.costs, len(costs))
	for key, c := range costs {
		if c <= 0 {
			s.unpriced = append(s.unpriced, key)
		}
	}
	return map[string]int{results.CaseKey(map[string]string{"case": "c"}): 6}
}

func (s *scriptedStopping) Afford(study string, d time.Duration) bool {
	// At the first look b, c and d ask in turn: d's rounds, on top of
	// b's and c's, do not fit.
	s.asked = append(s.asked, d)
	return len(s.asked) != 3
}

// memStore keeps artefacts.
type memStore struct {
	mu        sync.Mutex
	artefacts []results.Artefact
}

func (m *memStore) AddMeasurements(context.Context, []results.Measurement) error { return nil }
func (m *memStore) AddArtefact(_ context.Context, a results.Artefact) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.artefacts = append(m.artefacts, a)
	return nil
}

// TestRunnerStopsCasesOnTheirOwn: under a Stopping each case runs to the
// first look, then only the cases not done add rounds, interleaved on
// both targets in the seeded order; the outcome and the stored artefact
// say how far each case went and why.
func TestRunnerStopsCasesOnTheirOwn(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	var targets []*Target
	for _, name := range []string{"a", "b"} {
		tg, err := DSNTarget(ctx, name, pgtest.CreateDB(t, inst))
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	st := &countingStudy{}
	stop := &scriptedStopping{looks: []int{4, 6, 8}, seen: map[string][]int{}}
	store := &memStore{}
	r := &Runner{Targets: targets, Stopping: stop, Store: store, OrderSeed: 99}
	out, err := r.Run(ctx, st, Params{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]CaseReps{"a": {N: 4, Reason: "called"}, "b": {N: 6, Reason: "same"}, "c": {N: 6, Reason: "cap", Cap: 6}, "d": {N: 4, Reason: "budget"}}
	for _, cr := range out.CaseReps {
		w := want[cr.Case.Name]
		if cr.N != w.N || cr.Reason != w.Reason || cr.Cap != w.Cap {
			t.Errorf("case %s: %d repetitions (%s, cap %d), want %d (%s, cap %d)", cr.Case.Name, cr.N, cr.Reason, cr.Cap, w.N, w.Reason, w.Cap)
		}
	}
	if out.Reps != 6 {
		t.Errorf("Reps = %d, want the most any case ran, 6", out.Reps)
	}
	if !slices.Equal(stop.seen["c"], []int{4, 6}) || !slices.Equal(stop.seen["a"], []int{4}) {
		t.Errorf("looks seen: %v", stop.seen)
	}
	// The caps are chosen once, at the first look, from every case's cost.
	if !slices.Equal(stop.costs, []int{4}) || len(stop.unpriced) > 0 {
		t.Errorf("Caps asked about %v cases (unpriced %v), want once about 4", stop.costs, stop.unpriced)
	}
	// The budget is asked for the rounds of the cases going on so far
	// and the next one's, together.
	if len(stop.asked) < 3 || !(stop.asked[0] > 0 && stop.asked[1] > stop.asked[0] && stop.asked[2] > stop.asked[1]) {
		t.Errorf("Afford asked %v: want growing costs at the first look", stop.asked)
	}
	// Both targets ran every repetition of a case; the measurements
	// hold them in order.
	count := map[string]int{}
	for _, m := range out.Measurements {
		count[m.Case["case"]+"/"+m.Target]++
	}
	for c, w := range want {
		if count[c+"/a"] != w.N || count[c+"/b"] != w.N {
			t.Errorf("case %s: %d and %d measurements, want %d each", c, count[c+"/a"], count[c+"/b"], w.N)
		}
	}
	// The stored artefact.
	var sr results.StudyReps
	for _, a := range store.artefacts {
		if a.Name == results.StudyRepsArtefact {
			if err := json.Unmarshal(a.Data, &sr); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(sr.Looks, []int{4, 6, 8}) || len(sr.Cases) != 4 || sr.Cases[3].Reason != "budget" || sr.Cases[3].N != 4 || sr.Cases[2].Cap != 6 {
		t.Errorf("stored reps: %+v", sr)
	}
}

// TestRunnerFixedReps: without a Stopping every case runs the count.
func TestRunnerFixedReps(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	tg, err := DSNTarget(ctx, "a", pgtest.CreateDB(t, inst))
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&Runner{Targets: []*Target{tg}, Reps: 2}).Run(ctx, &countingStudy{}, Params{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cr := range out.CaseReps {
		if cr.N != 2 || cr.Reason != "" {
			t.Errorf("case %s: %d (%q)", cr.Case.Name, cr.N, cr.Reason)
		}
	}
	if out.Reps != 2 || len(out.Measurements) != 8 {
		t.Errorf("Reps %d, %d measurements", out.Reps, len(out.Measurements))
	}
}
