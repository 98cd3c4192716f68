package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/workload"
	"github.com/pglab/pglab/workload/sqltext"
)

// Log formats.
const (
	CSVLog  = "csvlog"
	JSONLog = "jsonlog"
	Stderr  = "stderr"
)

// Options say what to capture.
type Options struct {
	// Files are the server's log files, in any order (they are read in the
	// order of their first time stamps); gzip-compressed ones are read as
	// they are.
	Files []string
	// Out is the workload file to write (gzip when it ends in .gz).
	Out string
	// Format is csvlog, jsonlog or stderr; "" detects it from the first
	// file.
	Format string
	// Prefix is a stderr log's log_line_prefix; "" means DefaultPrefix.
	Prefix string
	// Database keeps only the sessions of one database; "" keeps all.
	Database string
	// SystemIdentifier is the logging server's system identifier, recorded
	// for the replay's safety check (the logs do not carry it).
	SystemIdentifier string
	// AllowTruncated counts a truncated last record of a file instead of
	// failing (a log still being written).
	AllowTruncated bool
	// CreatedBy names the program in the workload's header.
	CreatedBy string
}

// Counts are a capture's statements by kind.
type Counts struct {
	Statements int64 // taken
	Extended   int64 // of which through the extended protocol
	WithParams int64 // of which with bind parameters
	Errors     int64 // of which failed
	Redacted   int64 // of which had a password masked
	// WithQueryID counts those whose log line gave the server's query id.
	WithQueryID int64
}

func (c *Counts) add(st *workload.Statement) {
	c.Statements++
	if st.Protocol == workload.Extended {
		c.Extended++
	}
	if st.Params != nil {
		c.WithParams++
	}
	if st.Error != "" {
		c.Errors++
	}
	if st.QueryID != 0 {
		c.WithQueryID++
	}
}

// QueryIDs says how many statements carry the server's query id, or why
// none does; "" for a log that cannot carry one.
func (s *Summary) QueryIDs() string {
	switch {
	case s.WithQueryID > 0:
		return fmt.Sprintf("%s of %s statements (the server's query_id, pg_stat_statements' queryid)", units.Count(s.WithQueryID), units.Count(s.Statements))
	case s.Statements == 0 || s.ServerVersion == "13" || s.ServerVersion == "≤12" || (s.Format == Stderr && !s.prefixQueryID):
		return ""
	}
	return "none (the server computed none: compute_query_id was off; pglab capture --settings turns it on)"
}

// Summary is what a capture took and skipped.
type Summary struct {
	Format        string
	ServerVersion string
	Files         int
	Bytes         int64 // log bytes read (compressed size for gzip files)
	Entries       int64 // log messages read
	Sessions      int64
	Fingerprints  int64
	Counts
	// First and Last bound the statements: the first one's start and the
	// last one's end (zero without statements).
	First, Last time.Time
	Skipped     []workload.Skip
	// UnknownZones are time zone abbreviations taken as UTC.
	UnknownZones []string
	// prefixQueryID tells that a stderr log's prefix has the query id (%Q).
	prefixQueryID bool
	Out           string
	OutBytes      int64
}

// Capture reads the logs and writes the workload. On any error nothing is
// left under Out's name.
func Capture(ctx context.Context, opts Options) (*Summary, error) {
	if len(opts.Files) == 0 {
		return nil, errors.New("no log file given")
	}
	tp := &timeParser{}
	files, err := probeAll(opts, tp)
	if err != nil {
		return nil, err
	}
	format := files[0].format
	h := header(opts, files)
	fw, err := workload.CreateFile(opts.Out, h)
	if err != nil {
		return nil, err
	}
	sum, err := run(ctx, opts, files, fw, tp)
	if err != nil {
		fw.Abort()
		return nil, err
	}
	end, err := fw.Commit(sum.Skipped, sum.Redacted)
	if err != nil {
		return nil, err
	}
	sum.Format, sum.ServerVersion, sum.Out = format, h.Source.ServerVersion, opts.Out
	sum.prefixQueryID = format == Stderr && files[0].prefix.has['Q']
	sum.Sessions, sum.Fingerprints = end.Sessions, end.Fingerprints
	if end.Statements > 0 {
		sum.First = h.Origin.Add(time.Duration(end.FirstUS) * time.Microsecond)
		sum.Last = h.Origin.Add(time.Duration(end.LastUS) * time.Microsecond)
	}
	if st, err := os.Stat(opts.Out); err == nil {
		sum.OutBytes = st.Size()
	}
	return sum, nil
}

