package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

// repsExtra is what a run's manifest keeps of --reps auto.
type repsExtra struct {
	Design *struct {
		Looks  []int   `json:"looks"`
		Family int     `json:"family"`
		Alpha  float64 `json:"alpha"`
		Paired bool    `json:"paired"`
	} `json:"design"`
	Budget string `json:"budget"`
}

// repsExtra returns the run's record of --reps auto (zero for a fixed
// count, and for a report of several runs: their repetitions were chosen
// for other comparisons than the report's).
func (d *Dataset) repsExtra() repsExtra {
	var e repsExtra
	if runs := d.runs(); len(runs) == 1 {
		json.Unmarshal(runs[0].Extra, &e)
	}
	return e
}

// studyReps returns how many repetitions each case of a study ran, as the
// run stored it.
func (d *Dataset) studyReps(study string) (results.StudyReps, bool) {
	for _, r := range d.Reps {
		if r.Study == study {
			return r, true
		}
	}
	return results.StudyReps{}, false
}

// studyDesign returns the sequential design a study's repetitions were
// chosen by (its cells' p are then sequential, compare.Design), or nil for
// a fixed count and for a report of several runs.
func (d *Dataset) studyDesign(study string) *compare.Design {
	sr, ok := d.studyReps(study)
	if !ok || len(sr.Looks) == 0 || !d.Interleaved() {
		return nil
	}
	des := &compare.Design{Looks: sr.Looks, Alpha: d.alpha(), Paired: true}
	if e := d.repsExtra(); e.Design != nil {
		des.Family = e.Design.Family
	}
	if des.Check() != nil {
		return nil
	}
	return des
}

// repsView says how many repetitions the report's cases ran: the rule,
// one line per study, a row per case, and what the budget left
// unresolved.
type repsView struct {
	// Rule states the stopping rule of --reps auto ("" for fixed
	// counts).
	Rule string
	// Lines summarise each study: "vacuum: 8 repetitions in 3 cases
	// (called, same), 10 in 1 (cap)".
	Lines []string
	// Rows are a row per case: study, case, repetitions, why it stopped.
	Rows [][]string
	// Budget says what the budget (--budget) left unresolved, "" when
	// there was none.
	Budget string
}

// buildReps fills the view's repetitions from the runs' records.
func (v *view) buildReps() {
	d := v.d
	var rv repsView
	e := d.repsExtra()
	if e.Design != nil && len(e.Design.Looks) > 0 {
		rv.Rule = compare.Design{Looks: e.Design.Looks, Family: e.Design.Family, Alpha: d.alpha(), Paired: e.Design.Paired}.Text()
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
			rv.Rows = append(rv.Rows, []string{sr.Study, c.Name, fmt.Sprint(c.N), orDash(c.Reason)})
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
			e.Budget, plural(len(stopped), "case"), strings.Join(stopped, "; "))
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
		s := fmt.Sprintf("%d in %s", k.n, plural(count[k], "case"))
		if i == 0 {
			s = fmt.Sprintf("%s in %s", plural(k.n, "repetition"), plural(count[k], "case"))
		}
		if k.reason != "" {
			s += " (" + k.reason + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// writeRepsMarkdown writes the repetitions into the setup: the rule, a
// line with each study's counts, what the budget left, and (not brief) a
// row per case.
func (v *view) writeRepsMarkdown(w *bufio.Writer) {
	r := v.Reps
	if r.Rule == "" {
		return
	}
	fmt.Fprintf(w, "- **Repetitions:** %s\n", mdText(r.Rule))
	if len(r.Lines) > 0 {
		fmt.Fprintf(w, "- **Repetitions per case:** %s\n", mdText(strings.Join(r.Lines, "; ")))
	}
	if r.Budget != "" {
		fmt.Fprintf(w, "- **Budget:** %s\n", mdText(r.Budget))
	}
	if v.brief || len(r.Rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| study | case | repetitions | stopped because |\n|---|---|---|---|\n")
	for _, row := range r.Rows {
		mdRow(w, row...)
	}
}

// jsonReps is the repetitions for report.json, nil for fixed counts.
func (v *view) jsonReps() *jsonReps {
	e := v.d.repsExtra()
	if v.Reps.Rule == "" || e.Design == nil {
		return nil
	}
	j := &jsonReps{Rule: v.Reps.Rule, Looks: e.Design.Looks, Family: e.Design.Family, Budget: e.Budget, Studies: v.d.Reps}
	for _, sr := range v.d.Reps {
		for _, c := range sr.Cases {
			if c.Reason == compare.StopBudget {
				j.UnresolvedByBudget = append(j.UnresolvedByBudget, sr.Study+" · "+c.Name)
			}
		}
	}
	return j
}

// autoRepsText says how many repetitions a study's cases ran when the
// data chose them: "8 repetitions per case and target, chosen by the data
// (cap 10)", "8–10 repetitions per case and target, chosen by the data
// per case (cap 10)"; "" for a fixed count.
func (d *Dataset) autoRepsText(study string) string {
	sr, ok := d.studyReps(study)
	if !ok || len(sr.Looks) == 0 || len(sr.Cases) == 0 {
		return ""
	}
	lo, hi := sr.Cases[0].N, sr.Cases[0].N
	for _, c := range sr.Cases {
		lo, hi = min(lo, c.N), max(hi, c.N)
	}
	cap := sr.Looks[len(sr.Looks)-1]
	if lo == hi {
		return fmt.Sprintf("%s per case and target, chosen by the data (cap %d)", plural(lo, "repetition"), cap)
	}
	return fmt.Sprintf("%d–%d repetitions per case and target, chosen by the data per case (cap %d)", lo, hi, cap)
}
