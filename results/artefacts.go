package results

// Names and content types of artefacts that more than one package reads or
// writes.
const (
	// LatencyHistogramArtefact names the HDR histogram of a load run's
	// successful transactions' latencies, in microseconds, as
	// hdrhistogram-go's Encode(V2CompressedEncodingCookieBase) writes it
	// (content type HDRHistogramType): the whole distribution behind the
	// percentiles a study records.
	LatencyHistogramArtefact = "latency-hdr"
	// HDRHistogramType is the content type of an encoded HDR histogram.
	// It is kept as it is (not redacted: it is not text).
	HDRHistogramType = "application/vnd.hdrhistogram"
	// ProgressArtefact names a load run's progress series: a JSON array
	// of per-interval figures (bench.ProgressTick: elapsed_s, tps,
	// latency_avg_ms, latency_p99_ms, …).
	ProgressArtefact = "progress"
	// SummaryArtefact names a load run's summary as pgbench prints it,
	// with pglab's latency percentiles (text/plain).
	SummaryArtefact = "pgbench-summary"
)
