package observe

import "sort"

// Metric is one named figure with its unit. Names are stable across
// PostgreSQL versions and pglab releases; doc.go lists them.
type Metric struct {
	Name  string
	Value float64
	// Unit is one of "count", "bytes", "ms", "s", "pct", "MB/s", "pages".
	Unit string
}

// Find returns the metric with the given name from ms.
func Find(ms []Metric, name string) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// sortMetrics orders ms by name.
func sortMetrics(ms []Metric) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
}
