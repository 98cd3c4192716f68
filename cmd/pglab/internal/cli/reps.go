package cli

import (
	"github.com/pglab/pglab/lab"
	"github.com/spf13/pflag"
)

// registerRepsFlags adds --reps and --budget, how many repetitions each
// case runs (compare and study), to f.
func registerRepsFlags(f *pflag.FlagSet, a *lab.Args) {
	f.StringVar(&a.Reps, "reps", "", "repetitions (rounds) per case and target: auto (each case runs 4 rounds, 3 at the seeds' sizes, then a pair more at a time while a primary figure is unresolved, up to a cap from its rounds' cost, at most 40), auto:N (caps at most N) or a fixed number N (default $"+lab.RepsEnv+" or auto)")
	f.StringVar(&a.Budget, "budget", "", "with --reps auto, the time the run may take, e.g. 30m: cases stop adding rounds when their study's share of it is spent (the report says what stayed unresolved); 1h by default at the seeds' sizes, 7m for --quick; none: no budget (default $"+lab.BudgetEnv+")")
}
