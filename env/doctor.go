package env

import (
	"fmt"
	"os"

	"github.com/pglab/pglab/internal/hostcheck"
)

// Capabilities are what this machine can do with environments, for 'pglab
// doctor': its cgroup layout, which limits it can enforce (one check per
// key, from the key table: the machine keys from a probe cgroup, the
// network keys from what holds them), and the profiles on offer.
type Capabilities struct {
	// Cgroups summarises the layout; As says who pglab runs as.
	Cgroups, As string
	// Stale counts the cgroups of a killed pglab that were removed.
	Stale int
	// ProbeErr is why the probe cgroup failed, if it did.
	ProbeErr error
	// Checks are one line per key, in the table's order.
	Checks []hostcheck.Check
	// Profiles are the profiles' names; ProfilesFile the user's profiles
	// file ("… (none)" when it does not exist); CatalogErr why it could
	// not be read.
	Profiles     []string
	ProfilesFile string
	CatalogErr   error
}

// Examine tells which environment limits this machine can enforce on a
// server whose data directory is under dataDir; it makes and removes a
// probe cgroup, and removes the cgroups a killed pglab left behind.
func Examine(dataDir string) Capabilities {
	l := Detect()
	c := Capabilities{Cgroups: l.Summary(), As: "as root"}
	if !l.Root {
		c.As = fmt.Sprintf("as uid %d (limits need root or a delegated cgroup)", os.Geteuid())
	}
	c.Stale = len(CleanStale(l))
	enf, err := Probe(l, dataDir)
	c.ProbeErr = err
	probed := map[string]Enforcement{}
	for _, e := range enf {
		probed[e.Key] = e
	}
	for _, k := range keyTable {
		c.Checks = append(c.Checks, k.check(probed))
	}
	cat, err := LoadCatalog()
	if err != nil {
		c.CatalogErr = err
		cat = NewCatalog()
	}
	for _, p := range cat.Profiles() {
		c.Profiles = append(c.Profiles, p.Name)
	}
	c.ProfilesFile = DefaultFile()
	if _, err := os.Stat(c.ProfilesFile); err != nil {
		c.ProfilesFile += " (none)"
	}
	return c
}

// check says whether this machine can hold the key: a machine key as the
// probe found it, a network key by what pglab itself runs (a delay proxy
// is accurate on a busy machine only with a real-time thread).
func (k Key) check(probed map[string]Enforcement) hostcheck.Check {
	c := hostcheck.Check{Name: k.Name}
	switch {
	case k.NotSupported != "":
		c.Detail = k.NotSupported
	case k.Kind == NetworkKey:
		c.OK, c.Detail = true, k.Enforcement
		if k.Mechanism == MechanismDelayProxy {
			c.Detail += ", " + proxyScheduling()
		}
	default:
		e, ok := probed[k.Name]
		c.OK = ok && e.Status != NotEnforced
		switch {
		case !ok:
			c.Detail = "the probe cgroup says nothing about it"
		case e.Status == Enforced:
			c.Detail = e.How
		case e.Status == Partial:
			c.Detail = "partly: " + e.How + ": " + e.Why
		default:
			c.Detail = e.Why
		}
	}
	return c
}

// proxyScheduling says how a delay proxy's thread would be scheduled.
func proxyScheduling() string {
	if hostcheck.RealTimeAllowed() {
		return "real-time scheduling for its thread (SCHED_FIFO, permitted here)"
	}
	return "normal scheduling (SCHED_FIFO needs root or CAP_SYS_NICE): round trips run longer on a busy machine"
}
