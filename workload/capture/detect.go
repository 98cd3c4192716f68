package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// logFile is a log file probed: its format and first time stamp.
type logFile struct {
	path    string
	size    int64
	format  string
	version string // csvlog: the server versions of its field count
	prefix  *prefix
	first   int64 // first message's time, µs since the epoch
}

// probeAll probes every file, leaves out empty ones and orders the rest by
// their first time stamp.
func probeAll(opts Options, tp *timeParser) ([]*logFile, error) {
	var pfx *prefix
	switch {
	case opts.Prefix != "" && opts.Format != "" && opts.Format != Stderr:
		return nil, fmt.Errorf("--prefix is for stderr logs, not %s", opts.Format)
	case opts.Format != "" && opts.Format != CSVLog && opts.Format != JSONLog && opts.Format != Stderr:
		return nil, fmt.Errorf("unknown log format %q: want csvlog, jsonlog or stderr", opts.Format)
	}
	text := opts.Prefix
	if text == "" {
		text = DefaultPrefix
	}
	pfx, err := compilePrefix(text)
	if err != nil {
		return nil, err
	}
	var files []*logFile
	for _, path := range opts.Files {
		f, err := probe(path, opts, pfx, tp)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue
		}
		if len(files) > 0 && f.format != files[0].format {
			return nil, fmt.Errorf("%s is a %s log but %s is a %s log: give logs of one format", files[0].path, files[0].format, f.path, f.format)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no log message in %s", strings.Join(opts.Files, ", "))
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].first < files[j].first })
	return files, nil
}

// probe detects a file's format (unless given) and reads its first
// message; nil for an empty file.
func probe(path string, opts Options, pfx *prefix, tp *timeParser) (*logFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, readError(path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a log file", path)
	}
	fh, br, err := openLog(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	peek, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: read: %w", path, err)
	}
	if len(bytes.TrimSpace(peek)) == 0 {
		return nil, nil
	}
	if bytes.HasPrefix(peek, []byte(`{"format":"pglab-workload"`)) {
		return nil, fmt.Errorf("%s is a pglab workload file, not a server log", path)
	}
	f := &logFile{path: path, size: st.Size(), format: opts.Format, prefix: pfx}
	if f.format == "" {
		if f.format, err = detect(path, peek, pfx); err != nil {
			return nil, err
		}
	}
	rd := f.reader(br, opts, tp)
	var e entry
	if err := rd.next(&e); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	f.first = e.time
	if c, ok := rd.(*csvReader); ok {
		f.version = csvVersions[c.cols]
	}
	if f.format == JSONLog {
		f.version = "15+"
	}
	return f, nil
}

// detect tells a log's format from its first bytes.
func detect(path string, peek []byte, pfx *prefix) (string, error) {
	var e entry
	tp := &timeParser{}
	if peek[0] == '{' {
		return JSONLog, nil
	}
	if newCSVReader(bufio.NewReader(bytes.NewReader(peek)), path, tp).next(&e) == nil {
		return CSVLog, nil
	}
	if newStderrReader(bufio.NewReader(bytes.NewReader(peek)), path, pfx, tp).next(&e) == nil {
		return Stderr, nil
	}
	return "", fmt.Errorf("%s: unknown log format: its first line is not csvlog, jsonlog, nor stderr with log_line_prefix %q (give --log-format, and --prefix for a stderr log)",
		path, pfx.text)
}

// reader returns the reader of the file's format over br.
func (f *logFile) reader(br *bufio.Reader, opts Options, tp *timeParser) logReader {
	switch f.format {
	case CSVLog:
		r := newCSVReader(br, f.path, tp)
		r.allowTruncated = opts.AllowTruncated
		return r
	case JSONLog:
		r := newJSONReader(br, f.path, tp)
		r.allowTruncated = opts.AllowTruncated
		return r
	}
	return newStderrReader(br, f.path, f.prefix, tp)
}

// open opens the file for reading from its start.
func (f *logFile) open(opts Options, tp *timeParser) (io.Closer, logReader, error) {
	fh, br, err := openLog(f.path)
	if err != nil {
		return nil, nil, err
	}
	return fh, f.reader(br, opts, tp), nil
}

// openLog opens a log file, through gzip when it is compressed.
func openLog(path string) (*os.File, *bufio.Reader, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, readError(path, err)
	}
	br := bufio.NewReaderSize(fh, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			fh.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	return fh, br, nil
}

// readError says that path cannot be read, naming it once.
func readError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: cannot read: %w", path, err)
}
