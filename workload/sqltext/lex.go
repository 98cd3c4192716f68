package sqltext

import "strings"

// Kind is the kind of a token.
type Kind uint8

// Token kinds. Space and Comment tokens are returned too, so that the
// tokens of a text put end to end give the text back.
const (
	Space   Kind = iota // white space: space, tab, newline, CR, form feed, vertical tab
	Comment             // -- to the end of the line, or /* … */ (nested)
	Ident               // an unquoted word: keyword or identifier
	QIdent              // a quoted identifier: "…" or U&"…"
	String              // a string constant: '…', E'…', B'…', X'…', N'…', U&'…', $tag$…$tag$
	Number              // a numeric constant: 42, 1.5, .5, 1e5, 0x1F, 0o17, 0b101, 1_000
	Param               // a positional parameter: $1
	Op                  // an operator: + - * / < > = ~ ! @ # % ^ & | ` ? and their runs
	Punct               // ( ) [ ] , ; . : :: :=
	Other               // any other byte
)

var kindNames = [...]string{"space", "comment", "ident", "qident", "string", "number", "param", "op", "punct", "other"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Token is one lexical unit of a SQL text: its kind and its text, a slice of
// the input.
type Token struct {
	Kind Kind
	Text string
}

// Lexer splits SQL text into tokens with PostgreSQL's rules for quoting
// (standard_conforming_strings on). It never fails: an unterminated quote
// or comment runs to the end of the text.
type Lexer struct {
	src string
	pos int
}

// NewLexer returns a lexer over src.
func NewLexer(src string) *Lexer { return &Lexer{src: src} }

// Next returns the next token, or false at the end of the text.
func (l *Lexer) Next() (Token, bool) {
	if l.pos >= len(l.src) {
		return Token{}, false
	}
	start := l.pos
	k := l.scan()
	return Token{Kind: k, Text: l.src[start:l.pos]}, true
}

// Tokens returns every token of src, white space and comments included.
func Tokens(src string) []Token {
	var out []Token
	l := NewLexer(src)
	for t, ok := l.Next(); ok; t, ok = l.Next() {
		out = append(out, t)
	}
	return out
}

// byte classes
const (
	clSpace = 1 << iota
	clIdentStart
	clIdent
	clDigit
	clOp
	clOpSpecial // op characters that keep a trailing + or - (see scanOp)
)

var class [256]uint8

func init() {
	for _, c := range " \t\n\r\f\v" {
		class[c] |= clSpace
	}
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
			class[c] |= clIdentStart | clIdent
		case c >= '0' && c <= '9':
			class[c] |= clDigit | clIdent
		}
	}
	class['$'] |= clIdent
	for _, c := range "+-*/<>=~!@#%^&|`?" {
		class[c] |= clOp
	}
	for _, c := range "~!@#%^&|`?" {
		class[c] |= clOpSpecial
	}
}

func (l *Lexer) peek(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

// scan consumes one token starting at l.pos and returns its kind.
func (l *Lexer) scan() Kind {
	c := l.src[l.pos]
	switch {
	case class[c]&clSpace != 0:
		for l.pos < len(l.src) && class[l.src[l.pos]]&clSpace != 0 {
			l.pos++
		}
		return Space
	case c == '-' && l.peek(1) == '-':
		for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
			l.pos++
		}
		return Comment
	case c == '/' && l.peek(1) == '*':
		l.blockComment()
		return Comment
	case c == '\'':
		l.quoted('\'', false)
		return String
	case c == '"':
		l.quoted('"', false)
		return QIdent
	case c == '$':
		return l.dollar()
	case class[c]&clDigit != 0, c == '.' && class[l.peek(1)]&clDigit != 0:
		l.number()
		return Number
	case class[c]&clIdentStart != 0:
		return l.word()
	case class[c]&clOp != 0:
		l.op()
		return Op
	case c == ':':
		l.pos++
		if n := l.peek(0); n == ':' || n == '=' {
			l.pos++
		}
		return Punct
	case c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ';' || c == '.':
		l.pos++
		return Punct
	}
	l.pos++
	return Other
}

// blockComment consumes a /* … */ comment, nested ones included.
func (l *Lexer) blockComment() {
	depth := 0
	for l.pos < len(l.src) {
		switch {
		case l.src[l.pos] == '/' && l.peek(1) == '*':
			depth++
			l.pos += 2
		case l.src[l.pos] == '*' && l.peek(1) == '/':
			depth--
			l.pos += 2
			if depth == 0 {
				return
			}
		default:
			l.pos++
		}
	}
}