// header describes the workload's source.
func header(opts Options, files []*logFile) workload.Header {
	host, _ := os.Hostname()
	src := workload.Source{Format: files[0].format, ServerVersion: files[0].version, Host: host,
		SystemIdentifier: opts.SystemIdentifier}
	if src.Format == Stderr {
		src.Prefix = files[0].prefix.text
	}
	for _, f := range files {
		abs, err := filepath.Abs(f.path)
		if err != nil {
			abs = f.path
		}
		src.Files = append(src.Files, workload.SourceFile{Path: abs, Bytes: f.size})
	}
	if src.SystemIdentifier == "" {
		src.Note = "the server's system identifier is unknown (logs do not carry it; give it with --system-identifier, from SELECT system_identifier FROM pg_control_system()): the replay cannot check that a target is not the server the log came from"
	}
	return workload.Header{CreatedBy: opts.CreatedBy, Created: time.Now().UTC().Truncate(time.Second),
		Fingerprint: sqltext.Algorithm, Origin: time.UnixMicro(files[0].first).UTC(), Database: opts.Database, Source: src}
}

// run reads every file into the writer.
func run(ctx context.Context, opts Options, files []*logFile, out sink, tp *timeParser) (*Summary, error) {
	keyByPID := files[0].format == Stderr && !files[0].prefix.has['c']
	a := newAssembler(out, files[0].first, opts.Database, keyByPID)
	sum := &Summary{Files: len(files)}
	var stats readStats
	for _, f := range files {
		st, n, err := readFile(ctx, f, opts, tp, a)
		if err != nil {
			return nil, err
		}
		stats.unknown += st.unknown
		stats.truncated += st.truncated
		sum.Entries += n
		sum.Bytes += f.size
	}
	if err := a.finish(); err != nil {
		return nil, err
	}
	a.skips[SkipUnknownShape] += stats.unknown
	a.skips[SkipTruncated] += stats.truncated
	sum.Counts = a.counts
	sum.Skipped = skipList(a.skips)
	for z := range tp.unknown {
		sum.UnknownZones = append(sum.UnknownZones, z)
	}
	sort.Strings(sum.UnknownZones)
	return sum, nil
}

// readFile reads one file's entries into the assembler.
func readFile(ctx context.Context, f *logFile, opts Options, tp *timeParser, a *assembler) (readStats, int64, error) {
	fh, rd, err := f.open(opts, tp)
	if err != nil {
		return readStats{}, 0, err
	}
	defer fh.Close()
	var e entry
	var n int64
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return readStats{}, n, ctx.Err()
		}
		err := rd.next(&e)
		if errors.Is(err, io.EOF) {
			return rd.stats(), n, f.mostlyUnknown(rd.stats(), n)
		}
		if err != nil {
			return readStats{}, n, err
		}
		n++
		if err := a.handle(&e); err != nil {
			return readStats{}, n, fmt.Errorf("write workload: %w", err)
		}
	}
}

// skipList orders the counts that are not zero by reason.
func skipList(m map[string]int64) []workload.Skip {
	var out []workload.Skip
	for r, n := range m {
		if n > 0 {
			out = append(out, workload.Skip{Reason: r, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// mostlyUnknown refuses a file where lines of unknown shape outnumber the
// messages read: a log of another format or prefix, whose first line only
// happened to fit.
func (f *logFile) mostlyUnknown(st readStats, n int64) error {
	if st.unknown <= n {
		return nil
	}
	what := fmt.Sprintf("are not %s records", f.format)
	if f.format == Stderr {
		what = fmt.Sprintf("do not begin with log_line_prefix %q (give the server's log_line_prefix with --prefix)", f.prefix.text)
	}
	return fmt.Errorf("%s: %d lines %s, more than the %d messages read: not a log pglab can read this way", f.path, st.unknown, what, n)
}
