package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPlanReps(t *testing.T) {
	tests := []struct {
		n, m         int
		lone         bool
		maxFamily    int
		minCalls     int
		needN        int
		stringPrefix string
	}{
		{4, 1, true, 1, 1, 4, "n=4 in a family of 1 at q=0.05: min p 0.0286 ≤ 0.05"},
		{4, 2, false, 1, 2, 5, "n=4 in a family of 2"},
		{5, 6, true, 6, 1, 5, "n=5 in a family of 6 at q=0.05: min p 0.00794 ≤ 0.0083"},
		{5, 60, false, 6, 10, 7, "n=5 in a family of 60 at q=0.05: min p 0.00794 > 0.00083 needed by a lone change; at least 10 changes"},
		{6, 60, false, 23, 3, 7, "n=6 in a family of 60"},
		{7, 60, true, 85, 1, 7, "n=7"},
		{8, 60, true, 321, 1, 7, "n=8"},
		{8, 600, false, 321, 2, 9, "n=8 in a family of 600"},
		{3, 10, false, 0, 0, 6, "n=3 in a family of 10 at q=0.05: min p 0.1 > 0.05: nothing can be called"},
	}
	for _, tt := range tests {
		p := PlanReps(tt.n, tt.m, 0)
		if p.LoneCallable != tt.lone || p.MaxFamily != tt.maxFamily || p.MinCalls != tt.minCalls || p.NeedN != tt.needN || !strings.HasPrefix(p.String(), tt.stringPrefix) {
			t.Errorf("PlanReps(%d, %d) = %+v\n%s", tt.n, tt.m, p, p)
		}
	}
}

func TestMinRepsForFamily(t *testing.T) {
	// The table of its doc comment: the largest m for each n.
	for _, tt := range []struct{ m, n int }{{1, 4}, {2, 5}, {6, 5}, {7, 6}, {23, 6}, {24, 7}, {85, 7}, {86, 8}, {321, 8}, {322, 9}, {1215, 9}, {1216, 10}, {4618, 10}, {4619, 11}} {
		if got := MinRepsForFamily(tt.m, 0.05); got != tt.n {
			t.Errorf("MinRepsForFamily(%d) = %d, want %d", tt.m, got, tt.n)
		}
	}
}

// stepCells returns nCells callable tps cells with n repetitions a side:
// the base values and the target's scaled by factor.
func stepCells(nCells, n int, factor float64) []Cell {
	base := []float64{1000, 1004, 998, 1002, 996, 1001, 999, 1003, 997, 1000.5, 1001.5, 998.5}
	var cells []Cell
	for i := range nCells {
		cells = append(cells, tpsCell(fmt.Sprint("c", i), base[:n], scaled(base[:n], factor)))
	}
	return cells
}

func TestSequential(t *testing.T) {
	rule := Sequential{}
	// Below the start (a family of 30 needs n=7 for a lone call).
	st, err := rule.Next(stepCells(30, 5, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Continue || st.Start != 7 || st.Cap != DefaultCap || st.N != 5 || !strings.Contains(st.Reason, "below the start") || !st.Plan.LoneCallable || st.Plan.Family != 30 {
		t.Errorf("below start: %+v", st)
	}
	// Quiet and unchanged: every cell same, stop at the start.
	st, _ = rule.Next(stepCells(30, 7, 1), Options{})
	if st.Continue || len(st.Pending) != 0 || !strings.Contains(st.Reason, "resolved without a call") {
		t.Errorf("all same: %+v", st)
	}
	// A called change does not stop the run before the cap.
	cells := stepCells(30, 7, 1)
	cells[3] = stepCells(4, 7, 1.2)[3]
	st, _ = rule.Next(cells, Options{})
	if c, _ := st.Family.Change("c3", "pg17"); !st.Continue || !c.Called || !slices.Equal(st.Pending, []string{"c3"}) {
		t.Errorf("called before the cap: continue %v called %v pending %v", st.Continue, c.Called, st.Pending)
	}
	// At the cap it stops and the call stands.
	cells = stepCells(30, 10, 1)
	cells[3] = stepCells(4, 10, 1.2)[3]
	st, _ = rule.Next(cells, Options{})
	if c, _ := st.Family.Change("c3", "pg17"); st.Continue || !c.Called || !strings.Contains(st.Reason, "cap") {
		t.Errorf("at the cap: %+v", st)
	}
	// Auxiliary cells do not keep the run going.
	cells = stepCells(3, 7, 1)
	cells[0].Callable = false
	cells[0].Input.Samples["pg17"] = []float64{900, 1100, 950, 1050, 1000, 980, 1020}
	st, _ = Sequential{Start: 4, Cap: 8}.Next(cells, Options{})
	if st.Continue || st.Start != 4 || st.Cap != 8 {
		t.Errorf("auxiliary unresolved: %+v", st)
	}
	if _, err := (Sequential{Cap: -1}).Next(cells, Options{}); err == nil {
		t.Error("negative cap: no error")
	}
}

// TestOutOfReach: a change whose inverted pairs keep p above alpha even
// with the most favourable repetitions to come is no reason to go on.
func TestOutOfReach(t *testing.T) {
	// n=9 against cap 10: interleaved values, U1 = 40 of 81. Even one
	// more round at the far ends leaves U ≥ 40 of 100, p ≫ 0.05.
	var a, b []float64
	for i := range 9 {
		a = append(a, 1000+float64(2*i))
		b = append(b, 1001+float64(2*i))
	}
	cells := []Cell{tpsCell("x", a, b)}
	cells[0].Floor = 0.0001 // the interval is too wide for "same"
	st, err := Sequential{Start: 4, Cap: 10}.Next(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := st.Family.Change("x", "pg17")
	if c.Outcome != OutcomeUnresolved || st.Continue {
		t.Errorf("out of reach: outcome %v, continue %v (%s)", c.Outcome, st.Continue, st.Reason)
	}
	// At n=6 the same pattern can still reach a call at 10.
	cells = []Cell{tpsCell("x", a[:6], b[:6])}
	cells[0].Floor = 0.0001
	st, _ = Sequential{Start: 4, Cap: 10}.Next(cells, Options{})
	if !st.Continue || !slices.Equal(st.Pending, []string{"x"}) {
		t.Errorf("within reach: %+v", st)
	}
}
