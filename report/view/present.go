package view

import (
	"strings"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/results"
)

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

// metricTitle names a metric of the study for a reader: as its
// presentation's titles do, else as every study's.
func (sv *Study) metricTitle(name string) string {
	if t, ok := sv.present.Titles[name]; ok {
		return t
	}
	return metricTitle(name)
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

// labelColumns returns the case label columns of a study: those its
// presentation names first (those present), then every other label not
// hidden in order of first appearance (sorted within a case).
func labelColumns(p *results.Presentation, cases []Case) []results.LabelColumn {
	present := map[string]bool{}
	var order []string
	for _, c := range cases {
		for _, k := range words.SortedKeys(c.Labels) {
			if !present[k] {
				present[k] = true
				order = append(order, k)
			}
		}
	}
	var out []results.LabelColumn
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
			out = append(out, results.LabelColumn{Key: k, Head: strings.ReplaceAll(k, "_", " ")})
		}
	}
	return out
}
