package report

import (
	"fmt"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// Regressions lists the called changes for the worse of report d, one line
// each ("vacuum · 95 % updated, no index · WAL written by VACUUM: pg17 vs
// pg16 +44 %, worse (p=… q=… n=6)"), for --fail-on regression.
func Regressions(d *runs.Dataset) ([]string, error) {
	v, err := view.Build(d, view.Options{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sv := range v.Studies {
		for _, cv := range sv.Cases {
			for _, metric := range sv.MetricOrder(cv.Key) {
				res := sv.Results[cv.Key][metric]
				for _, c := range res.Changes {
					if c.Called && (c.Verdict == compare.Worse) {
						out = append(out, fmt.Sprintf("%s · %s · %s: %s vs %s %s",
							sv.Name, cv.Name, sv.MetricHead(metric), c.Target, c.Baseline, c.OutcomeText()))
					}
				}
			}
		}
	}
	return out, nil
}