// quoted consumes a text quoted with q starting at l.pos (on the opening
// quote): a doubled quote stands for one, and with backslash a backslash
// escapes the next byte (E” strings).
func (l *Lexer) quoted(q byte, backslash bool) {
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case backslash && c == '\\':
			l.pos += 2
		case c == q && l.peek(1) == q:
			l.pos += 2
		case c == q:
			l.pos++
			return
		default:
			l.pos++
		}
	}
	l.pos = len(l.src)
}

// dollar consumes a positional parameter ($1) or a dollar-quoted string
// ($$…$$, $tag$…$tag$); a lone $ is Other.
func (l *Lexer) dollar() Kind {
	if class[l.peek(1)]&clDigit != 0 {
		l.pos++
		for l.pos < len(l.src) && class[l.src[l.pos]]&clDigit != 0 {
			l.pos++
		}
		return Param
	}
	end := l.pos + 1
	if end < len(l.src) && class[l.src[end]]&clIdentStart != 0 {
		for end < len(l.src) && class[l.src[end]]&clIdent != 0 && l.src[end] != '$' {
			end++
		}
	}
	if end >= len(l.src) || l.src[end] != '$' {
		l.pos++
		return Other
	}
	tag := l.src[l.pos : end+1]
	body := end + 1
	if i := strings.Index(l.src[body:], tag); i >= 0 {
		l.pos = body + i + len(tag)
	} else {
		l.pos = len(l.src)
	}
	return String
}

// number consumes a numeric constant: decimal with optional fraction and
// exponent, or a 0x/0o/0b integer (PostgreSQL 16+), with underscores
// between digits (16+).
func (l *Lexer) number() {
	if l.src[l.pos] == '0' {
		switch l.peek(1) | 0x20 {
		case 'x', 'o', 'b':
			if isAlnum(l.peek(2)) {
				l.pos += 2
				for l.pos < len(l.src) && (isAlnum(l.src[l.pos]) || l.src[l.pos] == '_') {
					l.pos++
				}
				return
			}
		}
	}
	l.digits()
	if l.peek(0) == '.' && l.peek(1) != '.' {
		l.pos++
		l.digits()
	}
	if l.peek(0)|0x20 == 'e' {
		off := 1
		if s := l.peek(1); s == '+' || s == '-' {
			off = 2
		}
		if class[l.peek(off)]&clDigit != 0 {
			l.pos += off
			l.digits()
		}
	}
}

func (l *Lexer) digits() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if class[c]&clDigit == 0 && !(c == '_' && class[l.peek(1)]&clDigit != 0) {
			return
		}
		l.pos++
	}
}

func isAlnum(c byte) bool {
	return class[c]&clIdent != 0 && c != '$' && c != '_'
}

// word consumes an unquoted word, or a string or quoted identifier whose
// prefix it is: E'…', B'…', X'…', N'…', U&'…', U&"…".
func (l *Lexer) word() Kind {
	c := l.src[l.pos] | 0x20
	next := l.peek(1)
	switch {
	case next == '\'' && c == 'e':
		l.pos++
		l.quoted('\'', true)
		return String
	case next == '\'' && (c == 'b' || c == 'x' || c == 'n'):
		l.pos++
		l.quoted('\'', false)
		return String
	case c == 'u' && next == '&' && (l.peek(2) == '\'' || l.peek(2) == '"'):
		q := l.peek(2)
		l.pos += 2
		l.quoted(q, false)
		if q == '"' {
			return QIdent
		}
		return String
	}
	for l.pos < len(l.src) && class[l.src[l.pos]]&clIdent != 0 {
		l.pos++
	}
	return Ident
}

// op consumes an operator with PostgreSQL's rules: a run of operator
// characters that stops before a comment start, and loses trailing + and -
// unless it holds one of ~ ! @ # % ^ & | ` ? (so "=-1" is "=" then "-").
func (l *Lexer) op() {
	start := l.pos
	special := false
	for l.pos < len(l.src) && class[l.src[l.pos]]&clOp != 0 {
		c := l.src[l.pos]
		if l.pos > start && (c == '-' && l.peek(1) == '-' || c == '/' && l.peek(1) == '*') {
			break
		}
		special = special || class[c]&clOpSpecial != 0
		l.pos++
	}
	if !special {
		for l.pos-start > 1 && (l.src[l.pos-1] == '+' || l.src[l.pos-1] == '-') {
			l.pos--
		}
	}
}
