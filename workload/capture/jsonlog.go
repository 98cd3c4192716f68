package capture

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jsonLine holds the jsonlog keys the capture reads (src/backend/utils/
// error/jsonlog.c, PostgreSQL 15+); a key is absent when its value is NULL.
type jsonLine struct {
	Timestamp   string `json:"timestamp"`
	User        string `json:"user"`
	DBName      string `json:"dbname"`
	PID         int64  `json:"pid"`
	SessionID   string `json:"session_id"`
	PS          string `json:"ps"`
	Severity    string `json:"error_severity"`
	StateCode   string `json:"state_code"`
	Message     string `json:"message"`
	Detail      string `json:"detail"`
	Statement   string `json:"statement"`
	Application string `json:"application_name"`
	BackendType string `json:"backend_type"`
	QueryID     int64  `json:"query_id"`
}

// jsonReader reads PostgreSQL's jsonlog: one JSON object per line.
type jsonReader struct {
	lines          lineReader
	file           string
	tp             *timeParser
	bad, truncated int64
	taken          int64
	allowTruncated bool
}

func newJSONReader(r *bufio.Reader, file string, tp *timeParser) *jsonReader {
	return &jsonReader{lines: lineReader{r: r}, file: file, tp: tp}
}

func (j *jsonReader) stats() readStats { return readStats{unknown: j.bad, truncated: j.truncated} }

// next reads the next line that is a jsonlog object; the first line must
// be one, later ones that are not are counted.
func (j *jsonReader) next(e *entry) error {
	for {
		line, complete, err := j.lines.next()
		if err != nil {
			return j.wrap(err)
		}
		var l jsonLine
		if err := json.Unmarshal(line, &l); err != nil || l.Timestamp == "" {
			switch {
			case !complete && j.allowTruncated:
				j.truncated++
				continue
			case !complete:
				return &inputError{j.file, j.lines.n, errTruncated}
			case j.taken == 0:
				return &inputError{j.file, j.lines.n, errors.New("not a jsonlog line (one JSON object with a timestamp)")}
			}
			j.bad++
			continue
		}
		t, err := j.tp.parse(l.Timestamp)
		if err != nil {
			j.bad++
			continue
		}
		*e = entry{time: t, user: l.User, db: l.DBName, pid: strconv.FormatInt(l.PID, 10), session: l.SessionID,
			tag: l.PS, severity: l.Severity, sqlstate: l.StateCode, message: l.Message, detail: l.Detail,
			query: l.Statement, app: l.Application, backend: l.BackendType, queryID: l.QueryID, line: j.lines.n}
		j.taken++
		return nil
	}
}

func (j *jsonReader) wrap(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return &inputError{j.file, j.lines.n, err}
}

// lineReader reads lines of any length up to MaxRecord.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	n   int64 // lines read
}

// next returns the next line without its newline (valid until the next
// call) and whether it ended with one; io.EOF at the end.
func (l *lineReader) next() (line []byte, complete bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		switch {
		case err == nil && len(l.buf) == 0:
			l.n++
			return trimCR(chunk[:len(chunk)-1]), true, nil
		case err == nil:
			l.buf = append(l.buf, chunk...)
			l.n++
			return trimCR(l.buf[:len(l.buf)-1]), true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, chunk...)
			if len(l.buf) > MaxRecord {
				return nil, false, fmt.Errorf("a line longer than %d MB", MaxRecord>>20)
			}
		case errors.Is(err, io.EOF):
			l.buf = append(l.buf, chunk...)
			if len(l.buf) == 0 {
				return nil, false, io.EOF
			}
			l.n++
			return l.buf, false, nil
		default:
			return nil, false, fmt.Errorf("read: %w", err)
		}
	}
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
