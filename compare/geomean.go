package compare

import (
	"errors"
	"fmt"

	"github.com/aclements/go-moremath/stats"
)

// errNoResults is returned by Geomean for an empty input.
var errNoResults = errors.New("compare: geomean of no results")

// GeomeanRow summarises one metric across several cases, as the "geomean"
// row under a benchstat table: per target, the geometric mean of the cases'
// centers and the geometric mean of the cases' ratios to the baseline.
type GeomeanRow struct {
	// Metric is the results' metric.
	Metric Metric

	// Baseline is the results' baseline target ("" if none).
	Baseline string

	// Targets holds one entry per target, in order of first appearance
	// in the results.
	Targets []GeomeanTarget
}

// GeomeanTarget is one target's cell of a GeomeanRow.
type GeomeanTarget struct {
	// Target is the target's name.
	Target string

	// Cases is the number of cases in which the target has samples.
	Cases int

	// Value is the geometric mean of the target's centers over those
	// cases. It is valid only when HasValue is set: every center must be
	// > 0.
	Value    float64
	HasValue bool

	// Ratio is the geometric mean, over the cases in which both this
	// target and the baseline have samples, of center/baseline center
	// (0/0 counting as 1). It is the geometric mean of the ratios rather
	// than the ratio of the geometric means, which differ when the sets of
	// cases differ. Valid only when HasRatio is set: never for the
	// baseline itself, nor when a ratio is undefined or not > 0.
	Ratio    float64
	HasRatio bool

	// Percent is (Ratio-1)*100 when HasRatio is set.
	Percent float64

	// Delta is benchstat's text for the ratio: "%+.2f%%" of Percent
	// ("-8.94%"), or "?" when there is no ratio. Empty for the baseline
	// and when there is no baseline.
	Delta string

	// Warnings are benchstat's: "summaries must be >0 to compute
	// geomean", "ratios must be >0 to compute geomean", "benchmark set
	// differs from baseline; geomeans may not be comparable".
	Warnings []string
}

// Geomean computes the geometric-mean summary of results, which must be
// analyses of the same metric (same unit) with the same baseline, one per
// case. It returns an error when results is empty or they disagree.
func Geomean(results []*Result) (*GeomeanRow, error) {
	if len(results) == 0 {
		return nil, errNoResults
	}
	for i, r := range results {
		if r == nil {
			return nil, fmt.Errorf("compare: geomean: result %d is nil", i+1)
		}
	}
	first := results[0]
	row := &GeomeanRow{Metric: first.Metric, Baseline: first.Baseline}
	var order []string
	seen := map[string]bool{}
	nBase := 0
	for i, r := range results {
		if r.Metric.Unit != first.Metric.Unit {
			return nil, fmt.Errorf("compare: geomean: result %d has unit %q, result 1 has %q", i+1, r.Metric.Unit, first.Metric.Unit)
		}
		if r.Baseline != first.Baseline {
			return nil, fmt.Errorf("compare: geomean: result %d has baseline %q, result 1 has %q", i+1, r.Baseline, first.Baseline)
		}
		for _, s := range r.Targets {
			if !seen[s.Target] {
				seen[s.Target] = true
				order = append(order, s.Target)
			}
		}
		if b, ok := r.Target(r.Baseline); ok && b.N > 0 {
			nBase++
		}
	}

	for _, name := range order {
		g := GeomeanTarget{Target: name}
		isBase := name == row.Baseline
		var centers, ratios []float64
		badRatio := false
		for _, r := range results {
			s, ok := r.Target(name)
			if !ok || s.N == 0 {
				continue
			}
			centers = append(centers, s.Center)
			if isBase || row.Baseline == "" {
				continue
			}
			b, ok := r.Target(row.Baseline)
			if !ok || b.N == 0 {
				continue
			}
			switch {
			case s.Center == b.Center:
				ratios = append(ratios, 1)
			case b.Center == 0:
				badRatio = true
				ratios = append(ratios, 0) // keeps the count for the set check
			default:
				ratios = append(ratios, s.Center/b.Center)
			}
		}
		g.Cases = len(centers)
		if !isBase && row.Baseline != "" && len(ratios) != nBase {
			g.Warnings = append(g.Warnings, "benchmark set differs from baseline; geomeans may not be comparable")
		}
		if v := stats.GeoMean(centers); v == v { // not NaN
			g.Value, g.HasValue = v, true
		} else if len(centers) > 0 {
			g.Warnings = append(g.Warnings, "summaries must be >0 to compute geomean")
		}
		if !isBase && row.Baseline != "" {
			g.Delta = "?"
			if !badRatio && len(ratios) > 0 {
				if v := stats.GeoMean(ratios); v == v {
					g.Ratio, g.HasRatio = v, true
					g.Percent = (v - 1) * 100
					g.Delta = fmt.Sprintf("%+.2f%%", g.Percent)
				} else {
					g.Warnings = append(g.Warnings, "ratios must be >0 to compute geomean")
				}
			}
		}
		row.Targets = append(row.Targets, g)
	}
	return row, nil
}
