package capture

import (
	"fmt"
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

// Files returns the log files of a format ("" for csvlog when the
// directory holds csvlog files, else jsonlog, else stderr) in the place,
// with the format and, for stderr, the prefix to read them with (given,
// else the server's).
func (p LogPlace) Files(format, prefix string) (files []string, _ string, _ string, err error) {
	if format != "" && logExt[format] == "" {
		return nil, "", "", fmt.Errorf("unknown log format %q: want csvlog, jsonlog or stderr", format)
	}
	if !p.Collector {
		if format != "" && format != Stderr {
			return nil, "", "", fmt.Errorf("the server writes no %s: logging_collector is off (run the lines of pglab capture --settings, then restart it)", format)
		}
		return []string{p.Stderr}, Stderr, orElse(prefix, p.Prefix), nil
	}
	byFormat := map[string][]string{}
	ents, err := os.ReadDir(p.Dir)
	if err != nil {
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
	if format == "" {
		for _, f := range []string{CSVLog, JSONLog, Stderr} {
			if len(byFormat[f]) > 0 {
				format = f
				break
			}
		}
	}
	files = byFormat[format]
	if len(files) == 0 {
		what := "no log file"
		if format != "" {
			what = "no " + format + " file (*" + logExt[format] + ")"
		}
		return nil, "", "", fmt.Errorf("%s in the server's log directory %s", what, p.Dir)
	}
	sort.Strings(files)
	if format == Stderr {
		prefix = orElse(prefix, p.Prefix)
	}
	return files, format, prefix, nil
}
