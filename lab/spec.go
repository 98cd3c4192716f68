// Package lab is the comparison's model and its set-up. A [Spec] says which
// servers to compare — managed versions, configurations of a version, or a
// user's servers — in which environments, which studies with which
// parameters, and how many repetitions; the command line (compare, study)
// and plan files fill it alike. A [Lab] opens what a Spec names: it starts
// the managed servers (each in its environment), connects to the others,
// opens the results store and the run, runs the studies, and stops and
// removes everything it started.
//
// Targets are versions × configurations × environments: --versions 16,17
// --env t3.micro gives pg16@t3.micro and pg17@t3.micro; --versions 17 --env
// local --env t3.micro compares one version on two machines.
package lab

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/study"
)

// Spec is a comparison: its servers, their settings and environments, its
// studies and repetitions.
type Spec struct {
	// Name names the comparison (a plan's name field); optional.
	Name string
	// Versions are managed servers, one per version (and environment).
	Versions []pgserver.VersionSpec
	// Configs are managed servers of one version under named
	// configurations (compare --config), one per configuration (and
	// environment).
	Configs []Config
	// Servers are servers pglab does not start: a user's (a DSN) or a
	// named instance of 'pglab pg start'.
	Servers []Server
	// Envs are the environments the managed servers run in: one server
	// per version (or configuration) and environment. None runs them on
	// the machine as it is, without a profile.
	Envs []env.Profile
	// Settings are server settings for every managed server (--set).
	Settings []pgserver.Setting
	// Checksums turns data checksums on in every managed server.
	Checksums bool
	// Studies are the studies to run, with their parameters, in order.
	Studies []StudyRun
	// Reps fixes every study's repetitions when > 0 (--reps N); 0 is
	// --reps auto, the default: each case's repetitions chosen by the
	// data (compare.Design), studies that have nothing to call keeping
	// their own count.
	Reps int
	// RepsCap, under --reps auto, is the most rounds any case may run
	// (--reps auto:N); 0 is compare.DefaultPairedCap.
	RepsCap int
	// Budget, under --reps auto, is the time the run may spend (--budget):
	// a case goes past a look only while its study's share of what is
	// left affords its rounds; 0 is DefaultSeedBudget at the seeds'
	// sizes and none with Quick, NoBudget none at all.
	Budget time.Duration
	// Quick selects the studies' quick parameter values and repetitions.
	Quick bool
	// Alpha is the significance level of the comparisons (0 means 0.05).
	Alpha float64
	// MinChange is the practical floor of a call, a fraction of the
	// baseline (0.05 = 5 %); 0 means compare.DefaultMinChange.
	MinChange float64
	// FailOn is "regression" to make the run fail (exit code 3) when a
	// called change is a regression, or "".
	FailOn string
	// AA compares two identical managed servers: the one version of
	// Versions started twice, as targets "a" and "b", with the same initdb
	// choices, settings and environment. It is the calibration run: a
	// report of an A/A run should call no change.
	AA bool
	// OrderSeed seeds the order of the targets within each round; 0 draws
	// one, which the run records (a seed repeats a run's order).
	OrderSeed uint64
	// Store is the results store: a file path or a postgres:// DSN; empty
	// means pglab's default.
	Store string
	// NoInstall fails instead of installing missing versions.
	NoInstall bool
	// Force lets studies use a schema named pglab that pglab did not make.
	Force bool
	// CacheLimit is the dataset cache's size limit in bytes: 0 means
	// $PGLAB_CACHE_LIMIT or dataset.DefaultLimit, a negative value no
	// cache (every dataset built in place on every server).
	CacheLimit int64
	// Workers run the pgbench workloads (tps, tune) from pglab workers
	// on other machines.
	Workers Workers
	// Out is the directory of the reports of compare and plan (report.md,
	// report.html, report.json); empty means DefaultOut.
	Out string
	// Plan is the plan file the comparison was read from; empty for one
	// given on the command line.
	Plan string
	// Unenforced lets a run go on when an environment's limits cannot be
	// enforced at all on this machine (no cgroup access); otherwise that
	// is an error.
	Unenforced bool
	// Profile samples the servers' processes on CPU during the measured
	// steps (perf, local servers): CPU by function (--profile).
	Profile bool
}

// Workers are the load machines of a comparison: N pglab workers that
// join a coordinator listening on Listen, with Token as their secret.
type Workers struct {
	N             int
	Listen, Token string
}

