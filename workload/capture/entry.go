package capture

import (
	"errors"
	"fmt"
)

// entry is one log message, whatever the log's format: the fields the
// capture reads. Its strings may share memory with the reader's last
// record; what is kept beyond the next read is kept as is (a statement's
// text), which costs no copy.
type entry struct {
	time     int64 // log time, µs since the epoch
	session  string
	pid      string
	user     string
	db       string
	app      string
	backend  string // backend_type ("" when the log does not say)
	tag      string // command tag / ps display (csvlog, jsonlog, %i)
	severity string
	sqlstate string
	message  string
	detail   string
	query    string // the statement of an error (log_min_error_statement)
	queryID  int64  // the server's query id (csvlog and jsonlog 14+, %Q); 0 when not computed
	line     int64  // the file's line where the entry begins
}

// logReader reads entries from one log file.
type logReader interface {
	// next fills e with the next entry; io.EOF after the last.
	next(e *entry) error
	// stats counts what it skipped.
	stats() readStats
}

// readStats counts what a reader skipped.
type readStats struct {
	unknown   int64 // records or lines of unknown shape
	truncated int64 // a truncated last record, with allowTruncated
}

// errTruncated is a log file that ends in the middle of a record.
var errTruncated = errors.New("the file ends in the middle of a record (truncated; --allow-truncated counts it and takes the rest)")

// inputError is bad input at a place in a file.
type inputError struct {
	file string
	line int64
	err  error
}

func (e *inputError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err)
	}
	return fmt.Sprintf("%s: %v", e.file, e.err)
}

func (e *inputError) Unwrap() error { return e.err }
