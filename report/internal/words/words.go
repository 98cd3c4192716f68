// Package words holds the few words the report's packages all write:
// plurals, on/off, a dash for nothing, joined parts.
package words

import (
	"fmt"
	"sort"
	"strings"
)

// OnOff says a boolean setting as PostgreSQL does: "on" or "off".
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Plural counts n of a word: "1 case", "3 cases".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// JoinNonEmpty joins the parts that are not empty with sep.
func JoinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// LowerFirst lowers a heading's first letter for use inside a sentence,
// unless the word is an acronym ("VACUUM VERBOSE output").
func LowerFirst(s string) string {
	if len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// SortedKeys returns the keys of the maps, sorted, without repeats.
func SortedKeys(ms ...map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// OrDash is s, or a dash where s is empty (a table cell without a value).
func OrDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
