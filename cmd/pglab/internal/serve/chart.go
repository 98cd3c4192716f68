package serve

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// lineChart is an SVG line chart of series over a numeric X axis: the
// progress of a load run second by second, or a latency distribution by
// percentile. Colours and dashes follow the report's charts (Okabe and
// Ito's palette): one colour per target, a dash per metric.
type lineChart struct {
	Title  string
	XLabel string
	YLabel string
	// XTicks are the X axis' labelled positions; XMax its end.
	XTicks []tick
	XMax   float64
	// YLog draws Y on a log scale (latencies spanning decades).
	YLog   bool
	Series []lineSeries
}

type tick struct {
	At    float64
	Label string
}

type lineSeries struct {
	Name  string
	Color string
	Dash  string
	Thin  bool
	// Legend is false for series that repeat another's key (the
	// further repetitions of one target).
	Legend bool
	X, Y   []float64
}

var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000"}

const (
	chartW, chartH         = 640.0, 300.0
	padL, padR, padT, padB = 64.0, 16.0, 12.0, 44.0
	legendRow              = 18.0
	fontSize               = 12.0
)

// SVG draws the chart.
func (c lineChart) SVG() template.HTML {
	var keys []lineSeries
	for _, s := range c.Series {
		if s.Legend {
			keys = append(keys, s)
		}
	}
	legendH := legendRow * math.Ceil(float64(len(keys))/3)
	top := padT + legendH + 14
	plotW, plotH := chartW-padL-padR, chartH-padB-padT
	height := top + plotH + padB
	ymin, ymax := math.Inf(1), 0.0
	for _, s := range c.Series {
		for _, y := range s.Y {
			if y > ymax {
				ymax = y
			}
			if y > 0 && y < ymin {
				ymin = y
			}
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	var yt []tick
	var yOf func(float64) float64
	if c.YLog && ymin < ymax {
		lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if hi == lo {
			hi++
		}
		yOf = func(v float64) float64 {
			if v <= 0 {
				return top + plotH
			}
			return top + plotH - plotH*(math.Log10(v)-lo)/(hi-lo)
		}
		for e := lo; e <= hi; e++ {
			yt = append(yt, tick{math.Pow(10, e), trimFloat(math.Pow(10, e))})
		}
	} else {
		step := niceStep(ymax / 5)
		ymax = math.Ceil(ymax/step) * step
		for v := 0.0; v <= ymax+step/2; v += step {
			yt = append(yt, tick{v, trimFloat(v)})
		}
		yOf = func(v float64) float64 { return top + plotH - plotH*v/ymax }
	}
	xmax := c.XMax
	if xmax <= 0 {
		xmax = 1
	}
	xOf := func(x float64) float64 { return padL + plotW*x/xmax }

	var b strings.Builder
	f := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	f(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="system-ui, sans-serif" font-size="%s">`,
		n(chartW), n(height), esc(c.Title), n(fontSize))
	f(`<title>%s</title>`, esc(c.Title))
	for i, s := range keys {
		x := 8 + float64(i%3)*(chartW/3)
		y := padT + float64(i/3)*legendRow + 6
		f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`, n(x), n(y), n(x+22), n(y), s.Color, dash(s.Dash))
		f(`<text x="%s" y="%s">%s</text>`, n(x+28), n(y+4), esc(s.Name))
	}
	for _, t := range yt {
		y := yOf(t.At)
		f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`, n(padL), n(y), n(chartW-padR), n(y))
		f(`<text x="%s" y="%s" text-anchor="end" fill="#555">%s</text>`, n(padL-6), n(y+4), esc(t.Label))
	}
	for _, t := range c.XTicks {
		x := xOf(t.At)
		f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/>`, n(x), n(top), n(x), n(top+plotH))
		f(`<text x="%s" y="%s" text-anchor="middle" fill="#555">%s</text>`, n(x), n(top+plotH+16), esc(t.Label))
	}
	f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888"/>`, n(padL), n(top+plotH), n(chartW-padR), n(top+plotH))
	f(`<text x="%s" y="%s" text-anchor="middle" fill="#555">%s</text>`, n(padL+plotW/2), n(top+plotH+36), esc(c.XLabel))
	f(`<text x="8" y="%s" fill="#555">%s</text>`, n(top-4), esc(c.YLabel))
	for i, s := range c.Series {
		var d strings.Builder
		pen := "M"
		for k := range s.X {
			if k >= len(s.Y) || math.IsNaN(s.Y[k]) || (c.YLog && s.Y[k] <= 0) {
				pen = "M"
				continue
			}
			fmt.Fprintf(&d, "%s%s %s", pen, n(xOf(s.X[k])), n(yOf(s.Y[k])))
			pen = "L"
		}
		width := "2"
		if s.Thin {
			width = "1.2"
		}
		f(`<path class="series" data-series="%d" d="%s" stroke="%s" stroke-width="%s" fill="none"%s><title>%s</title></path>`,
			i, d.String(), s.Color, width, dash(s.Dash), esc(s.Name))
	}
	f(`</svg>`)
	// Every text in the SVG is escaped above.
	return template.HTML(b.String())
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// secondTicks labels a time axis of xmax seconds.
func secondTicks(xmax float64) []tick {
	step := niceStep(xmax / 8)
	var out []tick
	for x := 0.0; x <= xmax+step/2; x += step {
		out = append(out, tick{x, trimFloat(x)})
	}
	return out
}

func trimFloat(v float64) string {
	if v >= 1e6 || (v != 0 && v < 1e-3) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

func n(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func esc(s string) string { return html.EscapeString(s) }

func dash(d string) string {
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}
