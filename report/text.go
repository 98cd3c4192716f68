package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/compare"
)

// CaseTitle formats a case's labels, e.g. "update_pct=95 index=yes".
func CaseTitle(labels map[string]string) string {
	if len(labels) == 0 {
		return "(all)"
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, " ")
}

// WriteText writes a plain-text table per study and case: one row per
// metric, a column per target (median ± CI), and with two or more targets
// the change against the first, with p and n. Warnings follow each table as
// numbered footnotes.
func WriteText(w io.Writer, d *Dataset) error {
	names := d.TargetNames()
	for _, sg := range d.Groups() {
		for _, n := range d.Notes {
			if !n.Outcome && n.Study == sg.Study && len(n.Case) == 0 {
				fmt.Fprintf(w, "note (%s): %s\n", n.Target, n.Text)
			}
		}
		if d.hasOutcomes(sg.Study) {
			if err := d.writeMatrix(w, sg, names); err != nil {
				return err
			}
			continue
		}
		for _, cg := range sg.Cases {
			fmt.Fprintf(w, "\n%s: %s\n", sg.Study, CaseTitle(cg.Labels))
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			head := []string{"metric"}
			head = append(head, names...)
			for _, n := range names[1:] {
				head = append(head, n+" vs "+names[0])
			}
			fmt.Fprintln(tw, strings.Join(head, "\t"))
			var notes footnotes
			for _, mg := range cg.Metrics {
				res, err := d.Analyze(mg)
				if err != nil {
					return fmt.Errorf("%s %s %s: %w", sg.Study, CaseTitle(cg.Labels), mg.Name, err)
				}
				row := []string{mg.Name}
				for _, n := range names {
					s, _ := res.Target(n)
					cell := compare.FormatSummary(s, res.Metric)
					cell += notes.mark(s.Warnings)
					row = append(row, cell)
				}
				for _, n := range names[1:] {
					c, ok := res.Change(n)
					if !ok {
						row = append(row, "")
						continue
					}
					cell := c.Text()
					if c.Stats != "" && !mg.Exact {
						cell += " (" + c.Stats + ")"
					}
					cell += notes.mark(c.Warnings)
					row = append(row, cell)
				}
				fmt.Fprintln(tw, strings.Join(row, "\t"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			notes.write(w)
			for _, n := range d.Notes {
				if !n.Outcome && n.Study == sg.Study && len(n.Case) > 0 && CaseTitle(n.Case) == CaseTitle(cg.Labels) {
					fmt.Fprintf(w, "  note (%s): %s\n", n.Target, n.Text)
				}
			}
		}
	}
	return nil
}

// footnotes numbers distinct warnings in order of first use.
type footnotes struct {
	texts []string
}

var superscripts = []string{"¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

func (f *footnotes) mark(warnings []string) string {
	var out string
	for _, w := range warnings {
		idx := -1
		for i, t := range f.texts {
			if t == w {
				idx = i
			}
		}
		if idx < 0 {
			idx = len(f.texts)
			f.texts = append(f.texts, w)
		}
		if idx < len(superscripts) {
			out += " " + superscripts[idx]
		} else {
			out += fmt.Sprintf(" [%d]", idx+1)
		}
	}
	return out
}

func (f *footnotes) write(w io.Writer) {
	for i, t := range f.texts {
		m := fmt.Sprintf("[%d]", i+1)
		if i < len(superscripts) {
			m = superscripts[i]
		}
		fmt.Fprintf(w, "  %s %s\n", m, t)
	}
}

func (d *Dataset) hasOutcomes(study string) bool {
	for _, n := range d.Notes {
		if n.Outcome && n.Study == study {
			return true
		}
	}
	return false
}

// writeMatrix writes a behaviour matrix: one row per case, one column per
// target, each cell the probe's outcome.
func (d *Dataset) writeMatrix(w io.Writer, sg StudyGroup, names []string) error {
	fmt.Fprintf(w, "\n%s\n", sg.Study)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "case\t"+strings.Join(names, "\t"))
	for _, cg := range sg.Cases {
		row := []string{CaseTitle(cg.Labels)}
		for _, n := range names {
			row = append(row, d.outcome(sg.Study, cg.Labels, n))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// outcome returns the outcome text of a case on a target; differing
// outcomes across repetitions are joined with " | ".
func (d *Dataset) outcome(study string, labels map[string]string, target string) string {
	var texts []string
	seen := map[string]bool{}
	title := CaseTitle(labels)
	for _, n := range d.Notes {
		if n.Outcome && n.Study == study && n.Target == target && CaseTitle(n.Case) == title && !seen[n.Text] {
			seen[n.Text] = true
			texts = append(texts, n.Text)
		}
	}
	if len(texts) == 0 {
		return "-"
	}
	return strings.Join(texts, " | ")
}
