package capture

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LogPlace is where a server writes its log, as its settings say: the
// log directory when the logging collector runs, the file its standard
// error goes to otherwise (a managed instance's server.log).
type LogPlace struct {
	// Collector tells that logging_collector is on: the log files are in
	// Dir.
	Collector bool
	// Dir is the log directory (log_directory, absolute).
	Dir string
	// Stderr is the file the server's standard error goes to.
	Stderr string
	// Prefix is the server's log_line_prefix, for its stderr lines.
	Prefix string
}

// logExt are the file names of each format in a log directory (and their
// gzip-compressed forms).
var logExt = map[string]string{CSVLog: ".csv", JSONLog: ".json", Stderr: ".log"}

// Files returns the log files of a format in the place, with the format
// and, for stderr, the prefix to read them with (given, else the
// server's): the files of that format in the log directory (any format
// given as "": csvlog, else jsonlog, else stderr files), whatever
// logging_collector is now (a capture's settings reverted turn it off for
// the next restart); without such files and without the collector, the
// server's standard error.
func (p LogPlace) Files(format, prefix string) (files []string, _ string, _ string, err error) {
	if format != "" && logExt[format] == "" {
		return nil, "", "", fmt.Errorf("unknown log format %q: want csvlog, jsonlog or stderr", format)
	}
	byFormat := map[string][]string{}
	ents, err := os.ReadDir(p.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", "", fmt.Errorf("the server's log directory: %w", err)
	}
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".gz")
		for f, ext := range logExt {
			if e.Type().IsRegular() && strings.HasSuffix(name, ext) {
				byFormat[f] = append(byFormat[f], filepath.Join(p.Dir, e.Name()))
			}
		}
	}
	for _, f := range []string{CSVLog, JSONLog, Stderr} {
		if format == "" && len(byFormat[f]) > 0 {
			format = f
		}
	}
	switch files = byFormat[format]; {
	case len(files) > 0:
		sort.Strings(files)
	case !p.Collector && (format == "" || format == Stderr):
		files, format = []string{p.Stderr}, Stderr
	case !p.Collector:
		return nil, "", "", fmt.Errorf("no %s file in the server's log directory %s, and logging_collector is off (run the lines of pglab capture --settings, then restart the server)", format, p.Dir)
	default:
		return nil, "", "", fmt.Errorf("no %s file in the server's log directory %s", cmp.Or(format, "log"), p.Dir)
	}
	if format == Stderr {
		prefix = orElse(prefix, p.Prefix)
	}
	return files, format, prefix, nil
}
