package compare

import "testing"

// A twin repeats its cell's test: it shares its Q, is called with it, and
// does not enlarge the family.
func TestTwinSharesItsTest(t *testing.T) {
	six := func(v float64) []float64 { return []float64{v, v * 1.01, v * 0.99, v * 1.02, v * 0.98, v * 1.005} }
	inv := func(x []float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = 1000 / v
		}
		return out
	}
	ms := Metric{Name: "elapsed_ms", Unit: Milliseconds, Direction: LowerIsBetter}
	rate := Metric{Name: "mb_per_s", Unit: MegabytesPerSecond, Direction: HigherIsBetter}
	base, other := six(100), six(60)
	cells := []Cell{
		{Key: "t", Callable: true, Input: Input{Metric: ms, Baseline: "a", Samples: map[string][]float64{"a": base, "b": other}}},
		{Key: "r", Callable: true, Twin: "t", Input: Input{Metric: rate, Baseline: "a", Samples: map[string][]float64{"a": inv(base), "b": inv(other)}}},
	}
	f, err := AnalyzeFamily(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.M != 1 || f.Called != 1 {
		t.Errorf("family of %d tests with %d called; want 1 and 1", f.M, f.Called)
	}
	tc, _ := f.Change("t", "b")
	rc, _ := f.Change("r", "b")
	if !rc.Called || rc.Q != tc.Q || rc.InFamily || rc.Verdict != Better || rc.Outcome != OutcomeChanged {
		t.Errorf("twin: called %v q %v (twin's %v) in family %v verdict %v outcome %v", rc.Called, rc.Q, tc.Q, rc.InFamily, rc.Verdict, rc.Outcome)
	}
	if got := rc.OutcomeText(); got != "+67 %, faster (p=0.002 q=0.002 n=6)" {
		t.Errorf("twin's text %q", got)
	}
	cells[1].Twin = "nosuch"
	if _, err := AnalyzeFamily(cells, Options{}); err == nil {
		t.Error("a twin naming no cell was accepted")
	}
}
