package view

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	svg "github.com/pglab/pglab/internal/svgchart"
	"github.com/pglab/pglab/results"
)

// Charts are inline SVG drawn here, without scripts, fonts or anything
// fetched: bar charts are horizontal (a group of bars per case, its name
// above it), so that long case names and many cases fit a phone's width;
// line charts draw a line per target over a numeric case label. Bars and
// points carry the 95 % confidence interval of the median as whiskers
// when there is one (6 repetitions or more), and every repetition as a
// small ring, so that the spread shows even without an interval.

// halo keeps a text readable where it crosses a grid line or a mark.
const halo = ` paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"`

const (
	chartW     = 420.0
	fontSize   = 13.0
	smallFont  = 11.0
	charWidth  = 7.0 // an estimate of the average glyph width at fontSize
	legendRowH = 20.0
)

// Chart is what one chart shows.
type Chart struct {
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

// ChartsOf resolves a study's chart specs against its results.
func (sv *Study) ChartsOf() []Chart {
	var out []Chart
	for _, spec := range sv.Charts {
		if cd, ok := sv.chartData(spec); ok {
			out = append(out, cd)
		}
	}
	return out
}

// chartData gathers the figures of one chart; ok is false when there is
// nothing to draw.
func (sv *Study) chartData(spec results.Chart) (Chart, bool) {
	cd := Chart{Title: spec.Title, XHead: spec.XHead, CeilingText: spec.CeilingText}
	metrics := sv.chartMetrics(spec)
	if len(metrics) == 0 {
		return cd, false
	}
	cases := sv.casesWith(metrics)
	cd.Unit = sv.unitOf(metrics, cases)
	xs, line := lineXs(spec, cases)
	cd.Line = line
	g := sv.gather(spec, metrics, cases, xs, line)
	if len(g.order) == 0 {
		return cd, false
	}
	if line {
		g.sortCategories()
	}
	cd.Categories = g.cats
	cd.Series = sv.seriesOf(g, metrics)
	cd.Ceiling = sv.ceiling(spec, cd.Unit)
	return cd, true
}

// chartMetrics are the chart's metrics the study measured.
func (sv *Study) chartMetrics(spec results.Chart) []string {
	var metrics []string
	for _, m := range spec.Metrics {
		if sv.hasMetric(m) {
			metrics = append(metrics, m)
		}
	}
	return metrics
}

// casesWith returns the cases that have any of the metrics, in order.
func (sv *Study) casesWith(metrics []string) []Case {
	var cases []Case
	for _, c := range sv.Cases {
		for _, m := range metrics {
			if sv.Results[c.Key][m] != nil {
				cases = append(cases, c)
				break
			}
		}
	}
	return cases
}

// unitOf returns the unit of the first metric that has one, as its first
// case with a result says.
func (sv *Study) unitOf(metrics []string, cases []Case) compare.Unit {
	for _, m := range metrics {
		for _, c := range cases {
			if r := sv.Results[c.Key][m]; r != nil {
				if r.Metric.Unit != "" {
					return r.Metric.Unit
				}
				break
			}
		}
	}
	return ""
}

// lineXs returns each case's X value for a line chart, and whether every
// case has a numeric one (a line chart needs them all).
func lineXs(spec results.Chart, cases []Case) (map[string]float64, bool) {
	xs := map[string]float64{}
	if spec.Kind != results.Lines || spec.X == "" {
		return xs, false
	}
	for _, c := range cases {
		x, err := strconv.ParseFloat(c.Labels[spec.X], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return xs, false
		}
		xs[c.Key] = x
	}
	return xs, true
}

// seriesKey names one series: a target's metric, over the cases whose
// other labels are rest.
type seriesKey struct{ target, metric, rest string }

// gathered are a chart's points by series and category.
type gathered struct {
	order  []seriesKey
	points map[seriesKey]map[string]point
	cats   []string
	catX   []float64
}

// gather collects the summaries of the metrics per series and category:
// the case's name (with its facts), or its X value on a line chart, where
// the other labels that vary split the series.
func (sv *Study) gather(spec results.Chart, metrics []string, cases []Case, xs map[string]float64, line bool) *gathered {
	g := &gathered{points: map[seriesKey]map[string]point{}}
	catIndex := map[string]bool{}
	for _, c := range cases {
		cat := c.Name
		if c.Facts != "" {
			cat += " · " + c.Facts
		}
		rest := ""
		if line {
			cat = formatX(xs[c.Key])
			var others []string
			for _, k := range words.SortedKeys(c.Labels) {
				if k != spec.X {
					others = append(others, c.Labels[k])
				}
			}
			rest = strings.Join(others, ", ")
		}
		if !catIndex[cat] {
			catIndex[cat] = true
			g.cats = append(g.cats, cat)
			g.catX = append(g.catX, xs[c.Key])
		}
		for _, m := range metrics {
			if r := sv.Results[c.Key][m]; r != nil {
				g.add(sv.Targets, r, seriesKey{metric: m, rest: rest}, cat)
			}
		}
	}
	return g
}

// add adds each target's summary of one metric in one category.
func (g *gathered) add(targets []string, r *compare.Result, key seriesKey, cat string) {
	for _, t := range targets {
		s, ok := r.Target(t)
		if !ok || s.N == 0 {
			continue
		}
		k := key
		k.target = t
		if g.points[k] == nil {
			g.points[k] = map[string]point{}
			g.order = append(g.order, k)
		}
		g.points[k][cat] = point{Has: true, Center: s.Center, Lo: s.Lo, Hi: s.Hi, HasCI: s.HasCI() && !r.Metric.Exact, Values: s.Values}
	}
}

// sortCategories orders a line chart's categories by their X values.
func (g *gathered) sortCategories() {
	idx := make([]int, len(g.cats))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return g.catX[idx[a]] < g.catX[idx[b]] })
	sorted := make([]string, len(g.cats))
	for i, j := range idx {
		sorted[i] = g.cats[j]
	}
	g.cats = sorted
}

