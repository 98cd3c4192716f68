package runs

import (
	"sort"
	"strings"
)

// CaseTitle formats a case's labels, e.g. "index=yes update_pct=95"
// (sorted by name), or "(all)" for a case without labels.
func CaseTitle(labels map[string]string) string {
	if len(labels) == 0 {
		return "(all)"
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, " ")
}
