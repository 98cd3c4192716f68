package sqltext

import (
	"strconv"
	"strings"
)

// Algorithm names the fingerprint algorithm of this package. It changes
// whenever a statement could get another fingerprint than before, so that
// fingerprints of different algorithms are never compared.
const Algorithm = "pglab-fp-1"

// Fingerprint is a statement's normalised text and the ID of that text.
type Fingerprint struct {
	// ID is 16 hexadecimal digits: a 64-bit FNV-1a hash of the normalised
	// token sequence (not of Text's spacing).
	ID string
	// Text is the normalised statement, for people: keywords and
	// identifiers in lower case, one space between tokens (none inside
	// calls, casts and qualified names), constants and parameters as $1,
	// $2, … in order, constant lists as (...).
	Text string
}

// item kinds of a normalised statement
const (
	itWord  = iota // a keyword or identifier, lower-cased (or a quoted one)
	itConst        // a constant or parameter
	itList         // a collapsed list of constants
	itSym          // an operator, punctuation or other byte
)

type item struct {
	kind uint8
	text string
}

// Normalizer computes fingerprints, reusing its buffers between calls; it
// is not safe for concurrent use.
type Normalizer struct {
	items []item
	out   []item
	b     strings.Builder
}

// Normalize returns the fingerprint of sql with a Normalizer of its own.
func Normalize(sql string) Fingerprint {
	var n Normalizer
	return n.Normalize(sql)
}

// Normalize returns the fingerprint of sql. Two statements get the same
// fingerprint when they differ only in white space, comments, the case of
// unquoted words, the quoting of lower-case identifiers, the values of
// constants (numbers, strings of every quoting, true and false; a leading
// minus sign belongs to the number) and of positional parameters, and the
// number of constants in an IN (…) list or an ARRAY[…]. NULL stays a word.
func (n *Normalizer) Normalize(sql string) Fingerprint {
	n.items = n.lexItems(sql, n.items[:0])
	n.out = collapseLists(n.items, n.out[:0])
	return Fingerprint{ID: hashItems(n.out), Text: n.render(n.out)}
}

// lexItems turns sql's tokens into items: no space or comments, words
// lower-cased, constants marked.
func (n *Normalizer) lexItems(sql string, items []item) []item {
	l := NewLexer(sql)
	prevString := false // the last item is a string constant (adjacent ones merge)
	for t, ok := l.Next(); ok; t, ok = l.Next() {
		switch t.Kind {
		case Space, Comment:
			continue
		case String:
			if prevString {
				continue
			}
			items = append(items, item{kind: itConst})
		case Number:
			items = foldSign(items)
			items = append(items, item{kind: itConst})
		case Param:
			items = append(items, item{kind: itConst})
		case Ident:
			w := lowerASCII(t.Text)
			if w == "true" || w == "false" {
				items = append(items, item{kind: itConst})
			} else {
				items = append(items, item{kind: itWord, text: w})
			}
		case QIdent:
			items = append(items, item{kind: itWord, text: unquoteSimple(t.Text)})
		default:
			items = append(items, item{kind: itSym, text: t.Text})
		}
		prevString = t.Kind == String
	}
	return items
}

// foldSign drops a unary minus or plus before a number: one that follows
// nothing, an operator, an opening bracket, a comma or a keyword that takes
// an expression.
func foldSign(items []item) []item {
	k := len(items)
	if k == 0 || items[k-1].kind != itSym || (items[k-1].text != "-" && items[k-1].text != "+") {
		return items
	}
	if k == 1 {
		return items[:0]
	}
	p := items[k-2]
	switch {
	case p.kind == itSym && p.text != ")" && p.text != "]":
		return items[:k-1]
	case p.kind == itWord && exprKeywords[p.text]:
		return items[:k-1]
	}
	return items
}

// exprKeywords are words after which a minus sign is unary.
var exprKeywords = setOf("select", "where", "and", "or", "not", "when", "then", "else",
	"return", "returning", "values", "by", "in", "between", "like", "ilike", "limit",
	"offset", "set", "is", "as", "on", "having", "distinct", "case", "array", "interval",
	"fetch", "first", "next", "default")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// collapseLists copies items to out with every IN (c, c, …) and
