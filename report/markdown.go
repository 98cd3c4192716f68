package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// WriteMarkdown writes the report as Markdown (GitHub-flavoured tables):
// a summary of the headline changes, the setup (servers, settings that
// differ from the defaults or between targets, data checksums, host, run),
// then per study a table per headline metric shaped like the seeds' (one
// row per case, one column per target, then the change against the first
// target with its verdict and test figures), a table of the further
// metrics, the matrix of a behaviour probe, footnotes for warnings and
// notes, and a closing section on how to read the figures.
func WriteMarkdown(w io.Writer, d *Dataset) error {
	return WriteMarkdownOpts(w, d, Options{})
}

// WriteMarkdownOpts is WriteMarkdown with options: Brief is what compare
// prints on the terminal.
func WriteMarkdownOpts(w io.Writer, d *Dataset, o Options) error {
	v, err := buildView(d, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	v.writeMarkdown(bw)
	return bw.Flush()
}

func (v *view) writeMarkdown(w *bufio.Writer) {
	fmt.Fprintf(w, "# %s\n\n", mdText(v.Title))
	fmt.Fprintf(w, "%s\n", mdText(v.Subtitle()))

	if len(v.Headlines) > 0 {
		fmt.Fprintf(w, "\n## Summary\n")
	}
	for _, ht := range v.Headlines {
		names := ht.Targets
		head := []string{"study", "measure", "case"}
		head = append(head, names...)
		for _, n := range names[1:] {
			head = append(head, n+" vs "+names[0])
		}
		fmt.Fprintln(w)
		mdRow(w, head...)
		mdRule(w, len(head))
		for _, h := range ht.Rows {
			cells := []string{mdText(h.Study), mdText(h.What), mdText(h.Case)}
			for _, val := range h.Values {
				cells = append(cells, mdText(val))
			}
			for _, c := range h.Changes {
				cells = append(cells, mdCell(c))
			}
			mdRowRaw(w, cells...)
		}
		if ht.Metrics {
			fmt.Fprintf(w, "\nPer measure: the cases whose change was called (and in which direction), the same (within the floor) and the unresolved; the values are those of %s's largest called change, if any.\n",
				mdText(names[len(names)-1]))
		}
	}
	for _, line := range v.FamilyLines() {
		fmt.Fprintf(w, "\n%s\n", mdText(line))
	}

	v.writeSetupMarkdown(w)

	for _, sv := range v.Studies {
		sv.writeMarkdown(w)
	}
	if len(v.Notes) > 0 {
		fmt.Fprintf(w, "\n## Other notes\n\n")
		for _, n := range v.Notes {
			fmt.Fprintf(w, "- %s\n", mdText(n))
		}
	}
	if v.brief {
		fmt.Fprintf(w, "\n%s\n", mdText(v.howToReadBrief()))
		return
	}
	fmt.Fprintf(w, "\n## How to read this\n\n")
	for _, p := range v.HowToRead() {
		fmt.Fprintf(w, "- %s\n", mdText(p))
	}
}

// howToReadBrief is the one paragraph a brief report has of "How to read
// this".
func (v *view) howToReadBrief() string {
	s := fmt.Sprintf("How to read this: each figure is the median of the repetitions; a change of a primary figure is compared round by round and called (bold) only when its measure, tested over all its cases, and then its case pass the Benjamini-Hochberg correction across the report (q ≤ %s) and it is at least the floor in size (\"with its measure\" when its measure's call carries it); \"same\" means its confidence interval lies within ± the floor; ~ means unresolved, with the smallest change the repetitions could have seen; marks such as ¹ point to the footnotes under each study.", formatAlpha(v.Alpha))
	for _, g := range v.general {
		s += " Every figure of every study: " + g + "."
	}
	return s + " The report files explain the figures in full."
}

// Subtitle is the line under the title: studies, targets, date, status.
func (v *view) Subtitle() string {
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

func (v *view) writeSetupMarkdown(w *bufio.Writer) {
	fmt.Fprintf(w, "\n## Setup\n\n")
	if len(v.Targets) > 0 {
		head := []string{""}
		for _, t := range v.Targets {
			head = append(head, t.Name)
		}
		mdRow(w, head...)
		mdRule(w, len(head))
		for _, r := range v.TargetRows() {
			mdRow(w, r...)
		}
		fmt.Fprintln(w)
		if len(v.Settings) == 0 {
			fmt.Fprintf(w, "No server setting differs from PostgreSQL's defaults (apart from where each server listens and keeps its files).\n\n")
		} else {
			fmt.Fprintf(w, "Server settings that differ from PostgreSQL's defaults when the run began (≠ marks those that differ between targets; each study's own settings are listed with the study):\n\n")
			head := []string{"setting"}
			for _, t := range v.Targets {
				head = append(head, t.Name)
			}
			mdRow(w, head...)
			mdRule(w, len(head))
			for _, s := range v.Settings {
				name := s.Name
				if s.Differs {
					name += " ≠"
				}
				mdRow(w, append([]string{name}, s.Values...)...)
			}
			fmt.Fprintln(w)
		}
	}
	for _, n := range v.EnvNotes() {
		fmt.Fprintf(w, "- **Environment:** %s\n", mdText(n))
	}
	for _, h := range v.Hosts {
		fmt.Fprintf(w, "- **Host:** %s\n", mdText(h))
	}
	if len(v.Runs) == 1 {
		r := v.Runs[0]
		fmt.Fprintf(w, "- **Run:** %s\n", mdText(r.Describe()))
		if r.Version != "" {
			fmt.Fprintf(w, "- **pglab:** %s\n", mdText(r.Version))
		}
		if r.Command != "" {
			fmt.Fprintf(w, "- **Command:** %s\n", mdCode(r.Command))
		}
		if r.Error != "" {
			fmt.Fprintf(w, "- **Error:** %s\n", mdText(r.Error))
		}
	}
	for _, t := range v.TimeLines {
		fmt.Fprintf(w, "- **Time:** %s\n", mdText(t))
	}
	fmt.Fprintf(w, "- **Statistics:** %s\n", mdText(v.StatisticsLine()))
	v.writeRepsMarkdown(w)
	if len(v.Runs) > 1 {
		fmt.Fprintf(w, "\n| run | kind | status | started | took | pglab | command |\n|---|---|---|---|---|---|---|\n")
		for _, r := range v.Runs {
			mdRowRaw(w, mdText(r.ID), mdText(r.Kind), mdText(r.Status), mdText(r.Started), mdText(r.Duration), mdText(r.Version), mdCode(r.Command))
		}
		for _, r := range v.Runs {
			if r.Error != "" {
				fmt.Fprintf(w, "\nRun %s ended with an error: %s\n", mdText(r.ID), mdText(r.Error))
			}
		}
	}
	if !v.brief {
		v.writeTimesMarkdown(w)
	}
}

// TargetRows are the rows of the setup table, a column per target.
func (v *view) TargetRows() [][]string {
	rows := [][]string{{"server"}, {"data checksums"}, {"connection"}}
	multi := false
	for _, t := range v.Targets {
		rows[0] = append(rows[0], t.Server)
		rows[1] = append(rows[1], t.Checksums)
		rows[2] = append(rows[2], orDash(t.Conn))
		if t.Run != "" {
			multi = true
		}
	}
	if multi {
		r := []string{"run"}
		for _, t := range v.Targets {
			r = append(r, orDash(t.Run))
		}
		rows = append(rows, r)
	}
	return append(rows, v.envRows()...)
}

// Describe is a run's one-line description.
func (r runView) Describe() string {
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
func (v *view) StatisticsLine() string {
	floor := compare.DefaultMinChange
	if v.Family != nil {
		floor = v.Family.MinChange
	}
	return fmt.Sprintf("median of the repetitions with its 95 %% confidence interval; each target compared with the first round by round (paired t test of the rounds' ratios), each primary measure tested over its cases first, then its cases, with Benjamini-Hochberg at q = %s and a floor of ±%s", formatAlpha(v.Alpha), verdict.Percent(floor))
}

func formatAlpha(a float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", a), "0"), ".")
}

// About is the line under a study's heading.
func (sv *studyView) About() string {
	var parts []string
	switch {
	case sv.autoReps != "":
		parts = append(parts, sv.autoReps+", interleaved")
	case sv.Reps > 0 && sv.separateRuns:
		parts = append(parts, plural(sv.Reps, "repetition")+" per case and target, each target in its own run (not interleaved)")
	case sv.Reps > 0:
		parts = append(parts, plural(sv.Reps, "repetition")+" per case and target, interleaved")
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
func (sv *studyView) Heading() string {
	h := sv.Name
	if sv.Title != "" {
		h += " — " + sv.Title
	}
	if sv.Source != "" {
		h += " (" + sv.Source + ")"
	}
	return h
}

func (sv *studyView) writeMarkdown(w *bufio.Writer) {
	fmt.Fprintf(w, "\n## %s\n\n", mdText(sv.Heading()))
	if a := sv.About(); a != "" {
		fmt.Fprintf(w, "%s\n", mdText(a))
	}
	if sv.LoadLine != "" {
		fmt.Fprintf(w, "\n%s\n", mdText(sv.LoadLine))
	}
	for _, nf := range sv.Noise {
		fmt.Fprintf(w, "\n%s\n", mdText(nf.Text))
	}
	if sv.Matrix != nil {
		fmt.Fprintln(w)
		head := append([]string{"case"}, sv.Targets...)
		mdRow(w, head...)
		mdRule(w, len(head))
		for _, r := range sv.Matrix {
			cells := []string{mdText(r.Case.Name)}
			for _, c := range r.Cells {
				t := mdText(c.Text)
				if c.Class == "differs" {
					t = "**" + t + "**"
				}
				cells = append(cells, t)
			}
			mdRowRaw(w, cells...)
		}
		if len(sv.Targets) > 1 {
			fmt.Fprintf(w, "\nBold: an outcome unlike %s's.\n", mdText(sv.Targets[0]))
		}
	}
	for _, g := range sv.Texts {
		if g.Markdown && !sv.brief {
			g.writeMarkdown(w)
		}
	}
	if sv.brief && len(sv.Tables) > 1 {
		// One table of the primary metrics, case by case.
		fmt.Fprintln(w)
		sv.writeTableMarkdown(w, sv.primaryByCase(), true)
	} else {
		for _, t := range sv.Tables {
			fmt.Fprintf(w, "\n### %s\n\n", mdText(t.Head))
			sv.writeTableMarkdown(w, t, false)
		}
	}
	if sv.Others != nil {
		if len(sv.Tables) > 0 {
			fmt.Fprintf(w, "\n### %s\n\n", mdText(sv.Others.Head))
		} else {
			fmt.Fprintln(w)
		}
		sv.writeTableMarkdown(w, sv.Others, true)
	}
	general := sv.General
	if sv.brief {
		general = nil
		for _, g := range sv.General {
			if !sv.common[g] {
				general = append(general, g)
			}
		}
	}
	if len(general) > 0 || len(sv.Foot) > 0 {
		fmt.Fprintln(w)
	}
	for _, g := range general {
		fmt.Fprintf(w, "- Every figure above: %s\n", mdText(g))
	}
	for i, f := range sv.Foot {
		fmt.Fprintf(w, "- %s %s\n", superscript(i+1), mdText(f))
	}
	if len(sv.Notes) > 0 {
		fmt.Fprintf(w, "\nNotes:\n\n")
		for _, n := range sv.Notes {
			fmt.Fprintf(w, "- %s\n", mdText(n))
		}
	}
	if l := sv.leftOut(); l != "" {
		fmt.Fprintf(w, "\n%s\n", mdText(l))
	}
}

// TableHead returns the header cells of a metric table.
func (sv *studyView) TableHead(withMetric bool) []string {
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

func (sv *studyView) writeTableMarkdown(w *bufio.Writer, t *metricTable, withMetric bool) {
	head := sv.TableHead(withMetric)
	mdRow(w, head...)
	mdRule(w, len(head))
	for _, r := range t.Rows {
		var cells []string
		for _, val := range r.Case.Values {
			cells = append(cells, mdText(val))
		}
		if withMetric {
			cells = append(cells, mdText(r.MetricHead))
		}
		for _, c := range r.Values {
			cells = append(cells, mdCell(c))
		}
		for _, c := range r.Changes {
			cells = append(cells, mdCell(c))
		}
		mdRowRaw(w, cells...)
	}
}

// mdCell formats a cell: bold for a significant change, marks after.
func mdCell(c cell) string {
	t := mdText(c.Text)
	if c.Class == "better" || c.Class == "worse" || c.Class == "changed" {
		t = "**" + t + "**"
	}
	if len(c.Marks) > 0 {
		t += " " + marksText(c.Marks)
	}
	return t
}

// marksText formats footnote marks: "¹ ²".
func marksText(marks []int) string {
	s := make([]string, len(marks))
	for i, m := range marks {
		s[i] = superscript(m)
	}
	return strings.Join(s, " ")
}

var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

// superscript writes n in superscript digits.
func superscript(n int) string {
	var b strings.Builder
	for _, r := range fmt.Sprint(n) {
		b.WriteRune(superDigits[r-'0'])
	}
	return b.String()
}

// mdRow writes a table row, escaping each cell.
func mdRow(w *bufio.Writer, cells ...string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = mdText(c)
	}
	mdRowRaw(w, esc...)
}

// mdRowRaw writes a table row of cells already escaped.
func mdRowRaw(w *bufio.Writer, cells ...string) {
	w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func mdRule(w *bufio.Writer, n int) {
	w.WriteString("|" + strings.Repeat("---|", n) + "\n")
}

// mdText makes text safe in a Markdown table cell or list item: one
// line, pipes, backslashes, HTML and emphasis characters escaped.
func mdText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "`", "\\`", "[", `\[`, "]", `\]`)
	s = r.Replace(s)
	// "<" starts HTML only before a letter, "/", "!" or "?"; "<1 %" stays
	// readable.
	var h strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && (isLetter(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0) {
			h.WriteString("&lt;")
			continue
		}
		h.WriteByte(s[i])
	}
	s = h.String()
	// Underscores inside words do not start emphasis in GitHub's
	// Markdown; at a word's edge they may.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || !isWordByte(s[i-1]) || i == len(s)-1 || !isWordByte(s[i+1])) {
			b.WriteString(`\_`)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// mdCode writes text as inline code, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}

// HowToRead explains the figures, the marks and their limits, as far as
// the report has them.
func (v *view) HowToRead() []string {
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
		rows := []*row{}
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
