package compare

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The calibration tests simulate whole reports and check what a report
// promises: in an A/A comparison (both sides drawn from one distribution)
// the share of reports that call anything at all stays at most alpha, and
// a real change is called. Figures are logged (go test -v -run
// Calibration) and quoted in doc.go. PGLAB_CALIBRATION_SCALE=10 runs ten
// times as many reports.

// calibrationScale multiplies the number of simulated reports.
func calibrationScale(t *testing.T) int {
	s := os.Getenv("PGLAB_CALIBRATION_SCALE")
	if s == "" {
		return 1
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		t.Fatalf("PGLAB_CALIBRATION_SCALE=%q: want a positive integer", s)
	}
	return k
}

// sampler draws one repetition of a cell.
type sampler func(rng *rand.Rand) float64

// cellGen draws the noise model of one cell.
type cellGen func(rng *rand.Rand) sampler

// logUniform draws from [lo, hi] uniformly on the log scale.
func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return lo * math.Exp(rng.Float64()*math.Log(hi/lo))
}

// poisson draws a Poisson count (Knuth's method, small means).
func poisson(rng *rand.Rand, mean float64) float64 {
	l, k, p := math.Exp(-mean), 0, rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
	}
	return float64(k)
}

// The noise models.
var cellGens = map[string]cellGen{
	// noisy: normal noise with a heavy tail (Student t, 3 degrees of
	// freedom), CV 2-15 %.
	"noisy": func(rng *rand.Rand) sampler {
		cv := 0.02 + 0.13*rng.Float64()
		return func(rng *rand.Rand) float64 {
			z := rng.NormFloat64()
			chi := 0.0
			for range 3 {
				g := rng.NormFloat64()
				chi += g * g
			}
			return math.Max(1, 1000*(1+cv*z/math.Sqrt(chi/3)/math.Sqrt(3)))
		}
	},
	// skewed: lognormal, sigma 0.5-30 %.
	"skewed": func(rng *rand.Rand) sampler {
		sigma := logUniform(rng, 0.005, 0.3)
		return func(rng *rand.Rand) float64 { return 1000 * math.Exp(sigma*rng.NormFloat64()) }
	},
	// tied: rounded values with many ties (about 100 ± 0.5-5 %, to
	// whole units), or small counts 0..10 with zeros (Poisson, mean
	// 0.3-6).
	"tied": func(rng *rand.Rand) sampler {
		if rng.IntN(3) == 0 {
			mean := 0.3 + 5.7*rng.Float64()
			return func(rng *rand.Rand) float64 { return poisson(rng, mean) }
		}
		sigma := logUniform(rng, 0.005, 0.05)
		return func(rng *rand.Rand) float64 { return math.Round(100 * math.Exp(sigma*rng.NormFloat64())) }
	},
	// bimodal: a second mode 25 % higher (a checkpoint in some runs)
	// with probability 10-50 %, lognormal sigma 0.5-5 % around each.
	"bimodal": func(rng *rand.Rand) sampler {
		share, sigma := 0.1+0.4*rng.Float64(), logUniform(rng, 0.005, 0.05)
		return func(rng *rand.Rand) float64 {
			v := 1000 * math.Exp(sigma*rng.NormFloat64())
			if rng.Float64() < share {
				v *= 1.25
			}
			return v
		}
	},
	// quiet: a quiet machine, lognormal sigma 0.3-1.5 %.
	"quiet": func(rng *rand.Rand) sampler {
		sigma := logUniform(rng, 0.003, 0.015)
		return func(rng *rand.Rand) float64 { return 1000 * math.Exp(sigma*rng.NormFloat64()) }
	},
	// cv2.5: lognormal sigma 2.5 % (the power scenarios).
	"cv2.5": func(rng *rand.Rand) sampler {
		return func(rng *rand.Rand) float64 { return 1000 * math.Exp(0.025*rng.NormFloat64()) }
	},
}

