package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pglab/pglab/compare"
)

// Charts are inline SVG drawn here, without scripts, fonts or anything
// fetched: bar charts are horizontal (a group of bars per case, its name
// above it), so that long case names and many cases fit a phone's width;
// line charts draw a line per target over a numeric case label. Bars and
// points carry the 95 % confidence interval of the median as whiskers
// when there is one (6 repetitions or more), and every repetition as a
// small ring, so that the spread shows even without an interval.

// palette is Okabe and Ito's colour-blind-safe palette (without yellow,
// too light on white).
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000"}

// dashes tell apart the metrics of one chart (latency percentiles).
var dashes = []string{"", "6 3", "2 3", "8 3 2 3"}

// halo keeps a text readable where it crosses a grid line or a mark.
const halo = ` paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"`

const (
	chartW     = 420.0
	fontSize   = 13.0
	smallFont  = 11.0
	charWidth  = 7.0 // an estimate of the average glyph width at fontSize
	legendRowH = 20.0
)

// chartData is what one chart shows.
type chartData struct {
	Title      string
	Unit       compare.Unit
	Line       bool
	XHead      string
	Categories []string
	Series     []series
	// Ceiling is a reference value drawn as a dashed line (0: none).
	Ceiling     float64
	CeilingText string
}

// series is one target (and metric) across the categories.
type series struct {
	Name   string
	Color  string
	Dash   string
	Points []point
}

// point is one summary: the median, its interval and the samples.
type point struct {
	Has    bool
	Center float64
	Lo, Hi float64
	HasCI  bool
	Values []float64
}

// chartsOf resolves a study's chart specs against its results.
func (sv *studyView) chartsOf() []chartData {
	var out []chartData
	for _, spec := range sv.Charts {
		if cd, ok := sv.chartData(spec); ok {
			out = append(out, cd)
		}
	}
	return out
}

// chartData gathers the figures of one chart; ok is false when there is
// nothing to draw.
func (sv *studyView) chartData(spec chartSpec) (chartData, bool) {
	cd := chartData{Title: spec.Title, XHead: spec.XHead, CeilingText: spec.CeilingText}
	var metrics []string
	for _, m := range spec.Metrics {
		if sv.hasMetric(m) {
			metrics = append(metrics, m)
		}
	}
	if len(metrics) == 0 {
		return cd, false
	}
	// Cases that have any of the metrics, in order.
	var cases []caseView
	for _, c := range sv.Cases {
		for _, m := range metrics {
			if sv.res[c.Key][m] != nil {
				cases = append(cases, c)
				break
			}
		}
	}
	for _, m := range metrics {
		for _, c := range cases {
			if r := sv.res[c.Key][m]; r != nil {
				cd.Unit = r.Metric.Unit
				break
			}
		}
		if cd.Unit != "" {
			break
		}
	}

	// A line chart needs a numeric X label on every case.
	line := spec.Kind == lineChart && spec.X != ""
	xs := map[string]float64{}
	if line {
		for _, c := range cases {
			x, err := strconv.ParseFloat(c.Labels[spec.X], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				line = false
				break
			}
			xs[c.Key] = x
		}
	}
	cd.Line = line

	type seriesKey struct{ target, metric, rest string }
	var order []seriesKey
	points := map[seriesKey]map[string]point{}
	var cats []string
	catIndex := map[string]bool{}
	var catX []float64
	for _, c := range cases {
		cat := c.Name
		if c.Facts != "" {
			cat += " · " + c.Facts
		}
		rest := ""
		if line {
			cat = formatX(xs[c.Key])
			// Other labels that vary split the series.
			var others []string
			for _, k := range sortedKeys(c.Labels) {
				if k != spec.X {
					others = append(others, c.Labels[k])
				}
			}
			rest = strings.Join(others, ", ")
		}
		if !catIndex[cat] {
			catIndex[cat] = true
			cats = append(cats, cat)
			catX = append(catX, xs[c.Key])
		}
		for _, m := range metrics {
			r := sv.res[c.Key][m]
			if r == nil {
				continue
			}
			for _, t := range sv.Targets {
				s, ok := r.Target(t)
				if !ok || s.N == 0 {
					continue
				}
				k := seriesKey{t, m, rest}
				if points[k] == nil {
					points[k] = map[string]point{}
					order = append(order, k)
				}
				points[k][cat] = point{Has: true, Center: s.Center, Lo: s.Lo, Hi: s.Hi, HasCI: s.HasCI() && !r.Metric.Exact, Values: s.Values}
			}
		}
	}
	if len(order) == 0 {
		return cd, false
	}
	if line {
		idx := make([]int, len(cats))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return catX[idx[a]] < catX[idx[b]] })
		sorted := make([]string, len(cats))
		for i, j := range idx {
			sorted[i] = cats[j]
		}
		cats = sorted
	}
	cd.Categories = cats
	// Colours by target, dashes by metric; series ordered by target.
	sort.SliceStable(order, func(a, b int) bool {
		return indexOf(sv.Targets, order[a].target) < indexOf(sv.Targets, order[b].target)
	})
	restIndex := map[string]int{}
	for _, k := range order {
		if _, ok := restIndex[k.rest]; !ok {
			restIndex[k.rest] = len(restIndex)
		}
	}
	for _, k := range order {
		name := k.target
		if len(metrics) > 1 {
			name += " " + metricTitle(k.metric)
		}
		if k.rest != "" {
			name += " (" + k.rest + ")"
		}
		di := indexOf(metrics, k.metric)
		if len(metrics) == 1 {
			di = restIndex[k.rest]
		}
		s := series{Name: name, Color: palette[indexOf(sv.Targets, k.target)%len(palette)], Dash: dashes[di%len(dashes)]}
		for _, c := range cats {
			s.Points = append(s.Points, points[k][c])
		}
		cd.Series = append(cd.Series, s)
	}
	// The reference line: the highest median of the ceiling metrics.
	for _, m := range spec.Ceiling {
		best := 0.0
		for _, c := range sv.Cases {
			r := sv.res[c.Key][m]
			if r == nil || r.Metric.Unit != cd.Unit && !sameScale(r.Metric.Unit, cd.Unit) {
				continue
			}
			for _, s := range r.Targets {
				if v := toUnit(s.Center, r.Metric.Unit, cd.Unit); s.N > 0 && v > best {
					best = v
				}
			}
		}
		if best > 0 {
			cd.Ceiling = best
			break
		}
	}
	return cd, true
}

