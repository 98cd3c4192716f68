package report

import (
	"fmt"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
)

// Verdict is what a CI system is told of one cell compared: the JUnit
// test case's result and the step summary's row.
type Verdict string

// The verdicts of a cell compared.
const (
	// Regression: a called change for the worse (a JUnit failure, an
	// error under --fail-on regression).
	Regression Verdict = "regression"
	// Improvement: a called change for the better (passed).
	Improvement Verdict = "improvement"
	// Changed: a called change of a figure that is neither better nor
	// worse (passed).
	Changed Verdict = "changed"
	// Same: the interval lies within the floor (passed).
	Same Verdict = "same"
	// Unresolved: neither a call nor "same" (a JUnit skipped test: not
	// established either way).
	Unresolved Verdict = "unresolved"
)

// Cell is one comparison of a report as CI sees it: a primary figure of a
// case of a study, a target against the baseline.
type Cell struct {
	Study, Case, Metric string
	Target, Baseline    string
	Verdict             Verdict
	// Text is the comparison as the report prints it ("+44 %, slower
	// (p=… q=… n=6)").
	Text string
}

// Name is the cell in one line: "vacuum · 95 % updated, with index ·
// VACUUM time: pg17 vs pg16".
func (c Cell) Name() string {
	return fmt.Sprintf("%s · %s · %s: %s vs %s", c.Study, c.Case, c.Metric, c.Target, c.Baseline)
}

// String is the cell's name and its outcome.
func (c Cell) String() string { return c.Name() + " " + c.Text }

// Cells lists the comparisons of report d that a verdict was reached on:
// each primary figure of each case, each target against the baseline (a
// figure shown but never called, an auxiliary one, is left out), in the
// report's order.
func Cells(d *runs.Dataset) ([]Cell, error) {
	v, err := view.Build(d, view.Options{})
	if err != nil {
		return nil, err
	}
	var out []Cell
	for _, sv := range v.Studies {
		primary := map[string]bool{}
		for _, t := range sv.Tables {
			primary[t.Metric] = true
		}
		for _, cv := range sv.Cases {
			for _, metric := range sv.MetricOrder(cv.Key) {
				res := sv.Results[cv.Key][metric]
				if res == nil {
					continue
				}
				for _, c := range res.Changes {
					if c.Outcome == compare.OutcomeNone || !primary[metric] && !c.Called {
						continue
					}
					out = append(out, Cell{Study: sv.Name, Case: cv.Name, Metric: sv.MetricHead(metric),
						Target: c.Target, Baseline: c.Baseline, Verdict: verdictOf(c), Text: c.OutcomeText()})
				}
			}
		}
	}
	return out, nil
}

// verdictOf classifies a change that has an outcome.
func verdictOf(c compare.Change) Verdict {
	switch {
	case c.Called && c.Verdict == compare.Worse:
		return Regression
	case c.Called && c.Verdict == compare.Better:
		return Improvement
	case c.Called:
		return Changed
	case c.Outcome == compare.OutcomeSame:
		return Same
	}
	return Unresolved
}

// Regressions lists the called changes for the worse of report d, one line
// each ("vacuum · 95 % updated, with index · WAL written by VACUUM: pg17 vs
// pg16 +44 %, worse (p=… q=… n=6)"), for --fail-on regression.
func Regressions(d *runs.Dataset) ([]string, error) {
	cells, err := Cells(d)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cells {
		if c.Verdict == Regression {
			out = append(out, c.String())
		}
	}
	return out, nil
}