// mixedNames are the models a "mixed" report draws its cells from.
var mixedNames = []string{"noisy", "skewed", "tied", "bimodal"}

// simReport is one simulated report: per cell, cap repetitions a side.
type simReport struct {
	base, target [][]float64
	shift        []float64 // true ratio − 1 per cell
	callable     int       // the first callable cells are primary
}

// newSimReport draws a report of cells cells (the first callable of them
// primary) with reps repetitions a side; cell i's target is shifted by
// shift(i) (a factor 1+shift). model "mixed" draws each cell's model from
// mixedNames.
func newSimReport(rng *rand.Rand, model string, cells, callable, reps int, shift func(i int) float64) *simReport {
	r := &simReport{callable: callable}
	for i := range cells {
		name := model
		if model == "mixed" {
			name = mixedNames[rng.IntN(len(mixedNames))]
		}
		draw := cellGens[name](rng)
		s := shift(i)
		b, t := make([]float64, reps), make([]float64, reps)
		for j := range reps {
			b[j], t[j] = draw(rng), draw(rng)*(1+s)
		}
		r.base, r.target, r.shift = append(r.base, b), append(r.target, t), append(r.shift, s)
	}
	return r
}

// cells returns the report's cells with the first n repetitions a side.
func (r *simReport) cells(n int) []Cell { return r.cellRange(0, len(r.base), n) }

// cellRange returns the cells from..to-1 with the first n repetitions a
// side.
func (r *simReport) cellRange(from, to, n int) []Cell {
	m := Metric{Name: "x", Unit: TPS, Direction: HigherIsBetter}
	out := make([]Cell, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, Cell{Key: "c" + strconv.Itoa(i), Callable: i < r.callable, Input: Input{Metric: m, Baseline: "a",
			Samples: map[string][]float64{"a": r.base[i][:n], "b": r.target[i][:n]}}})
	}
	return out
}

// tally counts a family's calls on cells with and without a true shift.
func (r *simReport) tally(f *Family) (trueCalls, falseCalls int) {
	for i, cr := range f.Cells {
		if c := cr.Result.Changes[0]; c.Called {
			if r.shift[i] != 0 {
				trueCalls++
			} else {
				falseCalls++
			}
		}
	}
	return trueCalls, falseCalls
}

// rate is a share of simulated reports with its standard error.
type rate struct{ k, n int }

func (r rate) p() float64 { return float64(r.k) / float64(r.n) }

// bound is alpha plus z standard errors of a share at alpha over r.n
// trials: the most an honest rate of alpha shows by chance.
func (r rate) bound(alpha, z float64) float64 {
	return alpha + z*math.Sqrt(alpha*(1-alpha)/float64(r.n))
}

func (r rate) String() string { return fmt.Sprintf("%.3f (%d/%d)", r.p(), r.k, r.n) }

// typeIResult is the outcome of an A/A simulation at fixed n.
type typeIResult struct {
	anyCall  rate // reports with any call
	raw      rate // family tests with p ≤ alpha (before BH)
	lowP     int  // p below the smallest attainable p (must be 0)
	rawAny   rate // reports with any raw p ≤ alpha (what per-cell testing would call)
	floorCut int  // reports in which BH passed something the floor removed
}

// simulateTypeI runs reports A/A reports of model with m callable cells of
// cells at n repetitions a side.
func simulateTypeI(seed uint64, model string, cells, m, n, reports int) typeIResult {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	var res typeIResult
	for range reports {
		r := newSimReport(rng, model, cells, m, n, func(int) float64 { return 0 })
		f, err := AnalyzeFamily(r.cells(n), Options{})
		if err != nil {
			panic(err)
		}
		res.anyCall.n++
		res.rawAny.n++
		if f.Called > 0 {
			res.anyCall.k++
		}
		if f.RawSignificant > 0 {
			res.rawAny.k++
		}
		if f.Cutoff > 0 && f.Called == 0 {
			res.floorCut++
		}
		for _, cr := range f.Cells {
			c := cr.Result.Changes[0]
			if !c.InFamily {
				continue
			}
			res.raw.n++
			if c.P <= f.Alpha {
				res.raw.k++
			}
			if c.P < c.MinP*(1-1e-9) {
				res.lowP++
			}
		}
	}
	return res
}

