package sqlscript

import "strings"

// lexState is where the splitter is inside a statement's text.
type lexState int

const (
	stNormal lexState = iota
	stSingle          // '…' or E'…'
	stDouble          // "…"
	stDollar          // $tag$…$tag$
	stBlock           // /* … */ (nested)
)

// splitter cuts statements out of lines as psql does: a semicolon ends a
// statement outside quotes, comments and parentheses, and outside the
// BEGIN … END body of CREATE [OR REPLACE] FUNCTION|PROCEDURE (counting
// CASE … END inside it).
type splitter struct {
	buf     strings.Builder
	state   lexState
	escapes bool   // the string is an E'…' one
	tag     string // the dollar quote's delimiter, "$tag$"
	depth   int    // block comment nesting
	paren   int
	begin   int
	// words counts the statement's identifiers; head keeps the first
	// letters of its first ones among create/or/replace/function/
	// procedure (psql's heuristic for function bodies).
	words int
	head  [4]byte
	// started is set once the statement has more than white space and
	// comments; line is the line it began on, quoteLine the line the open
	// quote or comment began on.
	started   bool
	line      int
	quoteLine int
}

// pending reports whether a statement has begun without ending.
func (s *splitter) pending() bool { return s.started }

// inQuote reports whether the splitter is inside a quote or comment.
func (s *splitter) inQuote() bool { return s.state != stNormal }

// feed scans one line (with its newline) numbered n and returns the
// statements it completes, each with the line it began on.
func (s *splitter) feed(line string, n int) (stmts []string, lines []int) {
	i := 0
	for i < len(line) {
		switch s.state {
		case stSingle:
			i = s.scanSingle(line, i)
		case stDouble:
			i = s.scanDouble(line, i)
		case stDollar:
			i = s.scanDollar(line, i)
		case stBlock:
			i = s.scanBlock(line, i)
		default:
			var done bool
			i, done = s.scanNormal(line, i, n)
			if done {
				stmts = append(stmts, strings.TrimSpace(s.buf.String()))
				lines = append(lines, s.line)
				s.reset()
			}
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

// begin marks the statement begun at line n.
func (s *splitter) mark(n int) {
	if !s.started {
		s.started, s.line = true, n
	}
}

// scanNormal scans from i outside quotes; done reports a statement's end
// (the semicolon consumed).
func (s *splitter) scanNormal(line string, i, n int) (next int, done bool) {
	c := line[i]
	switch {
	case c == '-' && i+1 < len(line) && line[i+1] == '-':
		end := len(line)
		if k := strings.IndexByte(line[i:], '\n'); k >= 0 {
			end = i + k
		}
		s.put(line[i:end])
		return end, false
	case c == '/' && i+1 < len(line) && line[i+1] == '*':
		s.put("/*")
		s.state, s.depth, s.quoteLine = stBlock, 1, n
		return i + 2, false
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		s.put(line[i : i+1])
		return i + 1, false
	}
	s.mark(n)
	switch {
	case c == '\'':
		s.escapes = i > 0 && (line[i-1] == 'e' || line[i-1] == 'E') && (i < 2 || !isIdent(line[i-2]))
		s.state, s.quoteLine = stSingle, n
	case c == '"':
		s.state, s.quoteLine = stDouble, n
	case c == '$' && (i == 0 || !isIdent(line[i-1])):
		if tag, ok := dollarTag(line[i:]); ok {
			s.buf.WriteString(tag)
			s.state, s.tag, s.quoteLine = stDollar, tag, n
			return i + len(tag), false
		}
	case c == '(':
		s.paren++
	case c == ')':
		if s.paren > 0 {
			s.paren--
		}
	case c == ';' && s.paren == 0 && s.begin == 0:
		s.buf.WriteByte(';')
		return i + 1, true
	case isIdentStart(c):
		j := i + 1
		for j < len(line) && isIdent(line[j]) {
			j++
		}
		s.word(line[i:j])
		s.buf.WriteString(line[i:j])
		return j, false
	}
	s.buf.WriteByte(c)
	return i + 1, false
}

// word follows psql's heuristic: in a statement that begins CREATE [OR
// REPLACE] FUNCTION|PROCEDURE, BEGIN opens a body that only END closes
// (CASE … END nested inside).
func (s *splitter) word(w string) {
	lw := strings.ToLower(w)
	switch lw {
	case "create", "or", "replace", "function", "procedure":
		if s.words < len(s.head) {
			s.head[s.words] = lw[0]
		}
	}
	s.words++
	h := s.head
	fn := h[0] == 'c' && (h[1] == 'f' || h[1] == 'p' || (h[1] == 'o' && h[2] == 'r' && (h[3] == 'f' || h[3] == 'p')))
	if !fn || s.paren != 0 {
		return
	}
	switch lw {
	case "begin":
		s.begin++
	case "case":
		if s.begin > 0 {
			s.begin++
		}
	case "end":
		if s.begin > 0 {
			s.begin--
		}
	}
}

func (s *splitter) scanSingle(line string, i int) int {
	for j := i; j < len(line); j++ {
		switch {
		case s.escapes && line[j] == '\\':
			j++
		case line[j] == '\'':
			if j+1 < len(line) && line[j+1] == '\'' {
				j++
				continue
			}
			s.buf.WriteString(line[i : j+1])
			s.state = stNormal
			return j + 1
		}
	}
	s.buf.WriteString(line[i:])
	return len(line)
}

func (s *splitter) scanDouble(line string, i int) int {
	for j := i; j < len(line); j++ {
		if line[j] == '"' {
			if j+1 < len(line) && line[j+1] == '"' {
				j++
				continue
			}
			s.buf.WriteString(line[i : j+1])
			s.state = stNormal
			return j + 1
		}
	}
	s.buf.WriteString(line[i:])
	return len(line)
}

func (s *splitter) scanDollar(line string, i int) int {
	k := strings.Index(line[i:], s.tag)
	if k < 0 {
		s.buf.WriteString(line[i:])
		return len(line)
	}
	end := i + k + len(s.tag)
	s.buf.WriteString(line[i:end])
	s.state, s.tag = stNormal, ""
	return end
}

func (s *splitter) scanBlock(line string, i int) int {
	for j := i; j+1 < len(line); j++ {
		switch {
		case line[j] == '/' && line[j+1] == '*':
			s.depth++
			j++
		case line[j] == '*' && line[j+1] == '/':
			s.depth--
			j++
			if s.depth == 0 {
				s.put(line[i : j+1])
				s.state = stNormal
				return j + 1
			}
		}
	}
	s.put(line[i:])
	return len(line)
}

// dollarTag returns the opening delimiter of a dollar quote at the start
// of s ("$$", "$body$"); a parameter ($1) is none.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1], true
		case j == 1 && !isIdentStart(c):
			return "", false
		case !isIdent(c) || c == '$':
			return "", false
		}
	}
	return "", false
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdent(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// quoteName names what an unterminated quote is, for an error.
func (s *splitter) quoteName() string {
	switch s.state {
	case stSingle:
		return "a quoted string"
	case stDouble:
		return "a quoted identifier"
	case stDollar:
		return "a dollar-quoted string (" + s.tag + ")"
	case stBlock:
		return "a /* comment"
	}
	return "a statement"
}
