// Package sqllex holds PostgreSQL's lexical rules for quoting and comments,
// shared by every reader of SQL text in pglab: where a quoted string, a
// quoted identifier, a dollar-quoted string or a comment begins and ends.
//
// A [Scanner] is resumable: its state persists from one chunk of text to
// the next, so that a reader may feed a script line by line. The rules
// (standard_conforming_strings on, as PostgreSQL's default since 9.1):
//
//   - '…', B'…', X'…', N'…' and U&'…' strings: a doubled quote stands for
//     one;
//   - E'…' strings: a doubled quote too, and a backslash escapes the next
//     byte;
//   - "…" and U&"…" identifiers: a doubled quote stands for one;
//   - $$…$$ and $tag$…$tag$ strings, whose tag is an identifier without $
//     (so $1 is a parameter, and a $ inside an identifier, as in a$b$,
//     starts nothing; readers consume words whole with [IdentEnd]);
//   - -- comments to the end of the line (a newline or carriage return);
//   - /* … */ comments, which nest;
//   - a string closed at the end of a line continues when the next
//     non-blank text, after a newline and any -- comments, is a quote
//     ([Scanner.Continue]);
//   - psql's heuristic for the BEGIN … END bodies of SQL-standard
//     functions ([Body]);
//   - a numeric constant with PostgreSQL 16's trailing junk ([NumberEnd]),
//     so that 1E'x' is a number then a plain string.
//
// A chunk should end at a line's end: what needs to look ahead (a doubled
// quote, a dollar delimiter, the */ of a comment) is not seen across
// chunks.
package sqllex

import "strings"

// Kind is what a scanner is inside: a quoted token or a comment.
type Kind uint8

// The kinds of quoted tokens and comments.
const (
	None         Kind = iota // outside any quote or comment
	LineComment              // -- to the end of the line
	BlockComment             // /* … */, nested
	String                   // '…', B'…', X'…', N'…', U&'…'
	EscapeString             // E'…'
	QuotedIdent              // "…", U&"…"
	DollarString             // $tag$…$tag$
)

var kindNames = [...]string{"none", "line comment", "block comment", "string", "escape string", "quoted identifier", "dollar-quoted string"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

const (
	clIdentStart = 1 << iota // a letter, _ or a byte of a non-ASCII character
	clIdentCont              // an identifier's later byte: also digits and $
	clDigit
	clOpener // a byte that may begin a quoted token or a comment
)

var class [256]uint8

func init() {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
			class[c] |= clIdentStart | clIdentCont
		case c >= '0' && c <= '9':
			class[c] |= clDigit | clIdentCont
		}
	}
	class['$'] |= clIdentCont | clOpener
	for _, c := range "-/'\"eEbBxXnNuU" {
		class[c] |= clOpener
	}
}

// IsIdentStart reports whether c may begin an unquoted identifier: a
// letter, _ or any byte of a non-ASCII character.
func IsIdentStart(c byte) bool { return class[c]&clIdentStart != 0 }

// IsIdentCont reports whether c may continue an unquoted identifier: also
// a digit or $.
func IsIdentCont(c byte) bool { return class[c]&clIdentCont != 0 }

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return class[c]&clDigit != 0 }

// IdentEnd returns the end of the unquoted identifier that begins at i
// (src[i] being an identifier start).
func IdentEnd(src string, i int) int {
	i++
	for i < len(src) && class[src[i]]&clIdentCont != 0 {
		i++
	}
	return i
}

