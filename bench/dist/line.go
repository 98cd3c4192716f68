package dist

import "fmt"

// Line is the worker's line after a coordinated run's summary: its share
// and what it did.
func (w WorkerResult) Line() string {
	s := fmt.Sprintf("worker %d (%s): clients %d-%d, threads %d", w.Worker, w.Name, w.FirstClient, w.FirstClient+w.Clients-1, w.Threads)
	if w.Rate > 0 {
		s += fmt.Sprintf(", rate %.1f", w.Rate)
	}
	r := w.Result
	if r == nil {
		return s + ": no result"
	}
	s += fmt.Sprintf(": %d transactions, %d failed, tps = %f", r.Transactions, r.Failed, r.TPS)
	if r.Histogram != nil && r.Histogram.TotalCount() > 0 {
		s += fmt.Sprintf(", latency p50 = %.3f ms, p99 = %.3f ms", r.LatencyP50Ms, r.LatencyP99Ms)
	}
	if r.Aborted {
		s += " (aborted)"
	}
	return s
}
