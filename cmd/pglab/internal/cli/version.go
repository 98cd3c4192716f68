package cli

import (
	"fmt"
	"runtime"

	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/spf13/cobra"
)

func init() { register(100, newVersionCmd) }

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print pglab's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(env.Stdout, "pglab %s %s/%s %s\n", buildinfo.String(), runtime.GOOS, runtime.GOARCH, runtime.Version())
			return err
		},
	}
}
