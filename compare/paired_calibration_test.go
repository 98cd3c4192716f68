package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The paired calibration tests simulate whole reports as pglab's runner
// makes them: studies whose cases run round by round, both targets of a
// case next to each other in a round, in mirrored pairs of rounds whose
// orientation is drawn per pair and case; the machine's load moves whole
// rounds, a target that runs second may find a warmer (or busier)
// machine, and each run has noise of its own. They check the promise of
// a paired family (hierarchy.go): in an A/A report the chance of any
// call stays at most Alpha under every model, and real changes are
// called.

// pairedShape is the shape of a simulated report: per study, its cases
// and its primary measures.
type pairedShape []struct {
	study           string
	cases, measures int
}

// quickPaired is a quick comparison of two versions: commit's 12 cases of
// 4 measures, tps's 2 of 3, vacuum's 4 of 2, copy-out's 4 of 1 and
// seqscan's 2 of 1 (66 cells in 11 measures).
var quickPaired = pairedShape{
	{"commit", 12, 4}, {"tps", 2, 3}, {"vacuum", 4, 2}, {"copy-out", 4, 1}, {"seqscan", 2, 1},
}

// runNoise draws one run's multiplicative noise.
type runNoise func(rng *rand.Rand) float64

// pairedModel is a noise model: per cell its run noise, per study the
// shared load of each round, and the position effect of the second slot.
type pairedModel struct {
	// cell draws a cell's run noise.
	cell func(rng *rand.Rand) runNoise
	// loadSigma is the sigma of the log of a round's shared load
	// (AR(1) over the rounds with coefficient 0.6); 0 for none.
	loadSigma float64
	// position is the largest position effect: the second run of a
	// round is exp(U(−position, position)) times the first, per cell.
	position float64
}

// lognormalNoise has sigma drawn log-uniformly in [lo, hi].
func lognormalNoise(lo, hi float64) func(rng *rand.Rand) runNoise {
	return func(rng *rand.Rand) runNoise {
		s := logUniform(rng, lo, hi)
		return func(rng *rand.Rand) float64 { return math.Exp(s * rng.NormFloat64()) }
	}
}

// pairedModels are the noise models of the paired calibration.
var pairedModels = map[string]pairedModel{
	// drifting: the machine's load moves whole rounds by about ±30 %
	// (AR(1)), each run has 1-10 % of its own, and the second slot of a
	// round runs up to ±3 % differently.
	"drifting": {cell: lognormalNoise(0.01, 0.10), loadSigma: 0.3, position: 0.03},
	// paired: no shared load (pairing gains nothing), runs 1-10 %.
	"paired": {cell: lognormalNoise(0.01, 0.10), position: 0.03},
	// bimodal: a second mode 25 % higher in 10-50 % of the runs,
	// 0.5-5 % around each, under the drifting load.
	"bimodal": {cell: func(rng *rand.Rand) runNoise {
		share, s := 0.1+0.4*rng.Float64(), logUniform(rng, 0.005, 0.05)
		return func(rng *rand.Rand) float64 {
			v := math.Exp(s * rng.NormFloat64())
			if rng.Float64() < share {
				v *= 1.25
			}
			return v
		}
	}, loadSigma: 0.3, position: 0.03},
	// heavy: Student t with 2 degrees of freedom on the log scale,
	// scale 1-8 %, under the drifting load.
	"heavy": {cell: func(rng *rand.Rand) runNoise {
		s := logUniform(rng, 0.01, 0.08)
		return func(rng *rand.Rand) float64 {
			z := rng.NormFloat64()
			chi := 0.0
			for range 2 {
				g := rng.NormFloat64()
				chi += g * g
			}
			return math.Exp(math.Max(-3, math.Min(3, s*z/math.Sqrt(chi/2))))
		}
	}, loadSigma: 0.3, position: 0.03},
	// quiet: runs 0.3-2 %, a little load drift.
	"quiet": {cell: lognormalNoise(0.003, 0.02), loadSigma: 0.05, position: 0.01},
}

