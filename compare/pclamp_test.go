package compare

import "testing"

// TestPValueAtMostOne is a regression test: with ties in tiny unequal
// samples the U test's two-sided p came out above 1 (p=1.333).
func TestPValueAtMostOne(t *testing.T) {
	r, err := Analyze(Input{Metric: Metric{Name: "x", Unit: Percent}, Baseline: "a",
		Samples: map[string][]float64{"a": {100, 50}, "b": {100}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Change("b")
	if c.P > 1 || c.Stats != "p=1.000 n=2+1" {
		t.Fatalf("p = %v, stats %q; want p <= 1", c.P, c.Stats)
	}
}
