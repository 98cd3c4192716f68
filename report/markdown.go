package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// WriteMarkdown writes the report as Markdown (GitHub-flavoured tables):
// a summary of the headline changes, the setup (servers, settings that
// differ from the defaults or between targets, data checksums, host, run),
// then per study a table per headline metric shaped like the seeds' (one
// row per case, one column per target, then the change against the first
// target with its verdict and test figures), a table of the further
// metrics, the matrix of a behaviour probe, footnotes for warnings and
// notes, and a closing section on how to read the figures.
func WriteMarkdown(w io.Writer, d *runs.Dataset) error {
	return WriteMarkdownOpts(w, d, view.Options{})
}

// WriteMarkdownOpts is WriteMarkdown with options: Brief is what compare
// prints on the terminal.
func WriteMarkdownOpts(w io.Writer, d *runs.Dataset, o view.Options) error {
	v, err := view.Build(d, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	writeReportMarkdown(v, bw)
	return bw.Flush()
}

func writeReportMarkdown(v *view.Report, w *bufio.Writer) {
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

	writeSetupMarkdown(v, w)

	for _, sv := range v.Studies {
		writeStudyMarkdown(sv, w)
	}
	if len(v.Notes) > 0 {
		fmt.Fprintf(w, "\n## Other notes\n\n")
		for _, n := range v.Notes {
			fmt.Fprintf(w, "- %s\n", mdText(n))
		}
	}
	if v.Brief {
		fmt.Fprintf(w, "\n%s\n", mdText(v.HowToReadBrief()))
		return
	}
	fmt.Fprintf(w, "\n## How to read this\n\n")
	for _, p := range v.HowToRead() {
		fmt.Fprintf(w, "- %s\n", mdText(p))
	}
}

func writeSetupMarkdown(v *view.Report, w *bufio.Writer) {
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
	writeRepsMarkdown(v, w)
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
	if !v.Brief {
		writeTimesMarkdown(v, w)
	}
}

func writeStudyMarkdown(sv *view.Study, w *bufio.Writer) {
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
		if g.Markdown && !sv.Brief {
			writeTextGroupMarkdown(g, w)
		}
	}
	if sv.Brief && len(sv.Tables) > 1 {
		// One table of the primary metrics, case by case.
		fmt.Fprintln(w)
		writeTableMarkdown(sv, w, sv.PrimaryByCase(), true)
	} else {
		for _, t := range sv.Tables {
			fmt.Fprintf(w, "\n### %s\n\n", mdText(t.Head))
			writeTableMarkdown(sv, w, t, false)
		}
	}
	writeCardsMarkdown(sv, w)
	if sv.Others != nil {
		if len(sv.Tables) > 0 {
			fmt.Fprintf(w, "\n### %s\n\n", mdText(sv.Others.Head))
		} else {
			fmt.Fprintln(w)
		}
		writeTableMarkdown(sv, w, sv.Others, true)
	}
	general := sv.General
	if sv.Brief {
		general = nil
		for _, g := range sv.General {
			if !sv.Common[g] {
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
		fmt.Fprintf(w, "- %s %s\n", view.Superscript(i+1), mdText(f))
	}
	if len(sv.Notes) > 0 {
		fmt.Fprintf(w, "\nNotes:\n\n")
		for _, n := range sv.Notes {
			fmt.Fprintf(w, "- %s\n", mdText(n))
		}
	}
	if l := sv.LeftOut(); l != "" {
		fmt.Fprintf(w, "\n%s\n", mdText(l))
	}
}

// writeCardsMarkdown writes the cause cards of the study's called
// changes under "Why".
func writeCardsMarkdown(sv *view.Study, w *bufio.Writer) {
	if len(sv.Cards) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### Why: the causes of each called change\n")
	for _, cv := range sv.Cards {
		fmt.Fprintf(w, "\n**%s**\n\n", mdText(cv.Title))
		for i, c := range cv.Causes {
			fmt.Fprintf(w, "%d. %s\n", i+1, mdText(c))
		}
		if len(cv.Causes) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", mdText(cv.Explained))
		if cv.Settings != "" {
			fmt.Fprintf(w, "\n%s\n", mdText(cv.Settings))
		}
		for _, m := range cv.Missing {
			fmt.Fprintf(w, "\n- Not measured: %s\n", mdText(m))
		}
	}
}

func writeTableMarkdown(sv *view.Study, w *bufio.Writer, t *view.Table, withMetric bool) {
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
func mdCell(c view.Cell) string {
	t := mdText(c.Text)
	if c.Class == "better" || c.Class == "worse" || c.Class == "changed" {
		t = "**" + t + "**"
	}
	if len(c.Marks) > 0 {
		t += " " + view.MarksText(c.Marks)
	}
	return t
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

// writeTimesMarkdown writes the split of wall time under the setup.
func writeTimesMarkdown(v *view.Report, w *bufio.Writer) {
	if len(v.Times) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n\n", v.TimeIntro())
	head := v.TimeHead()
	mdRow(w, head...)
	mdRule(w, len(head))
	resets := v.SplitsResets()
	for _, r := range v.Times {
		mdRow(w, r.Cells(resets)...)
	}
	if len(v.DataLines) > 0 {
		fmt.Fprintf(w, "\nData (how each study's data came to the servers, and what a load cost; a reset gives a repetition fresh data):\n\n")
		for _, l := range v.DataLines {
			fmt.Fprintf(w, "- %s\n", mdText(l))
		}
	}
}

// writeRepsMarkdown writes the repetitions into the setup: the rule, a
// line with each study's counts, what the budget left, and (not brief) a
// row per case.
func writeRepsMarkdown(v *view.Report, w *bufio.Writer) {
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
	if v.Brief || len(r.Rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| study | case | repetitions | stopped because |\n|---|---|---|---|\n")
	for _, row := range r.Rows {
		mdRow(w, row...)
	}
}

// mdFence returns a code fence longer than any run of backticks in body.
func mdFence(body string) string {
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	return fence
}

// writeReportMarkdown writes the texts as a subsection: per case, each distinct
// text in a code block after the targets that said it.
func writeTextGroupMarkdown(g view.TextGroup, w *bufio.Writer) {
	fmt.Fprintf(w, "\n### %s\n", mdText(g.Head))
	for _, c := range g.Cases {
		fmt.Fprintf(w, "\n**%s**\n", mdText(c.Case.Name))
		for _, e := range c.Entries {
			fence := mdFence(e.Body)
			fmt.Fprintf(w, "\n%s:\n\n%s\n%s\n%s\n", mdText(e.Who()), fence, e.Body, fence)
		}
	}
}