// pairedSim draws reports of a shape under a model.
type pairedSim struct {
	shape pairedShape
	model pairedModel
	// shift returns the true ratio of a cell (1 for none).
	shift func(study string, measure, cas int) float64
	// split, when set, is the study whose rounds are a quarter as long
	// as the model's (commit's quick rounds of 500 updates where the
	// seed's unit is 2000): its run noise is twice the model's.
	split string
}

// simCell is one cell's data: values in round order on each side.
type simCell struct {
	key, measure string
	base, target []float64
	shift        float64
	// covBase and covTarget, when set, are a covariate of each run
	// (the client's CPU, which moves with the machine's speed).
	covBase, covTarget []float64
}

// draw draws one report with rounds rounds.
func (s pairedSim) draw(rng *rand.Rand, rounds int) []simCell {
	var cells []simCell
	for _, st := range s.shape {
		load := make([]float64, rounds)
		x := 0.0
		for r := range load {
			x = 0.6*x + math.Sqrt(1-0.36)*s.model.loadSigma*rng.NormFloat64()
			load[r] = math.Exp(x)
		}
		for c := range st.cases {
			orient := make([]bool, rounds) // true: the target runs second
			for r := 0; r < rounds; r += 2 {
				o := rng.IntN(2) == 0
				orient[r] = o
				if r+1 < rounds {
					orient[r+1] = !o
				}
			}
			for m := range st.measures {
				noise := s.model.cell(rng)
				pos := math.Exp(s.model.position * (2*rng.Float64() - 1))
				shift := 1.0
				if s.shift != nil {
					shift = s.shift(st.study, m, c)
				}
				cell := simCell{key: fmt.Sprintf("%s/%d/%d", st.study, c, m), measure: fmt.Sprintf("%s/%d", st.study, m), shift: shift}
				if st.study == s.split {
					one := noise
					noise = func(rng *rand.Rand) float64 { v := one(rng); return v * v }
				}
				for r := range rounds {
					b := 1000 * load[r] * noise(rng)
					t := 1000 * shift * load[r] * noise(rng)
					if orient[r] {
						t *= pos
					} else {
						b *= pos
					}
					cell.base, cell.target = append(cell.base, b), append(cell.target, t)
				}
				cells = append(cells, cell)
			}
		}
	}
	return cells
}

// familyCells returns the first n rounds of the cells as a family's
// cells.
func familyCells(cells []simCell, n int) []Cell {
	rounds := make([]int, n)
	for i := range rounds {
		rounds[i] = i + 1
	}
	out := make([]Cell, len(cells))
	for i, c := range cells {
		out[i] = Cell{
			Key: c.key, Measure: c.measure, Callable: true,
			Input: Input{
				Metric:   Metric{Name: "t", Unit: Milliseconds, Direction: LowerIsBetter},
				Baseline: "a", Order: []string{"a", "b"},
				Samples: map[string][]float64{"a": c.base[:n], "b": c.target[:n]},
				Rounds:  map[string][]int{"a": rounds, "b": rounds},
			},
		}
		if c.covBase != nil {
			out[i].Input.Covariate = map[string][]float64{"a": c.covBase[:n], "b": c.covTarget[:n]}
			out[i].Input.CovariateName = "client_cpu_ms"
		}
	}
	return out
}

// pairedTally counts what simulated reports called.
type pairedTally struct {
	reports, withCall, calls, falseCalls, cells, resolved int
	measureCalls, caseCalls                               int
}

// add counts one analysed report against the truth of its cells.
func (t *pairedTally) add(f *Family, cells []simCell) {
	t.reports++
	if f.Called > 0 {
		t.withCall++
	}
	t.measureCalls += f.MeasuresCalled
	t.caseCalls += f.CaseCalled
	for i, cr := range f.Cells {
		c := cr.Result.Changes[0]
		t.cells++
		if c.Outcome != OutcomeUnresolved {
			t.resolved++
		}
		if c.Called {
			t.calls++
			if s := cells[i].shift; s == 1 || (s > 1) != (c.RatioEst > 1) {
				t.falseCalls++
			}
		}
	}
}

