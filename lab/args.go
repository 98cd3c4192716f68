package lab

import (
	"fmt"
	"os"
	"strings"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/study"
)

// Args are a comparison's servers and how to treat them as a command line
// gives them, in text (the flags of study and compare bind to them); Fill
// reads them into a Spec.
type Args struct {
	// Versions is --versions: a comma-separated list.
	Versions string
	// Targets are --target NAME=DSN or NAME (an instance of 'pglab pg
	// start').
	Targets []string
	// Sets are --set name=value, for every managed server.
	Sets []string
	// Checksums is --checksums: on or off.
	Checksums string
	// Store, NoInstall, Force, Unenforced and Profile are the Spec's
	// fields.
	Store                                 string
	NoInstall, Force, Unenforced, Profile bool
	// Workers, Listen and Token are --workers N, --listen and --token
	// (default $PGLAB_TOKEN).
	Workers       int
	Listen, Token string
	// Envs are --env SPECs, resolved against the profiles (built-in, the
	// user's file, EnvFiles).
	Envs, EnvFiles []string
	// CacheLimit is --cache-limit, a size ("0": no cache).
	CacheLimit string
	// Conn are psql's -h, -p, -U and -d: put in place of the parts of
	// every --target DSN.
	Conn pgserver.ConnParts
	// Configs are --config NAME:k=v,k=v, configurations of the one
	// managed version.
	Configs []string
	// Reps and Budget are --reps (auto or N) and --budget (a duration or
	// none); empty for the default.
	Reps, Budget string
}

// Fill reads the arguments into spec, without touching any server; the
// environments' profiles files are read.
func (a Args) Fill(spec *Spec) error {
	if err := a.fillWorkers(spec); err != nil {
		return err
	}
	var err error
	if spec.Settings, err = pgserver.ParseSettings(a.Sets); err != nil {
		return &InputError{Field: FieldSettings, Err: err}
	}
	if spec.Checksums, err = ParseChecksums(a.Checksums); err != nil {
		return err
	}
	spec.Store, spec.NoInstall, spec.Force, spec.Unenforced, spec.Profile = a.Store, a.NoInstall, a.Force, a.Unenforced, a.Profile
	if a.CacheLimit != "" {
		n, err := dataset.ParseSize(a.CacheLimit)
		if err != nil {
			return inputError("", "{cache-limit}: %w", err)
		}
		spec.CacheLimit = n
		if n == 0 {
			spec.CacheLimit = -1
		}
	}
	if spec.Envs, err = ResolveEnvs(a.Envs, a.EnvFiles); err != nil {
		return err
	}
	if a.Versions != "" {
		for _, v := range strings.Split(a.Versions, ",") {
			vs, err := pgserver.ParseVersionSpec(v)
			if err != nil {
				return inputError(FieldVersions, "{versions}: %w", err)
			}
			spec.Versions = append(spec.Versions, vs)
		}
	}
	for _, text := range a.Targets {
		s, err := a.server(text)
		if err != nil {
			return err
		}
		spec.Servers = append(spec.Servers, s)
	}
	if !a.Conn.Empty() && len(spec.Servers) == 0 {
		return inputError(FieldServers, "-h, -p, -U and -d go with {target} NAME=DSN (NAME= for the PG* variables' server)")
	}
	if err := a.fillReps(spec); err != nil {
		return err
	}
	if len(a.Configs) == 0 {
		return nil
	}
	var configs []Config
	for _, text := range a.Configs {
		cfg, err := parseConfig(text)
		if err != nil {
			return err
		}
		configs = append(configs, cfg)
	}
	return spec.SetConfigs(configs)
}

// RepsEnv and BudgetEnv name the environment variables that stand for
// --reps and --budget when they are not given (PGLAB_REPS=auto:10 in a
// CI job runs every comparison of it at most 10 rounds a case).
const RepsEnv, BudgetEnv = "PGLAB_REPS", "PGLAB_BUDGET"