// TestCalibrationTypeI: A/A reports with a family of 60 primary cells at
// the repetitions the lead may use call nothing in at least 1 − alpha of
// the reports, for every noise model; the raw p-values are valid.
func TestCalibrationTypeI(t *testing.T) {
	scale := calibrationScale(t)
	reports := map[int]int{4: 40, 5: 40, 6: 60, 8: 200}
	for _, model := range []string{"noisy", "skewed", "tied", "bimodal"} {
		for _, n := range []int{4, 5, 6, 8} {
			t.Run(fmt.Sprintf("%s/n=%d", model, n), func(t *testing.T) {
				t.Parallel()
				res := simulateTypeI(uint64(len(model)), model, 60, 60, n, reports[n]*scale)
				checkTypeI(t, res, n)
			})
		}
	}
}

// checkTypeI checks and logs an A/A result at n repetitions a side.
func checkTypeI(t *testing.T, res typeIResult, n int) {
	t.Helper()
	const alpha = DefaultAlpha
	t.Logf("n=%d: reports with a call %v; raw p ≤ 0.05 in %v of the tests (exact size without ties %.4f); reports with a raw p ≤ 0.05 %v; BH passes removed by the floor %d",
		n, res.anyCall, res.raw, exactSize(n, alpha), res.rawAny, res.floorCut)
	if res.anyCall.p() > res.anyCall.bound(alpha, 2) {
		t.Errorf("n=%d: %v of A/A reports call a change; want ≤ %.3f", n, res.anyCall, res.anyCall.bound(alpha, 2))
	}
	if res.raw.p() > res.raw.bound(alpha, 3) {
		t.Errorf("n=%d: raw p ≤ 0.05 in %v of A/A tests; want ≤ %.4f", n, res.raw, res.raw.bound(alpha, 3))
	}
	if res.lowP > 0 {
		t.Errorf("n=%d: %d p-values below the smallest attainable", n, res.lowP)
	}
}

// exactSize is the true size of the exact two-sided U test at alpha for
// n+n without ties: the largest attainable p ≤ alpha.
func exactSize(n int, alpha float64) float64 {
	u, tail := mosesRank(n, n, alpha)
	if u < 0 {
		return 0
	}
	return 2 * tail
}

// TestCalibrationLargeFamilies: a family of 600 primary cells, and a
// report of 600 cells of which 60 are primary (the other 540 auxiliary,
// never called): still no call in at least 1 − alpha of A/A reports.
func TestCalibrationLargeFamilies(t *testing.T) {
	scale := calibrationScale(t)
	for _, tt := range []struct {
		cells, m, n, reports int
	}{
		{600, 600, 8, 20},
		{600, 600, 10, 20},
		{600, 60, 6, 15},
	} {
		t.Run(fmt.Sprintf("cells=%d/m=%d/n=%d", tt.cells, tt.m, tt.n), func(t *testing.T) {
			t.Parallel()
			res := simulateTypeI(uint64(tt.cells+tt.m), "mixed", tt.cells, tt.m, tt.n, tt.reports*scale)
			checkTypeI(t, res, tt.n)
			if tt.cells > tt.m {
				// What calling every cell at its raw p would do.
				t.Logf("the %d auxiliary cells are never called; per-cell testing would call about %.0f of them per report",
					tt.cells-tt.m, float64(tt.cells-tt.m)*exactSize(tt.n, DefaultAlpha))
			}
		})
	}
}

// powerResult is the outcome of a simulation with true changes.
type powerResult struct {
	shares     rate // shifted cells called, over all shifted cells
	anyTrue    rate // reports calling at least one shifted cell
	falseCalls int  // calls on unshifted cells, over all reports
}

