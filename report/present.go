package report

import (
	"sort"
	"strings"
)

// presentation says how a known study is shown: which case labels make the
// first columns of its tables, which metrics get a table of their own
// (primary, in the seeds' order), and which charts the HTML report draws.
// Every other metric is shown in the study's table of further metrics.
// Studies without an entry are shown with every metric in one table.
type presentation struct {
	// Labels are the case labels shown as columns, in order. Labels
	// not named here follow as their own columns.
	Labels []labelSpec
	// Facts are metrics that describe a case rather than measure a
	// target (the average row size of a table): shown as a column after
	// the labels ("≈24 kB") and in chart labels, not compared.
	Facts []metricSpec
	// Primary are the headline metrics, each with its own table.
	Primary []metricSpec
	// Charts are drawn in the HTML report when their metrics are present.
	Charts []chartSpec
	// Texts name the study's text artefacts and how they are shown;
	// others are shown under their artefact names (HTML and JSON).
	Texts []textSpec
	// Hide are case labels not shown as columns: they tell cases apart
	// (and stay in the JSON) but say nothing to a reader, such as a hash.
	Hide []string
	// NameLabel, when set, is the case label that names a case the
	// study's plan did not name (a case a run recorded into, such as a
	// replay's query fingerprint).
	NameLabel string
	// SortBy, when set, orders the cases by the change of this metric,
	// worst first (see sortCases); otherwise cases keep the order they
	// were measured in.
	SortBy string
}

// labelSpec is a case label shown as a column.
type labelSpec struct {
	Key  string
	Head string
	// Suffix is appended to the value, e.g. " %".
	Suffix string
}

// metricSpec is a headline metric and its heading.
type metricSpec struct {
	Metric string
	Head   string
	// Twin names a primary metric of the same step that this one is a
	// monotone function of (a throughput of a time): it repeats that
	// metric's test and is called with it (compare.Cell.Twin).
	Twin string
}

// chartKind selects how a chart draws its data.
type chartKind int

const (
	// barChart draws one group of bars per case, a bar per target.
	barChart chartKind = iota
	// lineChart draws a line per target over a numeric case label (X);
	// it falls back to bars when that label is not numeric.
	lineChart
)

// chartSpec describes one chart of a study.
type chartSpec struct {
	Kind  chartKind
	Title string
	// Metrics are drawn together; more than one only for metrics of the
	// same unit (latency percentiles), told apart by line style.
	Metrics []string
	// X is the numeric case label of a line chart, e.g. "clients".
	X     string
	XHead string
	// Ceiling names metrics whose highest median is drawn as a dashed
	// reference line (the disk's observed read throughput), with
	// CeilingText as its legend.
	Ceiling     []string
	CeilingText string
}

