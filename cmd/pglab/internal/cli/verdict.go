package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/spf13/pflag"
)

// verdictFlags are the flags that decide what a report calls a change and
// what a caller (a CI job) is told about it: compare, plan, study and
// report share them.
type verdictFlags struct {
	minChange string
	failOn    string
	junit     string
}

// register adds --min-change, --fail-on and --junit to f.
func (v *verdictFlags) register(f *pflag.FlagSet) {
	f.StringVar(&v.minChange, "min-change", "", "practical floor: a change smaller than this percentage of the baseline is never called, and one whose interval lies within it is \"same\" (default 5%; 0 calls any change that passes the test)")
	f.StringVar(&v.failOn, "fail-on", "", "regression: exit with code 3, one line per regression, when a called change is a regression (for CI)")
	f.StringVar(&v.junit, "junit", "", "write JUnit XML to this file: a test case per cell compared, a failure per called regression, skipped when unresolved (for CI)")
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
	if v.junit != "" {
		if fi, err := os.Stat(filepath.Dir(v.junit)); err != nil || !fi.IsDir() {
			return badInput("--junit %s: directory %s does not exist", v.junit, filepath.Dir(v.junit))
		}
	}
	return nil
}

// tell gives CI what it reads of report d, then the verdict: the JUnit
// file of --junit; the job summary appended to $GITHUB_STEP_SUMMARY when
// it is set (unless summary is false: the report was printed in that
// format); in a GitHub Actions job, an annotation per called regression
// on stderr; last, with failOn "regression", one line per called
// regression and an error of exit code exitRegression when there is one.
func (v *verdictFlags) tell(env *Env, d *runs.Dataset, failOn string, summary bool) error {
	if v.junit != "" {
		if err := report.WriteFile(v.junit, d, report.JUnit); err != nil {
			return err
		}
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" && summary {
		if err := report.AppendGitHubSummary(path, d); err != nil {
			return err
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		if err := report.WriteAnnotations(env.Stderr, d, failOn == lab.FailOnRegression); err != nil {
			return err
		}
	}
	if failOn != lab.FailOnRegression {
		return nil
	}
	regs, err := report.Regressions(d)
	if err != nil || len(regs) == 0 {
		return err
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
