package lab

import (
	"fmt"
	"testing"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// TestFloorOneFamily: with --min-change 10 % a comparison decides its
// rounds and its calls on one family: a case whose time rose by 7 % is
// the same within the run's floor for the stopping rule and for the
// report (at the default 5 % both would call it), and the part of a whole
// (WAL sync time of the time for all updates) gets its floor from the
// run's floor in both.
func TestFloorOneFamily(t *testing.T) {
	runsOf, err := Studies([]string{"commit"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := runsOf[0].Study.Plan(runsOf[0].Params)
	cases := plan.Cases[:2]
	const n = 16 // quick commit's first look: 4 of the design's rounds of 2000 updates, in quarters
	var ms []results.Measurement
	for ci, c := range cases {
		for rep := 1; rep <= n; rep++ {
			for ti, tg := range []string{"pg16", "pg17"} {
				wiggle := 1 + 0.004*float64((rep*7+ci*3+ti*2)%5-2)
				elapsed := 1000 * wiggle
				if ci == 0 && tg == "pg17" {
					elapsed *= 1.07
				}
				add := func(metric, unit string, v float64) {
					ms = append(ms, results.Measurement{Target: tg, Study: "commit", Case: c.Labels, CaseKey: results.CaseKey(c.Labels),
						Rep: rep, Metric: metric, Value: v, Unit: unit, Direction: results.DirectionLower})
				}
				add("elapsed_ms", "ms", elapsed)
				add("us_per_update", "us", elapsed*1000/2000)
				add("commit_cost_us", "us", 100*wiggle)
				add("wal_sync_ms", "ms", 200*wiggle*wiggle)
				add("wal_syncs", "count", 2000)
				add("server_cpu_us_per_update", "us", 50*wiggle)
				add("wal_bytes", "bytes", 1e6)
			}
		}
	}
	targets := []string{"pg16", "pg17"}
	decide := func(floor float64) map[string]string {
		a := newAutoReps(&Spec{Studies: runsOf, Quick: true, MinChange: floor, Budget: NoBudget}, 2, nil)
		a.Looks("commit", plan)
		out := map[string]string{}
		for _, c := range cases {
			done, why, err := a.Decide("commit", c, targets, ms, false)
			if err != nil {
				t.Fatal(err)
			}
			out[c.Name] = fmt.Sprintf("%v %s", done, why)
		}
		return out
	}
	report := func(floor float64) *runs.Dataset {
		info := runsOf[0].Study.Info()
		a := newAutoReps(&Spec{Studies: runsOf, Quick: true, Budget: NoBudget}, 2, nil)
		return &runs.Dataset{
			Targets:      []results.Target{{Name: "pg16"}, {Name: "pg17"}},
			Measurements: ms,
			Studies:      []runs.StudyInfo{{Name: "commit", Version: info.Version, Presentation: info.Presentation}},
			Reps:         []results.StudyReps{{Study: "commit", Looks: a.Looks("commit", plan), Cases: []results.CaseReps{{Labels: cases[0].Labels, N: n}, {Labels: cases[1].Labels, N: n}}}},
			MinChange:    floor,
		}
	}
	outcome := func(d *runs.Dataset, c study.Case, metric string) compare.Change {
		_, a, err := d.Analysis()
		if err != nil {
			t.Fatal(err)
		}
		key := "commit\x00" + results.CaseKey(c.Labels) + "\x00" + metric
		ch, ok := a.Family.Change(key, "pg17")
		if !ok {
			t.Fatalf("no change of %s", key)
		}
		return ch
	}

	wide := decide(0.10)
	d := report(0.10)
	if got := wide[cases[0].Name]; got != "true same" {
		t.Errorf("stopping rule at a 10 %% floor, 7 %% slower: %q, want done, same", got)
	}
	if c := outcome(d, cases[0], "elapsed_ms"); c.Outcome != compare.OutcomeSame || c.Floor != 0.10 {
		t.Errorf("report at a 10 %% floor, 7 %% slower: %s (floor %v)", c.OutcomeText(), c.Floor)
	}
	if c := outcome(d, cases[0], "wal_sync_ms"); c.Floor < 0.49 || c.Floor > 0.51 {
		t.Errorf("WAL sync time's floor at a 10 %% floor of a whole 5× its size: %v, want 0.5", c.Floor)
	}
	narrow := decide(0)
	if got := narrow[cases[0].Name]; got != "true called, same" {
		t.Errorf("stopping rule at the default floor, 7 %% slower: %q, want done, called", got)
	}
	if c := outcome(report(0), cases[0], "elapsed_ms"); !c.Called {
		t.Errorf("report at the default floor, 7 %% slower: %s", c.OutcomeText())
	}
}
