package lab

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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

// StopInstance stops a named instance of 'pglab pg start', ends the
// environment Start recorded in its directory (env.CloseSaved) and, with
// remove, deletes the instance. It says what it did, naming the instance.
func StopInstance(ctx context.Context, inst *pgserver.Instance, remove bool) (string, error) {
	was := inst.Running()
	err := inst.Stop(ctx)
	if err == nil {
		err = env.CloseSaved(inst.Dir())
	}
	if err == nil && remove {
		err = inst.Destroy(ctx)
	}
	switch {
	case err != nil:
		return "", err
	case remove:
		return fmt.Sprintf("instance %s stopped and removed", inst.Name()), nil
	case was:
		return fmt.Sprintf("instance %s stopped", inst.Name()), nil
	}
	return fmt.Sprintf("instance %s was not running", inst.Name()), nil
}

// WriteInstances prints the named instances as pglab pg status shows
// them (name, version, state, process, environment, DSN without its
// password, directory), or that there are none, then the stray server
// processes (pgserver.WriteStrays).
func WriteInstances(w io.Writer, list []*pgserver.Instance) error {
	if len(list) == 0 {
		fmt.Fprintf(w, "no named instances (in %s)\n", pgserver.StateDir())
		return pgserver.WriteStrays(w)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSTATE\tPID\tENV\tDSN\tDIRECTORY")
	for _, inst := range list {
		state, pid := "stopped", "-"
		if inst.Running() {
			state, pid = "running", fmt.Sprint(inst.PID())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", inst.Name(), inst.Version(), state, pid, env.SavedName(inst.Dir()), inst.RedactedDSN(), inst.Dir())
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write instances: %w", err)
	}
	return pgserver.WriteStrays(w)
}