// presentations are the known studies (ARCHITECTURE §6).
var presentations = map[string]presentation{
	"tps": {
		Labels: []labelSpec{{Key: "clients", Head: "clients"}},
		Primary: []metricSpec{
			{"tps", "Throughput", ""},
			{"latency_avg_ms", "Average latency", "tps"},
			{"latency_p99_ms", "p99 latency", ""},
		},
		Charts: []chartSpec{
			{Kind: lineChart, Title: "Throughput by clients", Metrics: []string{"tps"}, X: "clients", XHead: "clients"},
			{Kind: lineChart, Title: "Latency percentiles by clients", Metrics: []string{"latency_p50_ms", "latency_p90_ms", "latency_p95_ms", "latency_p99_ms"}, X: "clients", XHead: "clients"},
		},
		Texts: []textSpec{{Name: "pgbench-summary", Head: "pgbench's summary"}},
	},
	"tune": {
		Labels: []labelSpec{{Key: "clients", Head: "clients"}},
		Primary: []metricSpec{
			{"tps", "Throughput", ""},
			{"latency_avg_ms", "Average latency", "tps"},
		},
		Charts: []chartSpec{
			{Kind: lineChart, Title: "Throughput by clients, defaults and tuned", Metrics: []string{"tps"}, X: "clients", XHead: "clients"},
		},
		Texts: []textSpec{{Name: "pgbench-summary", Head: "pgbench's summary"}},
	},
	"vacuum": {
		Labels: []labelSpec{{Key: "update_pct", Head: "rows updated", Suffix: " %"}, {Key: "index", Head: "index"}},
		Primary: []metricSpec{
			{"elapsed_ms", "VACUUM time", ""},
			{"wal_bytes", "WAL written by VACUUM", ""},
		},
		Charts: []chartSpec{
			{Kind: barChart, Title: "VACUUM time by case", Metrics: []string{"elapsed_ms"}},
			{Kind: barChart, Title: "WAL written by VACUUM by case", Metrics: []string{"wal_bytes"}},
		},
		Texts: []textSpec{{Name: "vacuum-verbose", Head: "VACUUM VERBOSE output"}},
	},
	"copy-errors": {
		Texts: []textSpec{{Name: "copy-output", Head: "What the server said", Markdown: true, Open: true}},
	},
	"copy-out": {
		Labels: []labelSpec{{Key: "table", Head: "table"}},
		Facts:  []metricSpec{{Metric: "avg_row_bytes", Head: "row size"}},
		Primary: []metricSpec{
			{"elapsed_ms", "COPY TO time", ""},
			{"mb_per_s", "COPY TO throughput", "elapsed_ms"},
		},
		Charts: []chartSpec{
			{Kind: barChart, Title: "COPY TO time by row size", Metrics: []string{"elapsed_ms"}},
		},
	},
	"seqscan": {
		Labels: []labelSpec{{Key: "cache", Head: "cache"}},
		Facts:  []metricSpec{{Metric: "table_mb", Head: "table"}},
		Primary: []metricSpec{
			{"elapsed_ms", "Scan time", ""},
			{"mb_per_s", "Scan throughput", "elapsed_ms"},
		},
		Charts: []chartSpec{
			{Kind: barChart, Title: "Scan throughput", Metrics: []string{"mb_per_s"},
				Ceiling: []string{"disk_read_mb_s_max", "disk_read_peak_mb_s", "disk_read_mb_s"}, CeilingText: "disk read ceiling (highest observed)"},
		},
		Texts: []textSpec{{Name: "cold-method", Head: "How the caches were emptied"}},
	},
	"replay": {
		Labels:    []labelSpec{{Key: "query", Head: "query"}},
		Hide:      []string{"fingerprint"},
		NameLabel: "query",
		SortBy:    "total_ms",
		Facts:     []metricSpec{{Metric: "calls", Head: "calls per round"}},
		Primary: []metricSpec{
			{"median_ms", "Statement latency (median of each round's calls)", ""},
		},
		Texts: []textSpec{{Name: "plan", Head: "Plans that differ (shape: node, join, index and relation; no estimates)", Markdown: true}},
	},
	"commit": {
		Labels: []labelSpec{{Key: "tx", Head: "transactions"}, {Key: "protocol", Head: "protocol"}},
		Primary: []metricSpec{
			{"elapsed_ms", "Time for all updates", ""},
			{"us_per_update", "Time per update", "elapsed_ms"},
			{"commit_cost_us", "Commit cost per update (WAL write and sync, synchronous standby wait)", ""},
			{"wal_sync_ms", "WAL sync time", ""},
			{"wal_syncs", "WAL syncs", ""},
		},
		Charts: []chartSpec{
			{Kind: barChart, Title: "Time for all updates by case", Metrics: []string{"elapsed_ms"}},
		},
	},
}