func formatX(x float64) string {
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// scale is how an axis shows values of a unit: divided by Div, with
// Label after the numbers.
type scale struct {
	Div   float64
	Label string
}

// axisScale picks a unit for an axis whose largest value is max (in unit
// u): "ms" or "s" for times, "MB" for sizes, and so on.
func axisScale(u compare.Unit, max float64) scale {
	kind, base := unitBase(u)
	v := max * base
	switch kind {
	case "time":
		for _, s := range []struct {
			sec   float64
			label string
		}{{3600, "h"}, {60, "min"}, {1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}} {
			if v >= s.sec || s.sec == 1e-6 {
				if s.sec == 60 && v < 600 {
					continue
				}
				return scale{Div: s.sec / base, Label: s.label}
			}
		}
	case "size", "rate":
		labels := []string{"bytes", "kB", "MB", "GB", "TB"}
		suffix := ""
		if kind == "rate" {
			labels = []string{"B", "kB", "MB", "GB", "TB"}
			suffix = "/s"
		}
		i := 0
		for i < len(labels)-1 && v >= math.Pow(1024, float64(i+1)) {
			i++
		}
		return scale{Div: math.Pow(1024, float64(i)) / base, Label: labels[i] + suffix}
	}
	label := string(u)
	if u == compare.Count || u == "" {
		label = ""
	}
	return scale{Div: 1, Label: label}
}

// unitBase returns a unit's kind and its factor to seconds or bytes.
func unitBase(u compare.Unit) (string, float64) {
	switch strings.ToLower(strings.TrimSpace(string(u))) {
	case "ns":
		return "time", 1e-9
	case "us", "µs":
		return "time", 1e-6
	case "ms":
		return "time", 1e-3
	case "s":
		return "time", 1
	case "b", "byte", "bytes":
		return "size", 1
	case "kb":
		return "size", 1024
	case "mb":
		return "size", 1 << 20
	case "gb":
		return "size", 1 << 30
	case "b/s":
		return "rate", 1
	case "kb/s":
		return "rate", 1024
	case "mb/s":
		return "rate", 1 << 20
	case "gb/s":
		return "rate", 1 << 30
	}
	return "", 1
}

// sameScale reports whether two units measure the same kind of thing.
func sameScale(a, b compare.Unit) bool {
	ka, _ := unitBase(a)
	kb, _ := unitBase(b)
	return ka != "" && ka == kb
}

// toUnit converts v from unit a to unit b of the same kind.
func toUnit(v float64, a, b compare.Unit) float64 {
	_, fa := unitBase(a)
	_, fb := unitBase(b)
	return v * fa / fb
}

// niceTicks returns tick values from 0 to at least max, about n of them.
func niceTicks(max float64, n int) []float64 {
	if max <= 0 || math.IsNaN(max) || math.IsInf(max, 0) {
		return []float64{0, 1}
	}
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for t := 0.0; ; t += step {
		ticks = append(ticks, t)
		if t >= max-step*1e-9 {
			break
		}
	}
	return ticks
}

// formatTick prints a tick value without noise digits.
func formatTick(v float64) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if len(s) > 8 {
		s = strconv.FormatFloat(v, 'g', 4, 64)
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 10000 && n == math.Trunc(n) {
		return compare.FormatExact(n, compare.Count)
	}
	return s
}

// extent returns the largest value a chart must show.
func (cd *chartData) extent() float64 {
	m := cd.Ceiling
	for _, s := range cd.Series {
		for _, p := range s.Points {
			if !p.Has {
				continue
			}
			m = math.Max(m, p.Center)
			if p.HasCI && !math.IsInf(p.Hi, 0) && !math.IsNaN(p.Hi) {
				m = math.Max(m, p.Hi)
			}
			for _, v := range p.Values {
				m = math.Max(m, v)
			}
		}
	}
	return m
}

// svgBuilder collects SVG elements.
type svgBuilder struct {
	b strings.Builder
}

func (s *svgBuilder) f(format string, args ...any) {
	fmt.Fprintf(&s.b, format, args...)
}

func esc(s string) string { return html.EscapeString(s) }

func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// legend draws the series' keys in rows from y; it returns the height
// used.
func (cd *chartData) legend(s *svgBuilder, y float64) float64 {
	x := 8.0
	rows := 1
	for i, se := range cd.Series {
		w := 28 + charWidth*float64(len([]rune(se.Name))) + 16
		if x+w > chartW && x > 8 {
			x = 8
			rows++
		}
		ly := y + float64(rows-1)*legendRowH + 10
		s.f(`<g class="key" data-series="%d"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`,
			i, num(x), num(ly), num(x+22), num(ly), se.Color, dashAttr(se.Dash))
		s.f(`<text x="%s" y="%s" font-size="%s">%s</text></g>`, num(x+28), num(ly+4), num(fontSize-1), esc(se.Name))
		x += w
	}
	if cd.Ceiling > 0 {
		w := 28 + charWidth*float64(len([]rune(cd.CeilingText)))
		if x+w > chartW && x > 8 {
			x = 8
			rows++
		}
		ly := y + float64(rows-1)*legendRowH + 10
		s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="2" stroke-dasharray="5 4"/>`, num(x), num(ly), num(x+22), num(ly))
		s.f(`<text x="%s" y="%s" font-size="%s">%s</text>`, num(x+28), num(ly+4), num(fontSize-1), esc(cd.CeilingText))
	}
	return float64(rows) * legendRowH
}

func dashAttr(d string) string {
	if d == "" {
		return ""
	}
	return fmt.Sprintf(` stroke-dasharray="%s"`, d)
}

// SVG draws the chart.
func (cd *chartData) SVG() string {
	if cd.Line {
		return cd.lineSVG()
	}
	return cd.barSVG()
}

// wrapText breaks text into lines of at most width characters.
func wrapText(text string, width int) []string {
	words := strings.Fields(text)
	var lines []string
	cur := ""
	for _, w := range words {
		if cur != "" && len([]rune(cur))+1+len([]rune(w)) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// barSVG draws horizontal bars: per category its name, then a bar per
// series with the median's value at its end.
func (cd *chartData) barSVG() string {
	var s svgBuilder
	const left, right = 8.0, 8.0
	barH, barGap, groupGap := 14.0, 3.0, 12.0
	var body svgBuilder
	legendH := cd.legend(&body, 4)
	top := 4 + legendH + 8
	max := cd.extent()
	sc := axisScale(cd.Unit, max)
	ticks := niceTicks(max/sc.Div, 4)
	hi := ticks[len(ticks)-1] * sc.Div
	// Room at the right for the value labels.
	plotW := chartW - left - right - 70
	xOf := func(v float64) float64 { return left + plotW*v/hi }
	maxChars := int(math.Floor((chartW - left - right) / charWidth))

	// Groups first, to know the height.
	y := top + 18 // tick labels above the plot
	plotTop := y
	var groups svgBuilder
	for ci, cat := range cd.Categories {
		lines := wrapText(cat, maxChars)
		for _, l := range lines {
			y += fontSize + 3
			groups.f(`<text class="cat" x="%s" y="%s" font-size="%s" font-weight="600"%s>%s</text>`, num(left), num(y), num(fontSize), halo, esc(l))
		}
		y += 5
		for si, se := range cd.Series {
			p := se.Points[ci]
			if !p.Has {
				continue
			}
			w := math.Max(xOf(p.Center)-left, 0.5)
			groups.f(`<rect class="bar" data-series="%d" x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.85"><title>%s: %s</title></rect>`,
				si, num(left), num(y), num(w), num(barH), se.Color, esc(se.Name), esc(compare.FormatValue(p.Center, cd.Unit)))
			mid := y + barH/2
			end := xOf(p.Center)
			if p.HasCI && !math.IsInf(p.Lo, 0) && !math.IsInf(p.Hi, 0) {
				lo, hiX := xOf(math.Max(p.Lo, 0)), xOf(p.Hi)
				groups.f(`<path class="ci" d="M%s %sH%sM%s %sV%sM%s %sV%s" stroke="#222" stroke-width="1.5" fill="none"/>`,
					num(lo), num(mid), num(hiX), num(lo), num(mid-4), num(mid+4), num(hiX), num(mid-4), num(mid+4))
				end = math.Max(end, hiX)
			}
			for _, v := range p.Values {
				groups.f(`<circle cx="%s" cy="%s" r="2" fill="#fff" stroke="#222" stroke-width="1"/>`, num(xOf(v)), num(mid))
				end = math.Max(end, xOf(v))
			}
			groups.f(`<text x="%s" y="%s" font-size="%s"%s>%s</text>`, num(end+5), num(mid+4), num(smallFont), halo, esc(compare.FormatValue(p.Center, cd.Unit)))
			y += barH + barGap
		}
		if ci < len(cd.Categories)-1 {
			y += groupGap
		}
	}
	plotBottom := y + 4
	height := plotBottom + 8

	s.f(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
		num(chartW), num(height), esc(cd.Title))
	s.f(`<title>%s</title>`, esc(cd.Title))
	s.b.WriteString(body.b.String())
	// Grid and ticks (values along the top).
	for _, t := range ticks {
		x := xOf(t * sc.Div)
		s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd" stroke-width="1"/>`, num(x), num(plotTop-4), num(x), num(plotBottom))
		label := formatTick(t)
		if t == ticks[len(ticks)-1] && sc.Label != "" {
			label += " " + sc.Label
		}
		anchor := "middle"
		if t == 0 {
			anchor = "start"
		} else if t == ticks[len(ticks)-1] {
			anchor = "end"
		}
		s.f(`<text class="tick" x="%s" y="%s" font-size="%s" fill="#555" text-anchor="%s">%s</text>`, num(x), num(plotTop-8), num(smallFont), anchor, esc(label))
	}
	if cd.Ceiling > 0 {
		x := xOf(cd.Ceiling)
		s.f(`<line class="ceiling" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="2" stroke-dasharray="5 4"><title>%s: %s</title></line>`,
			num(x), num(plotTop-4), num(x), num(plotBottom), esc(cd.CeilingText), esc(compare.FormatValue(cd.Ceiling, cd.Unit)))
	}
	s.b.WriteString(groups.b.String())
	s.f(`</svg>`)
	return s.b.String()
}

