package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestPlanDesign(t *testing.T) {
	// The boundaries of PlanDesign's doc comment (alpha 0.05, cap 10).
	for _, tt := range []struct {
		m     int
		looks []int
	}{
		{1, []int{5, 7, 9, 10}}, {2, []int{6, 8, 10}}, {7, []int{6, 8, 10}}, {8, []int{7, 9, 10}},
		{28, []int{7, 9, 10}}, {29, []int{8, 10}}, {66, []int{8, 10}}, {160, []int{8, 10}},
		{161, []int{9, 10}}, {607, []int{9, 10}}, {608, []int{10}}, {5000, []int{10}},
	} {
		d := PlanDesign(tt.m, 0, 0)
		if !slices.Equal(d.Looks, tt.looks) || d.Family != tt.m || d.Alpha != DefaultAlpha {
			t.Errorf("PlanDesign(%d) = %+v, want looks %v", tt.m, d, tt.looks)
		}
		// Within the range a lone complete separation is callable at
		// the first look.
		if tt.m <= 4618 && UTestMinP(d.Start(), d.Start()) > d.LookAlpha()/float64(tt.m)*(1+1e-9) {
			t.Errorf("m=%d: min p %g at the start %d above %g", tt.m, UTestMinP(d.Start(), d.Start()), d.Start(), d.LookAlpha()/float64(tt.m))
		}
	}
	if d := PlanDesign(10, 0, 6); !slices.Equal(d.Looks, []int{6}) {
		t.Errorf("cap 6, m=10: %v", d.Looks)
	}
	if got := PlanDesign(66, 0, 0).LooksText(); got != "8 and 10" {
		t.Errorf("LooksText = %q", got)
	}
	if got := PlanDesign(1, 0, 0).LooksText(); got != "5, 7, 9 and 10" {
		t.Errorf("LooksText = %q", got)
	}
	txt := PlanDesign(66, 0, 0).Text()
	for _, want := range []string{"runs 8 repetitions per side", "up to 10", "0.05/2 = 0.025", "2 × the smallest p", "66 planned tests", "95 % interval", "p ≤ 0.000379"} {
		if !strings.Contains(txt, want) {
			t.Errorf("Text lacks %q:\n%s", want, txt)
		}
	}
	for _, bad := range []Design{{}, {Looks: []int{8, 8}, Family: 3}, {Looks: []int{0, 2}, Family: 3}, {Looks: []int{8}, Family: -1}, {Looks: []int{8}, Family: 1, Alpha: 2}} {
		if bad.Check() == nil {
			t.Errorf("Check(%+v) = nil", bad)
		}
	}
}

// ramp returns n values from start, step apart.
func ramp(n int, start, step float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = start + float64(i)*step
	}
	return out
}

// TestSequentialP: a change's p is L × the smallest p of the looks it
// reached; a call at an earlier look stands after later, worse looks.
func TestSequentialP(t *testing.T) {
	d := PlanDesign(66, 0, 0) // looks 8, 10
	// Complete separation at 8, then two inverted values at 9 and 10.
	base := append(ramp(8, 1000, 1), 1200, 1201)
	tgt := append(ramp(8, 1100, 1), 900, 901)
	cells := []Cell{tpsCell("x", base, tgt)}
	f, err := AnalyzeFamily(cells, Options{Design: &d})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cells[0].Result.Changes[0]
	want := 2 * UTestMinP(8, 8)
	if math.Abs(c.P-want) > 1e-12 || c.Look != 8 || c.Looks != 2 || math.Abs(c.MinP-2*UTestMinP(10, 10)) > 1e-15 || c.RawP <= c.P/2 {
		t.Errorf("P %g (want %g) look %d looks %d minP %g raw %g", c.P, want, c.Look, c.Looks, c.MinP, c.RawP)
	}
	if !c.Called || c.Outcome != OutcomeChanged {
		t.Errorf("the call at look 8 does not stand: %v %s", c.Outcome, c.OutcomeText())
	}
	// Without a design the same data are tested at n=10 alone.
	f, _ = AnalyzeFamily(cells, Options{})
	if c := f.Cells[0].Result.Changes[0]; c.Looks != 0 || c.P != c.RawP {
		t.Errorf("without a design: looks %d P %g raw %g", c.Looks, c.P, c.RawP)
	}
	// Below the first look nothing can be called.
	f, _ = AnalyzeFamily([]Cell{tpsCell("x", base[:6], tgt[:6])}, Options{Design: &d})
	if c := f.Cells[0].Result.Changes[0]; c.InFamily || c.Called || c.MinP != 1 {
		t.Errorf("before the first look: %+v", c)
	}
	// Auxiliary cells keep their plain test.
	aux := tpsCell("y", base, tgt)
	aux.Callable = false
	f, _ = AnalyzeFamily([]Cell{aux}, Options{Design: &d})
	if c := f.Cells[0].Result.Changes[0]; c.Looks != 0 || c.P != c.RawP {
		t.Errorf("auxiliary: looks %d", c.Looks)
	}
}

