package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aclements/go-moremath/stats"
)

// The verdict simulations of compare/doc.go's table "Own evidence": quick
// reports (66 cells, 11 measures over 24 cases) drawn round by round under
// a drifting machine load shared by both sides of a round (AR(1), sigma
// 0.3), a position effect of the second run (±3 %) and run noise of 1-10 %
// or 3-15 % per cell, analysed at 10 rounds and under --reps auto, beside
// the plain per-cell paired t test with Bonferroni over the 66 cells. They
// count what a reader acts on: a change confined to one case found or not,
// a real change said "same", any call in an A/A report.

// verdictModels are the two noise models of the table.
var verdictModels = []struct {
	name  string
	model pairedModel
}{
	{"1-10 %", pairedModel{cell: lognormalNoise(0.01, 0.10), loadSigma: 0.3, position: 0.03}},
	{"3-15 %", pairedModel{cell: lognormalNoise(0.03, 0.15), loadSigma: 0.3, position: 0.03}},
}

// oneCaseShift changes the first case of commit's first measure by r.
func oneCaseShift(r float64) func(string, int, int) float64 {
	return func(study string, measure, cas int) float64 {
		if study == "commit" && measure == 0 && cas == 0 {
			return r
		}
		return 1
	}
}

// everyCellShift changes every cell by r.
func everyCellShift(r float64) func(string, int, int) float64 {
	return func(string, int, int) float64 { return r }
}

// simProcedure analyses one drawn report: it returns, per cell, whether
// it was called (in the direction of its shift, or at all when it did not
// shift) and whether it was said the same, and the mean rounds per case.
type simProcedure func(t *testing.T, cells []simCell) (called, same []bool, rounds float64)

// pglabFixed is pglab's analysis of n rounds.
func pglabFixed(n int) simProcedure {
	return func(t *testing.T, cells []simCell) ([]bool, []bool, float64) {
		f, err := AnalyzeFamily(familyCells(cells, n), Options{Paired: true})
		if err != nil {
			t.Fatal(err)
		}
		called, same := outcomes(f)
		return called, same, float64(n)
	}
}

// pglabAuto is pglab's --reps auto with design d; split names the study
// whose rounds are split in four (pairedSim.split), "" for none.
func pglabAuto(d Design, split string) simProcedure {
	return func(t *testing.T, cells []simCell) ([]bool, []bool, float64) {
		f, rounds := sequentialReport(t, cells, quickPaired, d, split)
		called, same := outcomes(f)
		return called, same, rounds
	}
}

// outcomes returns each cell's called and same.
func outcomes(f *Family) (called, same []bool) {
	for _, cr := range f.Cells {
		c := cr.Result.Changes[0]
		called = append(called, c.Called)
		same = append(same, c.Outcome == OutcomeSame)
	}
	return called, same
}

// plainBonferroni is the plain per-cell paired t test of n rounds' log
// ratios, called at alpha/cells; same when its 1 − 2·alpha interval lies
// within ±5 %.
func plainBonferroni(n int) simProcedure {
	return func(t *testing.T, cells []simCell) ([]bool, []bool, float64) {
		var called, same []bool
		for _, c := range cells {
			pe := newPairedEffect(c.base[:n], c.target[:n], roundsTo(n), roundsTo(n), nil)
			m, sd := pe.meanSD()
			tt := m / (sd / math.Sqrt(float64(n)))
			p := 2 * tCDF(-math.Abs(tt), n-1)
			called = append(called, p <= 0.05/float64(len(cells)))
			lo, hi := pe.interval(0.10)
			same = append(same, lo >= 0.95 && hi <= 1.05)
		}
		return called, same, float64(n)
	}
}

// roundsTo returns 1…n.
func roundsTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// simRates are what a procedure did over many reports.
type simRates struct {
	reports, withCall       int
	shifted, shiftedCalled  int
	shiftedSame, wrongCalls int
	rounds                  float64
}

// run draws reports of sim and tallies proc's outcomes.
func (r *simRates) run(t *testing.T, sim pairedSim, reports int, seed uint64, draw int, proc simProcedure) {
	rng := rand.New(rand.NewPCG(seed, 0x36))
	for range reports {
		cells := sim.draw(rng, draw)
		called, same, rounds := proc(t, cells)
		r.reports++
		r.rounds += rounds
		any := false
		for i, c := range cells {
			if called[i] {
				any = true
			}
			if c.shift == 1 {
				if called[i] {
					r.wrongCalls++
				}
				continue
			}
			r.shifted++
			if same[i] {
				r.shiftedSame++
			}
			if called[i] {
				r.shiftedCalled++
			}
		}
		if any {
			r.withCall++
		}
	}
}

// share returns k/n in percent.
func share(k, n int) float64 { return 100 * float64(k) / float64(max(n, 1)) }

// verdictDesign is the design the auto rows use: a quick comparison's
// start, looks after every pair of rounds, the default cap.
func verdictDesign() Design { return PlanPairedDesign(77, 0.05, 4, 0) }

