package report

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

func TestFormatSetting(t *testing.T) {
	for _, c := range []struct {
		s    results.Setting
		want string
	}{
		{results.Setting{Value: "16384", Unit: "8kB"}, "128MB"},
		{results.Setting{Value: "131072", Unit: "8kB"}, "1GB"},
		{results.Setting{Value: "524288", Unit: "kB"}, "512MB"},
		{results.Setting{Value: "1024", Unit: "MB"}, "1GB"},
		{results.Setting{Value: "100", Unit: "8kB"}, "800kB"},
		{results.Setting{Value: "-1", Unit: "kB"}, "-1"},
		{results.Setting{Value: "1800", Unit: "s"}, "30min"},
		{results.Setting{Value: "200", Unit: "ms"}, "200ms"},
		{results.Setting{Value: "90", Unit: "s"}, "90s"},
		{results.Setting{Value: "0", Unit: "ms"}, "0ms"},
		{results.Setting{Value: "off"}, "off"},
		{results.Setting{Value: "0.9"}, "0.9"},
		{results.Setting{Value: "1.5", Unit: "s"}, "1.5s"},
	} {
		if got := runs.FormatSetting(c.s); got != c.want {
			t.Errorf("FormatSetting(%s %s) = %q, want %q", c.s.Value, c.s.Unit, got, c.want)
		}
	}
}

