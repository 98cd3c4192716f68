package cli

import (
	"context"
	"strings"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/results"
	"github.com/spf13/pflag"
)

// registerTargetFlags binds the flags that choose servers and how to treat
// them, shared by study and compare, to a.
func registerTargetFlags(fs *pflag.FlagSet, a *lab.Args) {
	fs.StringVar(&a.Versions, "versions", "", "PostgreSQL versions to start as managed servers, e.g. 16,17 (installed when missing)")
	fs.StringArrayVar(&a.Targets, "target", nil, "a server to use: NAME=DSN (yours), or the NAME of an instance from 'pglab pg start' (repeatable)")
	fs.StringArrayVar(&a.Sets, "set", nil, "server setting name=value for managed servers (repeatable)")
	fs.StringVar(&a.Checksums, "checksums", "off", "data checksums of managed servers: on or off (the same for every version)")
	fs.StringVar(&a.Store, "store", "", "results store: an SQLite file path or a postgres:// DSN (default "+defaultStoreText()+")")
	fs.BoolVar(&a.NoInstall, "no-install", false, "fail instead of installing missing PostgreSQL versions")
	fs.BoolVar(&a.Force, "force", false, "use a schema named pglab on a user's server even if pglab did not create it")
	fs.BoolVar(&a.Profile, "profile", false, "sample the local servers' processes on CPU during measured steps (perf, as root): CPU time by function and folded stacks per round; perf's attach and read are not charged to --budget")
	registerEnvFlags(fs, &a.Envs, &a.EnvFiles, true)
	fs.BoolVar(&a.Unenforced, "env-unenforced", false, "run even when no limit of an --env profile can be enforced on this machine (no cgroup access): the servers then run without them, and the report says so")
	fs.StringVar(&a.CacheLimit, "cache-limit", "", "size limit of the dataset cache kept between runs, e.g. 40GB (least recently used datasets are removed beyond it); 0 builds every dataset in place without the cache (default $"+dataset.LimitEnv+" or 40GB)")
	fs.IntVar(&a.Workers, "workers", 0, "run the pgbench workloads (tps, tune) on N pglab workers (pglab worker --join, see pglab bench --listen)")
	fs.StringVar(&a.Listen, "listen", "", "with --workers: the coordinator's address, host:port")
	fs.StringVar(&a.Token, "token", "", "with --workers: the workers' secret (default $PGLAB_TOKEN; required unless --listen is a loopback address)")
}

func defaultStoreText() string {
	p, err := results.DefaultPath()
	if err != nil {
		return "$XDG_DATA_HOME/pglab/results.db"
	}
	return p
}

// openStore opens the results store --store names, to read: a file that
// is not one is a usage error, a database server that does not answer a
// failure.
func openStore(env *Env, store string) (*results.Store, error) {
	st, err := results.OpenReadOnly(env.Ctx, store)
	if err != nil && !results.IsPostgresDSN(store) {
		return nil, asUsage(err)
	}
	return st, err
}

// runLab runs a comparison with the command's progress display (see
// lab.Run).
func (env *Env) runLab(spec *lab.Spec, kind results.Kind) (*lab.Result, error) {
	opts := lab.Options{
		Kind:     kind,
		Command:  append([]string{"pglab"}, env.Args...),
		Progress: env.progress(),
		Stderr:   env.Stderr,
		Quiet:    env.Quiet,
		Binaries: func(ctx context.Context, v pgserver.VersionSpec) (*pgserver.Binaries, error) {
			return env.resolveBinaries(ctx, v.String(), spec.NoInstall)
		},
	}
	if !env.Quiet && env.ui().tty {
		opts.Setup = func(done, total int, label string) { env.ui().Step("setup", done, total, label) }
		opts.OnRep = env.ui().Step
	}
	res, err := lab.Run(env.Ctx, spec, opts)
	if env.progressUI != nil {
		env.progressUI.Done()
	}
	return res, err
}

// storeLocation says where a run was stored, for the closing line.
func storeLocation(store string) string {
	if store != "" {
		return redact.DSN(store)
	}
	return defaultStoreText()
}

// registerEnvFlags adds --env (repeatable when many) and --env-file.
func registerEnvFlags(fs *pflag.FlagSet, specs, files *[]string, many bool) {
	what := "the environment the managed server runs in"
	if many {
		what = "an environment the managed servers run in (repeatable: one server per version and environment)"
	}
	fs.StringArrayVar(specs, "env", nil, what+": a profile ("+strings.Join(profileNames(), ", ")+", or one of your profiles file) or NAME:key=value,… with keys "+strings.Join(env.Keys(), ", ")+"; e.g. --env t3.micro, --env 'ebs87:read=87MB/s'")
	fs.StringArrayVar(files, "env-file", nil, "a YAML file of environment profiles (NAME: {cpus: 2, memory: 1GiB, …}), added to the built-in ones and to "+env.DefaultFile()+" (repeatable)")
}

func profileNames() []string {
	var out []string
	for _, p := range env.Builtins() {
		out = append(out, p.Name)
	}
	return out
}