// simulatePower runs reports with the first k of m cells shifted by 10 %
// (CV 2.5 %) at n repetitions a side.
func simulatePower(seed uint64, m, k, n, reports int) powerResult {
	rng := rand.New(rand.NewPCG(seed, uint64(100*m+n)))
	var res powerResult
	for range reports {
		r := newSimReport(rng, "cv2.5", m, m, n, func(i int) float64 {
			if i < k {
				return 0.10
			}
			return 0
		})
		f, err := AnalyzeFamily(r.cells(n), Options{})
		if err != nil {
			panic(err)
		}
		tc, fc := r.tally(f)
		res.shares.k += tc
		res.shares.n += k
		res.anyTrue.n++
		if tc > 0 {
			res.anyTrue.k++
		}
		res.falseCalls += fc
	}
	return res
}

// TestCalibrationPower: a 10 % shift with CV 2.5 % (lognormal) is called.
//
//   - n=5 in a family of 6 with one shifted cell: a lone change needs
//     p ≤ 0.05/6 = 0.0083, i.e. complete separation (p = 0.0079).
//   - n=5 in a family of 60 with 20 shifted cells: BH lets p ≤ 20·0.05/60
//     through when 20 are called, so one inverted pair is allowed.
//   - one shifted cell in a family of 60 at n = 6 (a lone BH pass is
//     impossible: min p 0.0022 > 0.05/60), 7, 8 and 10.
func TestCalibrationPower(t *testing.T) {
	scale := calibrationScale(t)
	for _, tt := range []struct {
		name            string
		m, k, n, report int
		min             float64 // least acceptable share of shifted cells called
	}{
		{"m=6/one shifted/n=5", 6, 1, 5, 300, 0.8},
		{"m=60/20 shifted/n=5", 60, 20, 5, 60, 0.8},
		{"m=60/one shifted/n=6", 60, 1, 6, 60, 0},
		{"m=60/one shifted/n=7", 60, 1, 7, 100, 0.7},
		{"m=60/one shifted/n=8", 60, 1, 8, 100, 0.9},
		{"m=60/one shifted/n=10", 60, 1, 10, 100, 0.9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := simulatePower(uint64(tt.k), tt.m, tt.k, tt.n, tt.report*scale)
			t.Logf("%s: shifted cells called %v; reports calling one %v; false calls %d in %d reports",
				tt.name, res.shares, res.anyTrue, res.falseCalls, res.anyTrue.n)
			if res.shares.p() < tt.min {
				t.Errorf("%s: power %v, want ≥ %v", tt.name, res.shares, tt.min)
			}
			// At n=6 a lone pass of BH among 60 is impossible (min p
			// 0.0022 > 0.05/60); the shifted cell is called only when
			// two null cells separate completely too (BH then passes
			// three at p ≤ 3·0.05/60) and the floor removes those two.
			if tt.n == 6 && tt.k == 1 && res.shares.p() > 0.05 {
				t.Errorf("a lone change among 60 was called at n=6 in %v of the reports", res.shares)
			}
		})
	}
}

// The --reps auto procedure (Design, Decide): whole reports of cases
// whose cells share their repetitions, each case stopped by the rule at
// its own look, then analysed as the report analyses them.

// shape is a report's structure: the primary cells of each case.
type shape []int

// cells returns the number of cells of a shape.
func (s shape) cells() int {
	n := 0
	for _, k := range s {
		n += k
	}
	return n
}

// repeatShape returns count cases of k cells each.
func repeatShape(count, k int) shape {
	out := make(shape, count)
	for i := range out {
		out[i] = k
	}
	return out
}

