package lab

import (
	"fmt"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver"
)

// layout returns the machine's cgroup layout, read once per lab; the
// first call also removes the cgroups a killed pglab left behind.
func (l *Lab) layout() *env.Layout {
	if l.cgLayout == nil {
		l.cgLayout = env.Detect()
		if stale := env.CleanStale(l.cgLayout); len(stale) > 0 {
			l.say("removed %d stale pglab cgroup(s) left by a pglab that was killed", len(stale))
		}
	}
	return l.cgLayout
}

// newEnvironment makes a managed target's environment: its cgroup with the
// profile's limits. A profile none of whose limits can be enforced is an
// error unless Spec.Unenforced; every limit not (fully) enforced becomes a
// note of the run.
func (l *Lab) newEnvironment(s Target) (*env.Environment, error) {
	e, err := env.NewEnvironment(*s.Env, env.Options{Server: s.Name, DataDir: pgserver.TempRoot(), Layout: l.layout()})
	if err != nil {
		return nil, err
	}
	if e.NoneEnforced() && !l.spec.Unenforced {
		var why []string
		for _, x := range e.Enforcement() {
			why = append(why, x.Key+": "+x.Why)
		}
		e.Close()
		return nil, inputError(FieldEnvs, "{env} %s: no limit of the profile can be enforced on this machine (%s); set {env-unenforced} to run without them (the report then says so)", s.Env.Name, strings.Join(why, "; "))
	}
	l.say("%s: environment %s", s.Name, s.Env.Describe())
	for _, x := range e.Enforcement() {
		if x.Status != env.Enforced {
			l.note(s.Name, "%s", x)
		}
	}
	return e, nil
}

// checkPlaced verifies that a server started in an environment runs in its
// cgroup: the postmaster is among the cgroup's processes.
func checkPlaced(e *env.Environment, inst *pgserver.Instance) error {
	if e.Cgroup == nil {
		return nil
	}
	procs, err := e.Cgroup.Procs()
	if err != nil {
		return fmt.Errorf("%s: read its cgroup: %w", inst.Name(), err)
	}
	for _, p := range procs {
		if p == inst.PID() {
			return nil
		}
	}
	return fmt.Errorf("%s: the postmaster (pid %d) is not in its cgroup %s", inst.Name(), inst.PID(), e.Cgroup.Name)
}
