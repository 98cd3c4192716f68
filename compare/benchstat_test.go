package compare

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// benchstatCell is what benchstat prints for one row of one column: the
// range after "±" and, for a column compared with the baseline, the "vs
// base" text and its warnings.
type benchstatCell struct {
	baseRange, newRange string
	baseWarn, newWarn   []string
	change              string // Change.String()
	changeWarn          []string
}

// TestBenchstatSmallGoldens reproduces rows of golang.org/x/perf's
// cmd/benchstat/testdata/*.stdout from the samples in the matching *.txt
// files (-col note: "before" is the baseline, "after" the target).
func TestBenchstatSmallGoldens(t *testing.T) {
	const need6 = "need >= 6 samples for confidence interval at level 0.95"
	const need4 = "need >= 4 samples to detect a difference at alpha level 0.05"
	rep := func(v float64, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	tests := []struct {
		name      string
		metric    Metric
		base, new []float64
		want      benchstatCell
	}{
		{
			// smallSample.stdout: X   100.0n ± ∞ ¹   101.0n ± ∞ ¹  ~ (p=1.000 n=1) ²
			name:   "smallSample",
			metric: Metric{Unit: Nanoseconds, Direction: LowerIsBetter},
			base:   []float64{100}, new: []float64{101},
			want: benchstatCell{
				baseRange: "∞", newRange: "∞",
				baseWarn: []string{need6}, newWarn: []string{need6},
				change: "~ (p=1.000 n=1)", changeWarn: []string{need4},
			},
		},
		{
			// issue19634.stdout: FloatSub/100-4   115.00n ± ∞ ¹   78.80n ± ∞ ¹  -31.48% (p=0.008 n=5)
			name:   "issue19634 n=5 significant",
			metric: Metric{Unit: Nanoseconds, Direction: LowerIsBetter},
			base:   []float64{115, 114, 115, 115, 115}, new: rep(78.8, 5),
			want: benchstatCell{
				baseRange: "∞", newRange: "∞",
				baseWarn: []string{need6}, newWarn: []string{need6},
				change: "-31.48% (p=0.008 n=5)",
			},
		},
		{
			// issue19565.stdout: A   100.0n ± 0%   100.0n ± 0%   ~ (p=1.000 n=6) ¹  (¹ all samples are equal)
			name:   "issue19565 all equal",
			metric: Metric{Unit: Nanoseconds, Direction: LowerIsBetter},
			base:   rep(100, 6), new: rep(100, 6),
			want: benchstatCell{
				baseRange: "0%", newRange: "0%",
				change: "~ (p=1.000 n=6)", changeWarn: []string{"all samples are equal"},
			},
		},
		{
			// units.stdout: Size   100.0 ± 0%   105.0 ± 0%  +5.00% (n=1)
			name:   "units exact changed",
			metric: Metric{Unit: Bytes, Exact: true},
			base:   []float64{100}, new: []float64{105},
			want: benchstatCell{baseRange: "0%", newRange: "0%", change: "+5.00% (n=1)"},
		},
		{
			// units.stdout: NonExact   101.0 ± 1% ¹   101.0 ± 0%   0.00% (n=3)
			name:   "units exact varied",
			metric: Metric{Unit: Bytes, Exact: true},
			base:   []float64{100, 101, 101}, new: []float64{101, 101, 101},
			want: benchstatCell{
				baseRange: "1%", newRange: "0%",
				baseWarn: []string{"exact distribution expected, but values range from 100 to 101"},
				change:   "0.00% (n=3)",
			},
		},
		{
			// zero.stdout: Imperceptible   1.150Gi ± 0%   1.150Gi ± 0%   0.00% (n=1)
			name:   "zero a-bytes equal",
			metric: Metric{Unit: Bytes, Exact: true},
			base:   []float64{1234567890}, new: []float64{1234567890},
			want: benchstatCell{baseRange: "0%", newRange: "0%", change: "0.00% (n=1)"},
		},
		{
			// zero.stdout: Imperceptible   159.9Gi ± 0%   159.9Gi ± 0%  +0.00% (n=1)
			name:   "zero b-bytes imperceptible increase",
			metric: Metric{Unit: Bytes, Exact: true},
			base:   []float64{171717171716}, new: []float64{171717171717},
			want: benchstatCell{baseRange: "0%", newRange: "0%", change: "+0.00% (n=1)"},
		},
		{
			// zero.stdout: Imperceptible   95.37Mi ± 0%   95.37Mi ± 0%  -0.00% (n=1)
			name:   "zero c-bytes imperceptible decrease",
			metric: Metric{Unit: Bytes, Exact: true},
			base:   []float64{99999930}, new: []float64{99999929},
			want: benchstatCell{baseRange: "0%", newRange: "0%", change: "-0.00% (n=1)"},
		},
		{
			// zero.stdout: ZeroOverZero   0.000 ± 0%   0.000 ± 0%   0.00% (n=1)
			name:   "zero x zero over zero",
			metric: Metric{Unit: "x", Exact: true},
			base:   []float64{0}, new: []float64{0},
			want: benchstatCell{baseRange: "0%", newRange: "0%", change: "0.00% (n=1)"},
		},
		{
			// zero.stdout: NonZeroOverZero   0.0 ± 0%   100.0 ± 0%  ? (n=1)
			name:   "zero y non-zero over zero",
			metric: Metric{Unit: "y", Exact: true},
			base:   []float64{0}, new: []float64{100},
			want: benchstatCell{baseRange: "0%", newRange: "0%", change: "? (n=1)"},
		},
		{
			// csvOldNew.stdout: Encode/format=json-48,1.718e-06,1%,1.4225e-06,1%,-17.20%,p=0.000 n=10
			name:   "old/new json significant",
			metric: Metric{Unit: Nanoseconds, Direction: LowerIsBetter},
			base:   []float64{1726, 1723, 1707, 1707, 1713, 1729, 1736, 1707, 1705, 1774},
			new:    []float64{1423, 1416, 1411, 1413, 1412, 1426, 1422, 1424, 1447, 1425},
			want:   benchstatCell{baseRange: "1%", newRange: "1%", change: "-17.20% (p=0.000 n=10)"},
		},
		{
			// csvOldNew.stdout: Encode/format=gob-48,3.0655e-06,0%,3.07e-06,2%,~,p=0.446 n=10
			name:   "old/new gob not significant",
			metric: Metric{Unit: Nanoseconds, Direction: LowerIsBetter},
			base:   []float64{3069, 3075, 3069, 3067, 3207, 3064, 3064, 3058, 3059, 3062},
			new:    []float64{3075, 3065, 3059, 3065, 3060, 3081, 3186, 3135, 3087, 3062},
			want:   benchstatCell{baseRange: "0%", newRange: "2%", change: "~ (p=0.446 n=10)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Analyze(Input{
				Metric:   tt.metric,
				Baseline: "before",
				Samples:  map[string][]float64{"before": tt.base, "after": tt.new},
			}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkBenchstatCell(t, res, "before", "after", tt.want)
		})
	}
}

