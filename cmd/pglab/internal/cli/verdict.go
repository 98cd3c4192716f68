package cli

import (
	"fmt"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/spf13/pflag"
)

// verdictFlags are the flags that decide what a report calls a change and
// what a caller is told about it: compare, plan and report share them.
type verdictFlags struct {
	minChange string
	failOn    string
}

// register adds --min-change and --fail-on to f.
func (v *verdictFlags) register(f *pflag.FlagSet) {
	f.StringVar(&v.minChange, "min-change", "", "practical floor: a change smaller than this percentage of the baseline is never called, and one whose interval lies within it is \"same\" (default 5%; 0 calls any change that passes the test)")
	f.StringVar(&v.failOn, "fail-on", "", "regression: exit with code 3, one line per regression, when a called change is a regression (for CI)")
}

// fill checks the flags and copies those given into spec.
func (v *verdictFlags) fill(spec *lab.Spec) error {
	if v.minChange != "" {
		f, err := lab.ParseMinChange(v.minChange)
		if err != nil {
			return badInput("--min-change: %v", err)
		}
		spec.MinChange = f
	}
	if v.failOn != "" {
		if err := lab.CheckFailOn(v.failOn); err != nil {
			return badInput("--fail-on: %v", err)
		}
		spec.FailOn = v.failOn
	}
	return nil
}

// failOnRegressions prints one line per called regression of the report
// to stderr and returns an error with exit code exitRegression when there
// is one; nil when failOn is not "regression" or nothing regressed.
func failOnRegressions(env *Env, d *runs.Dataset, failOn string) error {
	if failOn != lab.FailOnRegression {
		return nil
	}
	regs, err := report.Regressions(d)
	if err != nil {
		return err
	}
	if len(regs) == 0 {
		return nil
	}
	for _, r := range regs {
		fmt.Fprintf(env.Stderr, "pglab: regression: %s\n", r)
	}
	return &ExitError{Code: exitRegression, Err: fmt.Errorf("%d called %s (--fail-on regression)", len(regs), pluralWord(len(regs), "regression"))}
}

// pluralWord returns word, with an s unless n is 1.
func pluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
