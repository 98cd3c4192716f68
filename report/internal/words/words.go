package words

import (
	"fmt"
	"sort"
	"strings"
)

func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func JoinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// lowerFirst lowers a heading's first letter for use inside a sentence,
// unless the word is an acronym ("VACUUM VERBOSE output").
func LowerFirst(s string) string {
	if len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// sortedKeys returns the keys of the maps, sorted, without repeats.
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

func OrDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
