package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// WriteText writes plain-text tables for a terminal: per study and case
// one row per metric (headline metrics first) and a column per target
// (median ± CI), and with two or more targets the change against the
// first with p and n; a behaviour probe's outcomes as a matrix (case ×
// target). Warnings and notes follow each study as numbered footnotes.
func WriteText(w io.Writer, d *runs.Dataset) error {
	return WriteTextOpts(w, d, view.Options{})
}

// WriteTextOpts is WriteText with options: Brief is what pglab study
// prints.
func WriteTextOpts(w io.Writer, d *runs.Dataset, o view.Options) error {
	v, err := view.Build(d, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, sv := range v.Studies {
		writeStudyText(sv, bw)
	}
	for _, n := range v.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	return bw.Flush()
}

func writeStudyText(sv *view.Study, w *bufio.Writer) {
	if sv.Matrix != nil {
		fmt.Fprintf(w, "\n%s\n", sv.Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "case\t"+strings.Join(sv.Targets, "\t"))
		for _, r := range sv.Matrix {
			row := []string{r.Case.Name}
			for _, c := range r.Cells {
				row = append(row, oneLineText(c.Text))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	// Rows by case: the headline metrics, then the others.
	byCase := map[string][]*view.Row{}
	for _, t := range sv.Tables {
		for _, r := range t.Rows {
			byCase[r.Case.Key] = append(byCase[r.Case.Key], r)
		}
	}
	if sv.Others != nil {
		for _, r := range sv.Others.Rows {
			byCase[r.Case.Key] = append(byCase[r.Case.Key], r)
		}
	}
	for _, c := range sv.Cases {
		rows := byCase[c.Key]
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s\n", sv.Name, c.Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		head := []string{"metric"}
		head = append(head, sv.Targets...)
		for _, n := range sv.Targets[min(1, len(sv.Targets)):] {
			head = append(head, n+" vs "+sv.Targets[0])
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range rows {
			line := []string{r.Metric}
			for _, c := range r.Values {
				line = append(line, textCell(c))
			}
			for _, c := range r.Changes {
				line = append(line, textCell(c))
			}
			fmt.Fprintln(tw, strings.Join(line, "\t"))
		}
		tw.Flush()
	}
	if len(sv.General) > 0 || len(sv.Foot) > 0 || len(sv.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, g := range sv.General {
		fmt.Fprintf(w, "  every figure: %s\n", g)
	}
	for i, f := range sv.Foot {
		fmt.Fprintf(w, "  %s %s\n", view.Superscript(i+1), oneLineText(f))
	}
	for _, n := range sv.Notes {
		fmt.Fprintf(w, "  note: %s\n", oneLineText(n))
	}
	if l := sv.LeftOut(); l != "" {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

func textCell(c view.Cell) string {
	t := oneLineText(c.Text)
	if len(c.Marks) > 0 {
		t += " " + view.MarksText(c.Marks)
	}
	return t
}

// oneLineText keeps a text on one line and without tabs, for tabwriter.
func oneLineText(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ").Replace(s)
}
