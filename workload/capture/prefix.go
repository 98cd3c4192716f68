package capture

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultPrefix is PostgreSQL's default log_line_prefix (10+), assumed for
// stderr logs when none is given.
const DefaultPrefix = "%m [%p] "

// RecommendedPrefix is the log_line_prefix pglab recommends for stderr
// logs: time with milliseconds, process id, SQLSTATE (of failed
// statements), then (for client sessions only) user, database and
// application.
const RecommendedPrefix = "%m [%p] %e %q%u@%d/%a "

// RecommendedPrefixQueryID is RecommendedPrefix with the query id (%Q,
// PostgreSQL 14+) after the SQLSTATE.
const RecommendedPrefixQueryID = "%m [%p] %e %Q %q%u@%d/%a "

// prefixEscapes are the log_line_prefix escapes the capture reads, with
// what they hold; the others are refused.
var prefixEscapes = map[byte]string{
	'a': "application name", 'u': "user name", 'd': "database name",
	'r': "remote host and port", 'h': "remote host", 'b': "backend type",
	'p': "process ID", 'P': "parallel group leader's process ID",
	't': "time stamp without milliseconds", 'm': "time stamp with milliseconds",
	'n': "time stamp as Unix epoch with milliseconds", 'i': "command tag",
	'e': "SQLSTATE", 'c': "session ID", 'l': "log line number",
	's': "session start time stamp", 'v': "virtual transaction ID",
	'x': "transaction ID", 'q': "end of the prefix for non-session processes",
	'Q': "query ID",
}

// freeText are escapes whose values may hold any text: a literal must
// follow them in the prefix, where their value ends.
const freeText = "audrhbi"

// prefixPart is a literal or an escape of a log_line_prefix.
type prefixPart struct {
	lit string
	esc byte // 0 for a literal
	pad bool // a padding width was given (values are padded with spaces)
}

// prefix is a compiled log_line_prefix.
type prefix struct {
	text  string
	parts []prefixPart
	has   map[byte]bool
}

// PrefixEscapes describes the escapes a stderr log's prefix may use, for
// help texts.
func PrefixEscapes() string {
	var b strings.Builder
	for _, c := range "mtnpcludaehrbiPsvxQq" {
		fmt.Fprintf(&b, "%%%c %s\n", c, prefixEscapes[byte(c)])
	}
	return b.String()
}

// compilePrefix parses a log_line_prefix. It needs a time (%m, %t or %n)
// and a way to tell sessions apart (%c or %p), and a literal after each
// escape whose value is free text.
func compilePrefix(text string) (*prefix, error) {
	p := &prefix{text: text, has: map[byte]bool{}}
	var lit strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] != '%' || i+1 >= len(text) {
			lit.WriteByte(text[i])
			continue
		}
		i++
		pad := false
		for i < len(text) && (text[i] == '-' || text[i] >= '0' && text[i] <= '9') {
			pad = true
			i++
		}
		if i >= len(text) {
			return nil, fmt.Errorf("log_line_prefix %q ends inside an escape", text)
		}
		c := text[i]
		if c == '%' {
			lit.WriteByte('%')
			continue
		}
		if _, ok := prefixEscapes[c]; !ok {
			return nil, fmt.Errorf("log_line_prefix %q: escape %%%c is not one pglab reads", text, c)
		}
		if lit.Len() > 0 {
			p.parts = append(p.parts, prefixPart{lit: lit.String()})
			lit.Reset()
		}
		p.parts = append(p.parts, prefixPart{esc: c, pad: pad})
		p.has[c] = true
	}
	if lit.Len() > 0 {
		p.parts = append(p.parts, prefixPart{lit: lit.String()})
	}
	return p, p.check()
}

// check refuses prefixes the capture cannot read.
func (p *prefix) check() error {
	if !p.has['m'] && !p.has['t'] && !p.has['n'] {
		return fmt.Errorf("log_line_prefix %q has no time stamp: it needs %%m (best), %%t or %%n", p.text)
	}
	if !p.has['c'] && !p.has['p'] {
		return fmt.Errorf("log_line_prefix %q cannot tell sessions apart: it needs %%p or %%c", p.text)
	}
	for i, part := range p.parts {
		if part.esc == 0 || !strings.ContainsRune(freeText, rune(part.esc)) {
			continue
		}
		if next := p.literalAfter(i); next == "" {
			return fmt.Errorf("log_line_prefix %q: %%%c must be followed by literal text where its value ends", p.text, part.esc)
		}
	}
	return nil
}

// literalAfter returns the literal that follows part i (past %q), or "".
func (p *prefix) literalAfter(i int) string {
	for j := i + 1; j < len(p.parts); j++ {
		switch {
		case p.parts[j].esc == 'q':
			continue
		case p.parts[j].esc == 0:
			return p.parts[j].lit
		}
		return ""
	}
	return ""
}

// onlyLiteralsAfter reports whether nothing but literals (and %q) follow
// part i.
func (p *prefix) onlyLiteralsAfter(i int) bool {
	for _, part := range p.parts[i+1:] {
		if part.esc != 0 && part.esc != 'q' {
			return false
		}
	}
	return true
}

