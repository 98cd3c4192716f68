package sqltext

import "strings"

// PasswordMask replaces a password constant in SQL text.
const PasswordMask = "'xxxxx'"

// RedactPasswords returns sql with the string constant that follows the
// word PASSWORD (CREATE/ALTER ROLE … [ENCRYPTED] PASSWORD '…', and the same
// in any other statement) replaced by [PasswordMask], and the numbers of the
// positional parameters that stand there instead (PASSWORD $1), so that a
// caller can mask their values. changed tells whether the text changed.
func RedactPasswords(sql string) (out string, params []int, changed bool) {
	if !containsFold(sql, "password") {
		return sql, nil, false
	}
	var b strings.Builder
	last := 0      // end of the text copied so far
	after := false // the previous significant token is the word PASSWORD
	l := NewLexer(sql)
	for {
		start := l.pos
		t, ok := l.Next()
		if !ok {
			break
		}
		switch {
		case t.Kind == Space || t.Kind == Comment:
			continue
		case after && t.Kind == String:
			b.WriteString(sql[last:start])
			b.WriteString(PasswordMask)
			last = l.pos
			changed = true
		case after && t.Kind == Param:
			if n, err := atoi(t.Text[1:]); err == nil {
				params = append(params, n)
			}
		}
		after = t.Kind == Ident && strings.EqualFold(t.Text, "password")
	}
	if !changed {
		return sql, params, false
	}
	b.WriteString(sql[last:])
	return b.String(), params, true
}

// containsFold reports whether s holds word in any case of its ASCII
// letters; word must be lower case.
func containsFold(s, word string) bool {
	n := len(word)
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 != word[0] {
			continue
		}
		j := 1
		for j < n && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

func atoi(s string) (int, error) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || n > 1<<20 {
			return 0, errNotNumber
		}
		n = n*10 + int(s[i]-'0')
	}
	if s == "" {
		return 0, errNotNumber
	}
	return n, nil
}

type sentinel string

func (e sentinel) Error() string { return string(e) }

const errNotNumber = sentinel("not a number")

// IsCopyFromStdin reports whether sql holds a COPY … FROM STDIN statement,
// whose data travels outside the statement's text (and outside the log).
func IsCopyFromStdin(sql string) bool {
	if !containsFold(sql, "stdin") {
		return false
	}
	first, prev := "", ""
	l := NewLexer(sql)
	for t, ok := l.Next(); ok; t, ok = l.Next() {
		switch t.Kind {
		case Space, Comment:
			continue
		case Punct:
			if t.Text == ";" {
				first, prev = "", ""
				continue
			}
		}
		w := ""
		if t.Kind == Ident {
			w = lowerASCII(t.Text)
		}
		if first == "" {
			first = w + "\x00"
		}
		if first == "copy\x00" && prev == "from" && w == "stdin" {
			return true
		}
		prev = w
	}
	return false
}
