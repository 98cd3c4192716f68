package cli

import (
	"fmt"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
)

// pgStartProfile resolves pg start's --env (at most one: one server).
func pgStartProfile(specs, files []string) (*env.Profile, error) {
	if len(specs) > 1 {
		return nil, badInput("pg start: one --env per server (got %d)", len(specs))
	}
	ps, err := lab.ResolveEnvs(specs, files)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	if err := ps[0].CheckSupported(); err != nil {
		return nil, badInput("--env %s: %v", ps[0].Name, err)
	}
	if !ps[0].Network.IsZero() {
		var keys []string
		for _, s := range ps[0].Settings() {
			if !env.IsMachineKey(s.Key) {
				keys = append(keys, s.String())
			}
		}
		return nil, badInput("--env %s: %s: a delay proxy and a standby live as long as a run of study or compare, not beside a server that outlives pglab; pg start takes the machine keys (%s)", ps[0].Name, strings.Join(keys, ", "), strings.Join(env.KeysOf(env.MachineKey), ", "))
	}
	return &ps[0], nil
}

// namedEnvironment makes the environment of a named instance (nil without
// a profile): a cgroup that outlives pglab with its server, removed by
// 'pglab pg stop'.
func (e *Env) namedEnvironment(p *env.Profile, name string, unenforced bool) (*env.Environment, error) {
	if p == nil {
		return nil, nil
	}
	l := env.Detect()
	env.CleanStale(l)
	en, err := env.NewEnvironment(*p, env.Options{Server: name, DataDir: pgserver.StateDir(), Layout: l})
	if err != nil {
		return nil, err
	}
	if en.NoneEnforced() && !unenforced {
		en.Close()
		return nil, badInput("--env %s: no limit of the profile can be enforced on this machine; pass --env-unenforced to start without them", p.Name)
	}
	if pr := e.progress(); pr != nil {
		pr(fmt.Sprintf("instance %s: environment %s", name, p.Describe()))
		for _, x := range en.Enforcement() {
			if x.Status != env.Enforced {
				pr(fmt.Sprintf("instance %s: %s", name, x))
			}
		}
	}
	return en, nil
}

// keepNamedEnvironment records the instance's environment in its
// directory (or forgets an old one), so that studies on it and 'pglab pg
// stop' find its cgroup.
func keepNamedEnvironment(inst *pgserver.Instance, e *env.Environment) error {
	if e == nil {
		return env.Forget(inst.Dir())
	}
	return e.Save(inst.Dir())
}

// closeNamedEnvironment removes the cgroup of a stopped named instance.
func closeNamedEnvironment(inst *pgserver.Instance) error {
	e, ok, err := env.Load(inst.Dir())
	if err != nil || !ok {
		return err
	}
	if err := e.Close(); err != nil {
		return err
	}
	return env.Forget(inst.Dir())
}

// namedEnvName is the profile a named instance runs in, or "-".
func namedEnvName(inst *pgserver.Instance) string {
	e, ok, err := env.Load(inst.Dir())
	if err != nil || !ok {
		return "-"
	}
	return e.Profile.Name
}