// Config is one named configuration of a managed version.
type Config struct {
	Name     string
	Version  pgserver.VersionSpec
	Settings []pgserver.Setting
}

// Server is a server pglab does not start: a user's, given by a DSN, or,
// with DSN empty, a named instance of 'pglab pg start'.
type Server struct {
	Name string
	DSN  string
}

// StudyRun is one study of a comparison with its parameters.
type StudyRun struct {
	Study  study.Study
	Params study.Params
}

// Target is one server of a comparison before it is opened.
type Target struct {
	// Name labels the target in results and reports: "pg17", "small",
	// "pg17@t3.micro".
	Name string
	// Version is a managed server's version.
	Version pgserver.VersionSpec
	// DSN is a user's server; Named an instance of 'pglab pg start'.
	DSN   string
	Named string
	// Settings are this managed server's own on top of Spec.Settings (a
	// configuration's).
	Settings []pgserver.Setting
	// Optional settings were chosen by pglab (a study's variant): one the
	// version does not have is left out with a note instead of failing
	// the run.
	Optional []pgserver.Setting
	// Env is a managed server's environment; nil for none.
	Env *env.Profile

	base string // Name without the environment
}

// Managed reports whether pglab starts the server.
func (t Target) Managed() bool { return t.DSN == "" && t.Named == "" }

// Targets returns the comparison's servers in report order: the managed
// versions, then the configurations, each in every environment, then the
// other servers. Names must be unique; a managed target's name carries its
// environment ("pg17@t3.micro") whenever environments are given.
func (s *Spec) Targets() ([]Target, error) {
	var out []Target
	seen := map[string]bool{}
	add := func(t Target) error {
		if seen[t.Name] {
			return inputError("", "target name %q is given twice", t.Name)
		}
		seen[t.Name] = true
		out = append(out, t)
		return nil
	}
	envNames := map[string]bool{}
	for _, p := range s.Envs {
		if envNames[p.Name] {
			return nil, inputError(FieldEnvs, "{env} %s is given twice", p.Name)
		}
		envNames[p.Name] = true
		if err := p.CheckSupported(); err != nil {
			return nil, inputError(FieldEnvs, "{env} %s: %w", p.Name, err)
		}
	}
	managed, err := s.managedTargets()
	if err != nil {
		return nil, err
	}
	for _, t := range managed {
		for _, e := range s.withEnvs(t) {
			if err := add(e); err != nil {
				return nil, err
			}
		}
	}
	for _, sv := range s.Servers {
		if err := pgserver.ValidateName(sv.Name); err != nil {
			return nil, inputError(FieldServers, "{target} %s: %w", sv.Name, err)
		}
		if err := add(Target{Name: sv.Name, base: sv.Name, DSN: sv.DSN, Named: named(sv)}); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, inputError("", "name the servers: {versions}, e.g. 16,17 (managed), or {target} NAME=DSN")
	}
	if len(s.Envs) > 0 && len(managed) == 0 {
		return nil, inputError(FieldEnvs, "{env} applies to servers pglab starts ({versions}); {target} %s is not one", s.Servers[0].Name)
	}
	return out, nil
}

// RepsAuto is the value of --reps (and of a plan's reps) that lets the
// data choose each case's repetitions: Spec.Reps 0.
const RepsAuto = "auto"

// ParseReps reads --reps: "auto" (0), "auto:N" (0, with every case's cap
// at most N rounds, N ≥ 2) or a whole number of at least 1 (with cap 0).
func ParseReps(s string) (reps, capN int, err error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, RepsAuto) || s == "" {
		return 0, 0, nil
	}
	if head, tail, ok := strings.Cut(s, ":"); ok && strings.EqualFold(head, RepsAuto) {
		capN, err := strconv.Atoi(tail)
		if err != nil || capN < 2 {
			return 0, 0, fmt.Errorf("want auto:N with a cap N of at least 2 rounds, got %q", s)
		}
		return 0, capN, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, 0, fmt.Errorf("want auto, auto:N (a cap of N rounds per case) or a whole number of at least 1, got %q", s)
	}
	return n, 0, nil
}

// NoBudget, as Spec.Budget, runs a comparison at the seeds' sizes without
// its default budget (--budget none).
const NoBudget time.Duration = -1

// DefaultSeedBudget is the budget of a comparison at the seeds' sizes under
// --reps auto when none is given: an hour, of which the rounds to the first
// look of every study (3) take about 45 minutes on two CPUs. Quick
// comparisons have none.
const DefaultSeedBudget = time.Hour

