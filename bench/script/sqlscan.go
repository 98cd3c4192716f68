package script

// This file emulates the SQL side of psql's lexer (src/fe_utils/psqlscan.l)
// as pgbench uses it to split a script: no variable callbacks, standard
// conforming strings on, a safe encoding. It finds where a command ends (a
// semicolon outside quotes, comments, parentheses and function bodies) or
// where a backslash command starts, and copies the command text the same way
// (leading white space and "--" comments dropped, "\;" and "\:" turned into
// ";" and ":", ":{?name}" turned into FALSE).

type scanState uint8

const (
	stInitial scanState = iota
	stXB                // bit string
	stXC                // C-style comment
	stXD                // double-quoted identifier
	stXH                // hexadecimal string
	stXQ                // quoted string
	stXQS               // after a closing quote: look for a continuation
	stXE                // E'' string with backslash escapes
	stXDolQ             // dollar-quoted string
	stXUI               // U&"" identifier
	stXUS               // U&'' string
)

type scanResult uint8

const (
	scanSemicolon  scanResult = iota // command-ending semicolon (kept in the text)
	scanBackslash                    // backslash command start; pos is after the '\'
	scanEOL                          // end of input with text (or nothing pending)
	scanIncomplete                   // end of input inside a quote, comment or parentheses
)

// sqlScanner holds psqlscan's state, which persists across calls.
type sqlScanner struct {
	src             string
	pos             int
	state           scanState
	stateBeforeStop scanState
	xcdepth         int
	parenDepth      int
	dolqStart       string
	identCount      int
	idents          [4]byte
	beginDepth      int
}

func isSQLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func isHorizSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func isNewline(c byte) bool { return c == '\n' || c == '\r' }

func isIdentStart(c byte) bool { return isVarStart(c) }

