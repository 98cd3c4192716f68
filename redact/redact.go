// Package redact masks passwords in the text pglab prints, stores and
// serves: connection strings (URLs and key=value), free text that quotes
// them (error messages, server notices), command lines. Everything else is
// kept byte for byte.
package redact

import (
	"regexp"
	"strings"
)

// Mask is the text that replaces a password wherever pglab redacts one.
const Mask = "xxxxx"

// schemeRE finds the start of a URL ("postgres://", "http://", ...) in text.
var schemeRE = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://`)

// keyRE finds a password key followed by '=' in key=value text: "password=",
// "sslpassword =", "PGPASSWORD=", "db_passwd=". The first group is the
// character before the key (or nothing at the start of the text), so that
// "xpassword" inside a longer word of other letters is still caught while a
// key must start at a word boundary.
var keyRE = regexp.MustCompile(`(?i)(^|[^a-z0-9_])[a-z0-9_]*(?:password|passwd)\s*=\s*`)

// URL query parameters whose name ends in password or passwd.
var queryKeyRE = regexp.MustCompile(`(?i)[?&;][a-z0-9_]*(?:password|passwd)=`)

// DSN returns dsn with every password replaced by [Mask]. It understands
// both libpq forms: URLs ("postgres://user:secret@host/db?sslpassword=x" becomes
// "postgres://user:xxxxx@host/db?sslpassword=xxxxx") and key=value strings
// ("host=h password='a b' user=u" becomes "host=h password='xxxxx' user=u").
// Everything else in the string is kept byte for byte. When a string cannot be
// parsed (an unterminated quote, a password with an unescaped '/' or '@'), it
// errs on the side of hiding too much: the rest of the value, or everything
// from the user name's ':' to the last '@', is masked.
func DSN(dsn string) string {
	return Text(dsn)
}

// Text returns s with every password that it can recognise replaced by
// [Mask]: the password part of any URL's user information, URL query
// parameters named *password or *passwd, and key=value pairs with such keys
// (quoted or not). It is meant for free text that may quote a connection
// string, such as error messages and server notices. A URL is taken to end at
// the next white space. The text is read from left to right, so a password
// key's value is masked whole even when it holds "://" ("password=a://b@c").
func Text(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	var b strings.Builder
	// The next URL and the next password key at or after pos, as indexes
	// into s; each is searched for again only once pos has passed its start,
	// so the text is scanned once however many matches it holds.
	urlAt, keyAt := nextMatch(schemeRE, s, 0), nextMatch(keyRE, s, 0)
	pos := 0
	for pos < len(s) {
		if urlAt != nil && urlAt[0] < pos {
			urlAt = nextMatch(schemeRE, s, pos)
		}
		if keyAt != nil && keyAt[0] < pos {
			keyAt = nextMatch(keyRE, s, pos)
		}
		switch {
		case keyAt != nil && (urlAt == nil || keyAt[0] < urlAt[0]):
			// A password key comes first: its whole value is masked, even
			// when it looks like a URL ("password=a://b@c").
			b.WriteString(s[pos:keyAt[1]])
			end, masked := maskValue(s, keyAt[1])
			b.WriteString(masked)
			pos = end
		case urlAt != nil:
			end := urlAt[1]
			for end < len(s) && !isSpace(s[end]) {
				end++
			}
			b.WriteString(s[pos:urlAt[1]])
			b.WriteString(redactURLRest(s[urlAt[1]:end]))
			pos = end
		default:
			b.WriteString(s[pos:])
			pos = len(s)
		}
	}
	return b.String()
}

// nextMatch returns the first match of re in s at or after from, as indexes
// into s, or nil.
func nextMatch(re *regexp.Regexp, s string, from int) []int {
	loc := re.FindStringIndex(s[from:])
	if loc == nil {
		return nil
	}
	return []int{from + loc[0], from + loc[1]}
}

