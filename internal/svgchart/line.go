package svgchart

import (
	"math"
)

// Line is a chart of series over a numeric X axis: the progress of a load
// run second by second, or a latency distribution by percentile. Colours
// and dashes follow the report's charts: one colour per target, a dash per
// metric.
type Line struct {
	Title  string
	XLabel string
	YLabel string
	// XTicks are the X axis' labelled positions; XMax its end.
	XTicks []Tick
	XMax   float64
	// YLog draws Y on a log scale (latencies spanning decades).
	YLog   bool
	Series []Series
}

// Tick is a labelled position on an axis.
type Tick struct {
	At    float64
	Label string
}

// Series is one line of a Line chart.
type Series struct {
	Name  string
	Color string
	Dash  string
	Thin  bool
	// Legend is false for series that repeat another's key (the
	// further repetitions of one target).
	Legend bool
	X, Y   []float64
}

// SecondTicks labels a time axis of xmax seconds.
func SecondTicks(xmax float64) []Tick {
	step := NiceStep(xmax / 8)
	var out []Tick
	for x := 0.0; x <= xmax+step/2; x += step {
		out = append(out, Tick{x, Label(x)})
	}
	return out
}

const (
	lineW, lineH           = 640.0, 300.0
	padL, padR, padT, padB = 64.0, 16.0, 12.0, 44.0
	legendRow              = 18.0
	lineFont               = 12.0
)

// yAxis is how a Line chart places values: their ticks and position.
type yAxis struct {
	ticks []Tick
	at    func(float64) float64
}

// yAxisOf scales the Y axis to the series, between top and top+plotH.
func (c Line) yAxisOf(top, plotH float64) yAxis {
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
	var ax yAxis
	if c.YLog && ymin < ymax {
		lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if hi == lo {
			hi++
		}
		ax.at = func(v float64) float64 {
			if v <= 0 {
				return top + plotH
			}
			return top + plotH - plotH*(math.Log10(v)-lo)/(hi-lo)
		}
		for e := lo; e <= hi; e++ {
			ax.ticks = append(ax.ticks, Tick{math.Pow(10, e), Label(math.Pow(10, e))})
		}
		return ax
	}
	step := NiceStep(ymax / 5)
	ymax = math.Ceil(ymax/step) * step
	for v := 0.0; v <= ymax+step/2; v += step {
		ax.ticks = append(ax.ticks, Tick{v, Label(v)})
	}
	ax.at = func(v float64) float64 { return top + plotH - plotH*v/ymax }
	return ax
}

// SVG draws the chart.
func (c Line) SVG() string {
	var keys []Series
	for _, s := range c.Series {
		if s.Legend {
			keys = append(keys, s)
		}
	}
	legendH := legendRow * math.Ceil(float64(len(keys))/3)
	top := padT + legendH + 14
	plotW, plotH := lineW-padL-padR, lineH-padB-padT
	height := top + plotH + padB
	y := c.yAxisOf(top, plotH)
	xmax := c.XMax
	if xmax <= 0 {
		xmax = 1
	}
	xOf := func(x float64) float64 { return padL + plotW*x/xmax }

	var b Builder
	b.F(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="system-ui, sans-serif" font-size="%s">`,
		Num(lineW), Num(height), Esc(c.Title), Num(lineFont))
	b.F(`<title>%s</title>`, Esc(c.Title))
	for i, s := range keys {
		x := 8 + float64(i%3)*(lineW/3)
		ky := padT + float64(i/3)*legendRow + 6
		b.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`, Num(x), Num(ky), Num(x+22), Num(ky), s.Color, DashAttr(s.Dash))
		b.F(`<text x="%s" y="%s">%s</text>`, Num(x+28), Num(ky+4), Esc(s.Name))
	}
	for _, t := range y.ticks {
		ty := y.at(t.At)
		b.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`, Num(padL), Num(ty), Num(lineW-padR), Num(ty))
		b.F(`<text x="%s" y="%s" text-anchor="end" fill="#555">%s</text>`, Num(padL-6), Num(ty+4), Esc(t.Label))
	}
	for _, t := range c.XTicks {
		x := xOf(t.At)
		b.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/>`, Num(x), Num(top), Num(x), Num(top+plotH))
		b.F(`<text x="%s" y="%s" text-anchor="middle" fill="#555">%s</text>`, Num(x), Num(top+plotH+16), Esc(t.Label))
	}
	b.F(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888"/>`, Num(padL), Num(top+plotH), Num(lineW-padR), Num(top+plotH))
	b.F(`<text x="%s" y="%s" text-anchor="middle" fill="#555">%s</text>`, Num(padL+plotW/2), Num(top+plotH+36), Esc(c.XLabel))
	b.F(`<text x="8" y="%s" fill="#555">%s</text>`, Num(top-4), Esc(c.YLabel))
	for i, s := range c.Series {
		var p Path
		for k := range s.X {
			if k >= len(s.Y) || math.IsNaN(s.Y[k]) || (c.YLog && s.Y[k] <= 0) {
				p.Gap()
				continue
			}
			p.To(xOf(s.X[k]), y.at(s.Y[k]))
		}
		width := "2"
		if s.Thin {
			width = "1.2"
		}
		b.F(`<path class="series" data-series="%d" d="%s" stroke="%s" stroke-width="%s" fill="none"%s><title>%s</title></path>`,
			i, p.D(), s.Color, width, DashAttr(s.Dash), Esc(s.Name))
	}
	b.F(`</svg>`)
	return b.String()
}
