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
	a := newAutoReps(spec, 2)
	if a == nil {
		t.Fatal("no stopping rule for a quick comparison of two servers")
	}
	m := 0
	for _, sr := range runs {
		plan, _ := sr.Study.Plan(sr.Params)
		if len(plan.Cases) > 0 {
			m += ownTests(sr.Study.Info().Presentation)
		}
	}
	if a.design.Family != m || m < 10 || !a.design.Paired || !slices.Equal(a.design.Looks, []int{4, 8, 10}) {
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
	if b := newAutoReps(spec, 3); b.design.Family != 2*m {
		t.Errorf("three targets: family %d, want %d", b.design.Family, 2*m)
	}
	// Nothing to choose: a fixed count, or one target.
	if newAutoReps(&Spec{Studies: runs, Reps: 5}, 2) != nil || newAutoReps(spec, 1) != nil {
		t.Error("a stopping rule for a fixed count or a single target")
	}
	plan, _ := runs[0].Study.Plan(runs[0].Params)
	if a.Looks("copy-errors", plan) != nil || !slices.Equal(a.Looks("vacuum", plan), []int{4, 8, 10}) {
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
// measurements; a consistent 2× change across the four cases is called
// at the first look, 4 rounds.
func TestAutoRepsDecide(t *testing.T) {
	names, _ := StudyNames("all")
	runs, _ := Studies(names, nil, true)
	a := newAutoReps(&Spec{Studies: runs, Quick: true}, 2)
	cases, ms := vacuumCases(t, 4, 0.5)
	for _, c := range cases {
		done, why, err := a.Decide("vacuum", c, []string{"pg16", "pg17"}, ms, false)
		if err != nil || !done || why != "called, same" {
			t.Errorf("%s: 2× faster, WAL equal: done %v, %q, %v", c.Name, done, why, err)
		}
	}
	// No change beyond ±1 % of noise: every case is the same.
	cases, ms = vacuumCases(t, 4, 1)
	for _, c := range cases {
		if done, why, err := a.Decide("vacuum", c, []string{"pg16", "pg17"}, ms, false); !done || why != "same" || err != nil {
			t.Errorf("%s: no change: done %v, %q, %v", c.Name, done, why, err)
		}
	}
}

// TestAutoRepsLookScale: at the seeds' sizes tps, whose runs are 15 s
// slices of the seed's 60 s run, is looked at after 4× the design's
// rounds and decided by that design; under --quick, and for the other
// studies, the design's looks stand.
func TestAutoRepsLookScale(t *testing.T) {
	names, _ := StudyNames("all")
	for _, quick := range []bool{false, true} {
		runs, err := Studies(names, nil, quick)
		if err != nil {
			t.Fatal(err)
		}
		a := newAutoReps(&Spec{Studies: runs, Quick: quick}, 2)
		for _, sr := range runs {
			plan, _ := sr.Study.Plan(sr.Params)
			looks := a.Looks(sr.Study.Info().Name, plan)
			want := a.design.Looks
			if sr.Study.Info().Name == "tps" && !quick {
				want = []int{12, 24, 40}
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
	none.begin()
	if !none.afford(time.Hour) {
		t.Error("no budget refuses")
	}
	b := &budget{total: time.Hour, start: time.Now(), left: 3}
	b.begin()
	if b.share < 19*time.Minute || b.share > 20*time.Minute || !b.afford(10*time.Minute) || b.afford(25*time.Minute) {
		t.Errorf("first of three studies: share %v", b.share)
	}
	b.start = b.start.Add(-50 * time.Minute) // 50 minutes spent
	b.begin()
	if b.share < 4*time.Minute || b.share > 5*time.Minute {
		t.Errorf("second study, 10 minutes left for two: share %v", b.share)
	}
	b.start = b.start.Add(-20 * time.Minute)
	b.begin()
	if b.share != 0 || b.afford(time.Second) {
		t.Errorf("over budget: share %v", b.share)
	}
	if !strings.Contains(PlanExample, "reps: auto") {
		t.Error("the plan example does not show reps: auto")
	}
}
