package runs

import "github.com/pglab/pglab/results"

// LegacyPresentations are the presentations of the studies as report knew
// them before studies carried their own (study.Info.Presentation) and runs
// stored them with each study: a run stored before then (its StudyInfo
// has Version 0) is shown through this table, as it was shown then.
//
// Frozen: a study's presentation lives in its own file now; change it
// there (and bump its version), never here.
var LegacyPresentations = map[string]results.Presentation{
	"tps": {
		Labels: []results.LabelColumn{{Key: "clients", Head: "clients"}},
		Primary: []results.MetricHead{
			{Metric: "tps", Head: "Throughput"},
			{Metric: "latency_avg_ms", Head: "Average latency", Twin: "tps"},
			{Metric: "latency_p99_ms", Head: "p99 latency"},
		},
		Charts: []results.Chart{
			{Kind: results.Lines, Title: "Throughput by clients", Metrics: []string{"tps"}, X: "clients", XHead: "clients"},
			{Kind: results.Lines, Title: "Latency percentiles by clients", Metrics: []string{"latency_p50_ms", "latency_p90_ms", "latency_p95_ms", "latency_p99_ms"}, X: "clients", XHead: "clients"},
		},
		Texts: []results.TextView{{Name: "pgbench-summary", Head: "pgbench's summary"}},
	},
	"tune": {
		Labels: []results.LabelColumn{{Key: "clients", Head: "clients"}},
		Primary: []results.MetricHead{
			{Metric: "tps", Head: "Throughput"},
			{Metric: "latency_avg_ms", Head: "Average latency", Twin: "tps"},
		},
		Charts: []results.Chart{
			{Kind: results.Lines, Title: "Throughput by clients, defaults and tuned", Metrics: []string{"tps"}, X: "clients", XHead: "clients"},
		},
		Texts: []results.TextView{{Name: "pgbench-summary", Head: "pgbench's summary"}},
	},
	"vacuum": {
		Labels: []results.LabelColumn{{Key: "update_pct", Head: "rows updated", Suffix: " %"}, {Key: "index", Head: "index"}},
		Primary: []results.MetricHead{
			{Metric: "elapsed_ms", Head: "VACUUM time"},
			{Metric: "wal_bytes", Head: "WAL written by VACUUM"},
		},
		Charts: []results.Chart{
			{Kind: results.Bars, Title: "VACUUM time by case", Metrics: []string{"elapsed_ms"}},
			{Kind: results.Bars, Title: "WAL written by VACUUM by case", Metrics: []string{"wal_bytes"}},
		},
		Texts: []results.TextView{{Name: "vacuum-verbose", Head: "VACUUM VERBOSE output"}},
	},
	"copy-errors": {
		Texts: []results.TextView{{Name: "copy-output", Head: "What the server said", Markdown: true, Open: true}},
	},
	"copy-out": {
		Labels: []results.LabelColumn{{Key: "table", Head: "table"}},
		Facts:  []results.MetricHead{{Metric: "avg_row_bytes", Head: "row size"}},
		Primary: []results.MetricHead{
			{Metric: "elapsed_ms", Head: "COPY TO time"},
			{Metric: "mb_per_s", Head: "COPY TO throughput", Twin: "elapsed_ms"},
		},
		Charts: []results.Chart{
			{Kind: results.Bars, Title: "COPY TO time by row size", Metrics: []string{"elapsed_ms"}},
		},
	},
	"seqscan": {
		Labels: []results.LabelColumn{{Key: "cache", Head: "cache"}},
		Facts:  []results.MetricHead{{Metric: "table_mb", Head: "table"}},
		Primary: []results.MetricHead{
			{Metric: "elapsed_ms", Head: "Scan time"},
			{Metric: "mb_per_s", Head: "Scan throughput", Twin: "elapsed_ms"},
		},
		Charts: []results.Chart{
			{Kind: results.Bars, Title: "Scan throughput", Metrics: []string{"mb_per_s"},
				Ceiling: []string{"disk_read_mb_s_max", "disk_read_peak_mb_s", "disk_read_mb_s"}, CeilingText: "disk read ceiling (highest observed)"},
		},
		Texts: []results.TextView{{Name: "cold-method", Head: "How the caches were emptied"}},
	},
	"replay": {
		Labels:    []results.LabelColumn{{Key: "query", Head: "query"}},
		Hide:      []string{"fingerprint"},
		NameLabel: "query",
		SortBy:    "total_ms",
		Facts:     []results.MetricHead{{Metric: "calls", Head: "calls per round"}},
		Primary: []results.MetricHead{
			{Metric: "median_ms", Head: "Statement latency (median of each round's calls)"},
		},
		Texts: []results.TextView{{Name: "plan", Head: "Plans that differ (shape: node, join, index and relation; no estimates)", Markdown: true}},
	},
	"commit": {
		Labels: []results.LabelColumn{{Key: "tx", Head: "transactions"}, {Key: "protocol", Head: "protocol"}},
		Primary: []results.MetricHead{
			{Metric: "elapsed_ms", Head: "Time for all updates"},
			{Metric: "us_per_update", Head: "Time per update", Twin: "elapsed_ms"},
			{Metric: "commit_cost_us", Head: "Commit cost per update (WAL write and sync, synchronous standby wait)"},
			{Metric: "wal_sync_ms", Head: "WAL sync time"},
			{Metric: "wal_syncs", Head: "WAL syncs"},
		},
		Charts: []results.Chart{
			{Kind: results.Bars, Title: "Time for all updates by case", Metrics: []string{"elapsed_ms"}},
		},
	},
}

// Presentation returns how a study of the dataset is shown: the
// presentation its run stored with it, or, for a run stored before runs
// stored them (or a dataset without the study's description), the legacy
// table's; nil for a study without one (every metric in one table, each
// one callable).
func (d *Dataset) Presentation(study string) *results.Presentation {
	if info, ok := d.Study(study); ok && info.Version > 0 {
		return info.Presentation
	}
	if p, ok := LegacyPresentations[study]; ok {
		return &p
	}
	return nil
}
