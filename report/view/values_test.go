package view

import (
	"math"
	"testing"

	"github.com/pglab/pglab/compare"
)

func TestAxisScale(t *testing.T) {
	for _, c := range []struct {
		unit  compare.Unit
		max   float64
		label string
		div   float64
	}{
		{"ms", 10431, "s", 1000},
		{"ms", 850, "ms", 1},
		{"us", 850, "µs", 1},
		{"ms", 900000, "min", 60000},
		{"bytes", 226 << 20, "MB", 1 << 20},
		{"MB/s", 1560, "GB/s", 1024},
		{"MB/s", 87, "MB/s", 1},
		{"tps", 1260, "tps", 1},
		{"count", 10, "", 1},
	} {
		sc := axisScale(c.unit, c.max)
		if sc.Label != c.label || math.Abs(sc.Div-c.div) > 1e-9 {
			t.Errorf("axisScale(%s, %g) = %+v, want %s ÷ %g", c.unit, c.max, sc, c.label, c.div)
		}
	}
}

func TestRepsText(t *testing.T) {
	for _, c := range []struct {
		reps  []int
		total int
		want  string
	}{
		{nil, 3, ""},
		{[]int{1, 2, 3}, 3, ""},
		{[]int{2}, 3, "noted in repetition 2"},
		{[]int{3, 1, 1}, 3, "noted in repetitions 1, 3"},
	} {
		if got := repsText(c.reps, c.total); got != c.want {
			t.Errorf("repsText(%v, %d) = %q, want %q", c.reps, c.total, got, c.want)
		}
	}
}