// seriesOf names and colours the series: colours by target, dashes by
// metric (or, for one metric, by the other labels); ordered by target.
func (sv *Study) seriesOf(g *gathered, metrics []string) []series {
	order := g.order
	sort.SliceStable(order, func(a, b int) bool {
		return slices.Index(sv.Targets, order[a].target) < slices.Index(sv.Targets, order[b].target)
	})
	restIndex := map[string]int{}
	for _, k := range order {
		if _, ok := restIndex[k.rest]; !ok {
			restIndex[k.rest] = len(restIndex)
		}
	}
	var out []series
	for _, k := range order {
		name := k.target
		if len(metrics) > 1 {
			name += " " + sv.metricTitle(k.metric)
		}
		if k.rest != "" {
			name += " (" + k.rest + ")"
		}
		di := slices.Index(metrics, k.metric)
		if len(metrics) == 1 {
			di = restIndex[k.rest]
		}
		s := series{Name: name, Color: svg.Color(slices.Index(sv.Targets, k.target)), Dash: svg.Dashes[di%len(svg.Dashes)]}
		for _, c := range g.cats {
			s.Points = append(s.Points, g.points[k][c])
		}
		out = append(out, s)
	}
	return out
}

// ceiling returns the chart's reference line: the highest median of the
// first ceiling metric measured in the chart's unit (0 for none).
func (sv *Study) ceiling(spec results.Chart, unit compare.Unit) float64 {
	for _, m := range spec.Ceiling {
		best := 0.0
		for _, c := range sv.Cases {
			r := sv.Results[c.Key][m]
			if r == nil || r.Metric.Unit != unit && !sameScale(r.Metric.Unit, unit) {
				continue
			}
			for _, s := range r.Targets {
				if v := toUnit(s.Center, r.Metric.Unit, unit); s.N > 0 && v > best {
					best = v
				}
			}
		}
		if best > 0 {
			return best
		}
	}
	return 0
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
func (cd *Chart) extent() float64 {
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

// legend draws the series' keys in rows from y; it returns the height
// used.
func (cd *Chart) legend(s *svg.Builder, y float64) float64 {
	x := 8.0
	rows := 1
	for i, se := range cd.Series {
		w := 28 + charWidth*float64(len([]rune(se.Name))) + 16
		if x+w > chartW && x > 8 {
			x = 8
			rows++
		}
		ly := y + float64(rows-1)*legendRowH + 10
		s.F(`<g class="key" data-series="%d"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`,
			i, svg.Num(x), svg.Num(ly), svg.Num(x+22), svg.Num(ly), se.Color, svg.DashAttr(se.Dash))
		s.F(`<text x="%s" y="%s" font-size="%s">%s</text></g>`, svg.Num(x+28), svg.Num(ly+4), svg.Num(fontSize-1), svg.Esc(se.Name))
		x += w
	}
	if cd.Ceiling > 0 {
		w := 28 + charWidth*float64(len([]rune(cd.CeilingText)))
		if x+w > chartW && x > 8 {
			x = 8
			rows++
		}
		ly := y + float64(rows-1)*legendRowH + 10
		s.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="2" stroke-dasharray="5 4"/>`, svg.Num(x), svg.Num(ly), svg.Num(x+22), svg.Num(ly))
		s.F(`<text x="%s" y="%s" font-size="%s">%s</text>`, svg.Num(x+28), svg.Num(ly+4), svg.Num(fontSize-1), svg.Esc(cd.CeilingText))
	}
	return float64(rows) * legendRowH
}

// SVG draws the chart.
func (cd *Chart) SVG() string {
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
func (cd *Chart) barSVG() string {
	var s svg.Builder
	const left, right = 8.0, 8.0
	barH, barGap, groupGap := 14.0, 3.0, 12.0
	var body svg.Builder
	legendH := cd.legend(&body, 4)
	top := 4 + legendH + 8
	max := cd.extent()
	sc := axisScale(cd.Unit, max)
	ticks := svg.Ticks(max/sc.Div, 4)
	hi := ticks[len(ticks)-1] * sc.Div
	// Room at the right for the value labels.
	plotW := chartW - left - right - 70
	xOf := func(v float64) float64 { return left + plotW*v/hi }
	maxChars := int(math.Floor((chartW - left - right) / charWidth))

	// Groups first, to know the height.
	y := top + 18 // tick labels above the plot
	plotTop := y
	var groups svg.Builder
	for ci, cat := range cd.Categories {
		lines := wrapText(cat, maxChars)
		for _, l := range lines {
			y += fontSize + 3
			groups.F(`<text class="cat" x="%s" y="%s" font-size="%s" font-weight="600"%s>%s</text>`, svg.Num(left), svg.Num(y), svg.Num(fontSize), halo, svg.Esc(l))
		}
		y += 5
		for si, se := range cd.Series {
			p := se.Points[ci]
			if !p.Has {
				continue
			}
			w := math.Max(xOf(p.Center)-left, 0.5)
			groups.F(`<rect class="bar" data-series="%d" x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.85"><title>%s: %s</title></rect>`,
				si, svg.Num(left), svg.Num(y), svg.Num(w), svg.Num(barH), se.Color, svg.Esc(se.Name), svg.Esc(compare.FormatValue(p.Center, cd.Unit)))
			mid := y + barH/2
			end := xOf(p.Center)
			if p.HasCI && !math.IsInf(p.Lo, 0) && !math.IsInf(p.Hi, 0) {
				lo, hiX := xOf(math.Max(p.Lo, 0)), xOf(p.Hi)
				groups.F(`<path class="ci" d="M%s %sH%sM%s %sV%sM%s %sV%s" stroke="#222" stroke-width="1.5" fill="none"/>`,
					svg.Num(lo), svg.Num(mid), svg.Num(hiX), svg.Num(lo), svg.Num(mid-4), svg.Num(mid+4), svg.Num(hiX), svg.Num(mid-4), svg.Num(mid+4))
				end = math.Max(end, hiX)
			}
			for _, v := range p.Values {
				groups.F(`<circle cx="%s" cy="%s" r="2" fill="#fff" stroke="#222" stroke-width="1"/>`, svg.Num(xOf(v)), svg.Num(mid))
				end = math.Max(end, xOf(v))
			}
			groups.F(`<text x="%s" y="%s" font-size="%s"%s>%s</text>`, svg.Num(end+5), svg.Num(mid+4), svg.Num(smallFont), halo, svg.Esc(compare.FormatValue(p.Center, cd.Unit)))
			y += barH + barGap
		}
		if ci < len(cd.Categories)-1 {
			y += groupGap
		}
	}
	plotBottom := y + 4
	height := plotBottom + 8

	s.F(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
		svg.Num(chartW), svg.Num(height), svg.Esc(cd.Title))
	s.F(`<title>%s</title>`, svg.Esc(cd.Title))
	s.WriteString(body.String())
	// Grid and ticks (values along the top).
	for _, t := range ticks {
		x := xOf(t * sc.Div)
		s.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd" stroke-width="1"/>`, svg.Num(x), svg.Num(plotTop-4), svg.Num(x), svg.Num(plotBottom))
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
		s.F(`<text class="tick" x="%s" y="%s" font-size="%s" fill="#555" text-anchor="%s">%s</text>`, svg.Num(x), svg.Num(plotTop-8), svg.Num(smallFont), anchor, svg.Esc(label))
	}
	if cd.Ceiling > 0 {
		x := xOf(cd.Ceiling)
		s.F(`<line class="ceiling" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="2" stroke-dasharray="5 4"><title>%s: %s</title></line>`,
			svg.Num(x), svg.Num(plotTop-4), svg.Num(x), svg.Num(plotBottom), svg.Esc(cd.CeilingText), svg.Esc(compare.FormatValue(cd.Ceiling, cd.Unit)))
	}
	s.WriteString(groups.String())
	s.F(`</svg>`)
	return s.String()
}

