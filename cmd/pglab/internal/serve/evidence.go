package serve

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/svgchart"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
)

// formatValue formats a stored value with its unit as the report does.
func formatValue(v float64, unit string, exact bool) string {
	if exact {
		return compare.FormatExact(v, compare.Unit(unit))
	}
	return compare.FormatValue(v, compare.Unit(unit))
}

// targetBlock is one target's setup: how it was reached, its server, and
// every setting it ran with that differs from PostgreSQL's defaults.
type targetBlock struct {
	Name  string
	Facts [][2]string
	// Settings as pg_settings gave them when the run began.
	Settings []settingRow
}

type settingRow struct {
	Name, Value, Raw, Source string
}

func (rd *runData) targetBlocks() []targetBlock {
	var out []targetBlock
	for _, t := range rd.targets {
		tb := targetBlock{Name: t.Name, Facts: targetFacts(t)}
		for _, s := range t.Settings {
			tb.Settings = append(tb.Settings, settingRow{Name: s.Name, Value: runs.FormatSetting(s), Raw: s.Value + s.Unit, Source: s.Source})
		}
		out = append(out, tb)
	}
	return out
}

// targetFacts are a target's facts as label and value: kind, connection,
// server version, data checksums, and what its Extra holds (the
// environment it ran in), flattened.
func targetFacts(t results.Target) [][2]string {
	conn := t.Conn
	if t.Kind == results.TargetManaged {
		conn = "managed by pglab"
	}
	facts := [][2]string{
		{"server version", orDash(t.ServerVersion)},
		{"data checksums", onOff(t.DataChecksums)},
		{"connection", orDash(conn)},
	}
	facts = append(facts, envFacts(t.Extra)...)
	for _, kv := range flattenJSON(t.Extra) {
		if kv[0] != "env" && !strings.HasPrefix(kv[0], "env.") {
			facts = append(facts, kv)
		}
	}
	return facts
}

// envFacts are the environment a target ran in (pglab --env) as the
// report's setup table words it: the profile and its SPEC, then each limit
// with what became of it. A target outside any environment has the fact
// "environment: none", so that a comparison with one that had one shows
// the difference.
func envFacts(extra json.RawMessage) [][2]string {
	r, ok := env.RecordOf(extra)
	if !ok {
		return [][2]string{{"environment", "none"}}
	}
	name := r.Name
	if r.Origin != "" {
		name += " (" + r.Origin + ")"
	}
	facts := [][2]string{{"environment", name}, {"environment SPEC", orDash(r.Spec)}}
	for _, l := range r.Limits {
		v := l.Value + ", " + string(l.Status)
		switch {
		case l.Status == env.Enforced && l.Mechanism != "":
			v += " (" + l.Mechanism + ")"
		case l.Why != "":
			v += ": " + l.Why
		}
		facts = append(facts, [2]string{"environment " + l.Key, v})
	}
	return facts
}

// flattenJSON turns a JSON object into sorted "a.b" → value pairs.
func flattenJSON(raw json.RawMessage) [][2]string {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out [][2]string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x[k])
			}
		case []any:
			parts := make([]string, len(x))
			for i, e := range x {
				b, _ := json.Marshal(e)
				parts[i] = strings.Trim(string(b), `"`)
			}
			out = append(out, [2]string{prefix, strings.Join(parts, ", ")})
		case string:
			out = append(out, [2]string{prefix, x})
		case nil:
			out = append(out, [2]string{prefix, "null"})
		default:
			b, _ := json.Marshal(x)
			out = append(out, [2]string{prefix, string(b)})
		}
	}
	walk("", v)
	return out
}

// chartBlock is a chart with its caption.
type chartBlock struct {
	Title string
	SVG   template.HTML
}

// chartHTML is a chart for a page: its SVG escapes every text it holds.
func chartHTML(c svgchart.Line) template.HTML { return template.HTML(c.SVG()) }

// progressTick is what the run page reads of a stored progress series
// (bench.ProgressTick's JSON).
type progressTick struct {
	ElapsedS     float64 `json:"elapsed_s"`
	TPS          float64 `json:"tps"`
	LatencyAvgMs float64 `json:"latency_avg_ms"`
	LatencyP99Ms float64 `json:"latency_p99_ms"`
}

// caseGroup collects a study case's artefacts of one kind across targets
// and repetitions, in stored order.
type caseGroup struct {
	title string
	items []results.Artefact
}

// groupByCase groups the run's artefacts of a name by study and case.
func (rd *runData) groupByCase(name string) []*caseGroup {
	var out []*caseGroup
	byKey := map[string]*caseGroup{}
	for _, a := range rd.artefacts {
		if a.Name != name {
			continue
		}
		k := a.Study + "\x00" + a.CaseKey
		g := byKey[k]
		if g == nil {
			title := a.Study
			if len(a.Case) > 0 {
				title += " · " + rd.caseName(a.Study, a.Case)
			}
			g = &caseGroup{title: title}
			byKey[k] = g
			out = append(out, g)
		}
		g.items = append(g.items, a)
	}
	return out
}

// targetColor gives each target of the run its colour.
func (rd *runData) targetColor(name string) string {
	for i, t := range rd.d.TargetNames() {
		if t == name {
			return svgchart.Palette[i%len(svgchart.Palette)]
		}
	}
	return svgchart.Palette[len(svgchart.Palette)-1]
}

