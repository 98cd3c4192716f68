package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver"
)

// writeEnvChecks reports which environment limits (--env) this machine can
// enforce: the cgroup layout, then one line per SPEC key from a probe
// cgroup that pglab makes and removes, and the profiles on offer.
func writeEnvChecks(w io.Writer) {
	l := env.Detect()
	who := "as root"
	if !l.Root {
		who = fmt.Sprintf("as uid %d (limits need root or a delegated cgroup)", os.Geteuid())
	}
	fmt.Fprintf(w, "\nEnvironment limits (--env), for servers under %s:\n", pgserver.TempRoot())
	fmt.Fprintf(w, "  cgroups: %s; running %s\n", l.Summary(), who)
	if stale := env.CleanStale(l); len(stale) > 0 {
		fmt.Fprintf(w, "  removed %d stale pglab cgroup(s) left by a pglab that was killed\n", len(stale))
	}
	enf, err := env.Probe(l, pgserver.TempRoot())
	if err != nil {
		fmt.Fprintf(w, "  probe cgroup: %v\n", err)
	}
	var checks []check
	for _, e := range enf {
		c := check{name: e.Key, ok: e.Status != env.NotEnforced}
		switch e.Status {
		case env.Enforced:
			c.detail = e.How
		case env.Partial:
			c.detail = "partly: " + e.How + ": " + e.Why
		default:
			c.detail = e.Why
		}
		checks = append(checks, c)
	}
	for _, k := range env.Keys() {
		if why, ok := env.NotSupported[k]; ok {
			checks = append(checks, check{name: k, detail: why})
		}
	}
	checks = append(checks, networkChecks()...)
	printChecks(w, checks)
	cat, err := env.LoadCatalog()
	if err != nil {
		fmt.Fprintf(w, "  profiles file: %v\n", err)
		cat = env.NewCatalog()
	}
	var names []string
	for _, p := range cat.Profiles() {
		names = append(names, p.Name)
	}
	file := env.DefaultFile()
	if _, err := os.Stat(file); err != nil {
		file += " (none)"
	}
	fmt.Fprintf(w, "  profiles: %s; user profiles file %s\n", strings.Join(names, ", "), file)
}
