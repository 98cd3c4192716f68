package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/hostcheck"
	"github.com/pglab/pglab/pgserver"
)

// writeEnvChecks reports which environment limits (--env) this machine can
// enforce (env.Examine): the cgroup layout, one line per SPEC key, and the
// profiles on offer.
func writeEnvChecks(w io.Writer) {
	c := env.Examine(pgserver.TempRoot())
	fmt.Fprintf(w, "\nEnvironment limits (--env), for servers under %s:\n", pgserver.TempRoot())
	fmt.Fprintf(w, "  cgroups: %s; running %s\n", c.Cgroups, c.As)
	if c.Stale > 0 {
		fmt.Fprintf(w, "  removed %d stale pglab cgroup(s) left by a pglab that was killed\n", c.Stale)
	}
	if c.ProbeErr != nil {
		fmt.Fprintf(w, "  probe cgroup: %v\n", c.ProbeErr)
	}
	hostcheck.Print(w, c.Checks)
	if c.CatalogErr != nil {
		fmt.Fprintf(w, "  profiles file: %v\n", c.CatalogErr)
	}
	fmt.Fprintf(w, "  profiles: %s; user profiles file %s\n", strings.Join(c.Profiles, ", "), c.ProfilesFile)
}
