package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/spf13/pflag"
)

// targetFlags are the flags that choose servers and how to treat them,
// shared by study, compare and plan; fill turns them into a lab.Spec.
type targetFlags struct {
	versions  string
	targets   []string
	sets      []string
	checksums string
	store     string
	noInstall bool
	force     bool
	// workers run the pgbench workloads (tps, tune) from several
	// machines: a coordinator on listen for that many pglab workers.
	workers       int
	listen, token string
	// envs are the --env SPECs, resolved against the built-in profiles,
	// the user's profiles file and the --env-file files.
	envs       []string
	envFiles   []string
	unenforced bool
	// cacheLimit is --cache-limit: the dataset cache's size limit.
	cacheLimit string
}

func (f *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.versions, "versions", "", "PostgreSQL versions to start as managed servers, e.g. 16,17 (installed when missing)")
	fs.StringArrayVar(&f.targets, "target", nil, "a server to use: NAME=DSN (yours), or the NAME of an instance from 'pglab pg start' (repeatable)")
	fs.StringArrayVar(&f.sets, "set", nil, "server setting name=value for managed servers (repeatable)")
	fs.StringVar(&f.checksums, "checksums", "off", "data checksums of managed servers: on or off (the same for every version)")
	fs.StringVar(&f.store, "store", "", "results store: an SQLite file path or a postgres:// DSN (default "+defaultStoreText()+")")
	fs.BoolVar(&f.noInstall, "no-install", false, "fail instead of installing missing PostgreSQL versions")
	fs.BoolVar(&f.force, "force", false, "use a schema named pglab on a user's server even if pglab did not create it")
	registerEnvFlags(fs, &f.envs, &f.envFiles, true)
	fs.BoolVar(&f.unenforced, "env-unenforced", false, "run even when no limit of an --env profile can be enforced on this machine (no cgroup access): the servers then run without them, and the report says so")
	fs.StringVar(&f.cacheLimit, "cache-limit", "", "size limit of the dataset cache kept between runs, e.g. 40GB (least recently used datasets are removed beyond it); 0 builds every dataset in place without the cache (default $"+dataset.LimitEnv+" or 40GB)")
	fs.IntVar(&f.workers, "workers", 0, "run the pgbench workloads (tps, tune) on N pglab workers (pglab worker --join, see pglab bench --listen)")
	fs.StringVar(&f.listen, "listen", "", "with --workers: the coordinator's address, host:port")
	fs.StringVar(&f.token, "token", "", "with --workers: the workers' secret (default $PGLAB_TOKEN; required unless --listen is a loopback address)")
}

func defaultStoreText() string {
	p, err := results.DefaultPath()
	if err != nil {
		return "$XDG_DATA_HOME/pglab/results.db"
	}
	return p
}

// fill parses the target flags into spec, without touching any server or
// file.
func (f *targetFlags) fill(spec *lab.Spec) error {
	var err error
	switch {
	case f.workers < 0:
		return badInput("--workers must be 1 or more: got %d", f.workers)
	case f.workers > 0 && f.listen == "":
		return badInput("--workers needs --listen HOST:PORT (where the workers join)")
	case f.workers == 0 && (f.listen != "" || f.token != ""):
		return badInput("--listen and --token belong to --workers N")
	}
	spec.Workers = lab.Workers{N: f.workers, Listen: f.listen, Token: f.token}
	if spec.Workers.Token == "" {
		spec.Workers.Token = os.Getenv("PGLAB_TOKEN")
	}
	if spec.Settings, err = pgserver.ParseSettings(f.sets); err != nil {
		return badInput("%v", err)
	}
	if spec.Checksums, err = parseChecksums(f.checksums); err != nil {
		return err
	}
	spec.Store, spec.NoInstall, spec.Force, spec.Unenforced = f.store, f.noInstall, f.force, f.unenforced
	if f.cacheLimit != "" {
		n, err := dataset.ParseSize(f.cacheLimit)
		if err != nil {
			return badInput("--cache-limit: %v", err)
		}
		spec.CacheLimit = n
		if n == 0 {
			spec.CacheLimit = -1
		}
	}
	if spec.Envs, err = lab.ResolveEnvs(f.envs, f.envFiles); err != nil {
		return err
	}
	if f.versions != "" {
		for _, v := range strings.Split(f.versions, ",") {
			vs, err := pgserver.ParseVersionSpec(v)
			if err != nil {
				return badInput("--versions: %v", err)
			}
			spec.Versions = append(spec.Versions, vs)
		}
	}
	for _, text := range f.targets {
		t, err := pgserver.ParseTarget(text)
		if err != nil {
			return err
		}
		if t.Label == "" {
			return badInput("--target %s: name the server, NAME=DSN (the report's column)", results.RedactDSN(text))
		}
		spec.Servers = append(spec.Servers, lab.Server{Name: t.Label, DSN: t.DSN})
	}
	return nil
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
		return results.RedactDSN(store)
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

// writeEnvLines prints a target's environment under its line: the
// profile, then each limit and whether it holds.
func writeEnvLines(w io.Writer, t results.Target) {
	r, ok := env.RecordOf(t.Extra)
	if !ok {
		return
	}
	for i, l := range r.Lines() {
		fmt.Fprintf(w, "%s%s\n", strings.Repeat("  ", 2+min(i, 1)), l)
	}
}
