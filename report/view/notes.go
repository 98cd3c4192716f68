package view

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pglab/pglab/report/internal/words"
	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

// attachNotes puts the study's notes next to the figures they explain:
// a note on a case and target marks that target's cell in the first table
// that shows the case; other notes are listed under the study. Notes that
// differ only in their numbers ("CPU saturated (99 % busy)", "(100 %
// busy)") are one footnote with the numbers' range ("99–100 %"); the exact
// texts stay in the JSON.
func (sv *Study) attachNotes(d *runs.Dataset, o Options) {
	type place = notePlace
	type group = noteGroup
	var groups []*group
	byTemplate := map[string]*group{}
	for _, n := range d.Notes {
		if n.Study != sv.Name || n.Outcome {
			continue
		}
		tpl := noteTemplate(n.Text)
		key := tpl
		if len(n.Case) == 0 {
			// A note on the study as a whole is listed, not placed: its
			// numbers' ranges are a target's over its repetitions, never
			// a blend of targets ("lag p99 22–1,143 ms" of two servers);
			// targets that said the same are merged again below.
			key += "\x00" + n.Target
		}
		g := byTemplate[key]
		if g == nil {
			g = &group{reps: map[place][]int{}, first: n, tpl: tpl, caseLess: len(n.Case) == 0}
			byTemplate[key] = g
			groups = append(groups, g)
		}
		if slices.Index(g.texts, n.Text) < 0 {
			g.texts = append(g.texts, n.Text)
		}
		pl := place{target: n.Target, metric: n.Metric}
		if len(n.Case) > 0 {
			pl.caseKey = results.CaseKey(n.Case)
		}
		if _, ok := g.reps[pl]; !ok {
			g.places = append(g.places, pl)
			g.reps[pl] = nil
		}
		// A metric's note (a version without the counter) holds for
		// every repetition.
		if n.Rep > 0 && n.Metric == "" {
			g.reps[pl] = append(g.reps[pl], n.Rep)
		}
	}
	var tables []*Table
	tables = append(tables, sv.Tables...)
	if sv.Others != nil {
		tables = append(tables, sv.Others)
	}
	// cellOf finds the cell of a case and target in the first table that
	// shows the case (and the metric, for a metric's note).
	cellOf := func(pl place) *Cell {
		ti := slices.Index(sv.Targets, pl.target)
		if pl.caseKey == "" || ti < 0 {
			return nil
		}
		for _, t := range tables {
			for _, r := range t.Rows {
				if r.Case.Key == pl.caseKey && (pl.metric == "" || r.Metric == pl.metric) {
					return &r.Values[ti]
				}
			}
		}
		return nil
	}
	groups = mergeTargets(groups)
	ran := sv.ranReps(d)
	total := func(pl place) int {
		if n := ran[pl.caseKey]; n > 0 {
			return n
		}
		return sv.Reps
	}
	for _, g := range groups {
		text := mergeNumbers(g.texts)
		var unplaced []place
		var placed []*Cell
		allReps := true
		for _, pl := range g.places {
			if repsText(g.reps[pl], total(pl)) != "" {
				allReps = false
			}
			if c := cellOf(pl); c != nil {
				placed = append(placed, c)
			} else {
				unplaced = append(unplaced, pl)
			}
		}
		when := ""
		switch {
		case len(g.places) == 1:
			when = repsText(g.reps[g.places[0]], total(g.places[0]))
		case !allReps:
			when = "noted in some repetitions"
		}
		if len(placed) > 0 {
			t := text
			if when != "" {
				t += " (" + when + ")"
			}
			for _, c := range placed {
				c.notes = append(c.notes, t)
			}
		}
		if o.Brief && g.first.Metric != "" {
			// A note on a figure the brief view does not show.
			unplaced = nil
		}
		if len(unplaced) > 0 {
			var targets, cases []string
			for _, pl := range unplaced {
				if pl.target != "" && slices.Index(targets, pl.target) < 0 {
					targets = append(targets, pl.target)
				}
				if pl.caseKey != "" {
					name := ""
					for _, c := range sv.Cases {
						if c.Key == pl.caseKey {
							name = c.Name
						}
					}
					if name == "" {
						name = runs.CaseTitle(g.first.Case)
					}
					if slices.Index(cases, name) < 0 {
						cases = append(cases, name)
					}
				}
			}
			who := words.JoinNonEmpty(", ", strings.Join(targets, ", "), strings.Join(cases, "; "), when)
			if who != "" {
				text = who + ": " + text
			}
			sv.Notes = append(sv.Notes, text)
		}
	}
}

// notePlace is where a note was made: case, target, and the figure it
// explains.
type notePlace struct{ caseKey, target, metric string }

// noteGroup is the notes of a study that share a template: their texts,
// where they were made, in which repetitions.
type noteGroup struct {
	texts  []string
	places []notePlace
	reps   map[notePlace][]int
	first  runs.Note
	// tpl is the template; caseLess marks notes on the study as a whole,
	// grouped per target.
	tpl      string
	caseLess bool
}

// mergeTargets merges the groups of notes on the study as a whole that
// said the very same texts on several targets into the first of them.
func mergeTargets(groups []*noteGroup) []*noteGroup {
	var out []*noteGroup
	for _, g := range groups {
		var into *noteGroup
		for _, o := range out {
			if g.caseLess && o.caseLess && o.tpl == g.tpl && strings.Join(o.texts, "\x00") == strings.Join(g.texts, "\x00") {
				into = o
				break
			}
		}
		if into == nil {
			out = append(out, g)
			continue
		}
		for _, pl := range g.places {
			into.places = append(into.places, pl)
			into.reps[pl] = g.reps[pl]
		}
	}
	return out
}