// Args returns a copy of a command line with every password redacted:
// each argument goes through [Text], and the argument that follows a
// flag named like a password ("--password secret", "--db-passwd secret") is
// replaced by [Mask] as a whole. The slice passed in is not modified.
func Args(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	maskNext := false
	for i, a := range args {
		if maskNext {
			out[i] = Mask
			maskNext = false
			continue
		}
		out[i] = Text(a)
		maskNext = isPasswordFlag(a)
	}
	return out
}

// isPasswordFlag reports whether a is a flag without an inline value whose
// name ends in password or passwd, so that its value is the next argument.
func isPasswordFlag(a string) bool {
	if !strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
		return false
	}
	name := strings.ToLower(strings.TrimLeft(a, "-"))
	return strings.HasSuffix(name, "password") || strings.HasSuffix(name, "passwd")
}

// mayHoldSecret is a cheap test that lets most strings skip the regular
// expressions: anything with a password has "://" or a "pass" key.
func mayHoldSecret(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "password") || strings.Contains(l, "passwd")
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// redactURLRest redacts the part of a URL after "scheme://": the password in
// the user information and password query parameters.
func redactURLRest(rest string) string {
	// The authority ends at the first '/'; the user information ends at the
	// last '@' inside it. A password may (wrongly, but people type it) hold a
	// raw '/': then no '@' is found before the first '/', and the last '@' of
	// the whole URL is taken instead, provided the text before it has the
	// user:password colon.
	authEnd := strings.IndexByte(rest, '/')
	if authEnd < 0 {
		authEnd = len(rest)
	}
	at := strings.LastIndexByte(rest[:authEnd], '@')
	if at < 0 {
		at = strings.LastIndexByte(rest, '@')
	}
	var b strings.Builder
	tail := rest
	if at >= 0 {
		userinfo := rest[:at]
		if colon := strings.IndexByte(userinfo, ':'); colon >= 0 && colon < len(userinfo)-1 {
			b.WriteString(userinfo[:colon+1])
			b.WriteString(Mask)
		} else {
			b.WriteString(userinfo)
		}
		tail = rest[at:]
	}
	// Query parameters: mask each password value up to the next '&' or '#'.
	pos := 0
	for pos < len(tail) {
		loc := queryKeyRE.FindStringIndex(tail[pos:])
		if loc == nil {
			break
		}
		valStart := pos + loc[1]
		valEnd := valStart
		for valEnd < len(tail) && tail[valEnd] != '&' && tail[valEnd] != '#' {
			valEnd++
		}
		b.WriteString(tail[pos:valStart])
		if valEnd > valStart {
			b.WriteString(Mask)
		}
		pos = valEnd
	}
	b.WriteString(tail[pos:])
	return b.String()
}

// maskValue masks the value of a password key that starts at s[i], with
// libpq's rules for values: single-quoted with backslash escapes, or running
// to the next white space. Double quotes are treated like single quotes so
// that log and shell text is covered too. It returns the index just past the
// value and the text that replaces it; an unterminated quote hides the rest.
func maskValue(s string, i int) (end int, masked string) {
	if i == len(s) {
		return i, ""
	}
	if q := s[i]; q == '\'' || q == '"' {
		end := closingQuote(s, i+1, q)
		if end < 0 {
			return len(s), string(q) + Mask
		}
		return end + 1, string(q) + Mask + string(q)
	}
	end = i
	for end < len(s) && !isSpace(s[end]) {
		if s[end] == '\\' && end+1 < len(s) {
			end++
		}
		end++
	}
	return end, Mask
}

// closingQuote returns the index of the quote q that closes a value starting
// at i, skipping backslash escapes, or -1.
func closingQuote(s string, i int, q byte) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return -1
}

// IsPasswordKey reports whether a key (of JSON, of settings) names a password.
func IsPasswordKey(k string) bool {
	l := strings.ToLower(k)
	return strings.HasSuffix(l, "password") || strings.HasSuffix(l, "passwd")
}
