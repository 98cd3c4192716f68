package lab

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// TestAutoRepsFamily: the measures of --reps auto are known before the
// run: every study's primary metrics that are tests of their own × the
// targets compared with the baseline.
func TestAutoRepsFamily(t *testing.T) {
	names, err := StudyNames("all")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Studies(names, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	spec := &Spec{Studies: runs, Quick: true}
	a := newAutoReps(spec, 2, nil)
	if a == nil {
		t.Fatal("no stopping rule for a quick comparison of two servers")
	}
	m := 0
	for _, sr := range runs {
		plan, _ := sr.Study.Plan(sr.Params)
		if k := ownTests(sr.Study.Info().Presentation); k > 0 && len(plan.Cases) > 0 {
			m += k * len(plan.Cases)
			if len(plan.Cases) > 1 {
				m += k // the measure's own test
			}
		}
	}
	looks := []int{4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40}
	if a.design.Family != m || m < 60 || !a.design.Paired || !slices.Equal(a.design.Looks, looks) {
		t.Errorf("family %d (want %d), looks %v", a.design.Family, m, a.design.Looks)
	}
	if _, ok := a.chosen["copy-errors"]; ok || a.chosen["vacuum"] == nil || a.chosen["commit"] == nil {
		t.Errorf("chosen: %v", a.chosen)
	}
	own := func(name string) int {
		st, err := study.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		return ownTests(st.Info().Presentation)
	}
	if own("copy-errors") != 0 || own("tps") != 3 || own("commit") != 6 || ownTests(nil) != 0 {
		t.Errorf("own tests: copy-errors %d, tps %d, commit %d", own("copy-errors"), own("tps"), own("commit"))
	}
	// Three targets: twice the tests.
	if b := newAutoReps(spec, 3, nil); b.design.Family != 2*m {
		t.Errorf("three targets: family %d, want %d", b.design.Family, 2*m)
	}
	// Nothing to choose: a fixed count, or one target.
	if newAutoReps(&Spec{Studies: runs, Reps: 5}, 2, nil) != nil || newAutoReps(spec, 1, nil) != nil {
		t.Error("a stopping rule for a fixed count or a single target")
	}
	planOf := func(name string) study.Plan {
		for _, sr := range runs {
			if sr.Study.Info().Name == name {
				plan, _ := sr.Study.Plan(sr.Params)
				return plan
			}
		}
		t.Fatalf("no study %s", name)
		return study.Plan{}
	}
	if a.Looks("copy-errors", planOf("copy-errors")) != nil || !slices.Equal(a.Looks("vacuum", planOf("vacuum")), looks) {
		t.Error("Looks: copy-errors must keep its count, vacuum gets the design's")
	}
}

// vacuumCases returns measurements of the vacuum study's cases at n
// repetitions: the VACUUM time of pg17 factor × pg16's (within ±1 % of
// noise), the WAL equal.
func vacuumCases(t *testing.T, n int, factor float64) ([]study.Case, []results.Measurement) {
	runs, err := Studies([]string{"vacuum"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := runs[0].Study.Plan(runs[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	var ms []results.Measurement
	for ci, c := range plan.Cases {
		for rep := 1; rep <= n; rep++ {
			for ti, tg := range []string{"pg16", "pg17"} {
				f := 1.0
				if tg == "pg17" {
					f = factor
				}
				noise := 1 + 0.01*float64((rep*7+ci*3+ti*5)%5-2)/2
				ms = append(ms,
					results.Measurement{Target: tg, Study: "vacuum", Case: c.Labels, Rep: rep, Metric: "elapsed_ms", Value: f * (100 + float64(rep%3)) * noise, Unit: "ms", Direction: results.DirectionLower},
					results.Measurement{Target: tg, Study: "vacuum", Case: c.Labels, Rep: rep, Metric: "wal_bytes", Value: 1e6 + float64(rep%2), Unit: "bytes", Direction: results.DirectionLower},
					results.Measurement{Target: tg, Study: "vacuum", Case: c.Labels, Rep: rep, Metric: "cpu_user_s", Value: float64(rep), Unit: "s"})
			}
		}
	}
	return plan.Cases, ms
}

// TestAutoRepsDecide: the cases of a study are decided from all of its
// measurements: a consistent 2× change across the four cases is called
// at the first look, 4 rounds, each case on its own test, which its
// measure's test over the four backs at so few rounds.
func TestAutoRepsDecide(t *testing.T) {
	names, _ := StudyNames("all")
	runs, _ := Studies(names, nil, true)
	a := newAutoReps(&Spec{Studies: runs, Quick: true}, 2, nil)
	cases, ms := vacuumCases(t, 4, 0.5)
	for _, c := range cases {
		done, why, err := a.Decide("vacuum", c, []string{"pg16", "pg17"}, ms, false)
		if err != nil || !done || why != "called, same" {
			t.Errorf("%s: 2× faster, WAL equal: done %v, %q, %v", c.Name, done, why, err)
		}
	}
	// No change beyond ±1 % of noise: every case is the same.
	cases, ms = vacuumCases(t, 8, 1)
	for _, c := range cases {
		if done, why, err := a.Decide("vacuum", c, []string{"pg16", "pg17"}, ms, false); !done || why != "same" || err != nil {
			t.Errorf("%s: no change: done %v, %q, %v", c.Name, done, why, err)
		}
	}
}

// TestAutoRepsLookScale: at the seeds' sizes tps, whose runs are 15 s
// slices of the seed's 60 s run, is looked at after 4× the design's
// rounds and decided by that design, as commit is under --quick, whose
// rounds are a quarter of its 2000 updates; otherwise the design's looks
// stand.
func TestAutoRepsLookScale(t *testing.T) {
	for _, quick := range []bool{false, true} {
		a, runs := autoRepsOf(t, "all", quick)
		for _, sr := range runs {
			plan, _ := sr.Study.Plan(sr.Params)
			looks := a.Looks(sr.Study.Info().Name, plan)
			want := a.design.Looks
			scale := map[string]int{"tps": 4}
			if quick {
				scale = map[string]int{"tps": 3, "commit": 4}
			}
			if k := scale[sr.Study.Info().Name]; k > 0 {
				want = nil
				for _, l := range a.design.Looks {
					want = append(want, k*l)
				}
			}
			if looks != nil && !slices.Equal(looks, want) {
				t.Errorf("quick %v: %s looks %v, want %v", quick, sr.Study.Info().Name, looks, want)
			}
			if d := a.studyDesign(sr.Study.Info().Name); looks != nil && !slices.Equal(d.Looks, looks) {
				t.Errorf("quick %v: %s decided by looks %v, not its own %v", quick, sr.Study.Info().Name, d.Looks, looks)
			}
		}
	}
}

func TestBudgetShares(t *testing.T) {
	var none *budget
	none.begin("x")
	if !none.afford(time.Hour) || none.leftInShare() >= 0 {
		t.Error("no budget refuses, or has a share")
	}
	// Studies share the budget by their cases: 6, 3 and 3 of 12.
	b := &budget{total: time.Hour, start: time.Now(), pending: claims(6, 3, 3, 0)}
	b.begin("a")
	if b.share < 29*time.Minute || b.share > 30*time.Minute || !b.afford(20*time.Minute) || b.afford(35*time.Minute) {
		t.Errorf("first study, half the cases: share %v", b.share)
	}
	if l := b.leftInShare(); l < 29*time.Minute || l > 30*time.Minute {
		t.Errorf("left in the first share: %v", l)
	}
	b.start = b.start.Add(-50 * time.Minute) // 50 minutes spent
	b.begin("b")
	if b.share < 4*time.Minute || b.share > 5*time.Minute {
		t.Errorf("second study, 10 minutes left for two of 3 cases each: share %v", b.share)
	}
	b.start = b.start.Add(-20 * time.Minute)
	b.begin("c")
	if b.share != 0 || b.afford(time.Second) || b.leftInShare() != 0 {
		t.Errorf("over budget: share %v", b.share)
	}
	// A known first look longer than the study's part is its share: c's
	// 20 minutes (its part of the hour: 15) leave 40 for a's 6 and b's 3
	// cases; its own share is what is left when it begins.
	b = &budget{total: time.Hour, start: time.Now(), pending: claims(6, 3, 3, 20*time.Minute)}
	b.begin("a")
	if want := 40 * time.Minute * 6 / 9; b.share < want-time.Second || b.share > want {
		t.Errorf("first study with c's 20 minutes set aside: share %v, want %v", b.share, want)
	}
	b.start = b.start.Add(-25 * time.Minute)
	b.begin("b")
	if b.share < 14*time.Minute+50*time.Second || b.share > 15*time.Minute {
		t.Errorf("second study, 35 minutes left, c's first look 20: share %v, want 15 min", b.share)
	}
	b.start = b.start.Add(-10 * time.Minute)
	b.begin("c")
	if b.share < 24*time.Minute+50*time.Second || b.share > 25*time.Minute || len(b.pending) != 0 {
		t.Errorf("the study set aside for, 25 minutes left: share %v, want all of it", b.share)
	}
	// A first look shorter than the study's part sets nothing aside.
	b = &budget{total: time.Hour, start: time.Now(), pending: claims(6, 3, 3, 10*time.Minute)}
	b.begin("a")
	if b.share < 29*time.Minute+50*time.Second || b.share > 30*time.Minute {
		t.Errorf("c's first look within its part: a's share %v, want 30 min", b.share)
	}
	// First looks that need more than is left get just those.
	if s := fill(10*time.Minute, map[string]claim{"x": {weight: 5}, "y": {weight: 1, firstLook: 12 * time.Minute}}); s["x"] != 0 || s["y"] != 12*time.Minute {
		t.Errorf("first looks beyond the budget: shares %v", s)
	}
	if !strings.Contains(PlanExample, "reps: auto") {
		t.Error("the plan example does not show reps: auto")
	}
}

// claims returns the pending studies a, b and c of the budget tests, of
// wa, wb and wc cases, c with a known first look of cFirst.
func claims(wa, wb, wc int, cFirst time.Duration) map[string]claim {
	return map[string]claim{"a": {weight: wa}, "b": {weight: wb}, "c": {weight: wc, firstLook: cFirst}}
}

// autoRepsOf returns the stopping rule of a two-server run of the named
// studies (StudyNames' syntax) at the seeds' sizes or quick, and the runs.
func autoRepsOf(t *testing.T, studies string, quick bool) (*autoReps, []StudyRun) {
	t.Helper()
	names, err := StudyNames(studies)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Studies(names, nil, quick)
	if err != nil {
		t.Fatal(err)
	}
	return newAutoReps(&Spec{Studies: runs, Quick: quick}, 2, nil), runs
}

// TestFirstLookEstimate: tps knows its first look before it runs (its
// slices' duration and warm-up, on every target), a study that cannot
// say reserves nothing.
func TestFirstLookEstimate(t *testing.T) {
	for _, quick := range []bool{false, true} {
		a, _ := autoRepsOf(t, "tps,vacuum", quick)
		// Seed sizes: 4 client counts × 3 rounds of 4 slices of 15 s + 1 s
		// warm-up on 2 servers = 25.6 min; quick: 2 × 4 rounds of 3 slices
		// of 1 s + 0.5 s on 2.
		want := map[bool]time.Duration{false: 4 * 3 * 4 * 16 * time.Second * 2, true: 2 * 4 * 3 * 1500 * time.Millisecond * 2}[quick]
		if got := a.budget.pending["tps"].firstLook; got != want {
			t.Errorf("quick %v: tps's first look reserved %v, want %v", quick, got, want)
		}
		if got := a.budget.pending["vacuum"].firstLook; got != 0 {
			t.Errorf("quick %v: vacuum reserves %v", quick, got)
		}
	}
}

// TestBudgetExempt: the profiler's time, reported to the stopping rule,
// is charged neither to the current study's share nor to the run's
// budget for the studies after it.
func TestBudgetExempt(t *testing.T) {
	names, _ := StudyNames("vacuum")
	runs, _ := Studies(names, nil, true)
	a := newAutoReps(&Spec{Studies: runs, Quick: true}, 2, nil)
	a.budget = &budget{total: time.Hour, start: time.Now(), pending: map[string]claim{"a": {weight: 1}, "b": {weight: 1}}}
	a.budget.begin("a")
	a.budget.began = a.budget.began.Add(-20 * time.Minute) // 20 of its 30 minutes spent
	a.budget.start = a.budget.start.Add(-20 * time.Minute)
	var _ study.Exempter = a
	a.Exempt(15 * time.Minute) // of which 15 profiling
	if l := a.budget.leftInShare(); l < 24*time.Minute || l > 25*time.Minute {
		t.Errorf("left in the share after 20 minutes, 15 of them the profiler's: %v, want 25 min", l)
	}
	a.budget.begin("b")
	if s := a.budget.share; s < 54*time.Minute || s > 55*time.Minute {
		t.Errorf("the next study's share: %v, want 55 min of the hour", s)
	}
	var none *budget
	none.exempt(time.Minute) // no budget: nothing to do
}

// TestAutoRepsCaps: at a study's first look each case gets an equal part
// of what is left of the study's share, in rounds of its own cost, on a
// look between the first and the design's cap; without a budget every
// case may run to the cap.
func TestAutoRepsCaps(t *testing.T) {
	names, _ := StudyNames("all")
	runs, _ := Studies(names, nil, true)
	a := newAutoReps(&Spec{Studies: runs, Quick: true, Budget: NoBudget}, 2, nil)
	if caps := a.Caps("commit", map[string]time.Duration{"x": time.Second}); caps["x"] != a.design.Cap() {
		t.Errorf("no budget: cap %d, want the design's %d", caps["x"], a.design.Cap())
	}
	a = newAutoReps(&Spec{Studies: runs, Quick: true}, 2, nil)
	a.budget = &budget{total: time.Hour, start: time.Now()}
	a.budget.share, a.budget.began = 60*time.Second, time.Now()
	caps := a.Caps("commit", map[string]time.Duration{
		"cheap": 50 * time.Millisecond, "middle": 2 * time.Second, "dear": 20 * time.Second, "free": 0})
	// 60 s over 4 cases: 15 s each.
	want := map[string]int{"cheap": 40, "middle": 10, "dear": 4, "free": 40}
	for k, w := range want {
		if caps[k] != w {
			t.Errorf("cap of %s: %d, want %d (all %v)", k, caps[k], w, caps)
		}
	}
	a.mu.Lock()
	kept := a.caps["commit"]["middle"]
	a.mu.Unlock()
	if kept != 10 {
		t.Errorf("the caps are not kept for the study's decisions: %d", kept)
	}
}