// ranReps returns the repetitions each case of the study ran (its
// measurements' highest), "" for the study as a whole.
func (sv *Study) ranReps(d *runs.Dataset) map[string]int {
	out := map[string]int{}
	for _, m := range d.Measurements {
		if m.Study != sv.Name {
			continue
		}
		key := m.CaseKey
		if key == "" {
			key = results.CaseKey(m.Case)
		}
		out[key] = max(out[key], m.Rep)
		out[""] = max(out[""], m.Rep)
	}
	return out
}

// numberRun matches a number in a note, with thousands separators or a
// decimal point.
var numberRun = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// noteTemplate is a note's text with its numbers blanked out.
func noteTemplate(s string) string { return numberRun.ReplaceAllString(s, "#") }

// mergeNumbers writes texts that share a template as one, each number
// that differs between them as its range ("48–82").
func mergeNumbers(texts []string) string {
	if len(texts) == 1 {
		return texts[0]
	}
	first := texts[0]
	locs := numberRun.FindAllStringIndex(first, -1)
	nums := make([][]string, len(texts))
	for i, t := range texts {
		nums[i] = numberRun.FindAllString(t, -1)
		if len(nums[i]) != len(locs) {
			return first
		}
	}
	value := func(s string) float64 {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		return v
	}
	var b strings.Builder
	prev := 0
	for k, loc := range locs {
		b.WriteString(first[prev:loc[0]])
		lo, hi := nums[0][k], nums[0][k]
		for i := range texts {
			n := nums[i][k]
			if value(n) < value(lo) {
				lo = n
			}
			if value(n) > value(hi) {
				hi = n
			}
		}
		if value(lo) == value(hi) {
			b.WriteString(lo)
		} else {
			b.WriteString(lo + "–" + hi)
		}
		prev = loc[1]
	}
	b.WriteString(first[prev:])
	return b.String()
}

// noteText formats a note listed on its own.
func noteText(n runs.Note, where string) string {
	who := words.JoinNonEmpty(", ", n.Target, where)
	if who == "" {
		return n.Text
	}
	return who + ": " + n.Text
}

// repsText says in which repetitions a note was made: nothing when in
// all of them (or outside them).
func repsText(reps []int, total int) string {
	if len(reps) == 0 {
		return ""
	}
	sort.Ints(reps)
	uniq := reps[:0]
	for i, r := range reps {
		if i == 0 || r != reps[i-1] {
			uniq = append(uniq, r)
		}
	}
	if total > 0 && len(uniq) == total {
		return ""
	}
	parts := make([]string, len(uniq))
	for i, r := range uniq {
		parts[i] = fmt.Sprint(r)
	}
	// "noted in": a study may remark on something once, in the first
	// repetition, that holds for all of them.
	if len(uniq) == 1 {
		return "noted in repetition " + parts[0]
	}
	return "noted in repetitions " + strings.Join(parts, ", ")
}

// numberFootnotes turns the cells' warnings and notes into numbered
// marks. A warning that every summary (or every comparison) of the study
// carries is said once, in General, instead.
func (sv *Study) numberFootnotes() {
	var all []*Row
	for _, t := range sv.Tables {
		all = append(all, t.Rows...)
	}
	if sv.Others != nil {
		all = append(all, sv.Others.Rows...)
	}
	// A warning is general when every cell of its kind carries it:
	// summaries or comparisons, of exact or of statistical metrics.
	everywhere := func(exact bool, cells func(*Row) []Cell) map[string]bool {
		count := map[string]int{}
		n := 0
		for _, r := range all {
			if r.Res.Metric.Exact != exact {
				continue
			}
			for _, c := range cells(r) {
				if c.Text == "–" || c.Text == "?" {
					continue // no samples
				}
				n++
				seen := map[string]bool{}
				for _, w := range c.warnings {
					if !seen[w] {
						seen[w] = true
						count[w]++
					}
				}
			}
		}
		out := map[string]bool{}
		for w, k := range count {
			if k == n && n > 1 {
				out[w] = true
			}
		}
		return out
	}
	values := func(r *Row) []Cell { return r.Values }
	changes := func(r *Row) []Cell { return r.Changes }
	genValues := map[bool]map[string]bool{false: everywhere(false, values), true: everywhere(true, values)}
	genChanges := map[bool]map[string]bool{false: everywhere(false, changes), true: everywhere(true, changes)}
	addGeneral := func(w string) {
		if slices.Index(sv.General, w) < 0 {
			sv.General = append(sv.General, w)
		}
	}
	mark := func(c *Cell, general map[string]bool) {
		for _, w := range c.warnings {
			if general[w] {
				addGeneral(w)
				continue
			}
			c.Marks = appendMark(c.Marks, sv.footnote(w))
		}
		for _, n := range c.notes {
			c.Marks = appendMark(c.Marks, sv.footnote(n))
		}
	}
	for _, r := range all {
		for i := range r.Values {
			mark(&r.Values[i], genValues[r.Res.Metric.Exact])
		}
		for i := range r.Changes {
			mark(&r.Changes[i], genChanges[r.Res.Metric.Exact])
		}
	}
}

// footnote returns the number of a footnote text, adding it if new.
func (sv *Study) footnote(text string) int {
	if i := slices.Index(sv.Foot, text); i >= 0 {
		return i + 1
	}
	sv.Foot = append(sv.Foot, text)
	return len(sv.Foot)
}

func appendMark(marks []int, m int) []int {
	for _, x := range marks {
		if x == m {
			return marks
		}
	}
	return append(marks, m)
}