// NumberEnd returns the end of the numeric constant that begins at i (a
// digit, or a '.' before one) as PostgreSQL 16 and later lex it: digits
// with single underscores between them, a fraction, an exponent, and a
// trailing identifier taken as part of the token ("123abc", "0x1F").
func NumberEnd(src string, i int) int {
	j := i
	digits := func() {
		for j < len(src) && (IsDigit(src[j]) || (src[j] == '_' && j+1 < len(src) && IsDigit(src[j+1]))) {
			j++
		}
	}
	if src[j] == '.' {
		j++
		digits()
	} else {
		digits()
		if j < len(src) && src[j] == '.' && at(src, j+1) != '.' {
			j++
			digits()
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && IsDigit(src[k]) {
			j = k
			digits()
		}
	}
	if j < len(src) && IsIdentStart(src[j]) {
		j = IdentEnd(src, j)
	}
	return j
}

func at(src string, i int) byte {
	if i < len(src) {
		return src[i]
	}
	return 0
}

// DollarDelim returns the dollar-quote delimiter ("$$", "$tag$") that
// begins at i, or "".
func DollarDelim(src string, i int) string {
	j := i + 1
	if j < len(src) && IsIdentStart(src[j]) {
		j++
		for j < len(src) && class[src[j]]&clIdentCont != 0 && src[j] != '$' {
			j++
		}
	}
	if j < len(src) && src[j] == '$' {
		return src[i : j+1]
	}
	return ""
}

// Scanner is the state of a scan that persists between chunks of text:
// which quoted token or comment it is inside. The zero value is outside
// any.
type Scanner struct {
	kind   Kind
	depth  int    // block comments open inside the first
	tag    string // the dollar quote's delimiter
	escape bool   // the last chunk ended on a backslash inside an E'…' string
	last   Kind   // the kind of the last quoted token closed
}

// Inside returns what the scanner is inside, None outside.
func (s *Scanner) Inside() Kind { return s.kind }

// Unterminated reports whether the end of the text at this point would
// leave a quote or a block comment open (a -- comment ends with the text).
func (s *Scanner) Unterminated() bool { return s.kind > LineComment }

// Tag returns the delimiter of the dollar-quoted string the scanner is
// inside ("$$", "$tag$").
func (s *Scanner) Tag() string { return s.tag }

// Reset puts the scanner outside any quote or comment.
func (s *Scanner) Reset() { *s = Scanner{} }

// Open looks at src[i], outside any quote or comment and at the start of a
// token, for the beginning of a quoted token or a comment. If one begins
// there, the scanner enters it and Open returns the length of its opening
// ("'", "E'", "U&\"", "$tag$", "--", "/*"); otherwise it returns 0.
func (s *Scanner) Open(src string, i int) int {
	c := src[i]
	if class[c]&clOpener == 0 {
		return 0
	}
	s.last = None
	next := at(src, i+1)
	switch c {
	case '\'':
		return s.enter(String, 1)
	case '"':
		return s.enter(QuotedIdent, 1)
	case '-':
		if next == '-' {
			return s.enter(LineComment, 2)
		}
	case '/':
		if next == '*' {
			s.depth = 0
			return s.enter(BlockComment, 2)
		}
	case '$':
		if d := DollarDelim(src, i); d != "" {
			s.tag = d
			return s.enter(DollarString, len(d))
		}
	case 'e', 'E':
		if next == '\'' {
			return s.enter(EscapeString, 2)
		}
	case 'b', 'B', 'x', 'X', 'n', 'N':
		if next == '\'' {
			return s.enter(String, 2)
		}
	case 'u', 'U':
		if next == '&' {
			switch at(src, i+2) {
			case '\'':
				return s.enter(String, 3)
			case '"':
				return s.enter(QuotedIdent, 3)
			}
		}
	}
	return 0
}

func (s *Scanner) enter(k Kind, n int) int {
	s.kind = k
	return n
}

// Scan goes on from src[i] inside the quoted token or comment the scanner
// is in, and returns where it ends (after its closing; before the newline
// for a -- comment), the scanner then being outside, or len(src) if it
// does not end in src. Outside any, it returns i.
func (s *Scanner) Scan(src string, i int) int {
	switch s.kind {
	case LineComment:
		if k := strings.IndexAny(src[i:], "\n\r"); k >= 0 {
			s.kind = None
			return i + k
		}
		return len(src)
	case BlockComment:
		return s.scanComment(src, i)
	case String, QuotedIdent:
		return s.scanQuoted(src, i, false)
	case EscapeString:
		return s.scanQuoted(src, i, true)
	case DollarString:
		if k := strings.Index(src[i:], s.tag); k >= 0 {
			end := i + k + len(s.tag)
			s.kind, s.tag = None, ""
			return end
		}
		return len(src)
	}
	return i
}

// scanComment scans a block comment: /* opens one more, */ closes one.
func (s *Scanner) scanComment(src string, i int) int {
	for i < len(src) {
		k := strings.IndexAny(src[i:], "*/")
		if k < 0 {
			return len(src)
		}
		i += k
		switch {
		case src[i] == '/' && at(src, i+1) == '*':
			s.depth++
			i += 2
		case src[i] == '*' && at(src, i+1) == '/':
			i += 2
			if s.depth == 0 {
				s.kind = None
				return i
			}
			s.depth--
		default:
			i++
		}
	}
	return len(src)
}

// scanQuoted scans a string or quoted identifier, with backslash escapes
// when backslash is set.
func (s *Scanner) scanQuoted(src string, i int, backslash bool) int {
	q := byte('\'')
	if s.kind == QuotedIdent {
		q = '"'
	}
	if s.escape && i < len(src) {
		s.escape = false
		i++
	}
	stops := "'"
	if q == '"' {
		stops = `"`
	} else if backslash {
		stops = `'\`
	}
	for i < len(src) {
		k := strings.IndexAny(src[i:], stops)
		if k < 0 {
			return len(src)
		}
		i += k
		switch {
		case src[i] == '\\':
			if i+1 == len(src) {
				s.escape = true
				return len(src)
			}
			i += 2
		case at(src, i+1) == q:
			i += 2
		default:
			s.last, s.kind = s.kind, None
			return i + 1
		}
	}
	return len(src)
}

// Continue is called just after a quoted token closed, at src[i]. If the
// token was a string and what follows it is a continuation (blanks and --
// comments, a newline, then white space and -- comments each ending with a
// newline, then a quote), the scanner enters the string again, as it was
// (an E'…' string goes on with backslash escapes), and Continue returns the
// continuation's length, its quote included; otherwise it returns 0.
func (s *Scanner) Continue(src string, i int) int {
	last := s.last
	s.last = None
	if s.kind != None || (last != String && last != EscapeString) {
		return 0
	}
	n := quoteContinue(src, i)
	if n > 0 {
		s.kind = last
	}
	return n
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func isNewline(c byte) bool { return c == '\n' || c == '\r' }

// quoteContinue matches {whitespace_with_newline}{quote} at i and returns
// its length, or 0.
func quoteContinue(src string, i int) int {
	j := i
	for j < len(src) {
		if c := src[j]; c == ' ' || c == '\t' || c == '\f' {
			j++
		} else if c == '-' && at(src, j+1) == '-' {
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
		if isSpace(src[j]) {
			j++
		} else if src[j] == '-' && at(src, j+1) == '-' {
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

// Body follows psql's heuristic for the body of an SQL-standard function,
// whose semicolons do not end the statement: in a statement that begins
// CREATE [OR REPLACE] FUNCTION|PROCEDURE, a BEGIN outside parentheses
// opens a body that only its END closes, a CASE inside it counting as one
// more BEGIN. The zero value is ready for a statement's first word.
type Body struct {
	words int     // words seen in the statement
	head  [4]byte // first letters of its first words among create, or, replace, function, procedure
	depth int
}

// Word notes an unquoted word of the statement, paren being the depth of
// parentheses around it.
func (b *Body) Word(w string, paren int) {
	if b.words == 0 {
		b.head = [4]byte{}
	}
	if equalFold(w, "create") || equalFold(w, "function") || equalFold(w, "procedure") ||
		equalFold(w, "or") || equalFold(w, "replace") {
		if b.words < len(b.head) {
			b.head[b.words] = w[0] | 0x20
		}
	}
	b.words++
	h := b.head
	fn := h[0] == 'c' && (h[1] == 'f' || h[1] == 'p' || (h[1] == 'o' && h[2] == 'r' && (h[3] == 'f' || h[3] == 'p')))
	if !fn || paren != 0 {
		return
	}
	switch {
	case equalFold(w, "begin"):
		b.depth++
	case equalFold(w, "case"):
		if b.depth > 0 {
			b.depth++
		}
	case equalFold(w, "end"):
		if b.depth > 0 {
			b.depth--
		}
	}
}

// Depth returns the number of open BEGINs (and CASEs inside them): a
// semicolon ends the statement only at 0.
func (b *Body) Depth() int { return b.depth }

// NextStatement starts the words of a new statement (after a semicolon
// that ended one); the depth is left as it is.
func (b *Body) NextStatement() { b.words = 0 }

// equalFold reports whether s is the lower-case ASCII word w, ignoring
// ASCII case.
func equalFold(s, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