// String formats the tally for the test log.
func (t pairedTally) String() string {
	return fmt.Sprintf("%d/%d reports with a call (%.1f %%); %d calls (%d of cases; %d measures changed), %d false; %.0f %% of cells resolved on their own",
		t.withCall, t.reports, 100*float64(t.withCall)/float64(t.reports), t.calls, t.caseCalls, t.measureCalls,
		t.falseCalls, 100*float64(t.resolved)/float64(max(t.cells, 1)))
}

// TestPairedCalibrationAA simulates A/A reports of the quick shape under
// each model at fixed round counts: at most Alpha of them may call
// anything (with two standard errors of slack for the simulation).
func TestPairedCalibrationAA(t *testing.T) {
	reports := 200 * calibrationScale(t)
	for _, name := range []string{"drifting", "paired", "bimodal", "heavy", "quiet"} {
		for _, n := range []int{4, 6, 10} {
			sim := pairedSim{shape: quickPaired, model: pairedModels[name]}
			rng := rand.New(rand.NewPCG(uint64(n), 0xAA))
			var tally pairedTally
			for range reports {
				cells := sim.draw(rng, n)
				f, err := AnalyzeFamily(familyCells(cells, n), Options{Paired: true})
				if err != nil {
					t.Fatal(err)
				}
				tally.add(f, cells)
			}
			t.Logf("A/A %-8s n=%2d: %s", name, n, tally)
			limit := 0.05 + 2*math.Sqrt(0.05*0.95/float64(reports))
			if share := float64(tally.withCall) / float64(reports); share > limit {
				t.Errorf("A/A %s n=%d: %.1f %% of reports call something, above %.1f %%", name, n, 100*share, 100*limit)
			}
		}
	}
}

// versionsShift is a comparison of two versions as pglab sees them: COPY
// TO 33 % faster in every case, VACUUM time 30 % faster in every case and
// its WAL 44 % smaller in one case of four, the warm scan 33 % faster and
// the cold one unchanged, one commit measure 8 % slower in its first four
// cases; nothing else changed.
func versionsShift(study string, measure, cas int) float64 {
	switch {
	case study == "copy-out":
		return 0.67
	case study == "vacuum" && measure == 0:
		return 0.70
	case study == "vacuum" && measure == 1 && cas == 1:
		return 0.56
	case study == "seqscan" && cas == 1:
		return 0.67
	case study == "commit" && measure == 0 && cas < 4:
		return 1.08
	}
	return 1
}

// TestPairedCalibrationPower simulates comparisons with real changes
// (versionsShift): the large consistent changes must be called in most
// reports, and the calls' false discovery share must stay near Alpha.
func TestPairedCalibrationPower(t *testing.T) {
	reports := 100 * calibrationScale(t)
	for _, name := range []string{"drifting", "bimodal", "heavy", "quiet"} {
		for _, n := range []int{4, 6, 10} {
			sim := pairedSim{shape: quickPaired, model: pairedModels[name], shift: versionsShift}
			rng := rand.New(rand.NewPCG(uint64(n), 0xB0))
			var tally pairedTally
			shifted, called := 0, 0
			for range reports {
				cells := sim.draw(rng, n)
				f, err := AnalyzeFamily(familyCells(cells, n), Options{Paired: true})
				if err != nil {
					t.Fatal(err)
				}
				tally.add(f, cells)
				for i, cr := range f.Cells {
					if cells[i].shift != 1 {
						shifted++
						if cr.Result.Changes[0].Called {
							called++
						}
					}
				}
			}
			fdr := float64(tally.falseCalls) / float64(max(tally.calls, 1))
			t.Logf("power %-8s n=%2d: %.0f %% of changed cells called; %s; false share %.1f %%", name, n,
				100*float64(called)/float64(shifted), tally, 100*fdr)
			if fdr > 0.05+2*math.Sqrt(0.05*0.95/float64(max(tally.calls, 1))) {
				t.Errorf("%s n=%d: %.1f %% of the calls are false", name, n, 100*fdr)
			}
		}
	}
}

