package bench

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Result holds every figure of a run: pgbench's summary and pglab's
// additions. Latencies are in milliseconds.
type Result struct {
	ServerVersion string `json:"server_version"`
	// TransactionType is pgbench's "transaction type" (the script's desc or
	// "multiple scripts").
	TransactionType       string `json:"transaction_type"`
	Scale                 int    `json:"scale"`
	PartitionMethod       string `json:"partition_method,omitempty"`
	Partitions            int    `json:"partitions,omitempty"`
	QueryMode             string `json:"query_mode"`
	Clients               int    `json:"clients"`
	Threads               int    `json:"threads"`
	MaxTries              int    `json:"max_tries"`
	TransactionsPerClient int    `json:"transactions_per_client,omitempty"`
	DurationSeconds       int    `json:"duration_s,omitempty"`

	// Transactions is the number of successful transactions.
	Transactions          int64 `json:"transactions"`
	Failed                int64 `json:"failed"`
	SerializationFailures int64 `json:"serialization_failures"`
	DeadlockFailures      int64 `json:"deadlock_failures"`
	Retried               int64 `json:"retried"`
	Retries               int64 `json:"retries"`
	Skipped               int64 `json:"skipped"`
	LatencyLate           int64 `json:"latency_late"`

	// TPS excludes the initial connection time (pgbench's tps line);
	// TPSWithConnections divides by the time from the start of connecting.
	TPS                float64 `json:"tps"`
	TPSWithConnections float64 `json:"tps_with_connections"`
	// LatencyAvgMs and LatencyStddevMs are measured from each
	// transaction's scheduled start (its start without -R).
	LatencyAvgMs    float64 `json:"latency_avg_ms"`
	LatencyStddevMs float64 `json:"latency_stddev_ms"`
	LatencyP50Ms    float64 `json:"latency_p50_ms"`
	LatencyP90Ms    float64 `json:"latency_p90_ms"`
	LatencyP99Ms    float64 `json:"latency_p99_ms"`
	LatencyP999Ms   float64 `json:"latency_p999_ms"`
	LatencyMaxMs    float64 `json:"latency_max_ms"`
	LagAvgMs        float64 `json:"lag_avg_ms,omitempty"`
	LagMaxMs        float64 `json:"lag_max_ms,omitempty"`
	// ConnMs is the initial connection time, or under -C the average
	// connection time.
	ConnMs float64 `json:"conn_ms"`
	// BenchDuration is the measured time (from the first thread's start
	// after connecting to the end).
	BenchDuration time.Duration `json:"bench_duration_ns"`

	Scripts  []ScriptResult `json:"scripts"`
	Progress []ProgressTick `json:"progress,omitempty"`

	// Aborted tells that some client did not finish (exit code 2).
	Aborted bool `json:"aborted"`
	// LostClients counts the aborted clients whose connection to the
	// server was lost (the server died, stopped or stopped answering; see
	// pgnet.Lost); Lost is the first of those losses and LostText its
	// text.
	LostClients int    `json:"lost_clients,omitempty"`
	Lost        error  `json:"-"`
	LostText    string `json:"lost,omitempty"`

	// Histogram is the merged HDR histogram of successful transactions'
	// latencies in microseconds.
	Histogram *hdrhistogram.Histogram `json:"-"`
	// Figures are the mergeable totals the figures above were computed
	// from (what a coordinated run's worker sends).
	Figures *Figures `json:"-"`

	// text-report details
	latencyMeasured  bool
	computedLatency  float64
	throttled        bool
	latencyLimitMs   float64
	connect          bool
	perScript        bool
	perCommand       bool
	failuresDetailed bool
}

// ScriptResult is one script's share of the run (pgbench's per-script
// block) and its commands (-r).
type ScriptResult struct {
	Desc                  string          `json:"desc"`
	Weight                int             `json:"weight"`
	WeightPct             float64         `json:"weight_pct"`
	Transactions          int64           `json:"transactions"`
	Failed                int64           `json:"failed"`
	SerializationFailures int64           `json:"serialization_failures"`
	DeadlockFailures      int64           `json:"deadlock_failures"`
	Retried               int64           `json:"retried"`
	Retries               int64           `json:"retries"`
	Skipped               int64           `json:"skipped"`
	TPS                   float64         `json:"tps"`
	LatencyAvgMs          float64         `json:"latency_avg_ms"`
	LatencyStddevMs       float64         `json:"latency_stddev_ms"`
	Commands              []CommandResult `json:"commands,omitempty"`

	latencyCount int64
}

// CommandResult is one command's per-statement figures (-r).
type CommandResult struct {
	Line         string  `json:"line"`
	LatencyAvgMs float64 `json:"latency_avg_ms"`
	Failures     int64   `json:"failures"`
	Retries      int64   `json:"retries"`
}

// ProgressTick is one -P interval.
type ProgressTick struct {
	// ElapsedS is seconds since the start; Epoch the Unix time in seconds.
	ElapsedS        float64 `json:"elapsed_s"`
	Epoch           float64 `json:"epoch"`
	TPS             float64 `json:"tps"`
	LatencyAvgMs    float64 `json:"latency_avg_ms"`
	LatencyStddevMs float64 `json:"latency_stddev_ms"`
	LatencyP50Ms    float64 `json:"latency_p50_ms"`
	LatencyP99Ms    float64 `json:"latency_p99_ms"`
	LatencyMaxMs    float64 `json:"latency_max_ms"`
	Failed          int64   `json:"failed"`
	LagMs           float64 `json:"lag_ms,omitempty"`
	Skipped         int64   `json:"skipped,omitempty"`
	Retried         int64   `json:"retried,omitempty"`
	Retries         int64   `json:"retries,omitempty"`
}
