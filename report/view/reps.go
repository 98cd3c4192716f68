package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

// buildReps fills the view's repetitions from the runs' records.
func (v *Report) buildReps() {
	d := v.Data
	var rv RepsTable
	e := d.RepsExtra()
	if e.Design != nil && len(e.Design.Looks) > 0 {
		rv.Rule = compare.Design{Looks: e.Design.Looks, Family: e.Design.Family, Alpha: d.SignificanceLevel(), Paired: e.Design.Paired}.Text()
	}
	if rv.Rule == "" {
		return // fixed counts: each study's header says its count
	}
	var stopped []string
	for _, sr := range d.Reps {
		if len(sr.Looks) == 0 {
			rv.Lines = append(rv.Lines, fmt.Sprintf("%s: %s (nothing to call: its own count)", sr.Study, countsText(sr.Cases)))
			continue
		}
		line := sr.Study + ": " + countsText(sr.Cases)
		if !slices.Equal(sr.Looks, e.Design.Looks) {
			line += fmt.Sprintf(" (looked at after %s rounds: its runs are slices of one longer run, several to a round of the others)", compare.Design{Looks: sr.Looks}.LooksText())
		}
		rv.Lines = append(rv.Lines, line)
		for _, c := range sr.Cases {
			n := fmt.Sprint(c.N)
			if c.Cap > 0 {
				n = fmt.Sprintf("%d of at most %d", c.N, c.Cap)
			}
			rv.Rows = append(rv.Rows, []string{sr.Study, c.Name, n, words.OrDash(c.Reason)})
			if c.Reason == compare.StopBudget {
				stopped = append(stopped, sr.Study+" · "+c.Name)
			}
		}
	}
	switch {
	case e.Budget == "":
	case len(stopped) == 0:
		rv.Budget = fmt.Sprintf("--budget %s: every case ended before its study's share of the budget ran out.", e.Budget)
	default:
		rv.Budget = fmt.Sprintf("--budget %s: %s stopped with a primary figure unresolved when their study's share ran out: %s.",
			e.Budget, words.Plural(len(stopped), "case"), strings.Join(stopped, "; "))
	}
	v.Reps = rv
}

// countsText groups a study's cases by repetitions and reason: "8
// repetitions in 3 cases (called, same), 10 in 1 (cap)".
func countsText(cases []results.CaseReps) string {
	type key struct {
		n      int
		reason string
	}
	count := map[key]int{}
	var order []key
	for _, c := range cases {
		k := key{c.N, c.Reason}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	slices.SortStableFunc(order, func(a, b key) int { return a.n - b.n })
	var parts []string
	for i, k := range order {
		s := fmt.Sprintf("%d in %s", k.n, words.Plural(count[k], "case"))
		if i == 0 {
			s = fmt.Sprintf("%s in %s", words.Plural(k.n, "repetition"), words.Plural(count[k], "case"))
		}
		if k.reason != "" {
			s += " (" + k.reason + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
