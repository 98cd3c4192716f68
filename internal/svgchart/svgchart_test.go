package svgchart

import (
	"math"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	for _, max := range []float64{0.003, 1, 7.3, 10.431, 99, 100, 1260.66, 226e6, 0} {
		ticks := Ticks(max, 4)
		if ticks[0] != 0 || ticks[len(ticks)-1] < max {
			t.Errorf("Ticks(%g) = %v: must run from 0 to at least the maximum", max, ticks)
		}
		if len(ticks) < 2 || len(ticks) > 8 {
			t.Errorf("Ticks(%g) = %v: %d ticks", max, ticks, len(ticks))
		}
		step := ticks[1] - ticks[0]
		mant := step / math.Pow(10, math.Floor(math.Log10(step)))
		ok := false
		for _, m := range []float64{1, 2, 2.5, 5, 10} {
			if math.Abs(mant-m) < 1e-6 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("Ticks(%g) step %g is not 1, 2, 2.5 or 5 × 10^k", max, step)
		}
	}
}

func TestNiceStepAndLabel(t *testing.T) {
	for raw, want := range map[float64]float64{0.3: 0.5, 1: 1, 1.1: 2, 3: 5, 7: 10, 0: 1} {
		if got := NiceStep(raw); math.Abs(got-want) > 1e-9 {
			t.Errorf("NiceStep(%g) = %g, want %g", raw, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 1.23456: "1.235", 2e6: "2e+06", 0.0001: "0.0001"} {
		if got := Label(v); got != want {
			t.Errorf("Label(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestLineEscapesAndGaps(t *testing.T) {
	c := Line{Title: "a <b>", XMax: 2, XTicks: SecondTicks(2), YLog: true, Series: []Series{
		{Name: "x&y", Color: Color(0), Legend: true, X: []float64{0, 1, 2}, Y: []float64{1, 0, 10}},
	}}
	out := c.SVG()
	if !strings.Contains(out, "a &lt;b&gt;") || !strings.Contains(out, "x&amp;y") || strings.Contains(out, "<b>") {
		t.Errorf("texts not escaped: %s", out)
	}
	// The zero on a log scale breaks the line: two moves, no line to it.
	if !strings.Contains(out, `d="M64 288M624 44"`) {
		t.Errorf("want one path with a gap: %s", out)
	}
}