// Report shapes of a comparison of two versions: commit's 12 cases with
// 4 tests each (the time per update is a twin), then tps, vacuum,
// copy-out and seqscan.
var (
	// quickShape is --quick: tps at 2 client counts; 66 tests in 24
	// cases.
	quickShape = slices.Concat(repeatShape(12, 4), repeatShape(2, 2), repeatShape(4, 2), repeatShape(4, 1), repeatShape(2, 1))
	// seedShape is the seeds' sizes: tps at 4 client counts; 70 tests
	// in 26 cases.
	seedShape = slices.Concat(repeatShape(12, 4), repeatShape(4, 2), repeatShape(4, 2), repeatShape(4, 1), repeatShape(2, 1))
)

// caseReport is a simulated report with cases: a simReport whose cells
// are grouped as its shape says, drawn to the cap.
type caseReport struct {
	*simReport
	shape shape
	first []int // index of each case's first cell
}

// newCaseReport draws a report of the shape with cap repetitions a side.
// corr > 0 adds a factor shared by the cells of a case in each repetition
// of each side (lognormal, sigma corr): a slow run is slow in every figure
// of its case, the positive dependence between a case's tests.
func newCaseReport(rng *rand.Rand, model string, sh shape, cap int, corr float64, shift func(i int) float64) *caseReport {
	m := sh.cells()
	r := &caseReport{simReport: newSimReport(rng, model, m, m, cap, shift), shape: sh}
	i := 0
	for _, k := range sh {
		r.first = append(r.first, i)
		if corr > 0 {
			for j := range cap {
				fb, ft := math.Exp(corr*rng.NormFloat64()), math.Exp(corr*rng.NormFloat64())
				for c := i; c < i+k; c++ {
					r.base[c][j] *= fb
					r.target[c][j] *= ft
				}
			}
		}
		i += k
	}
	return r
}

// caseCells returns the cells of case ci with n repetitions a side.
func (r *caseReport) caseCells(ci, n int) []Cell {
	return r.cellRange(r.first[ci], r.first[ci]+r.shape[ci], n)
}

// cellsAt returns every cell with its case's repetitions.
func (r *caseReport) cellsAt(ns []int) []Cell {
	var out []Cell
	for ci, n := range ns {
		out = append(out, r.caseCells(ci, n)...)
	}
	return out
}

// autoResult is the outcome of a simulation of --reps auto.
type autoResult struct {
	reports  int
	anyFalse rate // reports with a false call: --reps auto
	// fixedFalse counts reports with a false call in a fixed-n analysis.
	fixedFalse map[int]int
	// naiveFalse counts reports with a false call at either look when
	// each look is read at the full level (no correction for looks).
	naiveFalse int
	stops      map[int]int    // cases by n at stopping
	reasons    map[string]int // cases by reason
	caseCount  int
	falseCalls int         // calls of unshifted cells by --reps auto
	trueCalled rate        // shifted cells called by --reps auto
	fixedTrue  map[int]int // … by a fixed-n analysis
	agree      map[int]int // cells whose outcome equals a fixed-n analysis's
	callsAgree map[int]int // cells called by both or neither
	flips      map[int]int // cells called by both in opposite directions
	cells      int
}

// simulateAuto runs reports of the shape under --reps auto (PlanDesign for
// the shape's family, cap 10), and fixed analyses at n = 5, 8 and 10 of
// the same data.
func simulateAuto(seed uint64, model string, sh shape, corr float64, shift func(i int) float64, reports int) autoResult {
	rng := rand.New(rand.NewPCG(seed, uint64(sh.cells())))
	d := PlanDesign(sh.cells(), 0, 0)
	res := autoResult{fixedFalse: map[int]int{}, stops: map[int]int{}, reasons: map[string]int{}, fixedTrue: map[int]int{},
		agree: map[int]int{}, callsAgree: map[int]int{}, flips: map[int]int{}, reports: reports}
	for range reports {
		r := newCaseReport(rng, model, sh, d.Cap(), corr, shift)
		ns := make([]int, len(sh))
		for ci := range sh {
			for _, look := range d.Looks {
				cl, err := d.Decide(r.caseCells(ci, look), Options{})
				if err != nil {
					panic(err)
				}
				if cl.Done {
					ns[ci] = look
					res.stops[look]++
					res.reasons[cl.Reason]++
					break
				}
			}
		}
		res.caseCount += len(sh)
		f, err := AnalyzeFamily(r.cellsAt(ns), Options{Design: &d})
		if err != nil {
			panic(err)
		}
		tc, fc := r.tally(f)
		res.anyFalse.n++
		if fc > 0 {
			res.anyFalse.k++
		}
		res.trueCalled.k += tc
		res.falseCalls += fc
		for _, s := range r.shift {
			if s != 0 {
				res.trueCalled.n++
			}
		}
		res.compareFixed(r, f, d)
	}
	return res
}

