package cli

import (
	"fmt"
	"os"
	"runtime"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/internal/hostcheck"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
)

func init() { register(90, newDoctorCmd) }

func newDoctorCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Show what this machine can do: binaries, versions, cache drops, network namespaces, environment limits",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := env.Ctx
			w := env.Stdout
			fmt.Fprintf(w, "pglab doctor (%s/%s, %d CPUs, running as uid %d)\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), os.Geteuid())

			fmt.Fprintln(w, "PostgreSQL server binaries:")
			found := env.finder().All(ctx)
			if len(found) == 0 {
				fmt.Fprintln(w, "  none found; install some with 'pglab pg install 16 17 18'")
			}
			for _, b := range found {
				fmt.Fprintf(w, "  %-7s %-12s %s\n", b.Version, b.Source, b.Dir)
			}
			fmt.Fprintln(w)

			checks := []hostcheck.Check{
				hostcheck.NPM(ctx, pgserver.NPMPackage()),
				hostcheck.Client("psql"),
				hostcheck.Client("pgbench"),
				serverUserCheck(),
				hostcheck.Dir("binaries cache", pgserver.CacheDir()),
				hostcheck.Dir("dataset cache", dataset.DefaultDir()),
				hostcheck.Dir("named instances", pgserver.StateDir()),
				hostcheck.Dir("throwaway instances", pgserver.TempRoot()),
				hostcheck.DropCaches(),
			}
			checks = append(checks, hostcheck.Netns(ctx)...)
			checks = append(checks, pgserver.StrayChecks()...)
			hostcheck.Print(w, checks)
			writeEnvChecks(w)
			return nil
		},
	}
}

// serverUserCheck says which user the servers run as.
func serverUserCheck() hostcheck.Check {
	c := hostcheck.Check{Name: "server user"}
	u, err := pgserver.LookupServerUser()
	switch {
	case err != nil:
		c.Detail = err.Error()
	case u.Self:
		c.OK, c.Detail = true, fmt.Sprintf("servers run as you (%s)", u.Name)
	default:
		c.OK, c.Detail = true, fmt.Sprintf("running as root: servers run as %s (uid %d)", u.Name, u.UID)
	}
	return c
}