func isIdentCont(c byte) bool { return isVarChar(c) || c == '$' }

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
		c := src[p]
		switch s.state {
		case stXC:
			switch {
			case c == '/' && s.at(p+1) == '*':
				s.xcdepth++
				s.pos += 2
			case c == '*':
				j := p
				for j < len(src) && src[j] == '*' {
					j++
				}
				if j < len(src) && src[j] == '/' {
					j++
					if s.xcdepth <= 0 {
						s.state = stInitial
					} else {
						s.xcdepth--
					}
				}
				s.pos = j
			case c == '/':
				s.pos++
			default:
				j := p
				for j < len(src) && src[j] != '*' && src[j] != '/' {
					j++
				}
				s.pos = j
			}
			buf = append(buf, src[p:s.pos]...)
			continue
		case stXB, stXH:
			if c == '\'' {
				s.stateBeforeStop = s.state
				s.state = stXQS
				s.pos++
			} else {
				j := p
				for j < len(src) && src[j] != '\'' {
					j++
				}
				s.pos = j
			}
			buf = append(buf, src[p:s.pos]...)
			continue
		case stXQ, stXUS, stXE:
			switch {
			case c == '\'' && s.at(p+1) == '\'':
				s.pos += 2
			case c == '\'':
				s.stateBeforeStop = s.state
				s.state = stXQS
				s.pos++
			case c == '\\' && s.state == stXE:
				s.pos = min(p+2, len(src))
			default:
				j := p
				for j < len(src) && src[j] != '\'' && !(s.state == stXE && src[j] == '\\') {
					j++
				}
				s.pos = j
			}
			buf = append(buf, src[p:s.pos]...)
			continue
		case stXQS:
			if n := s.quoteContinue(p); n > 0 {
				s.state = s.stateBeforeStop
				s.pos += n
				buf = append(buf, src[p:s.pos]...)
			} else {
				s.state = stInitial
			}
			continue
		case stXD, stXUI:
			switch {
			case c == '"' && s.at(p+1) == '"':
				s.pos += 2
			case c == '"':
				s.state = stInitial
				s.pos++
			default:
				j := p
				for j < len(src) && src[j] != '"' {
					j++
				}
				s.pos = j
			}
			buf = append(buf, src[p:s.pos]...)
			continue
		case stXDolQ:
			if c == '$' {
				if d := s.dolqDelim(p); d != "" {
					if d == s.dolqStart {
						s.dolqStart = ""
						s.state = stInitial
						s.pos += len(d)
					} else {
						s.pos += len(d) - 1
					}
				} else if n := s.dolqFailed(p); n > 0 {
					s.pos += n
				} else {
					s.pos++
				}
			} else {
				j := p
				for j < len(src) && src[j] != '$' {
					j++
				}
				s.pos = j
			}
			buf = append(buf, src[p:s.pos]...)
			continue
		}

		// INITIAL state.
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
		case c == '-' && s.at(p+1) == '-':
			j := p
			for j < len(src) && !isNewline(src[j]) {
				j++
			}
			// Like white space, a comment is copied once the command
			// has started (PostgreSQL 15 and later).
			if len(buf) > 0 {
				buf = append(buf, src[p:j]...)
			}
			s.pos = j
		case c == '/' && s.at(p+1) == '*':
			s.xcdepth = 0
			s.state = stXC
			s.pos += 2
			buf = append(buf, "/*"...)
		case (c == 'b' || c == 'B') && s.at(p+1) == '\'':
			s.enter(stXB, 2)
			buf = append(buf, src[p:s.pos]...)
		case (c == 'x' || c == 'X') && s.at(p+1) == '\'':
			s.enter(stXH, 2)
			buf = append(buf, src[p:s.pos]...)
		case (c == 'n' || c == 'N') && s.at(p+1) == '\'':
			s.pos++ // only the n; the quote starts a string next
			buf = append(buf, c)
		case (c == 'e' || c == 'E') && s.at(p+1) == '\'':
			s.enter(stXE, 2)
			buf = append(buf, src[p:s.pos]...)
		case (c == 'u' || c == 'U') && s.at(p+1) == '&':
			switch s.at(p + 2) {
			case '\'':
				s.enter(stXUS, 3)
			case '"':
				s.enter(stXUI, 3)
			default:
				s.pos++
			}
			buf = append(buf, src[p:s.pos]...)
		case c == '\'':
			s.enter(stXQ, 1)
			buf = append(buf, c)
		case c == '"':
			s.enter(stXD, 1)
			buf = append(buf, c)
		case c == '$':
			if d := s.dolqDelim(p); d != "" {
				s.dolqStart = d
				s.enter(stXDolQ, len(d))
			} else if isDigit(s.at(p + 1)) {
				j := p + 1
				for j < len(src) && isDigit(src[j]) {
					j++
				}
				s.pos = j
			} else {
				s.pos++
			}
			buf = append(buf, src[p:s.pos]...)
		case c == '(':
			s.parenDepth++
			s.pos++
			buf = append(buf, c)
		case c == ')':
			if s.parenDepth > 0 {
				s.parenDepth--
			}
			s.pos++
			buf = append(buf, c)
		case c == ';':
			s.pos++
			buf = append(buf, c)
			if s.parenDepth == 0 && s.beginDepth == 0 {
				s.identCount = 0
				return buf, scanSemicolon
			}
		case c == '\\':
			if n := s.at(p + 1); n == ';' || n == ':' {
				buf = append(buf, n)
				if n == ';' {
					s.identCount = 0
				}
				s.pos += 2
			} else {
				s.pos++
				return buf, scanBackslash
			}
		case c == ':':
			buf = s.colon(buf, p)
		case isDigit(c) || (c == '.' && isDigit(s.at(p+1))):
			s.pos = s.number(p)
			buf = append(buf, src[p:s.pos]...)
		case isIdentStart(c):
			j := p + 1
			for j < len(src) && isIdentCont(src[j]) {
				j++
			}
			s.identifier(src[p:j])
			s.pos = j
			buf = append(buf, src[p:j]...)
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
			buf = append(buf, src[p:s.pos]...)
		default:
			s.pos++
			buf = append(buf, c)
		}
	}
	switch s.state {
	case stInitial, stXQS:
		if s.parenDepth > 0 || s.beginDepth > 0 || len(buf) == 0 {
			return buf, scanIncomplete
		}
		return buf, scanEOL
	default:
		return buf, scanIncomplete
	}
}

