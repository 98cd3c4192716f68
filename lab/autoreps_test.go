package lab

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// TestAutoRepsFamily: the family of --reps auto is known before the run:
// every study's cases × its primary metrics that are tests of their own ×
// the targets compared with the baseline.
func TestAutoRepsFamily(t *testing.T) {
	names, err := StudyNames("all")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Studies(names, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	spec := &Spec{Studies: runs}
	a := newAutoReps(spec, 2)
	if a == nil {
		t.Fatal("no stopping rule for a quick comparison of two servers")
	}
	m := 0
	for _, sr := range runs {
		plan, _ := sr.Study.Plan(sr.Params)
		m += len(plan.Cases) * ownTests(sr.Study.Info().Presentation)
	}
	if a.design.Family != m || m < 40 || !slices.Equal(a.design.Looks, []int{8, 10}) {
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
	if own("copy-errors") != 0 || own("tps") != 2 || own("commit") != 4 || ownTests(nil) != 0 {
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
	if a.Looks("copy-errors", plan) != nil || !slices.Equal(a.Looks("vacuum", plan), []int{8, 10}) {
		t.Error("Looks: copy-errors must keep its count, vacuum gets the design's")
	}
}

// vacuumCase returns measurements of one vacuum case at n repetitions: the
// VACUUM time of pg17 factor × pg16's, the WAL equal.
func vacuumCase(n int, factor float64) []results.Measurement {
	labels := map[string]string{"update_pct": "95", "index": "yes"}
	var ms []results.Measurement
	for rep := 1; rep <= n; rep++ {
		for _, tg := range []string{"pg16", "pg17"} {
			f := 1.0
			if tg == "pg17" {
				f = factor
			}
			ms = append(ms,
				results.Measurement{Target: tg, Study: "vacuum", Case: labels, Rep: rep, Metric: "elapsed_ms", Value: f * (100 + float64(rep%3)), Unit: "ms", Direction: results.DirectionLower},
				results.Measurement{Target: tg, Study: "vacuum", Case: labels, Rep: rep, Metric: "wal_bytes", Value: 1e6 + float64(rep%2), Unit: "bytes", Direction: results.DirectionLower},
				results.Measurement{Target: tg, Study: "vacuum", Case: labels, Rep: rep, Metric: "cpu_user_s", Value: float64(rep), Unit: "s"})
		}
	}
	return ms
}

func TestAutoRepsDecide(t *testing.T) {
	names, _ := StudyNames("all")
	runs, _ := Studies(names, nil, true)
	a := newAutoReps(&Spec{Studies: runs}, 2)
	c := study.Case{Name: "95 % + index"}
	done, why, err := a.Decide("vacuum", c, []string{"pg16", "pg17"}, vacuumCase(8, 0.5))
	if err != nil || !done || why != "called, same" {
		t.Errorf("2× faster, WAL equal: done %v, %q, %v", done, why, err)
	}
	// Before the first look the time cannot be called yet.
	done, _, _ = a.Decide("vacuum", c, []string{"pg16", "pg17"}, vacuumCase(6, 0.5))
	if done {
		t.Error("done at 6 repetitions, below the first look")
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