// lineSVG draws a line per series over the categories (numeric X values,
// evenly spaced), with the confidence interval as vertical whiskers.
func (cd *chartData) lineSVG() string {
	var s svgBuilder
	var body svgBuilder
	legendH := cd.legend(&body, 4)
	const left, right, plotH = 56.0, 16.0, 220.0
	top := 4 + legendH + 24 // room for the unit above the axis
	bottom := top + plotH
	height := bottom + 44
	max := cd.extent()
	sc := axisScale(cd.Unit, max)
	ticks := niceTicks(max/sc.Div, 5)
	hi := ticks[len(ticks)-1] * sc.Div
	plotW := chartW - left - right
	n := len(cd.Categories)
	xOf := func(i int) float64 {
		if n == 1 {
			return left + plotW/2
		}
		return left + 16 + (plotW-32)*float64(i)/float64(n-1)
	}
	yOf := func(v float64) float64 { return bottom - plotH*v/hi }

	s.f(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
		num(chartW), num(height), esc(cd.Title))
	s.f(`<title>%s</title>`, esc(cd.Title))
	s.b.WriteString(body.b.String())
	for _, t := range ticks {
		y := yOf(t * sc.Div)
		s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd" stroke-width="1"/>`, num(left), num(y), num(chartW-right), num(y))
		s.f(`<text class="tick" x="%s" y="%s" font-size="%s" fill="#555" text-anchor="end">%s</text>`, num(left-6), num(y+4), num(smallFont), esc(formatTick(t)))
	}
	if sc.Label != "" {
		s.f(`<text x="%s" y="%s" font-size="%s" fill="#555" text-anchor="start">%s</text>`, num(8), num(top-12), num(smallFont), esc(sc.Label))
	}
	s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888" stroke-width="1"/>`, num(left), num(bottom), num(chartW-right), num(bottom))
	for i, c := range cd.Categories {
		s.f(`<text class="tick" x="%s" y="%s" font-size="%s" text-anchor="middle">%s</text>`, num(xOf(i)), num(bottom+17), num(smallFont+1), esc(c))
	}
	if cd.XHead != "" {
		s.f(`<text x="%s" y="%s" font-size="%s" fill="#555" text-anchor="middle">%s</text>`, num(left+plotW/2), num(bottom+36), num(smallFont+1), esc(cd.XHead))
	}
	if cd.Ceiling > 0 {
		y := yOf(cd.Ceiling)
		s.f(`<line class="ceiling" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="2" stroke-dasharray="5 4"/>`, num(left), num(y), num(chartW-right), num(y))
	}
	for si, se := range cd.Series {
		var d strings.Builder
		pen := "M"
		for i, p := range se.Points {
			if !p.Has {
				pen = "M"
				continue
			}
			fmt.Fprintf(&d, "%s%s %s", pen, num(xOf(i)), num(yOf(p.Center)))
			pen = "L"
		}
		s.f(`<path class="series" data-series="%d" d="%s" stroke="%s" stroke-width="2.5" fill="none"%s/>`, si, d.String(), se.Color, dashAttr(se.Dash))
		for i, p := range se.Points {
			if !p.Has {
				continue
			}
			x, y := xOf(i), yOf(p.Center)
			if p.HasCI && !math.IsInf(p.Lo, 0) && !math.IsInf(p.Hi, 0) {
				s.f(`<path class="ci" d="M%s %sV%sM%s %sH%sM%s %sH%s" stroke="%s" stroke-width="1.5" fill="none"/>`,
					num(x), num(yOf(math.Max(p.Lo, 0))), num(yOf(p.Hi)), num(x-4), num(yOf(math.Max(p.Lo, 0))), num(x+4), num(x-4), num(yOf(p.Hi)), num(x+4), se.Color)
			}
			for _, v := range p.Values {
				s.f(`<circle class="sample" cx="%s" cy="%s" r="2" fill="none" stroke="%s" stroke-opacity="0.6" stroke-width="1"/>`, num(x), num(yOf(v)), se.Color)
			}
			s.f(`<circle cx="%s" cy="%s" r="3.5" fill="%s"><title>%s, %s %s: %s</title></circle>`,
				num(x), num(y), se.Color, esc(se.Name), esc(cd.Categories[i]), esc(cd.XHead), esc(compare.FormatValue(p.Center, cd.Unit)))
		}
	}
	s.f(`</svg>`)
	return s.b.String()
}
