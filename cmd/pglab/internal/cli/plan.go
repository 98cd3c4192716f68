package cli

import (
	"io"
	"os"

	"github.com/pglab/pglab/lab"
	"github.com/spf13/cobra"
)

func init() { register(2, newPlanCmd) }

func newPlanCmd(env *Env) *cobra.Command {
	var details bool
	var verdict verdictFlags
	cmd := &cobra.Command{
		Use:   "plan FILE.yaml|-",
		Short: "Run a comparison described in a YAML file (targets, settings, studies, params, reps)",
		Long: `Run the same comparison as 'pglab compare', described in a YAML file (- reads it
from standard input). Errors name the file, line and field. An example plan:

` + lab.PlanExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("plan: name one plan file, or - for standard input (see 'pglab plan --help' for an example)")
			}
			name, data, err := readPlan(env, args[0])
			if err != nil {
				return badInput("plan: %v", err)
			}
			spec, err := lab.ParsePlan(name, data)
			if err != nil {
				return err
			}
			if err := verdict.fill(spec); err != nil {
				return err
			}
			return runCompare(env, spec, details, &verdict)
		},
	}
	verdict.register(cmd.Flags())
	cmd.Flags().BoolVar(&details, "details", false, "print every table (further metrics, the servers' output), not only the summary, the setup and the primary tables; the files always have everything")
	return cmd
}

// readPlan reads the plan file path, or standard input for "-" (named
// "stdin" in errors).
func readPlan(env *Env, path string) (name string, data []byte, err error) {
	if path == "-" {
		data, err = io.ReadAll(env.Stdin)
		return "stdin", data, err
	}
	data, err = os.ReadFile(path)
	return path, data, err
}