// verdictProc is one column of the table: its name, its analysis, the
// rounds drawn for it, and the study whose rounds it splits.
type verdictProc struct {
	name  string
	proc  simProcedure
	draw  int
	split string
}

// reports is how many reports of n the procedure is tried on: half for
// the split column, whose 160-round reports cost the most to analyse.
func (p verdictProc) reports(n int) int {
	if p.split != "" {
		return max(n/2, 1)
	}
	return n
}

// verdictProcs are the table's columns: the plain test and pglab at 10
// rounds, pglab under --reps auto, and pglab under --reps auto with
// commit's rounds split in four (a quarter the updates, twice the run
// noise) and looked at after four times the rounds, as --quick runs it
// (Plan.QuickLookScale).
func verdictProcs() []verdictProc {
	d := verdictDesign()
	return []verdictProc{
		{"plain t, Bonferroni, n=10", plainBonferroni(10), 10, ""},
		{"pglab n=10", pglabFixed(10), 10, ""},
		{"pglab auto", pglabAuto(d, ""), d.Cap(), ""},
		{"pglab auto, commit split", pglabAuto(d, "commit"), 4 * d.Cap(), "commit"},
	}
}

// TestVerdictsOneCase: a change confined to one of commit's twelve cases
// is called as surely as the plain paired t test with Bonferroni calls it,
// at 10 rounds and under --reps auto.
func TestVerdictsOneCase(t *testing.T) {
	reports := 60 * calibrationScale(t)
	procs := verdictProcs()
	for _, vm := range verdictModels {
		for _, shift := range []float64{1.25, 1.50} {
			var plain float64
			for i, p := range procs {
				sim := pairedSim{shape: quickPaired, model: vm.model, shift: oneCaseShift(shift), split: p.split}
				var r simRates
				r.run(t, sim, p.reports(reports), 36, p.draw, p.proc)
				power := share(r.shiftedCalled, r.shifted)
				t.Logf("%s, +%.0f %% in 1 of 12, %-26s: called in %5.1f %% of reports; %d other cells called; %.1f rounds a case",
					vm.name, (shift-1)*100, p.name, power, r.wrongCalls, r.rounds/float64(r.reports))
				if i == 0 {
					plain = power
					continue
				}
				if power < plain-5 {
					t.Errorf("%s +%.0f %% %s: %.1f %%, more than 5 points below the plain test's %.1f %%", vm.name, (shift-1)*100, p.name, power, plain)
				}
				if want := map[float64]float64{1.25: 90, 1.50: 95}[shift]; vm.name == "1-10 %" && power < want-slack(want, r.shifted) {
					t.Errorf("%s +%.0f %% %s: called in %.1f %% of reports, want ≥ %.0f %%", vm.name, (shift-1)*100, p.name, power, want)
				}
			}
		}
	}
}

// slack is two standard errors of a share near want (in percent) over n
// draws: the simulation's own noise.
func slack(want float64, n int) float64 {
	p := want / 100
	return 200 * math.Sqrt(p*(1-p)/float64(max(n, 1)))
}

// TestVerdictsFalseSame: cells that changed by +10 % (+8 %) are said the
// same in at most 2 % (5 %) of them, on their own rounds.
func TestVerdictsFalseSame(t *testing.T) {
	reports := 20 * calibrationScale(t)
	for _, vm := range verdictModels {
		for _, shift := range []float64{1.10, 1.08} {
			for _, p := range verdictProcs() {
				sim := pairedSim{shape: quickPaired, model: vm.model, shift: everyCellShift(shift), split: p.split}
				var r simRates
				r.run(t, sim, p.reports(reports), 37, p.draw, p.proc)
				same := share(r.shiftedSame, r.shifted)
				t.Logf("%s, every cell +%.0f %%, %-26s: said same %4.2f %% of %d cells, called %.1f %%; %.1f rounds a case",
					vm.name, (shift-1)*100, p.name, same, r.shifted, share(r.shiftedCalled, r.shifted), r.rounds/float64(r.reports))
				limit := map[float64]float64{1.10: 2, 1.08: 5}[shift]
				if !strings.HasPrefix(p.name, "plain") && same > limit+slack(limit, r.shifted) {
					t.Errorf("%s +%.0f %% %s: said same in %.2f %% of the cells, want ≤ %.0f %%", vm.name, (shift-1)*100, p.name, same, limit)
				}
			}
		}
	}
}

// TestVerdictsAA: A/A reports of both noise models call something in at
// most 5 % of them, at 10 rounds and under --reps auto.
func TestVerdictsAA(t *testing.T) {
	reports := 100 * calibrationScale(t)
	for _, vm := range verdictModels {
		for _, p := range verdictProcs() {
			sim := pairedSim{shape: quickPaired, model: vm.model, split: p.split}
			var r simRates
			r.run(t, sim, p.reports(reports), 38, p.draw, p.proc)
			got := share(r.withCall, r.reports)
			t.Logf("%s, A/A, %-26s: %d/%d reports with a call (%.1f %%); %.1f rounds a case", vm.name, p.name, r.withCall, r.reports, got, r.rounds/float64(r.reports))
			if !strings.HasPrefix(p.name, "plain") && got > 5+slack(5, r.reports) {
				t.Errorf("%s A/A %s: %.1f %% of reports call something", vm.name, p.name, got)
			}
		}
	}
}