// metricTitles name metrics in tables of further metrics; names not listed
// are shown as they are.
var metricTitles = map[string]string{
	"elapsed_ms":          "time",
	"wal_bytes":           "WAL bytes",
	"wal_records":         "WAL records",
	"wal_fpi":             "WAL full-page images",
	"wal_syncs":           "WAL syncs",
	"wal_sync_ms":         "WAL sync time",
	"tps":                 "throughput",
	"latency_avg_ms":      "latency, average",
	"latency_p50_ms":      "latency, p50",
	"latency_p95_ms":      "latency, p95",
	"latency_p99_ms":      "latency, p99",
	"mb_per_s":            "throughput",
	"disk_read_mb_s":      "disk read",
	"op_p50_us":           "per update, p50",
	"us_per_update":       "time per update",
	"commit_cost_us":      "commit cost per update",
	"commit_latency_us":   "commit latency",
	"commit_ms":           "time committing",
	"syncrep_wait_ms":     "synchronous standby wait",
	"wal_write_ms":        "WAL write time",
	"op_p99_us":           "per update, p99",
	"round_trips":         "round trips",
	"commits":             "commits",
	"index_scans":         "index scans",
	"pages_scanned":       "pages scanned",
	"pages_removed":       "pages removed",
	"tuples_removed":      "tuples removed",
	"buffer_hits":         "buffer hits",
	"buffer_misses":       "buffer misses",
	"buffer_dirtied":      "buffers dirtied",
	"cpu_user_s":          "CPU user time",
	"cpu_sys_s":           "CPU system time",
	"cpu_busy_pct":        "CPU busy (machine)",
	"iowait_pct":          "I/O wait",
	"disk_write_mb_s":     "disk write",
	"conn_ms":             "connection time",
	"failed":              "failed transactions",
	"wal_bytes_per_tx":    "WAL bytes per transaction",
	"wal_syncs_per_tx":    "WAL syncs per transaction",
	"parallel_workers":    "parallel workers",
	"rows":                "rows",
	"median_ms":           "latency, median",
	"p95_ms":              "latency, p95",
	"total_ms":            "total time",
	"calls":               "calls",
	"errors":              "errors",
	"statements":          "statements executed",
	"statements_failed":   "statements failed",
	"unexpected_errors":   "unexpected errors",
	"busy_ms":             "time in statements",
	"round_ms":            "round time",
	"lag_p50_ms":          "schedule lag, p50",
	"lag_p99_ms":          "schedule lag, p99",
	"bytes":               "bytes",
	"rows_loaded":         "rows loaded",
	"rows_skipped":        "rows skipped",
	"avg_row_bytes":       "average row size",
	"table_bytes":         "table size",
	"table_mb":            "table size",
	"transactions":        "transactions",
	"latency_p90_ms":      "latency, p90",
	"latency_max_ms":      "latency, max",
	"disk_read_mb_s_max":  "disk read, peak",
	"disk_write_mb_s_max": "disk write, peak",
	"disk_read_iops":      "disk read IOPS",
	"disk_write_iops":     "disk write IOPS",
	"disk_util_pct":       "disk busy",
	"cpu_user_pct":        "CPU user (machine)",
	"cpu_sys_pct":         "CPU system (machine)",
	"warmup_s":            "warm-up left out",
	"measured_s":          "window measured",
	"tps_ci_pct":          "throughput's 95 % interval, ± (in the run)",
	"ended_by_precision":  "ended by the precision rule",
}

// metricTitle names a metric for a reader.
func metricTitle(name string) string {
	if t, ok := metricTitles[name]; ok {
		return t
	}
	if ev, ok := strings.CutPrefix(name, "wait_pct:"); ok {
		return "waiting on " + ev
	}
	return name
}

// sortedKeys returns the keys of the maps, sorted, without repeats.
func sortedKeys(ms ...map[string]string) []string {
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

// labelColumns returns the case label columns of a study: the known ones
// first (those present), then every other label in order of first
// appearance (sorted within a case).
func labelColumns(p presentation, cases []caseView) []labelSpec {
	present := map[string]bool{}
	var order []string
	for _, c := range cases {
		for _, k := range sortedKeys(c.Labels) {
			if !present[k] {
				present[k] = true
				order = append(order, k)
			}
		}
	}
	var out []labelSpec
	used := map[string]bool{}
	for _, k := range p.Hide {
		used[k] = true
	}
	for _, l := range p.Labels {
		if present[l.Key] {
			out = append(out, l)
			used[l.Key] = true
		}
	}
	for _, k := range order {
		if !used[k] {
			out = append(out, labelSpec{Key: k, Head: strings.ReplaceAll(k, "_", " ")})
		}
	}
	return out
}
