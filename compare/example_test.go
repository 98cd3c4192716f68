package compare_test

import (
	"fmt"

	"github.com/pglab/pglab/compare"
)

func ExampleAnalyze() {
	m := compare.Metric{Name: "vacuum_time", Unit: compare.Seconds, Direction: compare.LowerIsBetter}
	res, err := compare.Analyze(compare.Input{
		Metric:   m,
		Baseline: "pg16",
		Samples: map[string][]float64{
			"pg16": {10.4, 10.6, 10.3, 10.5, 10.4, 10.2},
			"pg17": {1.8, 1.9, 1.7, 1.8, 1.85, 1.75},
			"pg18": {10.5, 10.3, 10.4},
		},
	}, compare.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Targets {
		fmt.Printf("%s: %s %q\n", s.Target, compare.FormatSummary(s, m), s.Warnings)
	}
	for _, c := range res.Changes {
		fmt.Printf("%s: %s | %s | %s %q\n", c.Target, c, c.Detail(), c.Word(), c.Warnings)
	}
	// Output:
	// pg16: 10.4 s ± 2 % []
	// pg17: 1.8 s ± 6 % []
	// pg18: 10.4 s ± ∞ ["need >= 6 samples for confidence interval at level 0.95"]
	// pg17: -82.69% (p=0.002 n=6) | 10.4 s → 1.8 s, 5.8× faster | faster []
	// pg18: ~ (p=1.000 n=6+3) | 10.4 s → 10.4 s, ~ | ~ []
}

func ExampleGeomean() {
	tps := compare.Metric{Name: "tps", Unit: compare.TPS, Direction: compare.HigherIsBetter}
	var results []*compare.Result
	for _, c := range []map[string][]float64{
		{"pg16": {1000, 1010, 990, 1005, 995, 1000}, "pg17": {1100, 1110, 1090, 1105, 1095, 1100}},
		{"pg16": {4000, 4040, 3960, 4020, 3980, 4000}, "pg17": {4100, 4141, 4059, 4120, 4080, 4100}},
	} {
		res, err := compare.Analyze(compare.Input{Metric: tps, Baseline: "pg16", Samples: c}, compare.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		results = append(results, res)
	}
	row, err := compare.Geomean(results)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range row.Targets {
		fmt.Printf("%s: %s (%s)\n", g.Target, compare.FormatValue(g.Value, tps.Unit), g.Delta)
	}
	// Output:
	// pg16: 2,000 tps ()
	// pg17: 2,124 tps (+6.18%)
}

func ExampleAnalyzeFamily() {
	tps := compare.Metric{Name: "tps", Unit: compare.TPS, Direction: compare.HigherIsBetter}
	rows := compare.Metric{Name: "rows", Unit: "rows", Exact: true}
	base := []float64{1000, 1004, 998, 1002, 996, 1001}
	times := func(f float64) []float64 {
		out := make([]float64, len(base))
		for i, v := range base {
			out[i] = v * f
		}
		return out
	}
	cell := func(key string, m compare.Metric, callable bool, a, b []float64) compare.Cell {
		return compare.Cell{Key: key, Callable: callable, Input: compare.Input{
			Metric: m, Baseline: "pg16", Samples: map[string][]float64{"pg16": a, "pg17": b}}}
	}
	fam, err := compare.AnalyzeFamily([]compare.Cell{
		cell("c=10", tps, true, base, times(1.12)),
		cell("c=20", tps, true, base, times(1.001)),
		cell("c=50", tps, true, []float64{1000, 1150, 880, 1060, 940, 1010}, []float64{990, 1120, 900, 1100, 950, 1030}),
		cell("rows", rows, true, []float64{100000, 100000}, []float64{100000, 100000}),
		cell("c=10 latency", compare.Metric{Name: "latency", Unit: compare.Milliseconds, Direction: compare.LowerIsBetter},
			false, times(0.01), times(0.0089)),
	}, compare.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cr := range fam.Cells {
		c, _ := cr.Result.Change("pg17")
		fmt.Printf("%s: %s [%s]\n", cr.Key, c.Detail(), c.Outcome)
	}
	fmt.Println(fam.Text())
	// Output:
	// c=10: 1,001 tps → 1,121 tps, +12 %, faster (p=0.002 q=0.006 n=6) [changed]
	// c=20: 1,001 tps → 1,002 tps, same (within ±5 %; n=6) [same]
	// c=50: 1,005 tps → 1,010 tps, ~ (could not see changes under ±15 %; n=6) [unresolved]
	// rows: 100,000 rows → 100,000 rows, = [same]
	// c=10 latency: 10 ms → 8.9 ms, −11 %, faster (auxiliary, not called; p=0.002 n=6) [unresolved]
	// 3 comparisons; 1 called; about 0.05 false calls expected at q=0.05
}
