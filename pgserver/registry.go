package pgserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

var instanceNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// ValidateName checks an instance name: letters, digits, '_', '.', '-'.
func ValidateName(name string) error {
	if !instanceNameRE.MatchString(name) {
		return fmt.Errorf("invalid instance name %q: use letters, digits, '_', '.' and '-' (at most 63)", name)
	}
	return nil
}

// ErrNoInstance is returned (wrapped) when a named instance does not exist.
var ErrNoInstance = errors.New("no such instance")

// StartNamed starts a detached instance registered under opts.Name in
// StateDir(). An existing stopped instance of that name is started again
// with its data kept (its version must match); a running one is an error.
func StartNamed(ctx context.Context, opts Options) (*Instance, error) {
	if err := ValidateName(opts.Name); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(StateDir(), 0o755); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	// The state directory's parents must be traversable by the server user.
	os.Chmod(StateDir(), 0o755)
	os.Chmod(filepath.Dir(StateDir()), 0o755)
	opts.Detached = true
	opts.Dir = filepath.Join(StateDir(), opts.Name)
	if existing, err := OpenNamed(opts.Name); err == nil {
		if existing.Running() {
			return nil, fmt.Errorf("instance %s is already running on port %d (stop it with 'pglab pg stop %s')", opts.Name, existing.port, opts.Name)
		}
		if existing.opts.Binaries.Version.Major != opts.Binaries.Version.Major {
			return nil, fmt.Errorf("instance %s holds PostgreSQL %d data; remove it with 'pglab pg stop --remove %s' or choose another --name", opts.Name, existing.opts.Binaries.Version.Major, opts.Name)
		}
		existing.opts.Binaries = opts.Binaries
		existing.opts.Progress = opts.Progress
		existing.opts.Placer = opts.Placer
		if opts.StartTimeout != 0 {
			existing.opts.StartTimeout = opts.StartTimeout
		}
		if err := validateSettings(ctx, opts.Binaries, existing.dataDir(), existing.user, opts.Settings); err != nil {
			return nil, err
		}
		existing.settings = opts.Settings
		existing.port = 0
		// What a killed postmaster left holds its shared memory: the
		// new one would refuse to start.
		if err := existing.endLeftovers(); err != nil {
			return nil, err
		}
		if err := existing.start(ctx); err != nil {
			return nil, err
		}
		if err := existing.writeInstanceFile(); err != nil {
			existing.Stop(context.Background())
			return nil, err
		}
		return existing, nil
	} else if !errors.Is(err, ErrNoInstance) {
		return nil, err
	}
	return Start(ctx, opts)
}

// OpenNamed loads a registered instance. It may or may not be running.
func OpenNamed(name string) (*Instance, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	dir := filepath.Join(StateDir(), name)
	data, err := os.ReadFile(filepath.Join(dir, "instance.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %q (see 'pglab pg status')", ErrNoInstance, name)
	}
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", name, err)
	}
	var f instanceFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("instance %s: instance.json: %w", name, err)
	}
	pw, err := os.ReadFile(filepath.Join(dir, "password"))
	if err != nil {
		return nil, fmt.Errorf("instance %s: read password: %w", name, err)
	}
	su, err := LookupServerUser()
	if err != nil {
		return nil, err
	}
	spec, err := ParseVersionSpec(f.Version)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", name, err)
	}
	inst := &Instance{
		opts: Options{
			Binaries:  &Binaries{Dir: f.BinDir, Version: Version{Major: spec.Major, Minor: max(spec.Minor, 0)}, Source: "instance"},
			Name:      f.Name,
			Dir:       dir,
			Checksums: f.Checksums,
			Settings:  f.Settings,
			Database:  f.Database,
			Detached:  true,
		},
		name:     name,
		dir:      dir,
		user:     su,
		password: strings.TrimSpace(string(pw)),
		port:     f.Port,
		settings: f.Settings,
	}
	inst.opts.StartTimeout = time.Minute
	if pid := pmPID(inst.dataDir()); pid != 0 {
		inst.lastPM = pid
		if inst.isPostmaster(pid) {
			inst.pid = pid
		}
	}
	return inst, nil
}

// OpenForStop opens a named instance to stop it: as OpenNamed, or, when
// the instance was removed while processes of it still run (a stray
// parallel worker in its deleted data directory), an instance of its
// former directory whose Stop ends them.
func OpenForStop(name string) (*Instance, error) {
	inst, err := OpenNamed(name)
	if !errors.Is(err, ErrNoInstance) {
		return inst, err
	}
	su, uerr := LookupServerUser()
	if uerr != nil {
		return nil, uerr
	}
	dir := filepath.Join(StateDir(), name)
	left := &Instance{name: name, dir: dir, user: su, opts: Options{Name: name, Dir: dir, Detached: true}}
	if procs, perr := left.Processes(); perr != nil || len(procs) == 0 {
		return nil, err
	}
	return left, nil
}

// ListNamed returns every registered instance, sorted by name.
func ListNamed() ([]*Instance, error) {
	ents, err := os.ReadDir(StateDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list instances: %w", err)
	}
	var out []*Instance
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		inst, err := OpenNamed(e.Name())
		if err != nil {
			continue
		}
		out = append(out, inst)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// NamedNames returns the names of the instances of 'pglab pg start'
// (none when their directory cannot be read).
func NamedNames() []string {
	list, _ := ListNamed()
	out := make([]string, 0, len(list))
	for _, inst := range list {
		out = append(out, inst.Name())
	}
	return out
}
