package view

import (
	"fmt"
	"strings"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// HowToReadBrief is the one paragraph a brief report has of "How to read
// this".
func (v *Report) HowToReadBrief() string {
	s := fmt.Sprintf("How to read this: each figure is the median of the repetitions; a change of a primary figure is compared round by round and called (bold) only when its own test passes the Benjamini-Hochberg correction across the report (q ≤ %s) and it is at least the floor in size; \"same\" means its own confidence interval lies within ± the floor (a measure's outcome over its cases is said of the measure, never of a case); ~ means unresolved, with the smallest change the repetitions could have seen; marks such as ¹ point to the footnotes under each study.", formatAlpha(v.Alpha))
	for _, g := range v.general {
		s += " Every figure of every study: " + g + "."
	}
	return s + " The report files explain the figures in full."
}

// Subtitle is the line under the title: studies, targets, date, status.
func (v *Report) Subtitle() string {
	var studies []string
	for _, s := range v.Studies {
		studies = append(studies, s.Name)
	}
	var names []string
	for _, t := range v.Targets {
		names = append(names, t.Name)
	}
	parts := []string{}
	if len(studies) > 0 {
		parts = append(parts, strings.Join(studies, ", ")+" on "+strings.Join(names, ", "))
	} else if len(names) > 0 {
		parts = append(parts, "no measurements on "+strings.Join(names, ", "))
	} else {
		parts = append(parts, "no measurements")
	}
	if len(v.Runs) == 1 {
		r := v.Runs[0]
		if r.Started != "" {
			parts = append(parts, r.Started)
		}
		if r.Duration != "" {
			parts = append(parts, "took "+r.Duration)
		}
		if r.Status != "" {
			parts = append(parts, r.Status)
		}
	}
	return strings.Join(parts, " · ")
}

// TargetRows are the rows of the setup table, a column per target.
func (v *Report) TargetRows() [][]string {
	rows := [][]string{{"server"}, {"data checksums"}, {"connection"}}
	multi := false
	for _, t := range v.Targets {
		rows[0] = append(rows[0], t.Server)
		rows[1] = append(rows[1], t.Checksums)
		rows[2] = append(rows[2], words.OrDash(t.Conn))
		if t.Run != "" {
			multi = true
		}
	}
	if multi {
		r := []string{"run"}
		for _, t := range v.Targets {
			r = append(r, words.OrDash(t.Run))
		}
		rows = append(rows, r)
	}
	return append(rows, v.envRows()...)
}

// Describe is a run's one-line description.
func (r Run) Describe() string {
	s := r.ID
	var facts []string
	if r.Kind != "" {
		facts = append(facts, r.Kind)
	}
	if r.Status != "" {
		facts = append(facts, r.Status)
	}
	if len(facts) > 0 {
		s += " (" + strings.Join(facts, ", ") + ")"
	}
	if r.Started != "" {
		s += ", started " + r.Started
	}
	if r.Duration != "" {
		s += ", took " + r.Duration
	}
	return s
}

// StatisticsLine says how the figures were computed.
func (v *Report) StatisticsLine() string {
	floor := compare.DefaultMinChange
	if v.Family != nil {
		floor = v.Family.MinChange
	}
	return fmt.Sprintf("median of the repetitions with its 95 %% confidence interval; each target compared with the first round by round (paired t test of the rounds' ratios), each case on its own rounds and each primary measure over its cases in one family, with Benjamini-Hochberg at q = %s and a floor of ±%s", formatAlpha(v.Alpha), verdict.Percent(floor))
}

func formatAlpha(a float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", a), "0"), ".")
}

// About is the line under a study's heading.
func (sv *Study) About() string {
	var parts []string
	switch {
	case sv.autoReps != "":
		parts = append(parts, sv.autoReps+", interleaved")
	case sv.Reps > 0 && sv.separateRuns:
		parts = append(parts, words.Plural(sv.Reps, "repetition")+" per case and target, each target in its own run (not interleaved)")
	case sv.Reps > 0:
		parts = append(parts, words.Plural(sv.Reps, "repetition")+" per case and target, interleaved")
	}
	if sv.Params != "" {
		parts = append(parts, "parameters: "+sv.Params)
	}
	if sv.Settings != "" {
		parts = append(parts, "study settings: "+sv.Settings)
	}
	return strings.Join(parts, " · ")
}

// Heading is a study's section title.
func (sv *Study) Heading() string {
	h := sv.Name
	if sv.Title != "" {
		h += " — " + sv.Title
	}
	if sv.Source != "" {
		h += " (" + sv.Source + ")"
	}
	return h
}

// TableHead returns the header cells of a metric table.
func (sv *Study) TableHead(withMetric bool) []string {
	var head []string
	for _, l := range sv.LabelCols {
		head = append(head, l.Head)
	}
	if withMetric {
		head = append(head, "metric")
	}
	head = append(head, sv.Targets...)
	for _, t := range sv.Targets[min(1, len(sv.Targets)):] {
		head = append(head, t+" vs "+sv.Targets[0])
	}
	return head
}

// HowToRead explains the figures, the marks and their limits, as far as
// the report has them.
func (v *Report) HowToRead() []string {
	a := formatAlpha(v.Alpha)
	base := "the first target"
	if len(v.Targets) > 0 {
		base = "the first target (" + v.Targets[0].Name + ")"
	}
	var tables, exact, matrix, compared bool
	for _, s := range v.Studies {
		if s.Matrix != nil {
			matrix = true
		}
		if len(s.Targets) > 1 {
			compared = true
		}
		rows := []*Row{}
		for _, t := range s.Tables {
			rows = append(rows, t.Rows...)
		}
		if s.Others != nil {
			rows = append(rows, s.Others.Rows...)
		}
		for _, r := range rows {
			tables = true
			if r.Res.Metric.Exact {
				exact = true
			}
		}
	}
	var out []string
	if tables {
		out = append(out, "Each figure is the median of the repetitions on one target. \"± 3 %\" is the half-width of the 95 % confidence interval of that median; it is left out when there are fewer than 6 repetitions, too few for such an interval.")
	}
	if tables && compared {
		out = append(out, v.howToReadChanges(base, a, exact)...)
	}
	if matrix {
		first := "the first target"
		if len(v.Targets) > 0 {
			first = v.Targets[0].Name
		}
		out = append(out, "A behaviour matrix shows what each probe did on each target (rows loaded, the error raised); an outcome that differs from "+first+"'s is highlighted (bold in Markdown).")
	}
	out = append(out, "Repetitions run in rounds, every target once per round, in mirrored pairs of rounds (A B, then B A) whose order is drawn at random per case: a slow drift of the machine, and whatever one target leaves behind for the next, affect every target alike. Each measured step begins with the file system's dirty pages written out. The order's seed is recorded with each study (--order-seed repeats it).")
	if tables {
		out = append(out, "Marks such as ¹ point to the footnotes under each study: warnings about the statistics, and the study's own notes (bottlenecks such as a disk at its read ceiling).")
	}
	return out
}
