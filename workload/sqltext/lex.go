package sqltext

import "github.com/pglab/pglab/internal/sqllex"

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
// (standard_conforming_strings on), which are package sqllex's. It never
// fails: an unterminated quote or comment runs to the end of the text.
type Lexer struct {
	src string
	pos int
	q   sqllex.Scanner
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
	clAlnum // an ASCII letter or digit, or a byte of a non-ASCII character
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
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= 0x80:
			class[c] |= clAlnum
		case c >= '0' && c <= '9':
			class[c] |= clDigit | clAlnum
		}
	}
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

// quotedKinds are the token kinds of sqllex's quoted tokens and comments.
var quotedKinds = [...]Kind{
	sqllex.LineComment:  Comment,
	sqllex.BlockComment: Comment,
	sqllex.String:       String,
	sqllex.EscapeString: String,
	sqllex.QuotedIdent:  QIdent,
	sqllex.DollarString: String,
}

// scan consumes one token starting at l.pos and returns its kind.
func (l *Lexer) scan() Kind {
	c := l.src[l.pos]
	if class[c]&clSpace != 0 {
		for l.pos < len(l.src) && class[l.src[l.pos]]&clSpace != 0 {
			l.pos++
		}
		return Space
	}
	if n := l.q.Open(l.src, l.pos); n > 0 {
		k := quotedKinds[l.q.Inside()]
		l.pos = l.q.Scan(l.src, l.pos+n)
		l.q.Reset()
		return k
	}
	switch {
	case c == '$':
		return l.dollar()
	case class[c]&clDigit != 0, c == '.' && class[l.peek(1)]&clDigit != 0:
		l.number()
		return Number
	case sqllex.IsIdentStart(c):
		l.pos = sqllex.IdentEnd(l.src, l.pos)
		return Ident
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

// dollar consumes a positional parameter ($1); a $ that begins neither it
// nor a dollar-quoted string is Other.
func (l *Lexer) dollar() Kind {
	l.pos++
	if class[l.peek(0)]&clDigit == 0 {
		return Other
	}
	for l.pos < len(l.src) && class[l.src[l.pos]]&clDigit != 0 {
		l.pos++
	}
	return Param
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
	return class[c]&clAlnum != 0
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