// TestFixedDesignEqualsNone: one look at n is the analysis at n.
func TestFixedDesignEqualsNone(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		r := newSimReport(rng, "mixed", 20, 20, 6, func(i int) float64 { return 0.1 * float64(i%3) })
		d := FixedDesign(6, 20, 0)
		a, err := AnalyzeFamily(r.cells(6), Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := AnalyzeFamily(r.cells(6), Options{Design: &d})
		for i := range a.Cells {
			ca, cb := a.Cells[i].Result.Changes[0], b.Cells[i].Result.Changes[0]
			if ca.Outcome != cb.Outcome || ca.Called != cb.Called || math.Abs(ca.Q-cb.Q) > 1e-12 || ca.OutcomeText() != cb.OutcomeText() {
				t.Fatalf("cell %d: %s vs %s", i, ca.OutcomeText(), cb.OutcomeText())
			}
		}
	}
}

// quietCells returns k callable cells with n repetitions a side, the
// target's values scaled by factors[i] (1 when absent).
func quietCells(k, n int, factors ...float64) []Cell {
	base := []float64{1000, 1004, 998, 1002, 996, 1001, 999, 1003, 997, 1000.5, 1001.5, 998.5}
	var cells []Cell
	for i := range k {
		f := 1.0
		if i < len(factors) {
			f = factors[i]
		}
		cells = append(cells, tpsCell(fmt.Sprint("c", i), base[:n], scaled(base[:n], f)))
	}
	return cells
}

func TestDecide(t *testing.T) {
	d := PlanDesign(30, 0, 0) // looks 8, 10; a call needs p* ≤ 0.05/30
	check := func(name string, cells []Cell, done bool, reason string, pending int) {
		t.Helper()
		cl, err := d.Decide(cells, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if cl.Done != done || cl.Reason != reason || len(cl.Pending) != pending {
			t.Errorf("%s: done %v reason %q pending %v counts %v", name, cl.Done, cl.Reason, cl.Pending, cl.Counts)
		}
	}
	check("quiet, unchanged", quietCells(3, 8), true, "same", 0)
	check("one shifted 20 %", quietCells(3, 8, 1.2), true, "called, same", 0)

	// Interleaved values: too many inverted pairs for a call even at
	// the cap, too wide for same within a floor of 0.01 %.
	mixed := []Cell{tpsCell("x", ramp(8, 1000, 2), ramp(8, 1001, 2))}
	mixed[0].Floor = 0.0001
	check("interleaved", mixed, true, "out of reach", 0)

	// A 4 % shift with 6 inverted pairs of 64 at 8: not a lone call,
	// not same within 0.5 %, but a call is still within reach at the
	// cap: pending; at the cap the case stops anyway.
	spread := []Cell{tpsCell("x", ramp(8, 1000, 10), ramp(8, 1040, 10))}
	spread[0].Floor = 0.005
	check("spread", spread, false, "", 1)
	spread = []Cell{tpsCell("x", ramp(10, 1000, 10), ramp(10, 1040, 10))}
	spread[0].Floor = 0.005
	check("spread at the cap", spread, true, StopCap, 1)

	// Auxiliary and twin cells do not decide.
	cells := quietCells(2, 8)
	aux := tpsCell("aux", ramp(8, 1000, 10), ramp(8, 1010, 10))
	aux.Callable = false
	twin := tpsCell("twin", ramp(8, 1000, 10), ramp(8, 1010, 10))
	twin.Twin = "c0"
	check("aux and twin", append(cells, aux, twin), true, "same", 0)

	// Exact metrics: equal values are same, different ones called.
	exact := func(a, b float64) Cell {
		c := tpsCell("wal", slices.Repeat([]float64{a}, 8), slices.Repeat([]float64{b}, 8))
		c.Input.Metric = Metric{Name: "wal_records", Unit: Count, Direction: LowerIsBetter, Exact: true}
		return c
	}
	check("exact equal", []Cell{exact(5, 5)}, true, "same", 0)
	check("exact differ", []Cell{exact(5, 6)}, true, "called", 0)

	// Nothing callable.
	aux2 := aux
	check("no primary", []Cell{aux2}, true, NoPrimary, 0)
}
