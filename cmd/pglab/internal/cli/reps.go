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
	f.StringVar(&r.reps, "reps", lab.RepsAuto, "repetitions (rounds) per case and target: auto (each case runs 4 rounds, then 8 and 10 while a primary figure is unresolved; 3, 6 and 10 at the seeds' sizes) or a fixed number N")
	f.StringVar(&r.budget, "budget", "", "with --reps auto, the time the run may take, e.g. 30m: cases stop adding rounds when their study's share of it is spent (the report says what stayed unresolved); 1h by default at the seeds' sizes, none for --quick; none: no budget")
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
