package cli

import (
	"github.com/pglab/pglab/lab"
	"github.com/spf13/pflag"
)

// repsFlags are --reps and --budget: how many repetitions each case runs.
// compare and study share them.
type repsFlags struct {
	reps, budget string
}

// register adds --reps and --budget to f.
func (r *repsFlags) register(f *pflag.FlagSet) {
	f.StringVar(&r.reps, "reps", lab.RepsAuto, "repetitions per case and target: auto (each case runs the fewest that can call a change, more while a primary figure is unresolved, up to 10) or a fixed number N")
	f.StringVar(&r.budget, "budget", "", "with --reps auto, the time the run may take, e.g. 30m: cases stop adding repetitions when their study's share of it is spent (the report says what stayed unresolved)")
}

// fill checks the flags and copies them into spec.
func (r *repsFlags) fill(spec *lab.Spec) error {
	n, err := lab.ParseReps(r.reps)
	if err != nil {
		return badInput("--reps: %v", err)
	}
	spec.Reps = n
	if r.budget == "" {
		return nil
	}
	d, err := lab.ParseBudget(r.budget)
	if err != nil {
		return badInput("--budget: %v", err)
	}
	if n > 0 {
		return badInput("--budget goes with --reps auto: a fixed --reps %d runs every repetition", n)
	}
	spec.Budget = d
	return nil
}
