package view

import (
	"fmt"
	"math"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// headlines summarises the study for the report's summary table: per
// primary metric, the case where the last target differs most (significant
// changes only); per behaviour matrix, how many cases differ.
func (sv *Study) headlines() []Headline {
	if len(sv.Targets) < 2 {
		return nil
	}
	var out []Headline
	if sv.Matrix != nil {
		h := Headline{Study: sv.Name, What: "outcomes", Values: make([]string, len(sv.Targets))}
		for i := range h.Values {
			h.Values[i] = "–"
		}
		for ti := 1; ti < len(sv.Targets); ti++ {
			n := 0
			for _, r := range sv.Matrix {
				if r.Cells[ti].Class == "differs" {
					n++
				}
			}
			c := Cell{Text: fmt.Sprintf("%d of %d cases differ", n, len(sv.Matrix))}
			if n > 0 {
				c.Class = "differs"
			} else {
				c.Class = "same"
			}
			h.Changes = append(h.Changes, c)
		}
		return append(out, h)
	}
	for _, t := range sv.briefTables() {
		out = append(out, sv.headline(t))
	}
	return out
}

// headline summarises one primary table without cherry-picking: per
// target, how many cases changed, in which direction, how many are the
// same or unresolved, and the largest change only when it was called
// (compare.SummarizeMeasure). The values are those of the case of the
// last target's largest called change (of the largest impact on the whole,
// when the study weighs its cases), "–" when it has none; a table of one
// case shows that case's outcome itself.
func (sv *Study) headline(t *Table) Headline {
	h := Headline{Study: sv.Name, What: t.Head}
	best, byImpact := -1, false
	for ti, tg := range sv.Targets[1:] {
		var changes []compare.Change
		var rows []*Row
		for _, r := range t.Rows {
			if c, ok := r.Res.Change(tg); ok {
				changes = append(changes, c)
				rows = append(rows, r)
			}
		}
		ms, err := compare.SummarizeMeasure(changes)
		switch {
		case err != nil:
			h.Changes = append(h.Changes, Cell{Text: "?"})
			continue
		case len(t.Rows) == 1:
			h.Changes = append(h.Changes, Cell{Text: ChangeText(changes[0]), Class: ChangeClass(changes[0])})
		default:
			h.Changes = append(h.Changes, Cell{Text: ms.Text() + measureText(ms, changes[0]), Class: summaryClass(ms)})
		}
		if ti == len(sv.Targets)-2 && ms.Largest >= 0 {
			best = indexOfRow(t.Rows, rows[ms.Largest])
			if k := largestImpact(t.Rows, tg); k >= 0 {
				best, byImpact = k, true
			}
		}
	}
	switch {
	case len(t.Rows) == 1:
		best = 0
	case best < 0:
		h.Case = words.Plural(len(t.Rows), "case")
	}
	for _, tg := range sv.Targets {
		if best < 0 {
			h.Values = append(h.Values, "–")
			continue
		}
		s, _ := t.Rows[best].Res.Target(tg)
		h.Values = append(h.Values, formatCenter(s, t.Rows[best].Res.Metric))
	}
	switch {
	case best >= 0 && len(t.Rows) > 1 && byImpact:
		h.Case = t.Rows[best].Case.Name + " (called change of the largest impact)"
	case best >= 0 && len(t.Rows) > 1:
		h.Case = t.Rows[best].Case.Name + " (largest called change)"
	}
	return h
}

// measureText says what a summary's counts do not: that the measure as a
// whole is the same, or changed by its own test with no case called
// ("; measure: same within ±5 %", "; measure: −3.1 %, changed").
func measureText(ms compare.MeasureSummary, c compare.Change) string {
	if ms.Called > 0 || ms.Same == ms.Cases {
		return ""
	}
	switch c.MeasureOutcome {
	case compare.OutcomeSame:
		return "; measure: same within ±" + verdict.Percent(c.Floor)
	case compare.OutcomeChanged:
		if !math.IsNaN(c.MeasureRatio) {
			return fmt.Sprintf("; measure: %+.1f %%, changed", (c.MeasureRatio-1)*100)
		}
		return "; measure: changed"
	}
	return ""
}

// largestImpact returns the row whose change on target tg was called and
// weighs most in the whole (the cases' impact, see buildImpact), or -1
// when no called row has an impact.
func largestImpact(rows []*Row, tg string) int {
	best, size := -1, -1.0
	for k, r := range rows {
		c, ok := r.Res.Change(tg)
		if !ok || !c.Called || math.IsNaN(r.Case.Impact) {
			continue
		}
		if a := math.Abs(r.Case.Impact); a > size {
			best, size = k, a
		}
	}
	return best
}

// summaryClass styles a summary cell: by the direction of its calls when
// they all agree, "changed" when they differ, "same" when every case is
// the same, "ns" otherwise.
func summaryClass(ms compare.MeasureSummary) string {
	switch {
	case ms.Called == 0 && ms.Same == ms.Cases:
		return "same"
	case ms.Called == 0:
		return "ns"
	case ms.Better == ms.Called:
		return "better"
	case ms.Worse == ms.Called:
		return "worse"
	}
	return "changed"
}

func indexOfRow(rows []*Row, r *Row) int {
	for i, x := range rows {
		if x == r {
			return i
		}
	}
	return -1
}
