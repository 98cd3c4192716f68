package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogPlace: the log files of a server's log directory, by format,
// whatever logging_collector is now; its standard error when there are
// none and the collector is off.
func TestLogPlace(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"pg-1.csv", "pg-0.csv.gz", "pg-1.json", "pg-1.log", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()
	p := LogPlace{Collector: true, Dir: dir, Stderr: "/srv/server.log", Prefix: "%m [%p] "}
	tests := []struct {
		place          LogPlace
		format, prefix string
		want           string // files, then format and prefix; or the error
	}{
		{p, "", "", "pg-0.csv.gz pg-1.csv csvlog "},
		{p, JSONLog, "", "pg-1.json jsonlog "},
		{p, Stderr, "", "pg-1.log stderr %m [%p] "},
		{p, Stderr, "%m %c ", "pg-1.log stderr %m %c "},
		{LogPlace{Collector: false, Dir: dir, Stderr: "/srv/server.log"}, "", "", "pg-0.csv.gz pg-1.csv csvlog "},
		{LogPlace{Collector: false, Dir: empty, Stderr: "/srv/server.log", Prefix: "%m [%p] "}, "", "", "/srv/server.log stderr %m [%p] "},
		{LogPlace{Collector: false, Dir: filepath.Join(empty, "none"), Stderr: "/srv/server.log"}, CSVLog, "", "logging_collector is off"},
		{LogPlace{Collector: true, Dir: empty}, "", "", "no log file in the server's log directory"},
		{p, "syslog", "", `unknown log format "syslog"`},
	}
	for _, tt := range tests {
		files, format, prefix, err := tt.place.Files(tt.format, tt.prefix)
		got := ""
		for _, f := range files {
			got += strings.TrimPrefix(f, dir+"/") + " "
		}
		got += format + " " + prefix
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%+v %q %q: %q, want %q", tt.place, tt.format, tt.prefix, got, tt.want)
		}
	}
}
