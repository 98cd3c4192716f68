package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// withU returns 6 target values against the baseline {10, …, 60} such that
// exactly u of the 36 pairs have the baseline higher, without ties.
func withU(u int) []float64 {
	y := make([]float64, 6)
	for j := range y {
		c := min(6, u) // pairs this value loses: below the c largest
		u -= c
		y[j] = float64(10*(7-c)-5) + 0.1*float64(j+1)
	}
	return y
}

var sixBase = []float64{10, 20, 30, 40, 50, 60}

// TestBHWorkedExample reproduces verdicts.md §2.1: ten 6-vs-6 cells with
// U = 0, 1, 2, 3, 4, 5, 6, 8, 12, 16; BH at q = 0.05 calls ranks 1-4.
func TestBHWorkedExample(t *testing.T) {
	us := []int{0, 1, 2, 3, 4, 5, 6, 8, 12, 16}
	wantP := []float64{0.0022, 0.0043, 0.0087, 0.0152, 0.0260, 0.0411, 0.0649, 0.1320, 0.3939, 0.8182}
	wantQ := []float64{0.0215, 0.0215, 0.0290, 0.0380, 0.0520, 0.0685, 0.0927, 0.1650, 0.4377, 0.8182}
	var cells []Cell
	var ps []float64
	for i, u := range us {
		// Listed in reverse, so that BH must sort.
		cells = append([]Cell{{Key: fmt.Sprint("cell", i+1), Callable: true, Floor: NoFloor, Input: Input{
			Metric: Metric{Unit: Seconds, Direction: LowerIsBetter}, Baseline: "a",
			Samples: map[string][]float64{"a": sixBase, "b": withU(u)}}}}, cells...)
		ps = append(ps, 2*uCDF(6, 6, float64(u)))
	}
	for i, q := range AdjustBH(ps) {
		// The table's q were computed from its rounded p: allow 0.0002.
		if math.Abs(ps[i]-wantP[i]) > 0.00005 || math.Abs(q-wantQ[i]) > 0.0002 {
			t.Errorf("rank %d: p=%.4f q=%.4f; want p=%.4f q=%.4f", i+1, ps[i], q, wantP[i], wantQ[i])
		}
	}
	fam, err := AnalyzeFamily(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fam.M != 10 || fam.Called != 4 || fam.RawSignificant != 6 || !near(fam.Cutoff, 0.02) {
		t.Errorf("m=%d called=%d raw=%d cutoff=%v; want 10, 4, 6, 0.02", fam.M, fam.Called, fam.RawSignificant, fam.Cutoff)
	}
	for i := range us {
		c, _ := fam.Change(fmt.Sprint("cell", i+1), "b")
		if math.Abs(c.P-wantP[i]) > 0.00005 || math.Abs(c.Q-wantQ[i]) > 0.0002 || c.Called != (i < 4) {
			t.Errorf("rank %d: p=%.4f q=%.4f called=%v", i+1, c.P, c.Q, c.Called)
		}
		if c.Significant != c.Called || (c.Outcome == OutcomeChanged) != c.Called {
			t.Errorf("rank %d: significant %v outcome %v called %v", i+1, c.Significant, c.Outcome, c.Called)
		}
	}
	if got := fam.Text(); got != "10 comparisons; 4 called; about 0.2 false calls expected at q=0.05" {
		t.Errorf("Text = %q", got)
	}
	if got := fam.UncorrectedText(); got != "before the correction 6 of 10 comparisons had p ≤ 0.05; about 0.5 would by chance alone" {
		t.Errorf("UncorrectedText = %q", got)
	}
}

func TestAdjustBHEdges(t *testing.T) {
	if q := AdjustBH(nil); len(q) != 0 {
		t.Errorf("AdjustBH(nil) = %v", q)
	}
	q := AdjustBH([]float64{0.01, math.NaN(), 0.04, 0.04})
	want := []float64{0.04, 1, 0.0533, 0.0533}
	for i := range q {
		if math.Abs(q[i]-want[i]) > 0.0001 {
			t.Errorf("q = %v, want %v", q, want)
			break
		}
	}
}

// tpsCell is a callable tps cell with the given samples.
func tpsCell(key string, base, new []float64) Cell {
	return Cell{Key: key, Callable: true, Input: Input{
		Metric:   Metric{Name: "tps", Unit: TPS, Direction: HigherIsBetter},
		Baseline: "pg16", Samples: map[string][]float64{"pg16": base, "pg17": new}}}
}

// scaled returns x times f.
func scaled(x []float64, f float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * f
	}
	return out
}

