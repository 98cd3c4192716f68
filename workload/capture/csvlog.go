package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxRecord is the longest log record (a csvlog record, a jsonlog line, a
// stderr message with its continuation lines) the capture reads; a longer
// one is an error rather than unbounded memory.
const MaxRecord = 256 << 20

// csvlog columns: the order of write_csvlog() (src/backend/utils/error/
// csvlog.c); 23 columns up to 12, backend_type added in 13, leader_pid and
// query_id in 14.
const (
	csvLogTime = iota
	csvUser
	csvDatabase
	csvPID
	csvConnFrom
	csvSession
	csvLineNum
	csvTag
	csvSessionStart
	csvVXID
	csvXID
	csvSeverity
	csvSQLState
	csvMessage
	csvDetail
	csvHint
	csvInternalQuery
	csvInternalPos
	csvContext
	csvQuery
	csvQueryPos
	csvLocation
	csvApp
	csvBackendType // 13+
	csvLeaderPID   // 14+
	csvQueryID     // 14+
)

// csvVersions tells the server versions that write records of a field
// count.
var csvVersions = map[int]string{23: "≤12", 24: "13", 26: "14+"}

// csvReader reads PostgreSQL's csvlog: RFC 4180 records whose quoted
// fields may span lines, an empty unquoted field for NULL.
type csvReader struct {
	r     *bufio.Reader
	file  string
	tp    *timeParser
	line  int64 // lines read
	cols  int   // the file's field count, from its first record
	bad   int64 // records of another shape
	taken int64 // records read
	// allowTruncated turns a truncated last record into a counted line.
	allowTruncated bool
	truncated      int64

	rec       []byte // the record's fields, unescaped, end to end
	ends      []int  // each field's end in rec
	inQuote   bool
	quoteSeen bool // a quote inside a quoted field: closes it unless doubled
}

func newCSVReader(r *bufio.Reader, file string, tp *timeParser) *csvReader {
	return &csvReader{r: r, file: file, tp: tp}
}

func (c *csvReader) stats() readStats { return readStats{unknown: c.bad, truncated: c.truncated} }

// next reads the next record of the file's shape into e, skipping (and
// counting) records of another field count or without a timestamp. The
// file's first record decides its shape and must be a csvlog record.
func (c *csvReader) next(e *entry) error {
	for {
		start, err := c.readRecord()
		if err != nil {
			return err
		}
		n := len(c.ends)
		if c.cols == 0 {
			if _, ok := csvVersions[n]; !ok {
				return &inputError{c.file, start, fmt.Errorf("not a csvlog record: %d fields (PostgreSQL writes 23, 24 or 26)", n)}
			}
			c.cols = n
		}
		if n != c.cols {
			c.bad++
			continue
		}
		if err := c.fill(e); err != nil {
			if c.taken == 0 {
				return &inputError{c.file, start, err}
			}
			c.bad++
			continue
		}
		e.line = start
		c.taken++
		return nil
	}
}

// fill maps the record's fields onto e.
func (c *csvReader) fill(e *entry) error {
	s := string(c.rec)
	f := func(i int) string {
		from := 0
		if i > 0 {
			from = c.ends[i-1]
		}
		return s[from:c.ends[i]]
	}
	t, err := c.tp.parse(f(csvLogTime))
	if err != nil {
		return err
	}
	*e = entry{time: t, user: f(csvUser), db: f(csvDatabase), pid: f(csvPID), session: f(csvSession),
		tag: f(csvTag), severity: f(csvSeverity), sqlstate: f(csvSQLState), message: f(csvMessage),
		detail: f(csvDetail), query: f(csvQuery), app: f(csvApp)}
	if c.cols > csvBackendType {
		e.backend = f(csvBackendType)
	}
	if c.cols > csvQueryID {
		e.queryID, _ = strconv.ParseInt(f(csvQueryID), 10, 64)
	}
	return nil
}

// readRecord reads one record into rec and ends and returns the line it
// began on; io.EOF at the end of the file.
func (c *csvReader) readRecord() (int64, error) {
	c.rec, c.ends = c.rec[:0], c.ends[:0]
	c.inQuote, c.quoteSeen = false, false
	start := c.line + 1
	for {
		chunk, err := c.r.ReadSlice('\n')
		if len(chunk) > 0 && c.scan(chunk) {
			c.line++
			return start, nil
		}
		if len(c.rec) > MaxRecord {
			return start, &inputError{c.file, start, fmt.Errorf("a record longer than %d MB", MaxRecord>>20)}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			if err == nil {
				c.line++ // a newline inside a quoted field
			}
			continue
		case errors.Is(err, io.EOF):
			return c.atEOF(start)
		default:
			return start, &inputError{c.file, 0, fmt.Errorf("read: %w", err)}
		}
	}
}

// atEOF ends the file: nothing pending is a clean end; a last record
// without its newline is taken when it is whole (its quotes closed, the
// file's field count) and is a truncated record otherwise.
func (c *csvReader) atEOF(start int64) (int64, error) {
	if len(c.rec) == 0 && len(c.ends) == 0 && !c.inQuote {
		return start, io.EOF
	}
	if !c.inQuote || c.quoteSeen {
		c.ends = append(c.ends, len(c.rec))
		if len(c.ends) == c.cols || c.cols == 0 {
			c.inQuote = false
			return start, nil
		}
	}
	if c.allowTruncated {
		c.truncated++
		c.rec, c.ends, c.inQuote = c.rec[:0], c.ends[:0], false
		return start, io.EOF
	}
	return start, &inputError{c.file, start, errTruncated}
}

// scan consumes a chunk of the record (ReadSlice's: a newline only at its
// end) and reports whether the record ended with it.
func (c *csvReader) scan(chunk []byte) bool {
	i := 0
	for i < len(chunk) {
		if c.inQuote {
			if c.quoteSeen {
				c.quoteSeen = false
				if chunk[i] == '"' {
					c.rec = append(c.rec, '"')
					i++
					continue
				}
				c.inQuote = false
				continue
			}
			j := bytes.IndexByte(chunk[i:], '"')
			if j < 0 {
				c.rec = append(c.rec, chunk[i:]...)
				return false
			}
			c.rec = append(c.rec, chunk[i:i+j]...)
			i += j + 1
			c.quoteSeen = true
			continue
		}
		switch chunk[i] {
		case '"':
			c.inQuote = true
			i++
		case ',':
			c.ends = append(c.ends, len(c.rec))
			i++
		case '\n':
			c.ends = append(c.ends, len(c.rec))
			return true
		case '\r':
			if i+1 < len(chunk) && chunk[i+1] == '\n' {
				i++ // CRLF, as a copied file may have
				continue
			}
			c.rec = append(c.rec, '\r')
			i++
		default:
			j := i + 1
			for j < len(chunk) && chunk[j] != ',' && chunk[j] != '"' && chunk[j] != '\n' && chunk[j] != '\r' {
				j++
			}
			c.rec = append(c.rec, chunk[i:j]...)
			i = j
		}
	}
	return false
}