// fillReps reads --reps and --budget, or $PGLAB_REPS and $PGLAB_BUDGET
// in their place.
func (a Args) fillReps(spec *Spec) error {
	reps, repsName := orEnv(a.Reps, RepsEnv, "{reps}")
	n, capN, err := ParseReps(reps)
	if err != nil {
		return inputError("", "%s: %w", repsName, err)
	}
	spec.Reps, spec.RepsCap = n, capN
	budget, budgetName := orEnv(a.Budget, BudgetEnv, "{budget}")
	if budget == "" {
		return nil
	}
	if spec.Budget, err = ParseBudget(budget); err != nil {
		return inputError("", "%s: %w", budgetName, err)
	}
	if n > 0 {
		return inputError("", "%s goes with %s auto: a fixed %s %d runs every repetition", budgetName, repsName, repsName, n)
	}
	return nil
}

// orEnv is a flag's value, or the environment variable env's when the
// flag is empty, with the name an error should give it.
func orEnv(value, env, flag string) (string, string) {
	if value != "" {
		return value, flag
	}
	if v := os.Getenv(env); v != "" {
		return v, "$" + env
	}
	return "", flag
}

// parseConfig reads --config NAME:k=v,k=v.
func parseConfig(text string) (Config, error) {
	name, sets, ok := strings.Cut(text, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return Config{}, inputError(FieldConfigs, "{config} %q: want NAME:name=value,name=value", text)
	}
	var list []string
	for _, kv := range strings.Split(sets, ",") {
		if strings.TrimSpace(kv) != "" {
			list = append(list, kv)
		}
	}
	settings, err := pgserver.ParseSettings(list)
	if err != nil {
		return Config{}, inputError(FieldConfigs, "{config} %s: %w", name, err)
	}
	return Config{Name: strings.TrimSpace(name), Settings: settings}, nil
}

// server reads one --target: a named instance, or NAME=DSN with the parts
// of Conn put in place of the DSN's.
func (a Args) server(text string) (Server, error) {
	t, err := pgserver.ParseTarget(text)
	switch {
	case err != nil:
		return Server{}, &InputError{Field: FieldServers, Err: err}
	case t.Label == "":
		return Server{}, inputError(FieldServers, "{target} %s: name the server, NAME=DSN (the report's column)", redact.DSN(text))
	case t.Named() && !a.Conn.Empty():
		return Server{}, inputError(FieldServers, "-h, -p, -U and -d go with {target} NAME=DSN, not with the instance %s (pglab knows how to reach it)", t.Label)
	case t.Named():
		return Server{Name: t.Label}, nil
	}
	if t.DSN, err = a.Conn.Apply(t.DSN); err != nil {
		return Server{}, inputError(FieldServers, "{target} %s: %w", t.Label, err)
	}
	if _, err := study.ParseDSN(t.Label, t.DSN); err != nil {
		return Server{}, &InputError{Field: FieldServers, Err: err}
	}
	return Server{Name: t.Label, DSN: t.DSN}, nil
}

// fillWorkers reads --workers, --listen and --token.
func (a Args) fillWorkers(spec *Spec) error {
	switch {
	case a.Workers < 0:
		return inputError(FieldWorkers, "{workers} must be 1 or more: got %d", a.Workers)
	case a.Workers > 0 && a.Listen == "":
		return inputError(FieldWorkers, "{workers} needs {listen} HOST:PORT (where the workers join)")
	case a.Workers == 0 && (a.Listen != "" || a.Token != ""):
		return inputError(FieldWorkers, "{listen} and {token} belong to {workers} N")
	}
	spec.Workers = Workers{N: a.Workers, Listen: a.Listen, Token: a.Token}
	if spec.Workers.Token == "" {
		spec.Workers.Token = os.Getenv("PGLAB_TOKEN")
	}
	return nil
}

// ParseChecksums reads --checksums: on or off (true, yes, 1; false, no,
// 0; empty is off).
func ParseChecksums(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0", "":
		return false, nil
	}
	return false, &InputError{Err: fmt.Errorf("{checksums} must be on or off: got %q", s)}
}