var quietTPS = []float64{1000, 1004, 998, 1002, 996, 1001}

// TestOutcomes covers the three outcomes, the floor and their texts.
func TestOutcomes(t *testing.T) {
	noisy := []float64{1000, 1150, 880, 1060, 940, 1010}
	wider := []float64{1000, 1020, 985, 1010, 990, 1005}
	cells := []Cell{
		tpsCell("faster", quietTPS, scaled(quietTPS, 1.10)),
		tpsCell("below-floor", wider, scaled(wider, 1.04)),
		tpsCell("same", quietTPS, scaled(quietTPS, 1.002)),
		tpsCell("noisy", noisy, scaled(noisy, 1.01)),
		tpsCell("floor-2", quietTPS, scaled(quietTPS, 1.03)),
		tpsCell("no-floor", quietTPS, scaled(quietTPS, 1.03)),
		tpsCell("double", quietTPS, scaled(quietTPS, 2.5)),
		tpsCell("same-below-floor", quietTPS, scaled(quietTPS, 1.03)),
	}
	cells[4].Floor = 0.02
	cells[5].Floor = NoFloor
	fam, err := AnalyzeFamily(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key     string
		outcome Outcome
		called  bool
		text    string
	}{
		{"faster", OutcomeChanged, true, "+10.0 %, faster (p=0.002 q=0.003 n=6)"},
		{"below-floor", OutcomeUnresolved, false, "~ (+4.0 %, below the 5 % floor; n=6)"},
		{"same", OutcomeSame, false, "same (within ±5 %; n=6)"},
		{"noisy", OutcomeUnresolved, false, "~ (could not see changes under ±15 %; n=6)"},
		{"floor-2", OutcomeChanged, true, "+3.0 %, faster (p=0.002 q=0.003 n=6)"},
		{"no-floor", OutcomeChanged, true, "+3.0 %, faster (p=0.002 q=0.003 n=6)"},
		{"double", OutcomeChanged, true, "2.5× faster (p=0.002 q=0.003 n=6)"},
		{"same-below-floor", OutcomeSame, false, "same (+3.0 %, within ±5 %; n=6)"},
	}
	for _, tt := range tests {
		c, _ := fam.Change(tt.key, "pg17")
		if c.Outcome != tt.outcome || c.Called != tt.called || c.OutcomeText() != tt.text {
			t.Errorf("%s: outcome %v called %v text %q; want %v %v %q", tt.key, c.Outcome, c.Called, c.OutcomeText(), tt.outcome, tt.called, tt.text)
		}
	}
	c, _ := fam.Change("faster", "pg17")
	if c.Detail() != "1,001 tps → 1,101 tps, +10.0 %, faster (p=0.002 q=0.003 n=6)" || c.Text() != "+10.0 %, faster" || c.Verdict != Better {
		t.Errorf("faster: detail %q text %q verdict %v", c.Detail(), c.Text(), c.Verdict)
	}
	if c, _ := fam.Change("below-floor", "pg17"); !c.BelowFloor || c.Text() != "~" || c.Significant || c.Delta != "~" {
		t.Errorf("below floor: %+v", c)
	}
	if c, _ := fam.Change("same", "pg17"); c.Text() != "same" || c.Verdict != Same || !(c.SameLo >= 0.95 && c.SameHi <= 1.05) {
		t.Errorf("same: text %q verdict %v interval [%v, %v]", c.Text(), c.Verdict, c.SameLo, c.SameHi)
	}
	if fam.M != 8 || fam.Called != 4 || fam.Cells[4].Floor != 0.02 || fam.Cells[5].Floor != 0 || fam.Cells[0].Floor != DefaultMinChange {
		t.Errorf("m=%d called=%d floors %v %v %v", fam.M, fam.Called, fam.Cells[4].Floor, fam.Cells[5].Floor, fam.Cells[0].Floor)
	}
	// MDE of an uncalled test: at alpha·(R+1)/m = 0.05·5/8.
	if c, _ := fam.Change("noisy", "pg17"); !near(c.MDEAlpha, 0.05*5/8) {
		t.Errorf("noisy: MDE level %v, want %v", c.MDEAlpha, 0.05*5/8)
	}
}

