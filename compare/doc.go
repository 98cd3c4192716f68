// Package compare turns repeated measurements of one metric on several
// targets into the statistics a pglab report prints, the way benchstat does
// them.
//
// For each target it gives the median of the repetitions with a
// distribution-free 95 % confidence interval of the median, and for each
// target against a baseline the two-sided Mann-Whitney U test, the ratio of
// the medians and a verdict. The statistics come from
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
// A typical use:
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
// Statistical advice carried over from benchstat: interleave the
// repetitions, fix their number in advance (at least 6 for a 95 %
// confidence interval, 10 or more is better), and remember that at
// alpha 0.05 about one unchanged metric in twenty shows as significant.
package compare
