package script

import "github.com/pglab/pglab/internal/sqllex"

// This file emulates the SQL side of psql's lexer (src/fe_utils/psqlscan.l)
// as pgbench uses it to split a script: no variable callbacks, standard
// conforming strings on, a safe encoding. It finds where a command ends (a
// semicolon outside quotes, comments, parentheses and function bodies) or
// where a backslash command starts, and copies the command text the same way
// (leading white space and "--" comments dropped, "\;" and "\:" turned into
// ";" and ":", ":{?name}" turned into FALSE). Where quotes and comments
// begin and end is package sqllex's.

type scanResult uint8

const (
	scanSemicolon  scanResult = iota // command-ending semicolon (kept in the text)
	scanBackslash                    // backslash command start; pos is after the '\'
	scanEOL                          // end of input with text (or nothing pending)
	scanIncomplete                   // end of input inside a quote, comment or parentheses
)

// sqlScanner holds psqlscan's state, which persists across calls. The
// quoting and comment rules are sqllex's.
type sqlScanner struct {
	src        string
	pos        int
	lx         sqllex.Scanner
	parenDepth int
	body       sqllex.Body
}

func isSQLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func isOpChar(c byte) bool {
	switch c {
	case '~', '!', '@', '#', '^', '&', '|', '`', '?', '+', '-', '*', '/', '%', '<', '>', '=':
		return true
	}
	return false
}

func (s *sqlScanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// scan appends the next piece of SQL text to buf and reports why it stopped.
func (s *sqlScanner) scan(buf []byte) ([]byte, scanResult) {
	src := s.src
	for s.pos < len(src) {
		p := s.pos
		if s.lx.Inside() != sqllex.None {
			s.pos = s.lx.Scan(src, p)
			if s.lx.Inside() == sqllex.None {
				s.pos += s.lx.Continue(src, s.pos)
			}
			buf = append(buf, src[p:s.pos]...)
			continue
		}
		var stop bool
		buf, stop = s.initial(buf, p)
		if stop {
			if src[p] == ';' {
				return buf, scanSemicolon
			}
			return buf, scanBackslash
		}
	}
	if s.lx.Unterminated() || s.parenDepth > 0 || s.body.Depth() > 0 || len(buf) == 0 {
		return buf, scanIncomplete
	}
	return buf, scanEOL
}

// initial scans one token at p outside quotes and comments (psqlscan's
// INITIAL state); stop reports a command-ending semicolon or the start of
// a backslash command.
func (s *sqlScanner) initial(buf []byte, p int) (_ []byte, stop bool) {
	src := s.src
	c := src[p]
	switch {
	case isSQLSpace(c):
		j := p
		for j < len(src) && isSQLSpace(src[j]) {
			j++
		}
		if len(buf) > 0 {
			buf = append(buf, src[p:j]...)
		}
		s.pos = j
		return buf, false
	case (c == 'n' || c == 'N') && s.at(p+1) == '\'':
		s.pos++ // only the n; the quote starts a string next
		return append(buf, c), false
	}
	if n := s.lx.Open(src, p); n > 0 {
		s.pos = p + n
		if s.lx.Inside() == sqllex.LineComment {
			// Like white space, a comment is copied once the command
			// has started (PostgreSQL 15 and later).
			s.pos = s.lx.Scan(src, s.pos)
			if len(buf) == 0 {
				return buf, false
			}
		}
		return append(buf, src[p:s.pos]...), false
	}
	switch {
	case (c == 'u' || c == 'U') && s.at(p+1) == '&':
		s.pos++ // U& not before a quote: only the u
	case c == '$' && sqllex.IsDigit(s.at(p+1)):
		j := p + 1
		for j < len(src) && sqllex.IsDigit(src[j]) {
			j++
		}
		s.pos = j
	case c == '(':
		s.parenDepth++
		s.pos++
	case c == ')':
		if s.parenDepth > 0 {
			s.parenDepth--
		}
		s.pos++
	case c == ';':
		s.pos++
		if s.parenDepth == 0 && s.body.Depth() == 0 {
			s.body.NextStatement()
			return append(buf, c), true
		}
	case c == '\\':
		n := s.at(p + 1)
		if n != ';' && n != ':' {
			s.pos++
			return buf, true
		}
		if n == ';' {
			s.body.NextStatement()
		}
		s.pos += 2
		return append(buf, n), false
	case c == ':':
		return s.colon(buf, p), false
	case sqllex.IsDigit(c) || (c == '.' && sqllex.IsDigit(s.at(p+1))):
		s.pos = sqllex.NumberEnd(src, p)
	case sqllex.IsIdentStart(c):
		s.pos = sqllex.IdentEnd(src, p)
		s.body.Word(src[p:s.pos], s.parenDepth)
	case isOpChar(c):
		j := p
		for j < len(src) && isOpChar(src[j]) {
			if j > p && ((src[j] == '-' && src[j-1] == '-') || (src[j] == '*' && src[j-1] == '/')) {
				j-- // a comment starts inside the operator
				break
			}
			j++
		}
		s.pos = max(j, p+1)
	default:
		s.pos++
	}
	return append(buf, src[p:s.pos]...), false
}

// colon handles the tokens starting with ':' in INITIAL state.
func (s *sqlScanner) colon(buf []byte, p int) []byte {
	src := s.src
	next := s.at(p + 1)
	varRun := func(j int) int {
		for j < len(src) && isVarChar(src[j]) {
			j++
		}
		return j
	}
	switch {
	case next == ':' || next == '=':
		s.pos = p + 2
	case isVarChar(next):
		s.pos = varRun(p + 1)
	case next == '\'' || next == '"':
		j := varRun(p + 2)
		if j > p+2 && s.at(j) == next {
			s.pos = j + 1 // :'name' and :"name" are copied as they are
		} else {
			s.pos = p + 1
		}
	case next == '{' && s.at(p+2) == '?':
		j := varRun(p + 3)
		if j > p+3 && s.at(j) == '}' {
			// pgbench defines no psql variables, so :{?name} is FALSE.
			s.pos = j + 1
			return append(buf, "FALSE"...)
		}
		s.pos = p + 1
	default:
		s.pos = p + 1
	}
	return append(buf, src[p:s.pos]...)
}