// labels are the words that begin a stderr log message after its prefix
// ("LOG:  "): severities start a message, the others continue the last one.
var labels = map[string]bool{
	"DEBUG": true, "LOG": true, "INFO": true, "NOTICE": true, "WARNING": true,
	"ERROR": true, "FATAL": true, "PANIC": true,
	"DETAIL": false, "HINT": false, "QUERY": false, "CONTEXT": false,
	"LOCATION": false, "STATEMENT": false,
}

// labelAt returns the label at the start of s ("LOG" of "LOG:  …"), the
// length of the label with its colon and two spaces, and whether it starts
// a message.
func labelAt(s string) (label string, n int, starts bool) {
	i := 0
	for i < len(s) && i < 10 && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	if i == 0 || !strings.HasPrefix(s[i:], ":  ") {
		return "", 0, false
	}
	st, ok := labels[s[:i]]
	if !ok {
		return "", 0, false
	}
	return s[:i], i + 3, st
}

// match reads the prefix at the start of line into e and returns the rest
// of the line (from the label on).
func (p *prefix) match(line string, tp *timeParser, e *entry) (string, bool) {
	rest := line
	for i, part := range p.parts {
		switch {
		case part.esc == 0:
			if !strings.HasPrefix(rest, part.lit) {
				return "", false
			}
			rest = rest[len(part.lit):]
			continue
		case part.esc == 'q':
			if _, n, _ := labelAt(rest); n > 0 {
				return rest, true // a non-session process: the prefix stops here
			}
			continue
		}
		if part.pad {
			rest = strings.TrimLeft(rest, " ")
		}
		n := p.valueLen(i, rest)
		if n < 0 {
			return "", false
		}
		if !p.setField(part.esc, trimPad(rest[:n], part.pad), tp, e) {
			return "", false
		}
		rest = rest[n:]
		if part.pad {
			rest = strings.TrimLeft(rest, " ")
		}
	}
	return rest, true
}

func trimPad(v string, pad bool) string {
	if pad {
		return strings.TrimRight(v, " ")
	}
	return v
}

// valueLen returns the length of part i's value at the start of s, or -1.
func (p *prefix) valueLen(i int, s string) int {
	switch c := p.parts[i].esc; c {
	case 'm', 't', 's':
		return timestampLen(s, firstByte(p.literalAfter(i)))
	case 'n':
		return runLen(s, 0, "0123456789.")
	case 'p', 'l', 'x', 'Q', 'P':
		return runLen(s, 0, "-0123456789")
	case 'c':
		return runLen(s, 0, "0123456789abcdef.")
	case 'v':
		return runLen(s, 0, "0123456789/")
	case 'e':
		if len(s) >= 5 && runLen(s[:5], 0, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5 {
			return 5
		}
		return -1
	}
	return p.freeTextLen(i, s)
}

// freeTextLen finds where a free-text value ends: at the literal after it,
// and when only literals follow, at those literals followed by a label.
func (p *prefix) freeTextLen(i int, s string) int {
	lit := p.literalAfter(i)
	if !p.onlyLiteralsAfter(i) {
		return strings.Index(s, lit)
	}
	var tail strings.Builder
	for _, part := range p.parts[i+1:] {
		tail.WriteString(part.lit)
	}
	t := tail.String()
	for k := 0; k <= len(s)-len(t); {
		j := strings.Index(s[k:], t)
		if j < 0 {
			return -1
		}
		if _, n, _ := labelAt(s[k+j+len(t):]); n > 0 {
			return k + j
		}
		k += j + 1
	}
	return -1
}

// setField stores an escape's value in e.
func (p *prefix) setField(c byte, v string, tp *timeParser, e *entry) bool {
	var err error
	switch c {
	case 'm', 't':
		e.time, err = tp.parse(v)
	case 'n':
		e.time, err = parseEpoch(v)
	case 'p':
		e.pid = v
	case 'c':
		e.session = v
	case 'u':
		e.user = known(v)
	case 'd':
		e.db = known(v)
	case 'a':
		e.app = known(v)
	case 'b':
		e.backend = v
	case 'i':
		e.tag = v
	case 'e':
		e.sqlstate = v
	case 'Q':
		e.queryID, err = strconv.ParseInt(v, 10, 64)
	}
	return err == nil
}

// known turns PostgreSQL's "[unknown]" (a value not yet known, before
// authentication) into "".
func known(v string) string {
	if v == "[unknown]" {
		return ""
	}
	return v
}

// timestampLen returns the length of "2006-01-02 15:04:05[.000] ZONE" at
// the start of s; the zone ends at a space or at stop.
func timestampLen(s string, stop byte) int {
	if len(s) < 19 || s[4] != '-' || s[10] != ' ' || s[13] != ':' {
		return -1
	}
	j := 19
	if j < len(s) && s[j] == '.' {
		j = runLen(s, j+1, "0123456789")
	}
	if j < len(s) && s[j] == ' ' {
		k := j + 1
		for k < len(s) && s[k] != ' ' && s[k] != stop {
			k++
		}
		if k > j+1 {
			j = k
		}
	}
	return j
}

// runLen returns the index of the first byte at or after from that is not
// in set.
func runLen(s string, from int, set string) int {
	for from < len(s) && strings.IndexByte(set, s[from]) >= 0 {
		from++
	}
	return from
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}
