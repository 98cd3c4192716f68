// Package svgchart is the core of pglab's charts: inline SVG, drawn
// without scripts, fonts or anything fetched, so that a report stays one
// file that works offline. It holds what every chart shares — the palette
// and dashes, numbers and text as SVG writes them, tick steps, polylines —
// and a line chart of series over a numeric X axis (a load run's progress,
// a latency distribution). The report's own charts (bars and lines over a
// study's cases, with confidence intervals) are drawn with it in package
// report.
package svgchart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Palette is Okabe and Ito's colour-blind-safe palette (without yellow,
// too light on white): one colour per target.
var Palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000"}

// Dashes tell apart the metrics of one chart (latency percentiles).
var Dashes = []string{"", "6 3", "2 3", "8 3 2 3"}

// Color returns the palette's colour for the i-th target.
func Color(i int) string { return Palette[i%len(Palette)] }

// Builder collects SVG elements.
type Builder struct {
	strings.Builder
}

// F appends a formatted element.
func (b *Builder) F(format string, args ...any) {
	fmt.Fprintf(&b.Builder, format, args...)
}

// Num prints a coordinate to a tenth, without noise digits.
func Num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// Esc escapes a text for SVG.
func Esc(s string) string { return html.EscapeString(s) }

// DashAttr is the stroke-dasharray attribute of a dash pattern ("" for a
// solid line).
func DashAttr(d string) string {
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}

// Path is a polyline with gaps, as the d attribute of an SVG path.
type Path struct {
	d   strings.Builder
	pen string
}

// To draws to (x, y), or moves there after a gap.
func (p *Path) To(x, y float64) {
	if p.pen == "" {
		p.pen = "M"
	}
	fmt.Fprintf(&p.d, "%s%s %s", p.pen, Num(x), Num(y))
	p.pen = "L"
}

// Gap lifts the pen: the next point starts a new line.
func (p *Path) Gap() { p.pen = "M" }

// D returns the path's data.
func (p *Path) D() string { return p.d.String() }

// NiceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func NiceStep(raw float64) float64 {
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

// Ticks returns tick values from 0 to at least max, about n of them, in
// steps of 1, 2, 2.5 or 5 times a power of ten.
func Ticks(max float64, n int) []float64 {
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

// Label prints an axis value short: three decimals at most, exponent form
// for the very large and the very small.
func Label(v float64) string {
	if v >= 1e6 || (v != 0 && v < 1e-3) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
