package cli

import (
	"errors"
	"fmt"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/detect"
	"github.com/spf13/cobra"
)

func init() { register(60, newTuneCmd) }

// tuneOptions are the flags of pglab tune, as typed.
type tuneOptions struct {
	tune.Flags
	format string
	target string
	conn   pgserver.ConnParts
	diff   bool
	apply  bool
	revert bool
	yes    bool
}

// inputFlags are the flags that give PGTune's inputs.
var inputFlags = []string{"versions", "os", "type", "memory", "cpus", "connections", "storage", "db-size", "data-dir"}

func newTuneCmd(env *Env) *cobra.Command {
	var o tuneOptions
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "PGTune's recommended settings for a machine and workload; compare, apply and revert them on a server",
		Long: `Print the settings PGTune (` + tune.Upstream + `) recommends for a PostgreSQL
version, OS, workload, memory, CPUs, connections, storage and database size, in
PGTune's postgresql.conf style (--format conf), its ALTER SYSTEM style (alter) or
as a JSON document (json).

Memory, CPUs and storage not given are measured on this machine: memory from
/proc/meminfo, CPUs from the CPU affinity mask, storage from
/sys/block/<dev>/queue/rotational of the disk holding --data-dir; the header says
which were. Connections not given take PGTune's default for the type (web 200,
oltp 300, dw 40, desktop 20, mixed 100).

With --target (the name of an instance from 'pglab pg start', or a DSN: postgres://…
or key=value, PG* environment variables and ~/.pgpass apply; psql's -h, -p, -U and -d
override its parts, or alone connect as psql would), the version and
max_connections not given are read from the server, and, when the server runs on
this machine (a managed instance, or host localhost, 127.0.0.1, ::1 or a socket
directory), memory, CPUs and the storage of its data directory are measured here.
A server elsewhere needs --memory.

  --diff    shows the server's value of each parameter next to the recommended
            one (compared in the parameter's unit: 128MB is 16384 pages of 8kB),
            which differ, and which need a restart (pg_settings.context postmaster).
  --apply   sets each differing parameter with ALTER SYSTEM, reloads, restarts a
            managed instance when a parameter needs it (on another server those
            are left pending restart and listed), and checks that every value
            took; exit 1 when one did not. Values the server cannot take (e.g.
            wal_compression = lz4 on a build without lz4) are skipped and listed.
            A server pglab does not manage needs --yes.
  --revert  undoes what --apply did: each parameter pglab set gets back the value
            postgresql.auto.conf had (ALTER SYSTEM SET), or is removed from it
            (ALTER SYSTEM RESET); one changed by someone else since is left alone.

What --apply changed is recorded before the first change, without any password:
for a managed instance in tune-applied.json in its directory, for another server
in the server itself, as the custom parameter pglab.tune_applied in its
postgresql.auto.conf. ALTER SYSTEM needs a superuser (or, on 15+, ALTER SYSTEM
privileges on the parameters, pg_reload_conf and pg_read_all_settings); with
allow_alter_system = off (17+) --apply and --revert refuse.`,
		Example: `  pglab tune --versions 11 --type web --memory 1GB --cpus 1 --connections 100 --storage ssd
  pglab tune --type oltp --format alter
  pglab tune --memory 64GB --cpus 16 --type dw --storage nvme --db-size greater_ram --format json
  pglab tune --target pg17 --diff
  pglab tune --target pg17 --type oltp --apply
  pglab tune --target pg17 --revert
  pglab tune --target postgres://me@db.example.com/app --memory 16GB --cpus 4 --apply --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTune(env, cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Version, "versions", "", fmt.Sprintf("PostgreSQL major `version`, %d to %d (default: the --target's, else %d)", tune.MinVersion, tune.MaxVersion, tune.DefaultVersion))
	fl.StringVar(&o.OS, "os", string(tune.OSLinux), "operating `system`: linux, windows or mac")
	fl.StringVar(&o.Workload, "type", string(tune.WorkloadWeb), "`workload`: web, oltp, dw (data warehouse), desktop or mixed")
	fl.StringVar(&o.Memory, "memory", "", "total `memory`, a whole number of MB, GB or TB, e.g. 4GB (default: this machine's)")
	fl.StringVar(&o.CPUs, "cpus", "", "`number` of CPUs (default: this machine's)")
	fl.StringVar(&o.Connections, "connections", "", "max_connections, `number` from 20 (default: the --target's, else PGTune's default for the type)")
	fl.StringVar(&o.Storage, "storage", "", "`kind` of data storage: ssd, hdd, san or nvme (default: detected from the disk of --data-dir)")
	fl.StringVar(&o.DBSize, "db-size", string(tune.DBSizeUpTo3xRAM), "database `size` relative to RAM: less_ram, mid_ram (1x-3x RAM) or greater_ram (over 3x RAM)")
	fl.StringVar(&o.format, "format", string(tune.FormatConf), "output `format`: conf, alter or json")
	fl.StringVar(&o.DataDir, "data-dir", "", "`directory` whose disk decides --storage when it is not given (default: the --target's data directory, else $PGDATA, else the current directory)")
	fl.StringVar(&o.target, "target", "", "`server` to read inputs from and to compare, apply or revert on: an instance NAME from 'pglab pg start' or a DSN")
	fl.BoolVar(&o.diff, "diff", false, "show the --target's values next to the recommended ones")
	fl.BoolVar(&o.apply, "apply", false, "apply the recommendations to the --target with ALTER SYSTEM, reload or restart, verify")
	fl.BoolVar(&o.revert, "revert", false, "undo what --apply changed on the --target")
	fl.BoolVar(&o.yes, "yes", false, "allow --apply and --revert on a server pglab does not manage")
	alias(fl, "pg-version", "versions")
	registerConnFlags(cmd, &o.conn)
	return cmd
}

func runTune(env *Env, cmd *cobra.Command, o tuneOptions) error {
	format, err := tune.ParseFormat(o.format)
	if err != nil {
		return flagError(err)
	}
	given := func(name string) bool { return flagGiven(cmd.Flags(), name) }
	live := o.diff || o.apply || o.revert
	hasTarget := given("target") || !o.conn.Empty()
	switch {
	case live && !hasTarget:
		return badInput("--%s needs --target: the name of an instance from 'pglab pg start' or a DSN", liveFlag(o))
	case o.revert && (o.apply || o.diff):
		return badInput("--revert cannot be combined with --apply or --diff")
	case live && format == tune.FormatAlter:
		return badInput("--format alter does not go with --%s: it prints a table (the default) or json", liveFlag(o))
	case o.yes && !o.apply && !o.revert:
		return badInput("--yes only goes with --apply or --revert")
	}
	if o.revert {
		for _, f := range inputFlags {
			if given(f) {
				return badInput("--revert undoes what pglab applied and takes no tuning inputs (--%s)", f)
			}
		}
	}
	var tt *tuneTarget
	if hasTarget {
		srv, err := openTuneTarget(o.target, o.conn)
		if err != nil {
			return err
		}
		if (o.apply || o.revert) && !srv.Managed && !o.yes {
			return badInput("--%s on %s, a server pglab does not manage, changes its configuration: add --yes to go ahead", liveFlag(o), srv.Label)
		}
		srv.Progress = env.progress()
		if o.revert {
			return runTuneRevert(env, srv, format)
		}
		facts, err := srv.Facts(env.Ctx)
		if err != nil {
			return errors.New(redact.Text(err.Error()))
		}
		tt = &tuneTarget{srv: srv, facts: facts}
	}
	in, detected, err := o.inputs(env, cmd, tt)
	if err != nil {
		return err
	}
	if live {
		if major := tt.facts.VersionNum / 10000; given("versions") && in.Version != major {
			return badInput("--versions %d: %s runs PostgreSQL %d; leave --versions out with --%s", in.Version, tt.srv.Label, major, liveFlag(o))
		}
	}
	rec, err := tune.Recommend(in)
	if err != nil {
		return flagError(err)
	}
	switch {
	case o.apply:
		return runTuneApply(env, tt, rec, format, detected)
	case o.diff:
		return runTuneDiff(env, tt, rec, format, detected)
	}
	return tune.Write(env.Stdout, rec, format, detected)
}

// liveFlag names the flag that asks for a live server.
func liveFlag(o tuneOptions) string {
	switch {
	case o.revert:
		return "revert"
	case o.apply:
		return "apply"
	}
	return "diff"
}

// inputs turns the flags into PGTune's inputs (tune.Resolve: what was not
// given is read from the target server, or measured here), prints the
// warnings about inputs left at PGTune's defaults, and checks them against
// PGTune's limits.
func (o tuneOptions) inputs(env *Env, cmd *cobra.Command, tt *tuneTarget) (tune.Inputs, []tune.Detection, error) {
	given, err := tune.ParseGiven(o.Flags, func(name string) bool { return flagGiven(cmd.Flags(), name) })
	if err != nil {
		return tune.Inputs{}, nil, flagError(err)
	}
	var server *tune.Server
	if tt != nil {
		f := tt.facts
		server = &tune.Server{Label: tt.srv.Label, Version: f.Version, VersionNum: f.VersionNum, MaxConnections: f.MaxConnections, DataDirectory: f.DataDirectory, Local: tt.srv.Local}
	}
	r, err := tune.Resolve(given, server, detect.Host{})
	if err != nil {
		return r.Inputs, nil, flagError(err)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(env.Stderr, "pglab: tune: %s\n", w)
	}
	return r.Inputs, r.Detected, nil
}

// flagError turns an input error into a one-line bad-input error naming the
// flag ("--memory 12XB: unknown unit XB; ..."); other errors pass through.
func flagError(err error) error {
	var ie *tune.InputError
	if errors.As(err, &ie) {
		return badInput("--%s", ie.Error())
	}
	return err
}
