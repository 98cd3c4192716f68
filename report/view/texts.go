package view

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

// Who names the entry's targets, with the repetition when the study has
// several.
func (e TextEntry) Who() string {
	who := strings.Join(e.Targets, ", ")
	if e.Reps > 1 {
		who += fmt.Sprintf(" (repetition %d of %d)", e.Rep, e.Reps)
	}
	return who
}

// buildTexts lays out the study's text artefacts: per kind (the
// presentation's first, then any other in name order), per case in the
// study's order, the first repetition of each target, targets that said
// the same merged.
func (sv *Study) buildTexts(d *runs.Dataset, p *results.Presentation) {
	byName := map[string][]runs.Output{}
	for _, t := range d.Outputs {
		if t.Study == sv.Name {
			byName[t.Name] = append(byName[t.Name], t)
		}
	}
	if len(byName) == 0 {
		return
	}
	specs := append([]results.TextView(nil), p.Texts...)
	var others []string
	for n := range byName {
		known := false
		for _, s := range specs {
			known = known || s.Name == n
		}
		if !known {
			others = append(others, n)
		}
	}
	sort.Strings(others)
	for _, n := range others {
		specs = append(specs, results.TextView{Name: n, Head: n})
	}
	targets := d.TargetNames()
	for _, spec := range specs {
		texts := byName[spec.Name]
		if len(texts) == 0 {
			continue
		}
		g := TextGroup{Name: spec.Name, Head: spec.Head, Markdown: spec.Markdown, Open: spec.Open}
		for _, c := range sv.textCases(texts) {
			tc := TextCase{Case: c}
			for _, target := range targets {
				first, reps := runs.Output{}, 0
				for _, t := range texts {
					if t.Target != target || results.CaseKey(t.Case) != c.Key {
						continue
					}
					reps++
					if reps == 1 || t.Rep < first.Rep {
						first = t
					}
				}
				if reps == 0 {
					continue
				}
				body := strings.TrimRight(first.Body, "\n")
				merged := false
				for i := range tc.Entries {
					e := &tc.Entries[i]
					if e.Body == body && e.Rep == first.Rep && e.Reps == reps {
						e.Targets = append(e.Targets, target)
						merged = true
					}
				}
				if !merged {
					tc.Entries = append(tc.Entries, TextEntry{Targets: []string{target}, Body: body, Rep: first.Rep, Reps: reps})
				}
			}
			if len(tc.Entries) > 0 {
				g.Cases = append(g.Cases, tc)
			}
		}
		sv.Texts = append(sv.Texts, g)
	}
}

// textCases are the cases the texts belong to: the study's, in its order,
// then any other.
func (sv *Study) textCases(texts []runs.Output) []Case {
	out := append([]Case(nil), sv.Cases...)
	for _, t := range texts {
		key := results.CaseKey(t.Case)
		found := false
		for _, c := range out {
			found = found || c.Key == key
		}
		if !found {
			out = append(out, Case{Key: key, Labels: t.Case, Name: runs.CaseTitle(t.Case)})
		}
	}
	return out
}
