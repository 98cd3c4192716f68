package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pglab/pglab/report/runs"
)

// Format is an output format of a report.
type Format string

// The formats a report can be written in.
const (
	Markdown  Format = "md"
	HTML      Format = "html"
	JSON      Format = "json"
	CSV       Format = "csv"
	PlainText Format = "text"
	// JUnit is JUnit XML for CI: a test case per cell compared.
	JUnit Format = "junit"
	// GitHub is Markdown for a GitHub Actions job summary (printed on
	// standard output, after an annotation line per regression).
	GitHub Format = "github"
)

// Formats lists every format, in the order help texts name them.
var Formats = []Format{Markdown, HTML, JSON, CSV, PlainText, JUnit, GitHub}

// DirFormats are the formats written into a report directory when none
// are named: what `pglab compare --out DIR` leaves there.
var DirFormats = []Format{Markdown, HTML, JSON}

// ParseFormat parses a format's name: md (or markdown), html (htm), json,
// csv, text (txt), junit (xml), github. Case is ignored.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "md", "markdown":
		return Markdown, nil
	case "html", "htm":
		return HTML, nil
	case "json":
		return JSON, nil
	case "csv":
		return CSV, nil
	case "text", "txt":
		return PlainText, nil
	case "junit", "xml":
		return JUnit, nil
	case "github":
		return GitHub, nil
	}
	return "", fmt.Errorf("unknown report format %q: want %s", s, FormatNames())
}

// FormatNames names the formats for a help text or an error: "md, html,
// json, csv, text, junit or github".
func FormatNames() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FormatOfFile tells a format from a file name's extension (".md",
// ".html", ".json", ".csv", ".txt", ".xml" for JUnit); ok is false for
// other names.
func FormatOfFile(name string) (Format, bool) {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), ".")
	if ext == "" || ext == "text" || ext == "junit" || ext == "github" {
		return "", false
	}
	f, err := ParseFormat(ext)
	return f, err == nil
}

// Ext returns the file extension of the format, with its dot.
func (f Format) Ext() string {
	switch f {
	case PlainText:
		return ".txt"
	case JUnit:
		return ".xml"
	case GitHub:
		return ".github.md"
	}
	return "." + string(f)
}

// Write writes the report in format f.
func Write(w io.Writer, d *runs.Dataset, f Format) error {
	switch f {
	case Markdown:
		return WriteMarkdown(w, d)
	case HTML:
		return WriteHTML(w, d)
	case JSON:
		return WriteJSON(w, d)
	case CSV:
		return WriteCSV(w, d)
	case PlainText:
		return WriteText(w, d)
	case JUnit:
		return WriteJUnit(w, d)
	case GitHub:
		return WriteGitHubSummary(w, d)
	}
	return fmt.Errorf("unknown report format %q", string(f))
}

// WriteFile writes the report in format f to the file path, replacing it
// whole: the report is made in memory first, so that a failure leaves no
// half-written file (and an older report, if there was one, in place).
func WriteFile(path string, d *runs.Dataset, f Format) error {
	var b bytes.Buffer
	if err := Write(&b, d, f); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}

// WriteDir writes the report into directory dir (created if needed) as
// report.md, report.html, report.json … one file per format (DirFormats
// when none are given), and returns the paths written.
func WriteDir(dir string, d *runs.Dataset, formats ...Format) ([]string, error) {
	if len(formats) == 0 {
		formats = DirFormats
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report directory: %w", err)
	}
	var paths []string
	for _, f := range formats {
		p := filepath.Join(dir, "report"+f.Ext())
		if err := WriteFile(p, d, f); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