func (s *sqlScanner) enter(st scanState, n int) {
	s.state = st
	s.pos += n
}

// quoteContinue matches {whitespace_with_newline}{quote} at i and returns its
// length, or 0.
func (s *sqlScanner) quoteContinue(i int) int {
	src := s.src
	j := i
	for j < len(src) {
		if isHorizSpace(src[j]) {
			j++
		} else if src[j] == '-' && s.at(j+1) == '-' {
			for j < len(src) && !isNewline(src[j]) {
				j++
			}
		} else {
			break
		}
	}
	if j >= len(src) || !isNewline(src[j]) {
		return 0
	}
	j++
	for j < len(src) {
		if isSQLSpace(src[j]) {
			j++
		} else if src[j] == '-' && s.at(j+1) == '-' {
			k := j
			for k < len(src) && !isNewline(src[k]) {
				k++
			}
			if k >= len(src) {
				break
			}
			j = k + 1
		} else {
			break
		}
	}
	if j < len(src) && src[j] == '\'' {
		return j + 1 - i
	}
	return 0
}

// dolqDelim returns the dollar-quote delimiter ($$ or $tag$) at i, or "".
func (s *sqlScanner) dolqDelim(i int) string {
	src := s.src
	j := i + 1
	if j < len(src) && isIdentStart(src[j]) {
		j++
		for j < len(src) && isVarChar(src[j]) {
			j++
		}
	}
	if j < len(src) && src[j] == '$' {
		return src[i : j+1]
	}
	return ""
}

// dolqFailed matches "$tag" (no closing $) at i and returns its length, or 0.
func (s *sqlScanner) dolqFailed(i int) int {
	src := s.src
	j := i + 1
	if j >= len(src) || !isIdentStart(src[j]) {
		return 0
	}
	for j < len(src) && isVarChar(src[j]) {
		j++
	}
	return j - i
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

// number returns the end of a numeric token starting at i, including a
// trailing identifier ("junk"), as PostgreSQL 16+ lexes "123abc".
func (s *sqlScanner) number(i int) int {
	src := s.src
	j := i
	digits := func() {
		for j < len(src) && (isDigit(src[j]) || (src[j] == '_' && j+1 < len(src) && isDigit(src[j+1]))) {
			j++
		}
	}
	if src[j] == '.' {
		j++
		digits()
	} else {
		digits()
		if j < len(src) && src[j] == '.' && s.at(j+1) != '.' {
			j++
			digits()
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			j = k
			digits()
		}
	}
	if j < len(src) && isIdentStart(src[j]) {
		j++
		for j < len(src) && isIdentCont(src[j]) {
			j++
		}
	}
	return j
}

// identifier tracks CREATE [OR REPLACE] FUNCTION|PROCEDURE ... BEGIN ... END
// so that semicolons inside a function body do not end the command.
func (s *sqlScanner) identifier(word string) {
	if s.identCount == 0 {
		s.idents = [4]byte{}
	}
	if equalFold(word, "create") || equalFold(word, "function") || equalFold(word, "procedure") ||
		equalFold(word, "or") || equalFold(word, "replace") {
		if s.identCount < len(s.idents) {
			s.idents[s.identCount] = lower(word[0])
		}
	}
	s.identCount++
	id := s.idents
	if id[0] == 'c' && (id[1] == 'f' || id[1] == 'p' || (id[1] == 'o' && id[2] == 'r' && (id[3] == 'f' || id[3] == 'p'))) &&
		s.parenDepth == 0 {
		switch {
		case equalFold(word, "begin"):
			s.beginDepth++
		case equalFold(word, "case"):
			if s.beginDepth >= 1 {
				s.beginDepth++
			}
		case equalFold(word, "end"):
			if s.beginDepth > 0 {
				s.beginDepth--
			}
		}
	}
}