// ARRAY[c, c, …] of constants replaced by one list item.
func collapseLists(items, out []item) []item {
	for i := 0; i < len(items); i++ {
		it := items[i]
		out = append(out, it)
		if it.kind != itWord || i+1 >= len(items) || items[i+1].kind != itSym {
			continue
		}
		var open, close string
		switch {
		case it.text == "in" && items[i+1].text == "(":
			open, close = "(", ")"
		case it.text == "array" && items[i+1].text == "[":
			open, close = "[", "]"
		default:
			continue
		}
		if end := constList(items, i+2, close); end > 0 {
			out = append(out, item{kind: itSym, text: open}, item{kind: itList}, item{kind: itSym, text: close})
			i = end
		}
	}
	return out
}

// constList returns the index of the closing bracket when items from
// start on are constants, each optionally cast (::type words), separated by
// commas and closed by close; otherwise 0.
func constList(items []item, start int, close string) int {
	i := start
	for i < len(items) {
		if items[i].kind != itConst {
			return 0
		}
		i++
		for i+1 < len(items) && items[i].kind == itSym && items[i].text == "::" && items[i+1].kind == itWord {
			i += 2
			for i < len(items) && items[i].kind == itWord {
				i++
			}
		}
		if i >= len(items) || items[i].kind != itSym {
			return 0
		}
		switch items[i].text {
		case ",":
			i++
		case close:
			return i
		default:
			return 0
		}
	}
	return 0
}

// hashItems returns the FNV-1a 64 hash of the items (each as a zero byte,
// its kind and its text) as 16 hex digits.
func hashItems(items []item) string {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, it := range items {
		h = (h ^ 0) * prime
		h = (h ^ uint64(it.kind)) * prime
		for i := 0; i < len(it.text); i++ {
			h = (h ^ uint64(it.text[i])) * prime
		}
	}
	var buf [16]byte
	const hex = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		buf[i] = hex[h&15]
		h >>= 4
	}
	return string(buf[:])
}

// render writes items as text, numbering constants.
func (n *Normalizer) render(items []item) string {
	b := &n.b
	b.Reset()
	param := 0
	for i, it := range items {
		if i > 0 && spaceBetween(items[i-1], it) {
			b.WriteByte(' ')
		}
		switch it.kind {
		case itConst:
			param++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(param))
		case itList:
			b.WriteString("...")
		default:
			b.WriteString(it.text)
		}
	}
	return b.String()
}

// spaceBetween reports whether the rendered text puts a space between a and
// b: none before , ; ) ] . :: and [, none after ( [ . ::, and none between a
// function's name and its opening parenthesis.
func spaceBetween(a, b item) bool {
	if b.kind == itSym {
		switch b.text {
		case ",", ";", ")", "]", ".", "::", "[":
			return false
		case "(":
			return a.kind != itWord || spacedKeywords[a.text]
		}
	}
	if a.kind == itSym {
		switch a.text {
		case "(", "[", ".", "::":
			return false
		}
	}
	return true
}

// spacedKeywords keep a space before an opening parenthesis.
var spacedKeywords = setOf("in", "values", "as", "on", "and", "or", "not", "exists",
	"from", "join", "where", "select", "using", "over", "filter", "into", "set",
	"returning", "when", "then", "else", "case", "lateral", "with", "union", "intersect",
	"except", "by", "having", "between", "is", "table", "all", "distinct", "within", "group")

// lowerASCII lower-cases the ASCII letters of s, as PostgreSQL folds
// unquoted words (bytes of multibyte characters are kept).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// unquoteSimple returns a quoted identifier without its quotes when it
// means the same unquoted (lower-case letters, digits and _), else as
// written.
func unquoteSimple(q string) string {
	if len(q) < 3 || q[0] != '"' || q[len(q)-1] != '"' {
		return q
	}
	in := q[1 : len(q)-1]
	if in[0] >= '0' && in[0] <= '9' {
		return q
	}
	for i := 0; i < len(in); i++ {
		c := in[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return q
		}
	}
	return in
}
