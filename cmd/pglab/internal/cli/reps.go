package cli

import (
	"github.com/pglab/pglab/lab"
	"github.com/spf13/pflag"
)

// registerRepsFlags adds --reps and --budget, how many repetitions each
// case runs (compare and study), to f.
func registerRepsFlags(f *pflag.FlagSet, a *lab.Args) {
	f.StringVar(&a.Reps, "reps", lab.RepsAuto, "repetitions (rounds) per case and target: auto (each case runs 4 rounds, then 8 and 10 while a primary figure is unresolved; 3, 6 and 10 at the seeds' sizes) or a fixed number N")
	f.StringVar(&a.Budget, "budget", "", "with --reps auto, the time the run may take, e.g. 30m: cases stop adding rounds when their study's share of it is spent (the report says what stayed unresolved); 1h by default at the seeds' sizes, none for --quick; none: no budget")
}
