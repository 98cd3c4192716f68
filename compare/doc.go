// Package compare turns repeated measurements of one metric on several
// targets into the statistics a pglab report prints, the way benchstat does
// them, and decides which changes a report may call.
//
// For each target it gives the median of the repetitions with a
// distribution-free 95 % confidence interval of the median, and for each
// target against a baseline the two-sided Mann-Whitney U test, the ratio of
// the medians and a verdict. The summaries come from
// golang.org/x/perf/benchmath (its AssumeNothing assumption, or AssumeExact
// for metrics that should not vary, such as row counts), so the numbers and
// the texts match benchstat's output contract:
//
//	-17.20% (p=0.000 n=10)   a significant change of the median
//	~ (p=0.690 n=5)          no significant difference at alpha 0.05
//	~ (p=1.000 n=1)          with the warning "need >= 4 samples to detect
//	                         a difference at alpha level 0.05"
//
// On top of that contract the package writes the human-readable change text
// of pglab's reports ("10.4 s → 1.8 s, 5.7× faster", "226 MB → 71 MB,
// −69 %", "~") and a geometric-mean summary across cases, as benchstat's
// geomean row.
//
// The package is pure: it reads nothing, writes nothing and prints nothing.
// A typical use for one cell:
//
//	res, err := compare.Analyze(compare.Input{
//		Metric:   compare.Metric{Name: "tps", Unit: compare.TPS, Direction: compare.HigherIsBetter},
//		Baseline: "pg16",
//		Samples:  map[string][]float64{"pg16": pg16TPS, "pg17": pg17TPS},
//	}, compare.Options{})
//	if err != nil { ... }
//	for _, c := range res.Changes {
//		fmt.Println(c.Target, c.Detail(), "("+c.Stats+")")
//	}
//
// # The U test and the size of a change
//
// The U test's p is exact given the ties (utest.go): benchmath's exact
// path computed 2·P(U1 ≤ min(U1, U2)) from the distribution of U1 given
// the ties, which is not symmetric, and returned p=0 for samples such as
// [50 50 50] against [33.3 33.3] — impossible, since two samples of 3 and
// 2 values cannot give p below 0.2. A p below UTestMinP, or any p when the
// sample sizes cannot reach alpha, is never significant.
//
// Each change also carries the Hodges-Lehmann estimate of the ratio
// target/baseline with exact Moses limits at 1 − alpha (RatioEst, RatioLo,
// RatioHi), the 1 − 2·alpha limits of the equivalence test (SameLo,
// SameHi) and the smallest change the repetitions could have seen
// (MDEPercent).
//
// # A report as one family of tests
//
// A report runs hundreds of tests; at alpha = 0.05 about one unchanged
// metric in twenty comes out significant, and picking the largest
// significant change per measure picks exactly those. AnalyzeFamily
// analyses a report's cells together: the changes of the primary
// (callable) cells form one Benjamini-Hochberg family at q = alpha, a
// practical floor (Options.MinChange, default 5 %, 0 for exact metrics)
// removes calls too small to matter, and each change gets one of three
// outcomes — changed, same (its 90 % interval within ± the floor) or
// unresolved (with its MDE). Auxiliary cells are analysed but never
// called. Family.Text states how many false calls to expect, and
// SummarizeMeasure summarises a metric across cases without
// cherry-picking: counts, directions, the geometric mean of the calls,
// and the largest change only if it was called.
//
//	fam, err := compare.AnalyzeFamily(cells, compare.Options{})
//	fmt.Println(fam.Text()) // 48 comparisons; 3 called; about 0.15 false calls expected at q=0.05
//	for _, cr := range fam.Cells {
//		for _, c := range cr.Result.Changes {
//			fmt.Println(cr.Key, c.Target, c.Detail(), c.Outcome)
//		}
//	}
//
// # A paired family: every case on its own rounds
//
// pglab's runner runs the targets of a case next to each other in every
// round, in mirrored pairs of rounds whose order is drawn at random, so
// whatever moves the machine between rounds moves both sides of a round
// together. With Options.Paired (what the reports use for a run) a change
// whose samples carry their rounds (Input.Rounds) is measured on its
// rounds' changes, d = log(target/baseline) of each round: its estimate
// is their geometric mean, its intervals Student's, its test the paired
// t test (paired.go). On a 2-core VM the two sides of a round of COPY TO
// varied by ±1.7 % where each side varied ±2.5 % across rounds, and a
// tps run ±2 % where its rounds moved by ±25 % when a build ran beside
// it.
//
// Every outcome is the change's own (paired_family.go): it is changed
// when its own test passes the report's correction and its estimate
// clears the floor, the same when its own 1 − 2·Alpha interval lies
// within the floor (at one of its looks under a design), unresolved
// otherwise. Each measure (Cell.Measure, one metric of a study over its
// cases) of two or more paired cases is tested too, by Stouffer's sum of
// its cases' z (measures.go), which finds a change the cases share before
// any case shows it alone; the cases' and the measures' tests form one
// Benjamini-Hochberg family at q = Alpha. A change confined to one case
// is thus found at the level a lone test has in the family, Alpha over
// its tests, as a plain per-cell t test with Bonferroni finds it; under an
// A/A comparison every call is a discovery of that one family, so the
// chance of any call stays at most Alpha. A measure's outcome (changed by
// its own test or by a called case, the same when its precision-weighted
// change has its interval within the floor and no case was called) is a
// statement about the measure — MeasureResult, Change.MeasureOutcome —
// never a case's. Below minTrustedRounds (6) rounds a case's t test counts
// down to the randomization bound of its rounds' signs, 2/2^n, or to its
// measure's own p at that look, whichever is smaller: a figure with two
// modes moves the same way in all of four rounds far more often than
// Student's tails allow (16 % of bimodal A/A reports at 4 rounds called
// something without the bound), while four cases of COPY TO that agree
// are still called at 3 rounds. Rounds that other processes disturbed
// (Input.Disturbed, decided from the machine's figures alone, the same
// for both targets) are left out. A figure that repeated exactly in every
// round on each side is compared exactly, with its cell's floor
// (Change.Repeated).
//
// go test -run 'Verdicts' simulates quick-shaped reports (66 cells: 11
// measures over 24 cases) drawn round by round: a machine load shared by
// both sides of a round (AR(1) with coefficient 0.6, sigma 0.3), a
// position effect of the second run (±3 %) and run noise, lognormal with
// sigma drawn per cell in 1-10 % or 3-15 %; --reps auto with the quick
// design (start 4, a look after every pair, cap 40). At
// PGLAB_CALIBRATION_SCALE=5 (2026-12-07), beside the plain per-cell
// paired t test of 10 rounds with Bonferroni over the 66 cells (same: its
// 90 % interval within ±5 %):
//
//	                                     1-10 % noise          3-15 % noise
//	                                     plain  n=10   auto    plain  n=10   auto
//	+25 % in 1 of 12 cases, called       96.7   96.3  100.0    81.0   79.7  100.0
//	+50 % in 1 of 12 cases, called      100.0  100.0  100.0    98.7   98.3  100.0
//	every cell +10 %, said same          0.01   0.01   0.00    0.00   0.00   0.00
//	every cell +8 %, said same           0.09   0.09   0.00    0.12   0.12   0.04
//	every cell +10 %, called             63.4   91.2  100.0    24.9   67.7   96.8
//	A/A reports with any call             2.4    1.6    0.4     3.2    2.2    1.2
//	rounds a case (auto, A/A)                          27.3                  36.1
//
//	(percent; 300 reports a row for one case, 100 for every cell, 500 for
//	A/A). The same with commit's rounds split in four, as --quick runs
//	them (a quarter of the updates, so twice the run noise, looked at
//	after 16, 20, … 160 rounds; Plan.QuickLookScale), at scale 1
//	(2026-12-07; 60, 20 and 100 reports a row): +25 % in 1 of 12 called
//	in 100 % of reports under both noise models (plain n=10: 96.7 and
//	78.3), +50 % in 100 %; every cell +10 % said same in 0.00 %, +8 % in
//	0.00 and 0.15 %; A/A reports with a call 1 and 2 % — as without the split, in
//	the same time (26.7 and 36.0 rounds a case, counted in the unsplit
//	rounds). Borrowing a measure's "same" for its cases, as pglab did before,
//	said "same" of 3-15 % of the cells that changed by +10 %, and its gate
//	found +25 % in one case of twelve in 1.5 % of reports under this load.
//
// go test -run PairedCalibration keeps the A/A guarantee under other
// noise: per-run noise that is bimodal (a second mode 25 % higher in
// 10-50 % of the runs) or heavy-tailed (t with 2 degrees of freedom), the
// drifting load, and none. A/A reports with any call, 1,000 each at
// PGLAB_CALIBRATION_SCALE=5 (fixed rounds):
//
//	model      n=4     n=6     n=10    auto (cap 40)
//	drifting   0.0 %   1.5 %   1.1 %   0.8 %
//	bimodal    1.0 %   1.0 %   1.1 %   3.6 %
//	heavy      0.0 %   0.6 %   0.4 %   0.0 %
//	quiet      0.0 %   0.0 %   0.0 %   0.0 %
//
// (500 reports each under auto; the drifting load cancels in each round's
// change, so the same run noise without it gives the drifting row.) With
// the real changes of a comparison of two versions (COPY TO −33 % in 4
// cases, VACUUM time −30 % in 4, its WAL −44 % in 1 of 4, a warm scan
// −33 %, a commit figure +8 % in 4 of 12) at 10 rounds, 93 % (drifting),
// 76 % (bimodal) and 84 % (heavy) of the changed cells were called and
// 1.2-2.9 % of the calls were false; under auto 94 %, 46 % and 71 % of all
// cells were resolved on their own rounds in 23-32 rounds a case (quiet:
// all, in 8).
//
// # The machine's speed
//
// On a VM the CPU a round gets moves from run to run (steal, frequency,
// a neighbour's cache), and a paired change of a time carries that move:
// a commit figure's rounds differed by ±20-30 %, their changes correlated
// 0.93-0.96 with the change of pglab's own CPU over the same steps. A
// cell with a covariate (Input.Covariate: the client's CPU per step,
// the same work against both targets) has its rounds' changes adjusted
// by least squares with an intercept (covariate.go: d - beta·x, whose
// intercept is the change at equal machine speed), its interval and test
// on n-2 degrees of freedom with the error of beta carried in. It applies
// from 6 rounds and is left out when the covariate itself differs
// between the sides by more than 5 of its standard errors (then the
// targets' own work differs and the adjustment would remove a real
// change). go test -run SpeedCovariate measures it at scale 5: A/A
// reports with any call 5.8 % adjusted, one case +25 % called in 90 % of
// reports adjusted against 6 % plain on a run-to-run speed drift.
//
// # Repetitions
//
// PlanReps and MinRepsForFamily hold the arithmetic of small samples of
// the U test (see reps.go): n = 4 reaches p = 0.0286 at best, n = 5
// 0.0079, n = 6 0.0022; a lone change passes BH in a family of m only if
// that minimum is ≤ alpha/m.
//
// A paired Design (PlanPairedDesign) is the sequential design of --reps
// auto: a look after every mirrored pair of rounds from the start (4 for
// --quick) to the cap (DefaultPairedCap, 40), a case's own cap
// (Cell.Cap) chosen from what its rounds cost before its data are seen.
// Each look tests at the level Lan and DeMets' alpha spending leaves it
// (spending.go: alpha·t^2 by the share t of the cap's rounds for a call,
// alpha·t^3 for each side of "same", boundaries from the statistic's
// joint law over the looks), and a change's P is the smallest level at
// which it would have crossed at one of its looks: a p whatever the
// stopping, corrected with the rest of the family. Design.DecideCases
// stops a case when each of its primary changes is called (in the
// study's family padded to the planned number of tests, so that the call
// stands in the report whatever the rest) or the same. The unpaired
// Design (PlanDesign) of runs without rounds tests each look at
// Alpha/L (Bonferroni over its L looks).
//
// # Calibration
//
// go test -run Calibration simulates whole A/A reports (both targets drawn
// from one distribution) and reports with real changes; it fails when the
// share of A/A reports with any call exceeds alpha + 2 standard errors.
// The figures below are from PGLAB_CALIBRATION_SCALE=10 (ten times the
// reports of a normal run), alpha = q = 0.05, floor 5 %, a family of 60
// primary cells unless stated. Noise models, drawn per cell: noisy (normal
// with a Student-t(3) tail, CV 2-15 %), skewed (lognormal, sigma 0.5-30
// %), tied (values rounded to whole units around 100 ± 0.5-5 %, or
// Poisson counts with mean 0.3-6 including zeros), bimodal (a second mode
// 25 % higher in 10-50 % of the runs).
//
// A/A reports with any call (the target is ≤ 5 %):
//
//	model      n=4        n=5        n=6            n=8
//	noisy      0/400      0/400      2/600 (0.3 %)  64/2000 (3.2 %)
//	skewed     0/400      0/400      1/600 (0.2 %)  44/2000 (2.2 %)
//	tied       0/400      0/400      0/600          23/2000 (1.1 %)
//	bimodal    0/400      0/400      1/600 (0.2 %)  52/2000 (2.6 %)
//
// Without the family, per-cell testing at alpha would have called
// something in 83-96 % of these reports (52 % for tied values at n=4):
// each test alone has p ≤ 0.05 in 2.9/3.0/4.2/5.1 % (noisy), 3.0/3.3/
// 4.2/5.0 % (skewed), 1.2/2.9/3.1/3.7 % (tied) and 2.8/3.2/4.2/4.9 %
// (bimodal) of the A/A cells at n = 4/5/6/8, against the exact size of
// the test without ties, 2.86/3.17/4.11/4.99 %. No p fell below the
// smallest attainable. Larger families (mixed models): 600 primary cells
// at n=8, 0/200 reports with a call; at n=10, 3/200 (1.5 %); 600 cells of
// which 60 primary at n=6, 0/150 — where per-cell testing would have
// called about 22 of the 540 auxiliary cells per report.
//
// Power, a 10 % shift with lognormal CV 2.5 %:
//
//	n=5, family of 6, one cell shifted         93.2 % called (2795/3000)
//	n=5, family of 60, 20 cells shifted        97.2 % of them called, every report
//	                                           called some; 27 false calls in 600 reports
//	one shifted cell in a family of 60, n=6    0.7 % (a lone call is impossible:
//	                                           min p 0.0022 > 0.05/60; called only when
//	                                           null cells pass BH with it and the
//	                                           floor removes them)
//	                                    n=7    88.6 %
//	                                    n=8    98.0 %
//	                                    n=10   100 %
//
// --reps auto (TestCalibrationAuto, TestCalibrationAutoPower) simulates
// the exact procedure: reports shaped like a comparison of two versions —
// quick: 66 tests in 24 cases (commit's 12 cases of 4 tests, tps, vacuum,
// copy-out, seqscan); seed size: 70 in 26 — drawn to n=10, each case
// stopped by Design.Decide at look 8 or 10, then analysed with
// Options.Design. Against it, fixed analyses at n = 5, 8 and 10 of the
// same data, and "a call at either look without the correction" (calls
// of the fixed analyses at 8 and at 10 taken together):
//
//	A/A, reports with any call    auto           fixed 8   fixed 10  either look, uncorrected
//	noisy                         23/1000 2.3 %  33        31        55 (5.5 %)
//	skewed                        17/1000 1.7 %  21        23        36
//	tied                           2/600  0.3 %   5         4         6
//	bimodal                       35/1000 3.5 %  32        47        68 (6.8 %)
//	mixed, correlated in a case   28/1000 2.8 %  35        37        59 (5.9 %)
//	mixed, seed shape (70 tests)  30/1000 3.0 %  33        27        46
//	quiet (sigma 0.3-1.5 %)        0/300          0         0         0
//
// Fixed n=5 calls nothing in these families (a lone call needs p ≤
// 0.05/66). Where the A/A cases stopped: noisy 57 % at 8 (mean n 8.86),
// skewed 69 % (8.63), tied 73 % (8.54), bimodal 54 % (8.92), quiet 100 %
// (8.00, every case same); a case of 4 noisy tests runs to 10 unless all
// four are same or out of reach at 8. The outcome (changed, same,
// unresolved) of a cell equals the fixed n=10 analysis's in 81-95 % of
// cells and its calls in ≥ 99.9 %, with no call in the opposite
// direction.
//
// Power (CV 2.5 % lognormal unless stated):
//
//	one of 66 shifted 10 %    called in 497/500 reports (fixed n=5: 0, n=8: 491,
//	                          n=10: 499); 82 % of cases stopped at 8 (mean n 8.35);
//	                          1 false call in 500 reports
//	versions: 24 of 70 cells  72.2 % of the shifted cells called (fixed n=5: 61.4 %,
//	shifted 5 % to 2.7×,      n=8: 70.9 %, n=10: 74.3 %); false calls 83 of 7015
//	mixed noise, correlated   (1.2 %, BH's false discovery rate ≤ 5 %); calls as
//	                          fixed n=10 in 98.8 % of cells, none in the opposite
//	                          direction; 54 % of cases stopped at 8 (mean n 8.92)
//
// Statistical advice carried over from benchstat: interleave the
// repetitions and fix their number in advance (or use a Design, whose
// looks are accounted for).
package compare