func checkBenchstatCell(t *testing.T, res *Result, baseName, newName string, want benchstatCell) {
	t.Helper()
	base, ok1 := res.Target(baseName)
	sum, ok2 := res.Target(newName)
	c, ok3 := res.Change(newName)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("result lacks %s or %s: %+v", baseName, newName, res)
	}
	if base.PctRange != want.baseRange || sum.PctRange != want.newRange {
		t.Errorf("ranges = %q, %q; benchstat prints %q, %q", base.PctRange, sum.PctRange, want.baseRange, want.newRange)
	}
	if !slices.Equal(base.Warnings, want.baseWarn) || !slices.Equal(sum.Warnings, want.newWarn) {
		t.Errorf("summary warnings = %q, %q; benchstat prints %q, %q", base.Warnings, sum.Warnings, want.baseWarn, want.newWarn)
	}
	if got := c.String(); got != want.change {
		t.Errorf("change = %q; benchstat prints %q", got, want.change)
	}
	if !slices.Equal(c.Warnings, want.changeWarn) {
		t.Errorf("change warnings = %q; benchstat prints %q", c.Warnings, want.changeWarn)
	}
}

// TestBenchstatGeomeanGoldens reproduces geomean rows of benchstat's
// testdata.
func TestBenchstatGeomeanGoldens(t *testing.T) {
	analyze := func(m Metric, base, new []float64) *Result {
		t.Helper()
		samples := map[string][]float64{}
		if base != nil {
			samples["before"] = base
		}
		if new != nil {
			samples["after"] = new
		}
		res, err := Analyze(Input{Metric: m, Baseline: "before", Order: []string{"before", "after"}, Samples: samples}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// Samples in seconds, so that benchunit.Scale prints what benchstat
	// prints for sec/op.
	sec := Metric{Unit: Seconds, Direction: LowerIsBetter}
	ns := func(vs ...float64) []float64 {
		out := make([]float64, len(vs))
		for i, v := range vs {
			out[i] = v * 1e-9
		}
		return out
	}
	exact := Metric{Unit: "x", Exact: true}
	type cell struct {
		value    string // benchunit.Scale of the value, "" when none
		delta    string
		warnings []string
	}
	tests := []struct {
		name      string
		results   []*Result
		base, new cell
	}{
		{
			// csvOldNew.stdout: geomean,2.294891936453654e-06,,2.089754770302007e-06,,-8.94%,
			name: "csvOldNew",
			results: []*Result{
				analyze(sec,
					ns(1726, 1723, 1707, 1707, 1713, 1729, 1736, 1707, 1705, 1774),
					ns(1423, 1416, 1411, 1413, 1412, 1426, 1422, 1424, 1447, 1425)),
				analyze(sec,
					ns(3069, 3075, 3069, 3067, 3207, 3064, 3064, 3058, 3059, 3062),
					ns(3075, 3065, 3059, 3065, 3060, 3081, 3186, 3135, 3087, 3062)),
			},
			base: cell{value: "2.295µ", delta: ""},
			new:  cell{value: "2.090µ", delta: "-8.94%"},
		},
		{
			// units.stdout: geomean    100.5          103.0       +2.47%
			name: "units",
			results: []*Result{
				analyze(Metric{Unit: Bytes, Exact: true}, []float64{100}, []float64{105}),
				analyze(Metric{Unit: Bytes, Exact: true}, []float64{100, 101, 101}, []float64{101, 101, 101}),
			},
			base: cell{value: "100.5"},
			new:  cell{value: "103.0", delta: "+2.47%"},
		},
		{
			// zero.stdout: geomean    ¹   +0.00%   ¹  (¹ summaries must be >0 to compute geomean)
			name:    "zero over zero",
			results: []*Result{analyze(exact, []float64{0}, []float64{0}), analyze(exact, []float64{0}, []float64{0})},
			base:    cell{warnings: []string{"summaries must be >0 to compute geomean"}},
			new:     cell{delta: "+0.00%", warnings: []string{"summaries must be >0 to compute geomean"}},
		},
		{
			// zero.stdout: geomean    ¹   100.0       ?
			name:    "non-zero over zero",
			results: []*Result{analyze(exact, []float64{0}, []float64{100}), analyze(exact, []float64{0}, []float64{100})},
			base:    cell{warnings: []string{"summaries must be >0 to compute geomean"}},
			new:     cell{value: "100.0", delta: "?"},
		},
		{
			// issue19565.stdout: geomean   1.000µ   1.000µ   +0.00%   ²
			// (² benchmark set differs from baseline; geomeans may not be comparable)
			name: "issue19565 set differs",
			results: []*Result{
				analyze(sec, ns(100, 100, 100, 100, 100, 100), ns(100, 100, 100, 100, 100, 100)),
				analyze(sec, ns(10000, 10000, 10000, 10000, 10000, 10000), nil),
				analyze(sec, nil, ns(10000, 10000, 10000, 10000, 10000, 10000)),
			},
			base: cell{value: "1.000µ"},
			new:  cell{value: "1.000µ", delta: "+0.00%", warnings: []string{"benchmark set differs from baseline; geomeans may not be comparable"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, err := Geomean(tt.results)
			if err != nil {
				t.Fatal(err)
			}
			if len(row.Targets) != 2 {
				t.Fatalf("targets = %+v, want before and after", row.Targets)
			}
			for i, want := range []cell{tt.base, tt.new} {
				g := row.Targets[i]
				value := ""
				if g.HasValue {
					value = benchunit.Scale(g.Value, benchunit.Decimal)
				}
				if value != want.value || g.Delta != want.delta || !slices.Equal(g.Warnings, want.warnings) {
					t.Errorf("%s: value %q delta %q warnings %q; benchstat: %q %q %q",
						g.Target, value, g.Delta, g.Warnings, want.value, want.delta, want.warnings)
				}
			}
		})
	}
}

// TestBenchstatCRCGolden runs the whole of benchstat's crcIgnore golden
// output (72 rows of crc-old.txt against crc-new.txt, in two units, with
// significant changes, "~" and geomeans) through Analyze and Geomean. It
// reads the files from golang.org/x/perf's module directory, so it is
// skipped when the go command cannot tell where that is.
func TestBenchstatCRCGolden(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/perf").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("cannot locate golang.org/x/perf's module directory: %v", err)
	}
	testdata := filepath.Join(dir, "cmd", "benchstat", "testdata")
	oldSamples := readBenchfmt(t, filepath.Join(testdata, "crc-old.txt"))
	newSamples := readBenchfmt(t, filepath.Join(testdata, "crc-new.txt"))
	golden := readBenchstatText(t, filepath.Join(testdata, "crcIgnore.stdout"))

	units := []string{"sec/op", "B/s"}
	if len(golden) != len(units) {
		t.Fatalf("crcIgnore.stdout has %d tables, want %d", len(golden), len(units))
	}
	for ui, unit := range units {
		var results []*Result
		rows := 0
		for _, row := range golden[ui] {
			if row.name == "geomean" {
				g, err := Geomean(results)
				if err != nil {
					t.Fatal(err)
				}
				cls := benchunit.ClassOf(unit)
				got := []string{benchunit.Scale(g.Targets[0].Value, cls), benchunit.Scale(g.Targets[1].Value, cls), g.Targets[1].Delta}
				want := []string{row.fields[0], row.fields[1], row.fields[2]}
				if !slices.Equal(got, want) {
					t.Errorf("%s geomean = %q, benchstat prints %q", unit, got, want)
				}
				continue
			}
			key := row.name + " " + unit
			res, err := Analyze(Input{
				Metric:   Metric{Name: row.name, Unit: Unit(unit)},
				Baseline: "crc-old.txt",
				Samples:  map[string][]float64{"crc-old.txt": oldSamples[key], "crc-new.txt": newSamples[key]},
			}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, res)
			rows++
			base, _ := res.Target("crc-old.txt")
			sum, _ := res.Target("crc-new.txt")
			c, _ := res.Change("crc-new.txt")
			scaler := benchunit.CommonScale([]float64{base.Center, sum.Center}, benchunit.ClassOf(unit))
			got := []string{scaler.Format(base.Center), "±", base.PctRange, scaler.Format(sum.Center), "±", sum.PctRange}
			got = append(got, strings.Fields(c.Delta+" ("+c.Stats+")")...)
			if !slices.Equal(got, row.fields) {
				t.Errorf("%s:\n got  %q\n want %q", key, got, row.fields)
			}
		}
		if rows != 36 {
			t.Errorf("%s: compared %d rows, want 36", unit, rows)
		}
	}
}

// readBenchfmt reads a Go benchmark file into "name unit" → values.
func readBenchfmt(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	samples := map[string][]float64{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, v := range res.Values {
			key := string(res.Name) + " " + v.Unit
			samples[key] = append(samples[key], v.Value)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return samples
}

// benchstatRow is one row of a benchstat text table: its name and the other
// fields split at spaces.
type benchstatRow struct {
	name   string
	fields []string
}

// readBenchstatText splits benchstat's text output into tables of rows,
// skipping configuration lines, headers and warning footnotes.
func readBenchstatText(t *testing.T, path string) [][]benchstatRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tables [][]benchstatRow
	var cur []benchstatRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			if cur != nil {
				tables = append(tables, cur)
				cur = nil
			}
		case strings.Contains(line, "│") || strings.HasSuffix(fields[0], ":"):
			// header or configuration line
		default:
			cur = append(cur, benchstatRow{name: fields[0], fields: fields[1:]})
		}
	}
	if cur != nil {
		tables = append(tables, cur)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tables
}
