package study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/results"
)

// LoadRecord is a load run (a study's pgbench workload, or a coordinated
// 'pglab bench --listen --store') as the results store keeps it: its
// figures and its artefacts (pgbench's summary, the progress series, the
// latency histogram). Whoever stores it says whose it is: the target,
// study, case and repetition of each measurement and artefact are left
// empty here.
type LoadRecord struct {
	// Measurements are the figures: metric, value, unit and direction.
	Measurements []results.Measurement
	// Artefacts are the texts and series: name, content type and data.
	Artefacts []results.Artefact
}

// loadFigures are the figures of a load run the store keeps, in order.
var loadFigures = []struct {
	metric, unit string
	dir          results.Direction
	value        func(r *bench.Result) float64
}{
	{"tps", "tps", results.DirectionHigher, func(r *bench.Result) float64 { return r.TPS }},
	{"latency_avg_ms", "ms", results.DirectionLower, func(r *bench.Result) float64 { return r.LatencyAvgMs }},
	{"latency_p50_ms", "ms", results.DirectionLower, func(r *bench.Result) float64 { return r.LatencyP50Ms }},
	{"latency_p90_ms", "ms", results.DirectionLower, func(r *bench.Result) float64 { return r.LatencyP90Ms }},
	{"latency_p99_ms", "ms", results.DirectionLower, func(r *bench.Result) float64 { return r.LatencyP99Ms }},
	{"latency_max_ms", "ms", results.DirectionLower, func(r *bench.Result) float64 { return r.LatencyMaxMs }},
	{"failed", "count", results.DirectionLower, func(r *bench.Result) float64 { return float64(r.Failed) }},
	{"conn_ms", "ms", results.DirectionLower, func(r *bench.Result) float64 { return r.ConnMs }},
	{"transactions", "count", results.DirectionHigher, func(r *bench.Result) float64 { return float64(r.Transactions) }},
}

// RecordOfLoad returns a load run as the store keeps it.
func RecordOfLoad(res *bench.Result) (LoadRecord, error) {
	var rec LoadRecord
	for _, f := range loadFigures {
		rec.Measurements = append(rec.Measurements, results.Measurement{Metric: f.metric, Value: f.value(res), Unit: f.unit, Direction: f.dir})
	}
	progress, err := json.Marshal(res.Progress)
	if err != nil {
		return rec, fmt.Errorf("encode the progress series: %w", err)
	}
	rec.Artefacts = append(rec.Artefacts, results.Artefact{Name: results.ProgressArtefact, ContentType: "application/json", Data: progress})
	if res.Histogram != nil && res.Histogram.TotalCount() > 0 {
		data, err := bench.EncodeHist(res.Histogram)
		if err != nil {
			return rec, fmt.Errorf("encode the latency histogram: %w", err)
		}
		rec.Artefacts = append(rec.Artefacts, results.Artefact{Name: results.LatencyHistogramArtefact, ContentType: results.HDRHistogramType, Data: data})
	}
	var summary strings.Builder
	res.WriteSummary(&summary)
	res.WritePercentiles(&summary)
	rec.Artefacts = append(rec.Artefacts, results.Artefact{Name: results.SummaryArtefact, ContentType: "text/plain", Data: []byte(summary.String())})
	return rec, nil
}

// Finite returns the record's measurements whose values are finite (the
// store keeps no others), and the names of those left out.
func (r LoadRecord) Finite() (kept []results.Measurement, left []string) {
	for _, m := range r.Measurements {
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			left = append(left, m.Metric)
			continue
		}
		kept = append(kept, m)
	}
	return kept, left
}

// RecordLoad records a load run's figures and artefacts for the current
// case and repetition.
func (s *Session) RecordLoad(ctx context.Context, res *bench.Result) error {
	rec, err := RecordOfLoad(res)
	if err != nil {
		return err
	}
	for _, m := range rec.Measurements {
		dir := m.Direction
		s.Record(m.Metric, m.Value, m.Unit, func(x *results.Measurement) { x.Direction = dir })
	}
	for _, a := range rec.Artefacts {
		if err := s.Artefact(ctx, a.Name, a.ContentType, a.Data); err != nil {
			return err
		}
	}
	return nil
}