// TestMinChangeOption: Options.MinChange sets the default floor.
func TestMinChangeOption(t *testing.T) {
	cells := []Cell{tpsCell("x", quietTPS, scaled(quietTPS, 1.03))}
	for _, tt := range []struct {
		min    float64
		called bool
	}{{0, false}, {0.02, true}, {NoFloor, true}, {0.04, false}} {
		fam, err := AnalyzeFamily(cells, Options{MinChange: tt.min})
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := fam.Change("x", "pg17"); c.Called != tt.called {
			t.Errorf("MinChange %v: called %v, want %v", tt.min, c.Called, tt.called)
		}
	}
	if _, err := AnalyzeFamily(cells, Options{MinChange: 1}); err == nil {
		t.Error("MinChange 1: no error")
	}
}

// TestAuxiliaryNeverCalled: an auxiliary cell is analysed but not called
// and not in the family.
func TestAuxiliaryNeverCalled(t *testing.T) {
	aux := tpsCell("aux", quietTPS, scaled(quietTPS, 1.5))
	aux.Callable = false
	same := tpsCell("aux-same", quietTPS, quietTPS)
	same.Callable = false
	fam, err := AnalyzeFamily([]Cell{aux, same, tpsCell("primary", quietTPS, scaled(quietTPS, 1.001))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := fam.Change("aux", "pg17")
	if c.Called || c.InFamily || !math.IsNaN(c.Q) || c.Outcome != OutcomeUnresolved || fam.M != 1 || fam.Called != 0 {
		t.Errorf("aux: called %v in family %v q %v outcome %v; m=%d called=%d", c.Called, c.InFamily, c.Q, c.Outcome, fam.M, fam.Called)
	}
	if got := c.OutcomeText(); got != "+50 %, faster (auxiliary, not called; p=0.002 n=6)" {
		t.Errorf("aux text %q", got)
	}
	if c, _ := fam.Change("aux-same", "pg17"); c.Outcome != OutcomeSame {
		t.Errorf("aux same: outcome %v", c.Outcome)
	}
}

// TestExactOutcomes: exact metrics are compared exactly, outside the
// family, with at least MinExactReps per side; one whose values vary is
// tested.
func TestExactOutcomes(t *testing.T) {
	rows := Metric{Name: "rows", Unit: "rows", Exact: true}
	cell := func(key string, callable bool, base, new []float64) Cell {
		return Cell{Key: key, Callable: callable, Input: Input{Metric: rows, Baseline: "a", Samples: map[string][]float64{"a": base, "b": new}}}
	}
	fam, err := AnalyzeFamily([]Cell{
		cell("differ", true, []float64{1000, 1000}, []float64{1001, 1001, 1001}),
		cell("equal", true, []float64{1000, 1000, 1000}, []float64{1000, 1000, 1000}),
		cell("one-rep", true, []float64{1000}, []float64{1001}),
		cell("aux-differ", false, []float64{5, 5}, []float64{6, 6}),
		cell("varied", true, []float64{7, 9, 9, 9, 8}, []float64{9, 9, 9, 9, 9}),
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key             string
		outcome         Outcome
		called, tested  bool
		text, detail    string
		floor, wantMinP float64
	}{
		{"differ", OutcomeChanged, true, false, "+0.10 %", "1,000 rows → 1,001 rows, +0.10 %", 0, math.NaN()},
		{"equal", OutcomeSame, false, false, "=", "1,000 rows → 1,000 rows, =", 0, math.NaN()},
		{"one-rep", OutcomeUnresolved, false, false, "~", "1,000 rows → 1,001 rows, ~ (exact metric: need 2 repetitions per side; n=1)", 0, math.NaN()},
		{"aux-differ", OutcomeChanged, false, false, "+20 %", "5 rows → 6 rows, +20 %", 0, math.NaN()},
		{"varied", OutcomeUnresolved, false, true, "~", "9 rows → 9 rows, ~ (could not see changes under ±13 %; n=5)", 0, 2.0 / 252},
	}
	for _, tt := range tests {
		c, _ := fam.Change(tt.key, "b")
		if c.Outcome != tt.outcome || c.Called != tt.called || c.InFamily != tt.tested || c.Text() != tt.text || c.Detail() != tt.detail || c.Floor != tt.floor {
			t.Errorf("%s: outcome %v called %v in family %v text %q detail %q floor %v", tt.key, c.Outcome, c.Called, c.InFamily, c.Text(), c.Detail(), c.Floor)
		}
		if math.IsNaN(tt.wantMinP) != math.IsNaN(c.MinP) || !math.IsNaN(c.MinP) && !near(c.MinP, tt.wantMinP) {
			t.Errorf("%s: MinP %v, want %v", tt.key, c.MinP, tt.wantMinP)
		}
	}
	if fam.M != 1 || fam.Called != 0 || fam.ExactCalled != 1 {
		t.Errorf("m=%d called=%d exact called=%d; want 1, 0, 1", fam.M, fam.Called, fam.ExactCalled)
	}
	if got := fam.Text(); got != "1 comparison; 0 called; about 0 false calls expected at q=0.05; 1 exact metric differs" {
		t.Errorf("Text = %q", got)
	}
}

// TestFamilyTooFewReps: cells whose sizes cannot reach alpha stay out of
// the family (Tarone) and print why.
func TestFamilyTooFewReps(t *testing.T) {
	fam, err := AnalyzeFamily([]Cell{
		tpsCell("three-two", []float64{1000, 1001, 1002}, []float64{2000, 2001}),
		tpsCell("five", quietTPS[:5], scaled(quietTPS[:5], 2)),
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := fam.Change("three-two", "pg17")
	if c.InFamily || fam.M != 1 || c.Called {
		t.Errorf("3+2: in family %v, m=%d", c.InFamily, fam.M)
	}
	if got := c.OutcomeText(); got != "~ (n=3+2: too few repetitions to call a change)" {
		t.Errorf("3+2: %q", got)
	}
	if c, _ := fam.Change("five", "pg17"); !c.Called {
		t.Errorf("n=5 alone in its family: not called (p=%v q=%v)", c.P, c.Q)
	}
	// The same n=5 change among 7 tests is out of reach: a lone change
	// needs p ≤ 0.05/7 = 0.0071 < 0.0079.
	cells := []Cell{tpsCell("five", quietTPS[:5], scaled(quietTPS[:5], 2))}
	for i := range 6 {
		cells = append(cells, tpsCell(fmt.Sprint("other", i), quietTPS[:5], quietTPS[:5]))
	}
	fam, err = AnalyzeFamily(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ = fam.Change("five", "pg17")
	if c.Called || c.OutcomeText() != "~ (n=5: too few repetitions for a call among 7 tests)" {
		t.Errorf("n=5 among 7: called %v, text %q", c.Called, c.OutcomeText())
	}
}

func TestFamilyErrors(t *testing.T) {
	good := tpsCell("x", quietTPS, quietTPS)
	for name, cells := range map[string][]Cell{
		"empty key":   {{Input: good.Input}},
		"repeated":    {good, good},
		"no baseline": {{Key: "y", Input: Input{Samples: map[string][]float64{"a": {1}}}}},
		"bad value":   {tpsCell("z", []float64{math.NaN()}, quietTPS)},
	} {
		if _, err := AnalyzeFamily(cells, Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestOutcomeMarshaling(t *testing.T) {
	b, err := json.Marshal([]Outcome{OutcomeNone, OutcomeChanged, OutcomeSame, OutcomeUnresolved})
	if err != nil || string(b) != `["","changed","same","unresolved"]` {
		t.Fatalf("json %s, %v", b, err)
	}
	var back []Outcome
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 4 || back[3] != OutcomeUnresolved {
		t.Fatalf("unmarshal %v, %v", back, err)
	}
	if _, err := Outcome(9).MarshalText(); err == nil || Outcome(9).String() != "Outcome(9)" {
		t.Error("invalid outcome marshals")
	}
	var o Outcome
	if err := o.UnmarshalText([]byte("maybe")); err == nil {
		t.Error("unknown name accepted")
	}
}

// TestMeasureSummary summarises one metric across cases without
// cherry-picking.
func TestMeasureSummary(t *testing.T) {
	dur := Metric{Name: "elapsed", Unit: Seconds, Direction: LowerIsBetter}
	base := []float64{10, 10.04, 9.98, 10.02, 9.96, 10.01}
	var cells []Cell
	for i, f := range []float64{0.37, 0.8, 1.2, 1.001, 1.03, 1} {
		cells = append(cells, Cell{Key: fmt.Sprint("case", i), Callable: true, Input: Input{Metric: dur, Baseline: "a",
			Samples: map[string][]float64{"a": base, "b": scaled(base, f)}}})
	}
	cells = append(cells, Cell{Key: "noisy", Callable: true, Input: Input{Metric: dur, Baseline: "a",
		Samples: map[string][]float64{"a": {10, 12, 8, 11, 9, 10}, "b": {10, 12, 8, 11, 9, 10.5}}}})
	fam, err := AnalyzeFamily(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var changes []Change
	for _, cr := range fam.Cells {
		changes = append(changes, cr.Result.Changes...)
	}
	s, err := SummarizeMeasure(changes)
	if err != nil {
		t.Fatal(err)
	}
	if s.Cases != 7 || s.Changed != 3 || s.Better != 2 || s.Worse != 1 || s.Same != 3 || s.Unresolved != 1 || s.BelowFloor != 1 || s.Largest != 0 {
		t.Errorf("summary %+v", s)
	}
	if l, ok := s.LargestChange(); !ok || !near(l.RatioEst, 0.37) {
		t.Errorf("largest %v %v", l.RatioEst, ok)
	}
	if want := math.Cbrt(0.37 * 0.8 * 1.2); math.Abs(s.Geomean-want) > 1e-9 {
		t.Errorf("geomean %v, want %v", s.Geomean, want)
	}
	want := "2 faster, 1 slower of 7 (geomean −29 %), 3 same, 1 unresolved; largest 2.7× faster"
	if got := s.Text(); got != want {
		t.Errorf("Text =\n%q, want\n%q", got, want)
	}
	none, _ := SummarizeMeasure(changes[3:])
	if got := none.Text(); got != "3 same, 1 unresolved" || none.Largest != -1 || none.HasGeomean {
		t.Errorf("nothing called: %q", got)
	}
	if _, err := SummarizeMeasure(nil); err == nil {
		t.Error("empty: no error")
	}
	plain, _ := Analyze(cells[0].Input, Options{})
	if _, err := SummarizeMeasure(plain.Changes); err == nil || !strings.Contains(err.Error(), "no outcome") {
		t.Errorf("without outcome: %v", err)
	}
}

// TestMeasureSameBelowFloor: a measure whose cases share a change smaller
// than the floor (2 %, in 12 rounds of four cases) passes its own test
// and is the same, its cases too, each on its own rounds; one case that
// moved by 7 % among three that did not is called on its own and makes
// its measure changed, though the pooled interval lies within the floor.
func TestMeasureSameBelowFloor(t *testing.T) {
	build := func(shift, noise []float64, load float64) []Cell {
		rng := rand.New(rand.NewPCG(3, 29))
		rounds := make([]int, 12)
		for i := range rounds {
			rounds[i] = i + 1
		}
		var cells []Cell
		for k := range shift {
			a, b := make([]float64, 12), make([]float64, 12)
			for i := range a {
				round := 100 * (1 + load*rng.Float64()) // moves both sides of a round
				a[i] = round * (1 + noise[k]*rng.NormFloat64())
				b[i] = round * shift[k] * (1 + noise[k]*rng.NormFloat64())
			}
			cells = append(cells, Cell{
				Key: fmt.Sprintf("c%d", k), Measure: "m", Callable: true,
				Input: Input{
					Metric:   Metric{Name: "t", Unit: Milliseconds, Direction: LowerIsBetter},
					Baseline: "a", Order: []string{"a", "b"},
					Samples: map[string][]float64{"a": a, "b": b},
					Rounds:  map[string][]int{"a": rounds, "b": rounds},
				},
			})
		}
		return cells
	}
	f, err := AnalyzeFamily(build([]float64{1.02, 1.02, 1.02, 1.02}, []float64{0.005, 0.005, 0.005, 0.005}, 0.2), Options{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Measures[0]; !m.Tested || m.Q > 0.05 || m.Outcome != OutcomeSame {
		t.Errorf("a shared 2 %% change: tested %v q=%.3g, outcome %v (%.3f [%.3f, %.3f]), want q ≤ 0.05 and same", m.Tested, m.Q, m.Outcome, m.RatioEst, m.SameLo, m.SameHi)
	}
	for _, cr := range f.Cells {
		for _, c := range cr.Result.Changes {
			if c.Outcome != OutcomeSame || c.Called {
				t.Errorf("%s: %v, called %v; want same", cr.Key, c.Outcome, c.Called)
			}
		}
	}
	f, err = AnalyzeFamily(build([]float64{1, 1, 1, 1.07}, []float64{0.002, 0.002, 0.002, 0.03}, 0.01), Options{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	m := f.Measures[0]
	if m.CaseCalls != 1 || m.Outcome != OutcomeChanged || !(m.SameLo >= 0.95 && m.SameHi <= 1.05) {
		t.Errorf("one case moved by 7 %%: %d cases called, outcome %v (%.3f [%.3f, %.3f]); want 1 called, changed, pooled within the floor", m.CaseCalls, m.Outcome, m.RatioEst, m.SameLo, m.SameHi)
	}
	if c, _ := f.Change("c3", "b"); !c.Called {
		t.Errorf("the case that moved by 7 %%: %s", c.OutcomeText())
	}
}

// TestMeasureCaseShortOfFirstLook: a measure analysed while one of its
// cases has fewer paired rounds than the design's first look (its last
// round disturbed, or the stopping rule looking mid-run) is analysed, the
// short case unresolved, never a crash.
func TestMeasureCaseShortOfFirstLook(t *testing.T) {
	var cells []Cell
	for k, rounds := range [][]int{{1, 2, 3, 4}, {1, 2, 3}} {
		a, b := make([]float64, len(rounds)), make([]float64, len(rounds))
		for i := range a {
			a[i], b[i] = 100+float64(i), 101+float64(i)
		}
		cells = append(cells, Cell{
			Key: fmt.Sprintf("c%d", k), Measure: "m", Callable: true,
			Design: &Design{Looks: []int{4, 6, 8, 10}, Family: 2},
			Input: Input{
				Metric:   Metric{Name: "t", Unit: Milliseconds, Direction: LowerIsBetter},
				Baseline: "a", Order: []string{"a", "b"},
				Samples: map[string][]float64{"a": a, "b": b},
				Rounds:  map[string][]int{"a": rounds, "b": rounds},
			},
		})
	}
	f, err := AnalyzeFamily(cells, Options{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := f.Change("c1", "b"); c.Called || c.Outcome == OutcomeSame {
		t.Errorf("a case short of its first look: %s", c.OutcomeText())
	}
}