// tCDF is Student's CDF with df degrees of freedom.
func tCDF(x float64, df int) float64 { return stats.TDist{V: float64(df)}.CDF(x) }

// speedSim draws quick-shaped reports whose runs move with the machine's
// speed: each run's time is its speed factor (lognormal, sigma 0.2) times
// its own noise (1-10 %), and a covariate of the same run (the client's
// CPU) moves with the same speed and its own 3 % — a commit case on a
// 2-core VM, where the two correlate 0.9. covShift shifts the covariate
// of the target as a version that changes the client's work would.
func speedSim(rng *rand.Rand, rounds int, shift func(string, int, int) float64, covShift float64) []simCell {
	var cells []simCell
	for _, st := range quickPaired {
		for c := range st.cases {
			for m := range st.measures {
				sigma := logUniform(rng, 0.01, 0.10)
				sh := shift(st.study, m, c)
				cell := simCell{key: fmt.Sprintf("%s/%d/%d", st.study, c, m), measure: fmt.Sprintf("%s/%d", st.study, m), shift: sh}
				for range rounds {
					va, vb := math.Exp(0.2*rng.NormFloat64()), math.Exp(0.2*rng.NormFloat64())
					cell.base = append(cell.base, 1000*va*math.Exp(sigma*rng.NormFloat64()))
					cell.target = append(cell.target, 1000*sh*vb*math.Exp(sigma*rng.NormFloat64()))
					cell.covBase = append(cell.covBase, 50*va*math.Exp(0.03*rng.NormFloat64()))
					cell.covTarget = append(cell.covTarget, 50*covShift*vb*math.Exp(0.03*rng.NormFloat64()))
				}
				cells = append(cells, cell)
			}
		}
	}
	return cells
}

// TestVerdictsSpeedCovariate: adjusting for the machine's speed keeps A/A
// reports calm, finds a change in one case that the speed's noise hides
// without it, says "same" far more often, and does not adjust when the
// covariate itself moved with the target.
func TestVerdictsSpeedCovariate(t *testing.T) {
	reports := 100 * calibrationScale(t)
	run := func(name string, shift func(string, int, int) float64, covShift float64, withCov bool) (anyCall, power, same float64) {
		rng := rand.New(rand.NewPCG(40, 0x5eed))
		var calls, hit, shifted, sameN, cells int
		for range reports {
			sc := speedSim(rng, 10, shift, covShift)
			if !withCov {
				for i := range sc {
					sc[i].covBase, sc[i].covTarget = nil, nil
				}
			}
			f, err := AnalyzeFamily(familyCells(sc, 10), Options{Paired: true})
			if err != nil {
				t.Fatal(err)
			}
			called := false
			for i, cr := range f.Cells {
				c := cr.Result.Changes[0]
				cells++
				if c.Outcome == OutcomeSame {
					sameN++
				}
				if sc[i].shift != 1 {
					shifted++
					if c.Called {
						hit++
					}
				} else if c.Called {
					called = true
				}
			}
			if called {
				calls++
			}
		}
		anyCall, power, same = share(calls, reports), share(hit, shifted), share(sameN, cells)
		t.Logf("%-34s covariate %-5v: false call in %5.1f %% of reports, shifted case called %5.1f %%, %5.1f %% of cells same", name, withCov, anyCall, power, same)
		return
	}
	for _, withCov := range []bool{false, true} {
		aa, _, same := run("A/A", everyCellShift(1), 1, withCov)
		if aa > 5+slack(5, reports) {
			t.Errorf("A/A, covariate %v: %.1f %% of reports call something", withCov, aa)
		}
		if withCov && same < 30 {
			t.Errorf("A/A with the covariate: only %.1f %% of the cells same", same)
		}
	}
	_, without, _ := run("+25 % in 1 of 12", oneCaseShift(1.25), 1, false)
	_, with, _ := run("+25 % in 1 of 12", oneCaseShift(1.25), 1, true)
	if with < without+20 {
		t.Errorf("+25 %% in one case under the speed's noise: %.1f %% called with the covariate, %.1f %% without", with, without)
	}
	// A version that cuts the client's work to 30 % moves the covariate
	// by thirteen of its standard errors: no cell is adjusted, so none is
	// biased (a smaller move is the study's to rule out: only studies
	// whose client does the same work on every target are adjusted).
	rng := rand.New(rand.NewPCG(41, 1))
	adjusted, cells := 0, 0
	for range reports / 10 {
		sc := speedSim(rng, 10, everyCellShift(1), 0.3)
		f, err := AnalyzeFamily(familyCells(sc, 10), Options{Paired: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range f.Cells {
			cells++
			if cr.Result.Changes[0].Adjusted != "" {
				adjusted++
			}
		}
	}
	if share(adjusted, cells) > 1 {
		t.Errorf("the covariate cut to 30 %% by the target: %.1f %% of the cells adjusted", share(adjusted, cells))
	}
}
