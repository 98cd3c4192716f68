package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// stderrReader reads a stderr log (logging_collector's or a redirected
// one) whose lines begin with a known log_line_prefix: a message is a
// prefixed line with a severity label ("LOG:  "), the lines of its text
// after the first begin with a tab, and its DETAIL, HINT, CONTEXT and
// STATEMENT lines carry the prefix again.
type stderrReader struct {
	lines lineReader
	file  string
	pfx   *prefix
	tp    *timeParser
	bad   int64
	taken int64

	held    entry // a message read ahead: the next one
	hasHeld bool
	fields  [3][]byte // message, detail, query of the message being read
	last    int       // the field continuation lines go to
}

func newStderrReader(r *bufio.Reader, file string, pfx *prefix, tp *timeParser) *stderrReader {
	return &stderrReader{lines: lineReader{r: r}, file: file, pfx: pfx, tp: tp}
}

func (s *stderrReader) stats() readStats { return readStats{unknown: s.bad} }

const (
	fMessage = iota
	fDetail
	fQuery
)

// attach maps continuation labels to the field they fill (-1: dropped).
var attach = map[string]int{"DETAIL": fDetail, "STATEMENT": fQuery, "HINT": -1, "QUERY": -1, "CONTEXT": -1, "LOCATION": -1}

// next returns the next message with its continuation lines.
func (s *stderrReader) next(e *entry) error {
	if !s.hasHeld {
		if err := s.readStart(); err != nil {
			return err
		}
	}
	*e = s.held
	s.hasHeld = false
	for {
		line, _, err := s.lines.next()
		if errors.Is(err, io.EOF) {
			s.finish(e)
			return nil
		}
		if err != nil {
			return &inputError{s.file, s.lines.n, err}
		}
		if len(line) > 0 && line[0] == '\t' {
			s.appendLine(line[1:])
			continue
		}
		var n entry
		rest, ok := s.pfx.match(string(line), s.tp, &n)
		label, ln, starts := labelAt(rest)
		switch {
		case !ok || ln == 0:
			s.bad++
		case starts:
			s.finish(e)
			s.startMessage(&n, label, rest[ln:])
			return nil
		case n.pid == e.pid && n.session == e.session:
			s.last = attach[label]
			if s.last >= 0 {
				s.fields[s.last] = append(s.fields[s.last][:0], rest[ln:]...)
			}
		default:
			s.bad++ // a continuation of another process's message
		}
	}
}

// readStart reads up to the first message of the file, which must come
// first (or the file is not a stderr log with this prefix).
func (s *stderrReader) readStart() error {
	for {
		line, _, err := s.lines.next()
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		if err != nil {
			return &inputError{s.file, s.lines.n, err}
		}
		var n entry
		rest, ok := s.pfx.match(string(line), s.tp, &n)
		label, ln, starts := labelAt(rest)
		if ok && ln > 0 && starts {
			s.startMessage(&n, label, rest[ln:])
			return nil
		}
		if s.taken == 0 {
			return &inputError{s.file, s.lines.n, fmt.Errorf("not a stderr log line with log_line_prefix %q", s.pfx.text)}
		}
		s.bad++
	}
}

// startMessage holds n, the first line of a message, as the next one.
func (s *stderrReader) startMessage(n *entry, label, text string) {
	if len(text) > 7 && text[5] == ':' && text[6] == ' ' && isSQLState(text[:5]) {
		n.sqlstate, text = text[:5], text[7:] // log_error_verbosity = verbose
	}
	n.severity = label
	n.line = s.lines.n
	s.held, s.hasHeld = *n, true
	s.fields[fMessage] = append(s.fields[fMessage][:0], text...)
	s.fields[fDetail] = s.fields[fDetail][:0]
	s.fields[fQuery] = s.fields[fQuery][:0]
	s.last = fMessage
	s.taken++
}

// appendLine adds a continuation line to the field being read.
func (s *stderrReader) appendLine(text []byte) {
	if s.last < 0 {
		return
	}
	if len(s.fields[s.last]) > MaxRecord {
		return
	}
	s.fields[s.last] = append(append(s.fields[s.last], '\n'), text...)
}

// finish sets e's message, detail and statement from the lines read.
func (s *stderrReader) finish(e *entry) {
	e.message = string(s.fields[fMessage])
	e.detail = string(s.fields[fDetail])
	e.query = string(s.fields[fQuery])
}

func isSQLState(s string) bool {
	return runLen(s, 0, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == len(s)
}