// sequentialReport runs the stopping rule of d on a drawn report as the
// runner does, study by study: every case to the first look, then at
// each look each case still running asks DecideCases and goes on to the
// next look unless done. It returns the report's family on the data the
// cases ended with, and the mean rounds per case. The study split, when
// set, is looked at after four times d's rounds, as the runner scales
// the looks of a study by its Plan.QuickLookScale.
func sequentialReport(t *testing.T, cells []simCell, shape pairedShape, d Design, split string) (*Family, float64) {
	designs := map[string]*Design{}
	reached := make([]int, len(cells)) // rounds per cell
	caseOf := func(key string) string { return key[:strings.LastIndex(key, "/")] }
	studyOf := func(key string) string { return key[:strings.Index(key, "/")] }
	totalRounds, cases := 0, 0
	for _, st := range shape {
		var idx []int
		for i, c := range cells {
			if studyOf(c.key) == st.study {
				idx = append(idx, i)
			}
		}
		active := map[string]bool{}
		for _, i := range idx {
			active[caseOf(cells[i].key)] = true
		}
		sd, unit := d, 1
		if st.study == split {
			sd, unit = scaledDesign(d, 4), 4
			designs[st.study] = &sd
		}
		for k, look := range sd.Looks {
			for _, i := range idx {
				if active[caseOf(cells[i].key)] {
					reached[i] = look
				}
			}
			if k == len(sd.Looks)-1 {
				break
			}
			var fam []Cell
			for _, i := range idx {
				fam = append(fam, familyCells(cells[i:i+1], reached[i])...)
			}
			looks, err := sd.DecideCases(fam, func(c Cell) string { return caseOf(c.Key) }, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for cas := range active {
				if active[cas] && looks[cas].Done {
					active[cas] = false
				}
			}
		}
		seen := map[string]bool{}
		for _, i := range idx {
			if c := caseOf(cells[i].key); !seen[c] {
				seen[c] = true
				totalRounds += reached[i] / unit
				cases++
			}
		}
	}
	var fam []Cell
	for i := range cells {
		c := familyCells(cells[i:i+1], reached[i])[0]
		c.Design = designs[studyOf(cells[i].key)]
		fam = append(fam, c)
	}
	f, err := AnalyzeFamily(fam, Options{Paired: true, Design: &d})
	if err != nil {
		t.Fatal(err)
	}
	return f, float64(totalRounds) / float64(cases)
}

// scaledDesign returns d with every look k times later.
func scaledDesign(d Design, k int) Design {
	looks := make([]int, len(d.Looks))
	for i, l := range d.Looks {
		looks[i] = k * l
	}
	d.Looks = looks
	return d
}

// TestPairedCalibrationAuto simulates --reps auto with a paired design
// (looks 4, 6, 8, 10): A/A reports under each model call something in at
// most Alpha of them, and the changes of versionsShift are called.
func TestPairedCalibrationAuto(t *testing.T) {
	reports := 100 * calibrationScale(t)
	d := verdictDesign()
	for _, name := range []string{"drifting", "bimodal", "heavy", "quiet"} {
		for _, shift := range []bool{false, true} {
			sim := pairedSim{shape: quickPaired, model: pairedModels[name]}
			label := "A/A"
			if shift {
				sim.shift, label = versionsShift, "versions"
			}
			rng := rand.New(rand.NewPCG(7, 0xC0))
			var tally pairedTally
			rounds := 0.0
			for range reports {
				cells := sim.draw(rng, d.Cap())
				f, mean := sequentialReport(t, cells, quickPaired, d, "")
				tally.add(f, cells)
				rounds += mean
			}
			t.Logf("auto %-8s %-8s: %s; %.1f rounds per case", label, name, tally, rounds/float64(reports))
			limit := 0.05 + 2*math.Sqrt(0.05*0.95/float64(reports))
			if share := float64(tally.withCall) / float64(reports); !shift && share > limit {
				t.Errorf("A/A %s: %.1f %% of reports call something, above %.1f %%", name, 100*share, 100*limit)
			}
			if fdr := float64(tally.falseCalls) / float64(max(tally.calls, 1)); shift && fdr > 0.05+2*math.Sqrt(0.05*0.95/float64(max(tally.calls, 1))) {
				t.Errorf("versions %s: %.1f %% of the calls are false", name, 100*fdr)
			}
		}
	}
}