func TestSettingRows(t *testing.T) {
	a := results.Target{Name: "a", Settings: []results.Setting{
		{Name: "port", Value: "5432"}, {Name: "TimeZone", Value: "UTC"}, {Name: "shared_buffers", Value: "16384", Unit: "8kB"},
		{Name: "work_mem", Value: "65536", Unit: "kB"}, {Name: "jit", Value: "off"},
	}}
	b := results.Target{Name: "b", Settings: []results.Setting{
		{Name: "port", Value: "5433"}, {Name: "shared_buffers", Value: "32768", Unit: "8kB"}, {Name: "jit", Value: "off"},
	}}
	rows := runs.SettingRows([]results.Target{a, b})
	var got []string
	for _, r := range rows {
		got = append(got, r.Name+"="+strings.Join(r.Values, ",")+map[bool]string{true: " ≠", false: ""}[r.Differs])
	}
	// shared_buffers=128MB is the default on a, not on b.
	want := "jit=off,off; shared_buffers=default,256MB ≠; work_mem=64MB,default ≠"
	if strings.Join(got, "; ") != want {
		t.Errorf("settingRows = %s\nwant %s", strings.Join(got, "; "), want)
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"a | b":                     `a \| b`,
		"track_wal_io_timing":       "track_wal_io_timing",
		"_x_":                       `\_x\_`,
		"<script>alert(1)</script>": "&lt;script>alert(1)&lt;/script>",
		"± <1 %":                    "± <1 %",
		"line\nbreak":               "line break",
		"a*b* [c](d)":               `a\*b\* \[c\](d)`,
		`back\slash`:                `back\\slash`,
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdCode("a `b` c"); got != "``a `b` c``" {
		t.Errorf("mdCode = %q", got)
	}
	if got := view.Superscript(12); got != "¹²" {
		t.Errorf("superscript(12) = %q", got)
	}
}

func TestChangeText(t *testing.T) {
	// Each change is a family of its own: one callable cell.
	analyze := func(m compare.Metric, base, other []float64) compare.Change {
		t.Helper()
		fam, err := compare.AnalyzeFamily([]compare.Cell{{Key: "k", Callable: true,
			Input: compare.Input{Metric: m, Baseline: "a", Samples: map[string][]float64{"a": base, "b": other}}}}, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := fam.Change("k", "b")
		return c
	}
	six := func(v float64) []float64 { return []float64{v, v * 1.01, v * 0.99, v * 1.02, v * 0.98, v * 1.005} }
	time := compare.Metric{Name: "t", Unit: "ms", Direction: compare.LowerIsBetter}
	wal := compare.Metric{Name: "w", Unit: "bytes", Direction: compare.LowerIsBetter}
	rows := compare.Metric{Name: "r", Unit: "rows", Exact: true}
	for _, c := range []struct {
		c     compare.Change
		want  string
		class string
	}{
		{analyze(time, six(10431), six(1815)), "5.7× faster (p=0.002 q=0.002 n=6)", "better"},
		{analyze(wal, six(226e6), six(71e6)), "−69 %, better (p=0.002 q=0.002 n=6)", "better"},
		{analyze(wal, six(100), six(131)), "+31 %, worse (p=0.002 q=0.002 n=6)", "worse"},
		{analyze(rows, []float64{3, 3}, []float64{3, 3}), "=", "same"},
		{analyze(time, six(100), six(100.1)), "same (within ±5 %; n=6)", "same"},
		{analyze(time, six(100), six(102)), "same (within ±5 %; n=6)", "same"},
		{analyze(time, six(100), six(104.5)), "~ (+4.5 %, below the 5 % floor; n=6)", "ns"},
		{analyze(time, []float64{100, 130, 80, 120}, []float64{110, 90, 125, 100}), "~ (could not see changes under ±", "ns"},
	} {
		if got := view.ChangeText(c.c); !strings.HasPrefix(got, c.want) {
			t.Errorf("changeText = %q, want %q", got, c.want)
		}
		if got := view.ChangeClass(c.c); got != c.class {
			t.Errorf("changeClass(%q) = %q, want %q", view.ChangeText(c.c), got, c.class)
		}
	}
}

// TestCharts checks the charts of the fixture's studies: which are drawn,
// with what, and that a line chart over a label that is not a number falls
// back to bars.
func TestCharts(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	v, err := view.Build(d, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byStudy := map[string][]view.Chart{}
	for _, sv := range v.Studies {
		byStudy[sv.Name] = sv.ChartsOf()
	}
	tps := byStudy["tps"]
	if len(tps) != 2 || !tps[0].Line || strings.Join(tps[0].Categories, ",") != "5,10,20,50" || len(tps[0].Series) != 2 {
		t.Fatalf("tps charts: %+v", tps)
	}
	// Latency percentiles: p50 and p99 of both targets (no p95 stored).
	if len(tps[1].Series) != 4 || tps[1].Series[0].Dash == tps[1].Series[1].Dash || tps[1].Series[0].Color != tps[1].Series[1].Color {
		t.Errorf("latency series: %+v", tps[1].Series)
	}
	vac := byStudy["vacuum"]
	if len(vac) != 2 || vac[0].Line || len(vac[0].Categories) != 4 || vac[0].Categories[0] != "95 % updated, with index" {
		t.Errorf("vacuum charts: %+v", vac)
	}
	if p := vac[0].Series[0].Points[0]; !p.HasCI || !(p.Lo < p.Center && p.Center < p.Hi) || len(p.Values) != 6 {
		t.Errorf("vacuum point: %+v", p)
	}
	scan := byStudy["seqscan"]
	if len(scan) != 1 || math.Abs(scan[0].Ceiling-87) > 0.5 {
		t.Errorf("seqscan chart ceiling: %+v", scan)
	}
	if len(byStudy["copy-errors"]) != 0 || len(byStudy["fsync-probe"]) != 0 {
		t.Error("charts for studies that have none")
	}
	for _, cs := range byStudy {
		for _, cd := range cs {
			svg := cd.SVG()
			if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
				t.Errorf("chart %s holds a NaN or Inf", cd.Title)
			}
		}
	}

	// clients that are not numbers: bars instead of a line.
	ms := []results.Measurement{}
	for rep := 1; rep <= 3; rep++ {
		for _, c := range []string{"few", "many"} {
			ms = append(ms, results.Measurement{Target: "x", Study: "tps", Case: map[string]string{"clients": c}, Rep: rep, Metric: "tps", Value: 100, Unit: "tps", Direction: results.DirectionHigher})
		}
	}
	v, err = view.Build(&runs.Dataset{Measurements: ms}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := v.Studies[0].ChartsOf()
	if len(cs) != 1 || cs[0].Line || strings.Join(cs[0].Categories, ",") != "clients=few,clients=many" {
		t.Errorf("fallback chart: %+v", cs)
	}
}

// TestTextMatchesStudyOutput checks the terminal tables of WriteText for
// a dataset as pglab study builds it (no stored study descriptions).
func TestTextMatchesStudyOutput(t *testing.T) {
	var ms []results.Measurement
	for rep := 1; rep <= 3; rep++ {
		for _, tg := range []string{"pg16", "pg17"} {
			ms = append(ms, results.Measurement{Target: tg, Study: "commit", Case: map[string]string{"tx": "autocommit"}, Rep: rep,
				Metric: "elapsed_ms", Value: 1000 + float64(rep), Unit: "ms", Direction: results.DirectionLower})
		}
	}
	d := &runs.Dataset{Targets: []results.Target{{Name: "pg16"}, {Name: "pg17"}}, Measurements: ms,
		Notes: []runs.Note{{Study: "commit", Case: map[string]string{"tx": "autocommit"}, Target: "pg17", Text: "fsync dominated"}}}
	var b bytes.Buffer
	if err := WriteText(&b, d); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"commit: tx=autocommit",
		"metric      pg16  pg17   pg17 vs pg16",
		"elapsed_ms  1 s   1 s ¹  same (within ±5 %; n=3)",
		"every figure: need >= 6 samples for confidence interval at level 0.95",
		"¹ fsync dominated",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
}

// TestOneAnalysisPerRun: every format of a report renders one family of
// tests, made once; a different floor makes another.
func TestOneAnalysisPerRun(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	first, err := view.Build(d, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, write := range []func(io.Writer, *runs.Dataset) error{WriteMarkdown, WriteHTML, WriteJSON, WriteCSV} {
		if err := write(io.Discard, d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Regressions(d); err != nil {
		t.Fatal(err)
	}
	again, err := view.Build(d, view.Options{Brief: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Family != first.Family {
		t.Error("the report's family was analysed again for another format")
	}
	d.MinChange = 0.10
	wider, err := view.Build(d, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if wider.Family == first.Family || wider.Family.MinChange != 0.10 {
		t.Errorf("a floor of 10 %% kept the analysis of 5 %% (floor %v)", wider.Family.MinChange)
	}
}
