package env

import (
	"fmt"
	"strings"
)

// CheckForInstance checks a profile for a named instance (pglab pg start
// --env), which outlives any run: every key must be supported, and only
// machine keys make sense (a delay proxy and a standby live as long as a
// run of study or compare).
func (p Profile) CheckForInstance() error {
	if err := p.CheckSupported(); err != nil {
		return fmt.Errorf("--env %s: %w", p.Name, err)
	}
	if p.Network.IsZero() {
		return nil
	}
	var keys []string
	for _, s := range p.Settings() {
		if !IsMachineKey(s.Key) {
			keys = append(keys, s.String())
		}
	}
	return fmt.Errorf("--env %s: %s: a delay proxy and a standby live as long as a run of study or compare, not beside a server that outlives pglab; pg start takes the machine keys (%s)",
		p.Name, strings.Join(keys, ", "), strings.Join(KeysOf(MachineKey), ", "))
}

// NewForInstance makes the environment of a named instance: a cgroup that
// outlives pglab with its server (removed by CloseSaved when it stops),
// for a data directory under dataDir. A profile none of whose limits can
// be enforced here is an error unless unenforced. It returns lines to show:
// the profile, then each limit not fully enforced.
func NewForInstance(p Profile, name, dataDir string, unenforced bool) (*Environment, []string, error) {
	l := Detect()
	CleanStale(l)
	e, err := NewEnvironment(p, Options{Server: name, DataDir: dataDir, Layout: l})
	if err != nil {
		return nil, nil, err
	}
	if e.NoneEnforced() && !unenforced {
		e.Close()
		return nil, nil, fmt.Errorf("--env %s: no limit of the profile can be enforced on this machine; pass --env-unenforced to start without them", p.Name)
	}
	lines := []string{fmt.Sprintf("instance %s: environment %s", name, p.Describe())}
	for _, x := range e.Enforcement() {
		if x.Status != Enforced {
			lines = append(lines, fmt.Sprintf("instance %s: %s", name, x))
		}
	}
	return e, lines, nil
}

// Keep records an instance's environment in its directory, so that
// studies on it and its stop find its cgroup; a nil e forgets an old one.
func Keep(dir string, e *Environment) error {
	if e == nil {
		return Forget(dir)
	}
	return e.Save(dir)
}

// CloseSaved removes the cgroup recorded in a stopped instance's
// directory, and forgets it.
func CloseSaved(dir string) error {
	e, ok, err := Load(dir)
	if err != nil || !ok {
		return err
	}
	if err := e.Close(); err != nil {
		return err
	}
	return Forget(dir)
}

// SavedName returns the name of the profile recorded in an instance's
// directory, or "-".
func SavedName(dir string) string {
	e, ok, err := Load(dir)
	if err != nil || !ok {
		return "-"
	}
	return e.Profile.Name
}
