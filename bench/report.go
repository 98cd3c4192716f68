package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteSummary prints pgbench's summary (printResults) line for line.
func (res *Result) WriteSummary(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	failures := res.Failed
	total := res.Transactions + res.Skipped + failures
	p("transaction type: %s\n", res.TransactionType)
	p("scaling factor: %d\n", res.Scale)
	if res.PartitionMethod != "" {
		p("partition method: %s\npartitions: %d\n", res.PartitionMethod, res.Partitions)
	}
	p("query mode: %s\n", res.QueryMode)
	p("number of clients: %d\n", res.Clients)
	p("number of threads: %d\n", res.Threads)
	if res.MaxTries != 0 {
		p("maximum number of tries: %d\n", res.MaxTries)
	}
	if res.DurationSeconds <= 0 {
		p("number of transactions per client: %d\n", res.TransactionsPerClient)
		p("number of transactions actually processed: %d/%d\n", res.Transactions, int64(res.TransactionsPerClient)*int64(res.Clients))
	} else {
		p("duration: %d s\n", res.DurationSeconds)
		p("number of transactions actually processed: %d\n", res.Transactions)
	}
	if total > 0 {
		pct := func(n int64) float64 { return 100 * float64(n) / float64(total) }
		p("number of failed transactions: %d (%.3f%%)\n", failures, pct(failures))
		if res.failuresDetailed {
			p("number of serialization failures: %d (%.3f%%)\n", res.SerializationFailures, pct(res.SerializationFailures))
			p("number of deadlock failures: %d (%.3f%%)\n", res.DeadlockFailures, pct(res.DeadlockFailures))
		}
		if res.MaxTries != 1 {
			p("number of transactions retried: %d (%.3f%%)\n", res.Retried, pct(res.Retried))
			p("total number of retries: %d\n", res.Retries)
		}
		if res.throttled && res.latencyLimitMs > 0 {
			p("number of transactions skipped: %d (%.3f%%)\n", res.Skipped, pct(res.Skipped))
		}
		if res.latencyLimitMs > 0 {
			latePct := 0.0
			if res.Transactions > 0 {
				latePct = 100 * float64(res.LatencyLate) / float64(res.Transactions)
			}
			p("number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n", res.latencyLimitMs, res.LatencyLate, res.Transactions, latePct)
		}
		if res.latencyMeasured {
			if res.Transactions > 0 {
				p("latency average = %.3f ms\n", res.LatencyAvgMs)
				p("latency stddev = %.3f ms\n", res.LatencyStddevMs)
			}
		} else {
			suffix := ""
			if failures > 0 {
				suffix = " (including failures)"
			}
			p("latency average = %.3f ms%s\n", res.computedLatency, suffix)
		}
		if res.throttled {
			lag := 0.0
			if res.Transactions > 0 {
				lag = res.LagAvgMs
			}
			p("rate limit schedule lag: avg %.3f (max %.3f) ms\n", lag, res.LagMaxMs)
		}
		if res.connect {
			p("average connection time = %.3f ms\n", res.ConnMs)
			p("tps = %f (including reconnection times)\n", res.TPS)
		} else {
			p("initial connection time = %.3f ms\n", res.ConnMs)
			p("tps = %f (without initial connection time)\n", res.TPS)
		}
		if res.perScript || res.perCommand {
			for i, s := range res.Scripts {
				if res.perScript {
					sTotal := s.Transactions + s.Skipped + s.Failed
					p("SQL script %d: %s\n", i+1, s.Desc)
					p(" - weight: %d (targets %.1f%% of total)\n", s.Weight, s.WeightPct)
					p(" - %d transactions (%.1f%% of total)\n", sTotal, 100*float64(sTotal)/float64(total))
					if sTotal > 0 {
						sp := func(n int64) float64 { return 100 * float64(n) / float64(sTotal) }
						p(" - number of transactions actually processed: %d (tps = %f)\n", s.Transactions, s.TPS)
						p(" - number of failed transactions: %d (%.3f%%)\n", s.Failed, sp(s.Failed))
						if res.failuresDetailed {
							p(" - number of serialization failures: %d (%.3f%%)\n", s.SerializationFailures, sp(s.SerializationFailures))
							p(" - number of deadlock failures: %d (%.3f%%)\n", s.DeadlockFailures, sp(s.DeadlockFailures))
						}
						if res.MaxTries != 1 {
							p(" - number of transactions retried: %d (%.3f%%)\n", s.Retried, sp(s.Retried))
							p(" - total number of retries: %d\n", s.Retries)
						}
						if res.throttled && res.latencyLimitMs > 0 {
							p(" - number of transactions skipped: %d (%.3f%%)\n", s.Skipped, sp(s.Skipped))
						}
					}
					if s.latencyCount > 0 {
						p(" - latency average = %.3f ms\n", s.LatencyAvgMs)
						p(" - latency stddev = %.3f ms\n", s.LatencyStddevMs)
					}
				}
				if res.perCommand {
					prefix, what := "", " and failures"
					if res.perScript {
						prefix = " - "
					}
					if res.MaxTries != 1 {
						what = ", failures and retries"
					}
					p("%sstatement latencies in milliseconds%s:\n", prefix, what)
					for _, c := range s.Commands {
						if res.MaxTries == 1 {
							p("   %11.3f  %10d %s\n", c.LatencyAvgMs, c.Failures, c.Line)
						} else {
							p("   %11.3f  %10d %10d %s\n", c.LatencyAvgMs, c.Failures, c.Retries, c.Line)
						}
					}
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WritePercentiles prints pglab's additions after pgbench's summary: the
// latency percentiles of successful transactions from the HDR histogram.
func (res *Result) WritePercentiles(w io.Writer) error {
	if res.Histogram == nil || res.Histogram.TotalCount() == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "latency percentiles: p50 = %.3f ms, p90 = %.3f ms, p99 = %.3f ms, p99.9 = %.3f ms, max = %.3f ms\n",
		res.LatencyP50Ms, res.LatencyP90Ms, res.LatencyP99Ms, res.LatencyP999Ms, res.LatencyMaxMs)
	return err
}

// WriteJSON writes the result as one JSON document.
func (res *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}