// lineSVG draws a line per series over the categories (numeric X values,
// evenly spaced), with the confidence interval as vertical whiskers.
func (cd *Chart) lineSVG() string {
	var s svg.Builder
	var body svg.Builder
	legendH := cd.legend(&body, 4)
	const left, right, plotH = 56.0, 16.0, 220.0
	top := 4 + legendH + 24 // room for the unit above the axis
	bottom := top + plotH
	height := bottom + 44
	max := cd.extent()
	sc := axisScale(cd.Unit, max)
	ticks := svg.Ticks(max/sc.Div, 5)
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

	s.F(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
		svg.Num(chartW), svg.Num(height), svg.Esc(cd.Title))
	s.F(`<title>%s</title>`, svg.Esc(cd.Title))
	s.WriteString(body.String())
	for _, t := range ticks {
		y := yOf(t * sc.Div)
		s.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd" stroke-width="1"/>`, svg.Num(left), svg.Num(y), svg.Num(chartW-right), svg.Num(y))
		s.F(`<text class="tick" x="%s" y="%s" font-size="%s" fill="#555" text-anchor="end">%s</text>`, svg.Num(left-6), svg.Num(y+4), svg.Num(smallFont), svg.Esc(formatTick(t)))
	}
	if sc.Label != "" {
		s.F(`<text x="%s" y="%s" font-size="%s" fill="#555" text-anchor="start">%s</text>`, svg.Num(8), svg.Num(top-12), svg.Num(smallFont), svg.Esc(sc.Label))
	}
	s.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888" stroke-width="1"/>`, svg.Num(left), svg.Num(bottom), svg.Num(chartW-right), svg.Num(bottom))
	for i, c := range cd.Categories {
		s.F(`<text class="tick" x="%s" y="%s" font-size="%s" text-anchor="middle">%s</text>`, svg.Num(xOf(i)), svg.Num(bottom+17), svg.Num(smallFont+1), svg.Esc(c))
	}
	if cd.XHead != "" {
		s.F(`<text x="%s" y="%s" font-size="%s" fill="#555" text-anchor="middle">%s</text>`, svg.Num(left+plotW/2), svg.Num(bottom+36), svg.Num(smallFont+1), svg.Esc(cd.XHead))
	}
	if cd.Ceiling > 0 {
		y := yOf(cd.Ceiling)
		s.F(`<line class="ceiling" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="2" stroke-dasharray="5 4"/>`, svg.Num(left), svg.Num(y), svg.Num(chartW-right), svg.Num(y))
	}
	for si, se := range cd.Series {
		var d svg.Path
		for i, p := range se.Points {
			if !p.Has {
				d.Gap()
				continue
			}
			d.To(xOf(i), yOf(p.Center))
		}
		s.F(`<path class="series" data-series="%d" d="%s" stroke="%s" stroke-width="2.5" fill="none"%s/>`, si, d.D(), se.Color, svg.DashAttr(se.Dash))
		for i, p := range se.Points {
			if !p.Has {
				continue
			}
			x, y := xOf(i), yOf(p.Center)
			if p.HasCI && !math.IsInf(p.Lo, 0) && !math.IsInf(p.Hi, 0) {
				s.F(`<path class="ci" d="M%s %sV%sM%s %sH%sM%s %sH%s" stroke="%s" stroke-width="1.5" fill="none"/>`,
					svg.Num(x), svg.Num(yOf(math.Max(p.Lo, 0))), svg.Num(yOf(p.Hi)), svg.Num(x-4), svg.Num(yOf(math.Max(p.Lo, 0))), svg.Num(x+4), svg.Num(x-4), svg.Num(yOf(p.Hi)), svg.Num(x+4), se.Color)
			}
			for _, v := range p.Values {
				s.F(`<circle class="sample" cx="%s" cy="%s" r="2" fill="none" stroke="%s" stroke-opacity="0.6" stroke-width="1"/>`, svg.Num(x), svg.Num(yOf(v)), se.Color)
			}
			s.F(`<circle cx="%s" cy="%s" r="3.5" fill="%s"><title>%s, %s %s: %s</title></circle>`,
				svg.Num(x), svg.Num(y), se.Color, svg.Esc(se.Name), svg.Esc(cd.Categories[i]), svg.Esc(cd.XHead), svg.Esc(compare.FormatValue(p.Center, cd.Unit)))
		}
	}
	s.F(`</svg>`)
	return s.String()
}
