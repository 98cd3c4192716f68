package sqlscript

import (
	"strings"

	"github.com/pglab/pglab/internal/sqllex"
)

// splitter cuts statements out of lines as psql does: a semicolon ends a
// statement outside quotes, comments and parentheses, and outside the
// BEGIN … END body of CREATE [OR REPLACE] FUNCTION|PROCEDURE (counting
// CASE … END inside it). Where quotes and comments begin and end, and the
// function bodies, are package sqllex's.
type splitter struct {
	buf   strings.Builder
	lex   sqllex.Scanner
	body  sqllex.Body
	paren int
	// started is set once the statement has more than white space and
	// comments; line is the line it began on, quoteLine the line the open
	// quote or comment began on.
	started   bool
	line      int
	quoteLine int
}

// pending reports whether a statement has begun without ending.
func (s *splitter) pending() bool { return s.started }

// inQuote reports whether the splitter is inside a quote or a /* comment.
func (s *splitter) inQuote() bool { return s.lex.Unterminated() }

// feed scans one line (with its newline) numbered n and returns the
// statements it completes, each with the line it began on.
func (s *splitter) feed(line string, n int) (stmts []string, lines []int) {
	i := 0
	for i < len(line) {
		if s.lex.Inside() != sqllex.None {
			j := s.lex.Scan(line, i)
			s.put(line[i:j])
			i = j
			continue
		}
		var done bool
		i, done = s.scanNormal(line, i, n)
		if done {
			stmts = append(stmts, strings.TrimSpace(s.buf.String()))
			lines = append(lines, s.line)
			s.reset()
		}
	}
	return stmts, lines
}

// reset starts a new statement.
func (s *splitter) reset() {
	*s = splitter{}
}

// rest returns the unterminated statement at the end of the script.
func (s *splitter) rest() string { return strings.TrimSpace(s.buf.String()) }

// put appends text to the statement once it has begun; white space and
// comments before it are dropped.
func (s *splitter) put(text string) {
	if s.started {
		s.buf.WriteString(text)
	}
}

// mark marks the statement begun at line n.
func (s *splitter) mark(n int) {
	if !s.started {
		s.started, s.line = true, n
	}
}

// scanNormal scans one token from i outside quotes; done reports a
// statement's end (the semicolon consumed).
func (s *splitter) scanNormal(line string, i, n int) (next int, done bool) {
	c := line[i]
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		s.put(line[i : i+1])
		return i + 1, false
	}
	if k := s.lex.Open(line, i); k > 0 {
		if in := s.lex.Inside(); in != sqllex.LineComment && in != sqllex.BlockComment {
			s.mark(n)
		}
		s.quoteLine = n
		s.put(line[i : i+k])
		return i + k, false
	}
	s.mark(n)
	j := i + 1
	switch {
	case c == '(':
		s.paren++
	case c == ')':
		if s.paren > 0 {
			s.paren--
		}
	case c == ';' && s.paren == 0 && s.body.Depth() == 0:
		s.buf.WriteByte(';')
		return i + 1, true
	case sqllex.IsDigit(c) || (c == '.' && j < len(line) && sqllex.IsDigit(line[j])):
		j = sqllex.NumberEnd(line, i)
	case sqllex.IsIdentStart(c):
		j = sqllex.IdentEnd(line, i)
		s.body.Word(line[i:j], s.paren)
	}
	s.buf.WriteString(line[i:j])
	return j, false
}

// quoteName names what an unterminated quote is, for an error.
func (s *splitter) quoteName() string {
	switch s.lex.Inside() {
	case sqllex.String, sqllex.EscapeString:
		return "a quoted string"
	case sqllex.QuotedIdent:
		return "a quoted identifier"
	case sqllex.DollarString:
		return "a dollar-quoted string (" + s.lex.Tag() + ")"
	case sqllex.BlockComment:
		return "a /* comment"
	}
	return "a statement"
}
