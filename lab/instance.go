package lab

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver"
)

// Instance is a named server of 'pglab pg start' as its command line gives
// it, in text; Start checks and starts it.
type Instance struct {
	// Version is --versions: one major (17) or release (17.10).
	Version string
	// Name is --name (default pg<major>).
	Name string
	// Sets are --set name=value; Checksums is --checksums.
	Sets      []string
	Checksums string
	// Envs and EnvFiles are --env (one at most) and --env-file;
	// Unenforced is --env-unenforced.
	Envs, EnvFiles []string
	Unenforced     bool
	// StartTimeout is --start-timeout.
	StartTimeout time.Duration
}

// Start checks the instance's arguments (an *InputError before anything
// is started), finds its binaries with binaries, starts it under its
// environment, if any, and records the environment in the instance's
// directory. say, when not nil, is told what happens.
func (a Instance) Start(ctx context.Context, binaries func(context.Context, pgserver.VersionSpec) (*pgserver.Binaries, error), say func(string)) (*pgserver.Instance, error) {
	if say == nil {
		say = func(string) {}
	}
	opts, spec, profile, err := a.options()
	if err != nil {
		return nil, err
	}
	if opts.Binaries, err = binaries(ctx, spec); err != nil {
		return nil, err
	}
	opts.StartTimeout, opts.Progress = a.StartTimeout, say
	var e *env.Environment
	if profile != nil {
		var lines []string
		if e, lines, err = env.NewForInstance(*profile, opts.Name, pgserver.StateDir(), a.Unenforced); err != nil {
			return nil, &InputError{Field: FieldEnvs, Err: err}
		}
		for _, l := range lines {
			say(l)
		}
		if e.Placer() != nil {
			opts.Placer = e.Placer()
		}
	}
	inst, err := pgserver.StartNamed(ctx, opts)
	if err != nil {
		e.Close()
		return nil, err
	}
	if err := env.Keep(inst.Dir(), e); err != nil {
		inst.Stop(context.WithoutCancel(ctx))
		e.Close()
		return nil, err
	}
	return inst, nil
}

// options checks the arguments: the server's options (without its
// binaries), the version asked for and its environment's profile, if
// any.
func (a Instance) options() (opts pgserver.Options, spec pgserver.VersionSpec, profile *env.Profile, err error) {
	switch {
	case a.Version == "":
		return opts, spec, nil, inputError(FieldVersions, "pg start: {versions} is required (e.g. {versions} 17)")
	case strings.Contains(a.Version, ","):
		return opts, spec, nil, inputError(FieldVersions, "pg start: {versions} %s: one version, one server (e.g. {versions} 17)", a.Version)
	case len(a.Envs) > 1:
		return opts, spec, nil, inputError(FieldEnvs, "pg start: one {env} per server (got %d)", len(a.Envs))
	}
	if spec, err = pgserver.ParseVersionSpec(a.Version); err != nil {
		return opts, spec, nil, &InputError{Field: FieldVersions, Err: err}
	}
	if opts.Settings, err = pgserver.ParseSettings(a.Sets); err != nil {
		return opts, spec, nil, &InputError{Field: FieldSettings, Err: err}
	}
	if opts.Checksums, err = ParseChecksums(a.Checksums); err != nil {
		return opts, spec, nil, err
	}
	opts.Name = a.Name
	if opts.Name == "" {
		opts.Name = fmt.Sprintf("pg%d", spec.Major)
	}
	if err := pgserver.ValidateName(opts.Name); err != nil {
		return opts, spec, nil, &InputError{Field: FieldServers, Err: err}
	}
	ps, err := ResolveEnvs(a.Envs, a.EnvFiles)
	if err != nil || len(ps) == 0 {
		return opts, spec, nil, err
	}
	if err := ps[0].CheckForInstance(); err != nil {
		return opts, spec, nil, &InputError{Field: FieldEnvs, Err: err}
	}
	return opts, spec, &ps[0], nil
}