// progressCharts draws each load run's progress: per case, transactions
// per second and latency (average solid, p99 dashed) second by second, a
// line per target and repetition.
func (rd *runData) progressCharts() []chartBlock {
	var out []chartBlock
	for _, g := range rd.groupByCase(results.ProgressArtefact) {
		tps := svgchart.Line{Title: "Transactions per second — " + g.title, XLabel: "seconds since the start", YLabel: "tps"}
		lat := svgchart.Line{Title: "Latency per second — " + g.title, XLabel: "seconds since the start", YLabel: "ms (solid: average, dashed: p99)", YLog: true}
		seen := map[string]bool{}
		for _, a := range g.items {
			var ticks []progressTick
			if json.Unmarshal(a.Data, &ticks) != nil || len(ticks) == 0 {
				continue
			}
			first := !seen[a.Target]
			seen[a.Target] = true
			color := rd.targetColor(a.Target)
			var xs, t, avg, p99 []float64
			for _, tk := range ticks {
				xs = append(xs, tk.ElapsedS)
				t = append(t, tk.TPS)
				avg = append(avg, tk.LatencyAvgMs)
				p99 = append(p99, tk.LatencyP99Ms)
				tps.XMax = math.Max(tps.XMax, tk.ElapsedS)
			}
			legend := a.Target
			tps.Series = append(tps.Series, svgchart.Series{Name: legend, Color: color, Thin: !first, Legend: first, X: xs, Y: t})
			lat.Series = append(lat.Series,
				svgchart.Series{Name: legend, Color: color, Thin: !first, Legend: first, X: xs, Y: avg},
				svgchart.Series{Name: legend + " p99", Color: color, Dash: "5 3", Thin: true, X: xs, Y: p99})
		}
		if len(tps.Series) == 0 {
			continue
		}
		lat.XMax = tps.XMax
		tps.XTicks, lat.XTicks = svgchart.SecondTicks(tps.XMax), svgchart.SecondTicks(tps.XMax)
		out = append(out, chartBlock{Title: tps.Title, SVG: chartHTML(tps)}, chartBlock{Title: lat.Title, SVG: chartHTML(lat)})
	}
	return out
}

// latencyBlock is one case's latency distribution from the stored HDR
// histograms: a chart of latency by percentile, a line per target (its
// repetitions merged, which is exact for HDR histograms of one
// configuration), and a table per target and repetition.
type latencyBlock struct {
	Title string
	SVG   template.HTML
	Rows  []latencyRow
}

type latencyRow struct {
	Target, Rep, Count                   string
	P50, P90, P99, P999, P9999, Max, Min string
}

// quantileMarks are the percentile axis' labels: 0, 90, 99, 99.9, 99.99 %
// at log10(1/(1-q)).
var quantileMarks = []svgchart.Tick{{At: 0, Label: "0 %"}, {At: 1, Label: "90 %"}, {At: 2, Label: "99 %"}, {At: 3, Label: "99.9 %"}, {At: 4, Label: "99.99 %"}}

func (rd *runData) latency() []latencyBlock {
	var out []latencyBlock
	for _, g := range rd.groupByCase(results.LatencyHistogramArtefact) {
		lb := latencyBlock{Title: "Latency distribution — " + g.title}
		merged := map[string]*hdrhistogram.Histogram{}
		var order []string
		for _, a := range g.items {
			hist, err := hdrhistogram.Decode(a.Data)
			if err != nil || hist.TotalCount() == 0 {
				continue
			}
			lb.Rows = append(lb.Rows, newLatencyRow(a.Target, strconv.Itoa(a.Rep), hist))
			if m, ok := merged[a.Target]; ok {
				m.Merge(hist)
			} else {
				merged[a.Target] = hist
				order = append(order, a.Target)
			}
		}
		if len(order) == 0 {
			continue
		}
		c := svgchart.Line{Title: lb.Title, XLabel: "percentile", YLabel: "ms", YLog: true, XTicks: quantileMarks, XMax: 4}
		for _, t := range order {
			h := merged[t]
			s := svgchart.Series{Name: t, Color: rd.targetColor(t), Legend: true}
			for k := 0; k <= 40; k++ {
				x := float64(k) / 10
				q := 100 * (1 - math.Pow(10, -x))
				s.X = append(s.X, x)
				s.Y = append(s.Y, float64(h.ValueAtQuantile(q))/1000)
			}
			c.Series = append(c.Series, s)
			if len(g.items) > len(order) {
				lb.Rows = append(lb.Rows, newLatencyRow(t, "all", h))
			}
		}
		lb.SVG = chartHTML(c)
		out = append(out, lb)
	}
	return out
}

// newLatencyRow reads a histogram's percentiles (µs) as ms.
func newLatencyRow(target, rep string, h *hdrhistogram.Histogram) latencyRow {
	ms := func(us int64) string { return compare.FormatValue(float64(us)/1000, compare.Milliseconds) }
	return latencyRow{
		Target: target, Rep: rep, Count: fmt.Sprint(h.TotalCount()),
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)), P9999: ms(h.ValueAtQuantile(99.99)), Max: ms(h.Max()), Min: ms(h.Min()),
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
