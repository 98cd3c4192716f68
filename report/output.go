package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pglab/pglab/report/runs"
)

// Output is where 'pglab report' writes a report: into a directory, into
// a file, or to standard output (Path empty), and in which formats.
type Output struct {
	Path string
	// Dir: Path is a directory (it exists, or the name ends in /).
	Dir bool
	// Formats are the formats asked for; nil for the default ones
	// (DirFormats into a directory, Markdown elsewhere).
	Formats []Format
}

// ParseOutput reads --out PATH with the --format given (nil for none): a
// file's format is the one given, else its extension's; a file's
// directory must exist. Its errors are one line about --out.
func ParseOutput(path string, formats []Format) (Output, error) {
	o := Output{Path: path, Formats: formats}
	if path == "" {
		return o, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() || strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(os.PathSeparator)) {
		o.Dir = true
		return o, nil
	}
	if formats == nil {
		f, ok := FormatOfFile(path)
		if !ok {
			return o, fmt.Errorf("--out %s: cannot tell the format from the file name: name it .md, .html, .json, .csv, .txt or .xml (JUnit), or give --format", path)
		}
		o.Formats = []Format{f}
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return o, fmt.Errorf("--out %s: directory %s does not exist", path, filepath.Dir(path))
	}
	return o, nil
}

// Printed reports whether the output is the GitHub job summary on
// standard output (so that it is not appended to $GITHUB_STEP_SUMMARY as
// well).
func (o Output) Printed() bool {
	return o.Path == "" && len(o.Formats) == 1 && o.Formats[0] == GitHub
}

// Write writes report d where o says, and returns the files written (none
// for standard output, w); failOn makes the GitHub format's annotations
// errors.
func (o Output) Write(w io.Writer, d *runs.Dataset, failOn bool) ([]string, error) {
	switch {
	case o.Dir:
		return WriteDir(o.Path, d, o.Formats...)
	case o.Path != "":
		return []string{o.Path}, WriteFile(o.Path, d, o.Formats[0])
	case o.Formats == nil:
		return nil, Write(w, d, Markdown)
	case o.Formats[0] == GitHub:
		return nil, WriteGitHub(w, d, failOn)
	}
	return nil, Write(w, d, o.Formats[0])
}
