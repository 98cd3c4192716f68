package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pglab/pglab/report/internal/words"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// WriteGitHub writes report d for a GitHub Actions step: an annotation
// line per called regression (::error when failOn, the step failing
// with --fail-on regression; ::warning otherwise), then the step summary
// (WriteGitHubSummary).
func WriteGitHub(w io.Writer, d *runs.Dataset, failOn bool) error {
	if err := WriteAnnotations(w, d, failOn); err != nil {
		return err
	}
	return WriteGitHubSummary(w, d)
}

// WriteAnnotations writes one GitHub Actions workflow command per called
// regression of report d: "::error title=…::…" when failOn, else
// "::warning …". The runner turns them into annotations of the run.
func WriteAnnotations(w io.Writer, d *runs.Dataset, failOn bool) error {
	cells, err := Cells(d)
	if err != nil {
		return err
	}
	level := "warning"
	if failOn {
		level = "error"
	}
	bw := bufio.NewWriter(w)
	for _, c := range cells {
		if c.Verdict == Regression {
			fmt.Fprintf(bw, "::%s title=%s::%s\n", level, ghProperty("pglab: regression in "+c.Study), ghData(c.String()))
		}
	}
	return bw.Flush()
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteGitHubSummary writes report d as Markdown for a GitHub Actions job
// summary ($GITHUB_STEP_SUMMARY): a heading that says how many
// regressions, the count of each verdict over the cells compared, a table
// of the called changes, and the report itself (its summary, setup and
// primary tables) folded under a <details>.
func WriteGitHubSummary(w io.Writer, d *runs.Dataset) error {
	cells, err := Cells(d)
	if err != nil {
		return err
	}
	v, err := view.Build(d, view.Options{Brief: true})
	if err != nil {
		return err
	}
	count := map[Verdict]int{}
	for _, c := range cells {
		count[c.Verdict]++
	}
	bw := bufio.NewWriter(w)
	head := "no regression"
	if n := count[Regression]; n > 0 {
		head = words.Plural(n, "regression")
	}
	fmt.Fprintf(bw, "## %s — %s\n\n%s\n\n", mdText(v.Title), head, mdText(v.Subtitle()))
	var parts []string
	for _, vd := range []Verdict{Regression, Improvement, Changed, Same, Unresolved} {
		n := count[vd]
		switch {
		case vd == Regression || vd == Improvement && n > 0:
			parts = append(parts, words.Plural(n, string(vd)))
		case n > 0:
			parts = append(parts, fmt.Sprintf("%d %s", n, vd))
		}
	}
	fmt.Fprintf(bw, "**%s** compared: %s.\n", words.Plural(len(cells), "cell"), strings.Join(parts, ", "))
	rows := 0
	for _, c := range cells {
		if c.Verdict != Regression && c.Verdict != Improvement && c.Verdict != Changed {
			continue
		}
		if rows == 0 {
			fmt.Fprintf(bw, "\n| | study | case | measure | change |\n|---|---|---|---|---|\n")
		}
		rows++
		mdRowRaw(bw, string(c.Verdict), mdText(c.Study), mdText(c.Case), mdText(c.Metric), mdText(c.Target+" vs "+c.Baseline+" "+c.Text))
	}
	fmt.Fprintf(bw, "\n<details><summary>The report: summary, setup and primary tables</summary>\n\n")
	writeReportMarkdown(v, bw)
	fmt.Fprintf(bw, "\n</details>\n\n")
	return bw.Flush()
}

// AppendGitHubSummary appends the step summary of report d
// (WriteGitHubSummary) to the file path, as GitHub Actions reads
// $GITHUB_STEP_SUMMARY: made whole in memory first, then written at once.
func AppendGitHubSummary(path string, d *runs.Dataset) error {
	var b bytes.Buffer
	if err := WriteGitHubSummary(&b, d); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	return nil
}