// compareFixed analyses the report at fixed n = 5, 8 and 10 and compares
// each with the --reps auto analysis f.
func (res *autoResult) compareFixed(r *caseReport, f *Family, d Design) {
	naive := false
	res.cells += len(f.Cells)
	for _, n := range []int{5, 8, 10} {
		ff, err := AnalyzeFamily(r.cells(n), Options{})
		if err != nil {
			panic(err)
		}
		tc, fc := r.tally(ff)
		res.fixedTrue[n] += tc
		if fc > 0 {
			res.fixedFalse[n]++
			naive = naive || d.IsLook(n)
		}
		for i, cr := range ff.Cells {
			a, b := f.Cells[i].Result.Changes[0], cr.Result.Changes[0]
			if a.Outcome == b.Outcome {
				res.agree[n]++
			}
			if a.Called == b.Called {
				res.callsAgree[n]++
			}
			if a.Called && b.Called && (a.RatioEst > 1) != (b.RatioEst > 1) {
				res.flips[n]++
			}
		}
	}
	if naive {
		res.naiveFalse++
	}
}

// meanN is the mean repetitions per side of the cases.
func (res autoResult) meanN() float64 {
	s := 0
	for n, k := range res.stops {
		s += n * k
	}
	return float64(s) / float64(res.caseCount)
}