// DefaultQuickBudget is the budget of a --quick comparison under --reps
// auto: its cheap cases run the rounds that resolving them takes, within
// minutes.
const DefaultQuickBudget = 7 * time.Minute

// ParseBudget reads --budget: a duration of at least a second ("30m",
// "1h30m"), or "none" (NoBudget).
func ParseBudget(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "none" {
		return NoBudget, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("want a duration of at least 1s, e.g. 30m or 1h30m, or none, got %q", s)
	}
	return d, nil
}

// budget returns the run's budget under --reps auto: Budget, else
// DefaultSeedBudget at the seeds' sizes; 0 for none.
func (s *Spec) budget() time.Duration {
	switch {
	case s.Budget == NoBudget:
		return 0
	case s.Budget == 0 && !s.Quick:
		return DefaultSeedBudget
	case s.Budget == 0:
		return DefaultQuickBudget
	}
	return s.Budget
}

// FailOnRegression is the one value of Spec.FailOn (--fail-on).
const FailOnRegression = "regression"

// CheckFailOn checks a --fail-on value: "" or "regression".
func CheckFailOn(s string) error {
	if s != "" && s != FailOnRegression {
		return fmt.Errorf("want %q, got %q", FailOnRegression, s)
	}
	return nil
}

// ParseMinChange reads a practical floor given as a percentage, "5", "5%"
// or "0.5 %", into a fraction (0.05); it must be at least 0 and below 100.
func ParseMinChange(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0 && v < 100) {
		return 0, fmt.Errorf("want a percentage from 0 to below 100, e.g. 5 or 5%%, got %q", s)
	}
	if v == 0 {
		return compare.NoFloor, nil
	}
	return v / 100, nil
}

// AATargets names the two identical servers of an A/A run.
var AATargets = [2]string{"a", "b"}

// managedTargets returns the servers pglab starts, before environments:
// one per version, then one per configuration; for an A/A run, the one
// version twice.
func (s *Spec) managedTargets() ([]Target, error) {
	if s.AA {
		switch {
		case len(s.Versions) != 1 || len(s.Configs) > 0:
			return nil, inputError(FieldVersions, "{aa} compares one version with itself: give exactly one in {versions}, e.g. 17 (and no {config})")
		case len(s.Servers) > 0:
			return nil, inputError(FieldServers, "{aa} starts two identical managed servers: it takes {versions}, not {target}")
		}
		v := s.Versions[0]
		return []Target{{base: AATargets[0], Version: v}, {base: AATargets[1], Version: v}}, nil
	}
	var managed []Target
	majors := map[int]int{}
	for _, v := range s.Versions {
		majors[v.Major]++
	}
	for _, v := range s.Versions {
		name := fmt.Sprintf("pg%d", v.Major)
		if majors[v.Major] > 1 {
			name = "pg" + v.String()
		}
		managed = append(managed, Target{base: name, Version: v})
	}
	for _, c := range s.Configs {
		if err := pgserver.ValidateName(c.Name); err != nil {
			return nil, inputError(FieldConfigs, "{config} %s: %w", c.Name, err)
		}
		managed = append(managed, Target{base: c.Name, Version: c.Version, Settings: c.Settings})
	}
	return managed, nil
}

func named(sv Server) string {
	if sv.DSN == "" {
		return sv.Name
	}
	return ""
}

// withEnvs returns the managed target once per environment, or as it is
// when there are none.
func (s *Spec) withEnvs(t Target) []Target {
	if len(s.Envs) == 0 {
		t.Name = t.base
		return []Target{t}
	}
	out := make([]Target, 0, len(s.Envs))
	for i := range s.Envs {
		e := t
		e.Env = &s.Envs[i]
		e.Name = t.base + "@" + s.Envs[i].Name
		out = append(out, e)
	}
	return out
}

// rename gives a target a new base name, keeping its environment suffix.
func (t Target) rename(base string) Target {
	t.base = base
	t.Name = base
	if t.Env != nil {
		t.Name += "@" + t.Env.Name
	}
	return t
}

// StudyNames returns the names of the comparison's studies.
func (s *Spec) StudyNames() []string {
	out := make([]string, len(s.Studies))
	for i, r := range s.Studies {
		out[i] = r.Study.Info().Name
	}
	return out
}