// log logs a simulation of --reps auto.
func (res autoResult) log(t *testing.T, name string) {
	t.Helper()
	var stops, reasons []string
	for n := 1; n <= DefaultCap; n++ {
		if res.stops[n] > 0 {
			stops = append(stops, fmt.Sprintf("n=%d: %d", n, res.stops[n]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(res.reasons)) {
		reasons = append(reasons, fmt.Sprintf("%s %d", k, res.reasons[k]))
	}
	t.Logf("%s: reports with a false call %v (fixed n=5: %d, n=8: %d, n=10: %d; a call at either look without the correction: %d)",
		name, res.anyFalse, res.fixedFalse[5], res.fixedFalse[8], res.fixedFalse[10], res.naiveFalse)
	t.Logf("%s: cases stopped at %s (mean n %.2f, %.0f %% of the repetitions of a fixed n=10); reasons: %s",
		name, strings.Join(stops, ", "), res.meanN(), 100*res.meanN()/DefaultCap, strings.Join(reasons, ", "))
	t.Logf("%s: outcome as fixed n=5 in %.1f %% of cells, as n=10 in %.1f %%; calls as n=5 in %.1f %%, as n=10 in %.1f %%; direction flips %d/%d",
		name, pct(res.agree[5], res.cells), pct(res.agree[10], res.cells), pct(res.callsAgree[5], res.cells), pct(res.callsAgree[10], res.cells), res.flips[5], res.flips[10])
	if res.trueCalled.n > 0 {
		t.Logf("%s: shifted cells called %v (fixed n=5: %d, n=8: %d, n=10: %d); false calls %d of %d calls (%.1f %%)", name, res.trueCalled,
			res.fixedTrue[5], res.fixedTrue[8], res.fixedTrue[10], res.falseCalls, res.falseCalls+res.trueCalled.k, pct(res.falseCalls, res.falseCalls+res.trueCalled.k))
	}
}

// pct is k of n in percent.
func pct(k, n int) float64 { return 100 * float64(k) / float64(n) }

// TestCalibrationAuto simulates the whole --reps auto procedure on A/A
// reports of the shape of a quick comparison (66 tests in 24 cases) and
// of a seed-size one (70 in 26): the share of reports with any call stays
// at most alpha for every noise model, with and without a dependence
// between a case's figures.
func TestCalibrationAuto(t *testing.T) {
	scale := calibrationScale(t)
	for _, tt := range []struct {
		name, model string
		sh          shape
		corr        float64
		reports     int
	}{
		{"noisy", "noisy", quickShape, 0, 100},
		{"skewed", "skewed", quickShape, 0, 100},
		{"tied", "tied", quickShape, 0, 60},
		{"bimodal", "bimodal", quickShape, 0, 100},
		{"mixed, correlated in a case", "mixed", quickShape, 0.03, 100},
		{"mixed, seed shape", "mixed", seedShape, 0, 100},
		{"quiet", "quiet", quickShape, 0, 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := simulateAuto(uint64(len(tt.name)), tt.model, tt.sh, tt.corr, func(int) float64 { return 0 }, tt.reports*scale)
			res.log(t, "A/A "+tt.name)
			if res.anyFalse.p() > res.anyFalse.bound(DefaultAlpha, 2) {
				t.Errorf("%s: %v of A/A reports call a change; want ≤ %.3f", tt.name, res.anyFalse, res.anyFalse.bound(DefaultAlpha, 2))
			}
			if tt.model == "quiet" && res.stops[8] < res.caseCount*9/10 {
				t.Errorf("quiet: %d of %d cases stopped at the start", res.stops[8], res.caseCount)
			}
		})
	}
}

// versionShift is a comparison of two versions in which some figures
// changed: every third cell by 5 % to 3× (up or down), the others not.
func versionShift(i int) float64 {
	sizes := []float64{0.05, 0.1, 0.2, 0.5, 1.7, -0.1, -0.3, -0.6}
	if i%3 != 0 {
		return 0
	}
	return sizes[(i/3)%len(sizes)]
}

// TestCalibrationAutoPower: real changes are called by --reps auto as by
// a fixed analysis at the cap, mostly at the start.
//
//   - one cell of 66 shifted 10 % with CV 2.5 % (lognormal);
//   - a comparison of versions: a third of 70 cells shifted by 5 % to
//     2.7× either way, mixed noise, correlated within a case.
func TestCalibrationAutoPower(t *testing.T) {
	scale := calibrationScale(t)
	for _, tt := range []struct {
		name, model string
		sh          shape
		corr        float64
		shift       func(int) float64
		reports     int
		minPower    float64
	}{
		{"one of 66 shifted 10 %, CV 2.5 %", "cv2.5", quickShape, 0, func(i int) float64 {
			if i == 0 {
				return 0.1
			}
			return 0
		}, 50, 0.9},
		{"versions: 24 of 70 shifted, mixed noise", "mixed", seedShape, 0.02, versionShift, 40, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := simulateAuto(uint64(len(tt.name)), tt.model, tt.sh, tt.corr, tt.shift, tt.reports*scale)
			res.log(t, tt.name)
			if res.trueCalled.p() < tt.minPower {
				t.Errorf("%s: power %v, want ≥ %v", tt.name, res.trueCalled, tt.minPower)
			}
			if res.trueCalled.k < res.fixedTrue[10]*9/10 {
				t.Errorf("%s: --reps auto called %d shifted cells, fixed n=10 %d", tt.name, res.trueCalled.k, res.fixedTrue[10])
			}
			if res.flips[10] > 0 || res.flips[5] > 0 {
				t.Errorf("%s: calls in opposite directions to a fixed analysis: %d (n=5), %d (n=10)", tt.name, res.flips[5], res.flips[10])
			}
			if a := pct(res.callsAgree[10], res.cells); a < 95 {
				t.Errorf("%s: calls as fixed n=10 in %.1f %% of cells, want ≥ 95 %%", tt.name, a)
			}
		})
	}
}
