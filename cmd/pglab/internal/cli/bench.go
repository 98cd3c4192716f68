package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
)

func init() { register(10, newBenchCmd) }

// benchProg is the program name in pgbench-style messages.
const benchProg = "pglab"

func newBenchCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "bench [pgbench options] [dbname]",
		Short: "pgbench-compatible load generator: -i init and the run mode, pgbench's flags and summary, plus --json and latency percentiles",
		Long: `pglab bench accepts pgbench's command line (PostgreSQL 17/18) and prints what
pgbench prints, followed by latency percentiles from an HDR histogram.
--json writes one JSON document with every figure instead of the text summary.
--target NAME runs against a managed instance started with 'pglab pg start'
(or --target DSN). Connections honour libpq conventions (PG* variables,
.pgpass, service files, a URL or key=value string as dbname).`,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = takeGlobalFlags(env, args)
			code := runBench(env, args)
			if code != 0 {
				return &ExitError{Code: code, Silent: true}
			}
			return nil
		},
	}
}

// takeGlobalFlags applies pglab's own flags given before "bench" (pglab
// --quiet bench ...), which cobra leaves in the arguments of a command that
// parses its own, and returns the rest: pgbench's command line.
func takeGlobalFlags(env *Env, args []string) []string {
	n := 0
	for _, a := range env.Args {
		if a == "bench" {
			break
		}
		n++
	}
	if n > len(args) {
		return args
	}
	for i := 0; i < n; i++ {
		switch a := args[i]; {
		case a == "--quiet":
			env.Quiet = true
		case a == "--pg-bin" && i+1 < n:
			i++
			env.PgBin = args[i]
		case strings.HasPrefix(a, "--pg-bin="):
			env.PgBin = strings.TrimPrefix(a, "--pg-bin=")
		}
	}
	return args[n:]
}

// benchFlags are pglab's additions to pgbench's command line.
type benchFlags struct {
	json, force bool
	target      string
	env         string // --env SPEC: the network to the server (rtt)
}

// extra returns the additions as options of the command-line parser.
func (f *benchFlags) extra() []bench.ExtraOption {
	return []bench.ExtraOption{
		{Long: "json", Set: func(string) error { f.json = true; return nil }},
		{Long: "target", Arg: true, Set: func(v string) error { f.target = v; return nil }},
		{Long: "force", Set: func(string) error { f.force = true; return nil }},
		{Long: "env", Arg: true, Set: func(v string) error { f.env = v; return nil }},
	}
}

// benchRun is the state of one pglab bench invocation.
type benchRun struct {
	env    *Env
	stderr io.Writer
	flags  benchFlags
	coord  coordFlags
	// args is pgbench's command line (for --k8s-job's coordinator)
	args []string
}

func (b *benchRun) errorf(format string, args ...any) int {
	fmt.Fprintf(b.stderr, "%s: error: %s\n", benchProg, fmt.Sprintf(format, args...))
	return 1
}

// runBench is pgbench's main(): it returns the exit code after printing
// what pgbench prints.
func runBench(env *Env, args []string) int {
	b := &benchRun{env: env, stderr: env.Stderr, args: args}
	cl, err := bench.ParseCommandLine(args, bench.ParseEnv{
		Stdin: env.Stdin, Stderr: env.Stderr, Extra: append(b.flags.extra(), b.coord.coordOptions()...),
		ResolveTarget: func(dbname string) (string, string, error) {
			if b.flags.target == "" {
				return "", dbname, nil
			}
			return resolveTarget(b.flags.target, dbname)
		},
	})
	if err != nil {
		var ue *bench.UsageError
		if errors.As(err, &ue) {
			io.WriteString(env.Stderr, ue.Text)
			return 1
		}
		return b.errorf("%s", err)
	}
	switch cl.Action {
	case bench.ActionHelp:
		io.WriteString(env.Stdout, benchUsage)
		return 0
	case bench.ActionVersion:
		fmt.Fprintf(env.Stdout, "pgbench (PostgreSQL) 17 (pglab bench %s)\n", buildinfo.Version)
		return 0
	case bench.ActionDone:
		return 0
	}
	stop, err := b.benchEnv(&cl.Config)
	if err != nil {
		return b.errorf("%s", err)
	}
	defer stop()
	if cl.Action == bench.ActionInit {
		return b.initTables(cl)
	}
	if err := b.coord.check(); err != nil {
		return b.errorf("%s", err)
	}
	cfg := cl.Config
	cfg.Stderr, cfg.Stdout = env.Stderr, env.Stdout
	if b.flags.json {
		cfg.Quiet = true
	}
	switch {
	case b.coord.k8sJob != "":
		return b.printManifests(cfg)
	case b.coord.listen != "":
		return b.coordinate(cfg)
	}
	res, err := bench.Run(env.Ctx, cfg)
	return b.finish(res, err)
}

// initTables is -i: pgbench's initialization steps, refusing to drop
// pgbench_* tables that pgbench did not create unless --force.
func (b *benchRun) initTables(cl *bench.CommandLine) int {
	cfg, env := &cl.Config, b.env
	pgcfg, err := bench.ConnConfig(cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName)
	if err != nil {
		return b.errorf("%s", err)
	}
	steps := cl.Init.Steps
	if steps == "" {
		steps = initdata.DefaultSteps
	}
	if strings.Contains(steps, "d") && !b.flags.force {
		if foreign := foreignPgbenchTables(env.Ctx, pgcfg); len(foreign) > 0 {
			return b.errorf("not dropping %s: pgbench did not create it (its columns differ); use --force to drop it anyway", strings.Join(foreign, ", "))
		}
	}
	if _, err := initdata.Run(env.Ctx, pgcfg, cl.Init, b.stderr); err != nil {
		return b.initError(err)
	}
	return 0
}

// finish prints a run's outcome as pgbench does and returns the exit code:
// 1 for setup errors and interruptions, 2 for aborted runs.
func (b *benchRun) finish(res *bench.Result, err error) int {
	env := b.env
	if err != nil {
		var ae *bench.AbortError
		var se *bench.SetupError
		switch {
		case errors.As(err, &ae):
			b.errorf("%s", ae)
			return 2
		case errors.As(err, &se):
			return b.errorf("%s", se.Msg)
		case env.Ctx.Err() != nil:
			// Interrupted: show what ran until then (Main adds the signal).
			if res != nil && !b.flags.json {
				res.WriteSummary(env.Stdout)
				res.WritePercentiles(env.Stdout)
			} else if res != nil {
				res.WriteJSON(env.Stdout)
			}
			return 1
		default:
			return b.errorf("%s", err)
		}
	}
	if b.flags.json {
		if err := res.WriteJSON(env.Stdout); err != nil {
			return b.errorf("%s", err)
		}
	} else {
		res.WriteSummary(env.Stdout)
		res.WritePercentiles(env.Stdout)
	}
	if res.Aborted {
		b.errorf("Run was aborted; the above results are incomplete.")
		return 2
	}
	return 0
}

// resolveTarget resolves --target: a managed instance's name, or a DSN.
// It returns the connection string and the database name to use.
func resolveTarget(target, dbname string) (string, string, error) {
	t, err := pgserver.OpenTarget(target)
	switch {
	case err != nil:
		return "", "", err
	case !t.Named():
		return t.DSN, dbname, nil
	case dbname != "":
		return t.Instance.DSNFor(dbname), "", nil
	}
	return t.Instance.DSN(), "", nil
}

func (b *benchRun) initError(err error) int {
	var ie *initdata.Error
	if errors.As(err, &ie) {
		io.WriteString(b.stderr, ie.Format(benchProg))
		return 1
	}
	return b.errorf("%s", err)
}

const benchUsage = `pglab bench is a pgbench-compatible benchmarking tool for PostgreSQL.

Usage:
  pglab bench [OPTION]... [DBNAME]

Initialization options:
  -i, --initialize         invokes initialization mode
  -I, --init-steps=[dtgGvpf]+ (default "dtgvp")
                           run selected initialization steps
  -F, --fillfactor=NUM     set fill factor
  -n, --no-vacuum          do not run VACUUM during initialization
  -q, --quiet              quiet logging (one message each 5 seconds)
  -s, --scale=NUM          scaling factor
  --foreign-keys           create foreign key constraints between tables
  --index-tablespace=TABLESPACE
                           create indexes in the specified tablespace
  --partition-method=(range|hash)
                           partition pgbench_accounts with this method (default: range)
  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)
  --tablespace=TABLESPACE  create tables in the specified tablespace
  --unlogged-tables        create tables as unlogged tables

Options to select what to run:
  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)
                           (use "-b list" to list available scripts)
  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)
  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches
                           (same as "-b simple-update")
  -S, --select-only        perform SELECT-only transactions
                           (same as "-b select-only")

Benchmarking options:
  -c, --client=NUM         number of concurrent database clients (default: 1)
  -C, --connect            establish new connection for each transaction
  -D, --define=VARNAME=VALUE
                           define variable for use by custom script
  -j, --jobs=NUM           number of threads (default: 1)
  -l, --log                write transaction times to log file
  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late
  -M, --protocol=simple|extended|prepared
                           protocol for submitting queries (default: simple)
  -n, --no-vacuum          do not run VACUUM before tests
  -P, --progress=NUM       show thread progress report every NUM seconds
  -r, --report-per-command report latencies, failures, and retries per command
  -R, --rate=NUM           target rate in transactions per second
  -s, --scale=NUM          report this scale factor in output
  -t, --transactions=NUM   number of transactions each client runs (default: 10)
  -T, --time=NUM           duration of benchmark test in seconds
  -v, --vacuum-all         vacuum all four standard tables before tests
  --aggregate-interval=NUM aggregate data over NUM seconds
  --exit-on-abort          exit when any client is aborted
  --failures-detailed      report the failures grouped by basic types
  --log-prefix=PREFIX      prefix for transaction time log file
                           (default: "pgbench_log")
  --max-tries=NUM          max number of tries to run transaction (default: 1)
  --progress-timestamp     use Unix epoch timestamps for progress
  --random-seed=SEED       set random seed ("time", "rand", integer)
  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%)
  --show-script=NAME       show builtin script code, then exit
  --verbose-errors         print messages of all errors

Common options:
  --debug                  print debugging output
  -d, --dbname=DBNAME      database name to connect to
  -h, --host=HOSTNAME      database server host or socket directory
  -p, --port=PORT          database server port number
  -U, --username=USERNAME  connect as specified database user
  -V, --version            output version information, then exit
  -?, --help               show this help, then exit

pglab additions:
  --json                   write one JSON document with every figure instead of the summary
  --target=NAME|DSN        run against a managed instance from 'pglab pg start', or a DSN
  --force                  with -i: drop tables named pgbench_* even when their columns
                           are not pgbench's (without it, -i refuses to drop them)
  --env=NAME:rtt=D         put a delay proxy adding the round trip D (e.g. 0.5ms) between
                           the clients and the server, as from another host; the round
                           trip achieved is measured first and printed

Load from several machines (see 'pglab worker --help'):
  --listen=HOST:PORT       coordinate the run: wait for the workers, share the clients,
                           threads and -R among them, merge their figures
  --expect-workers=N       number of workers (pglab worker --join HOST:PORT)
  --token=T                the workers' secret (default $PGLAB_TOKEN; required unless
                           --listen is a loopback address)
  --join-timeout=SEC       wait at most SEC for the workers to join (default 300)
  --ready-timeout=SEC      wait at most SEC for their clients to connect (default 120)
  --store=PATH|DSN         the results store of the coordinated run
  --k8s-job=NAME           print the Kubernetes manifests of such a run instead
                           (with --expect-workers, --image=IMAGE, --k8s-namespace=NS,
                           --k8s-secret=NAME)

After pgbench's summary, pglab prints latency percentiles (p50, p90, p99, p99.9,
max) of successful transactions from an HDR histogram. Plain TCP and Unix-socket
connections run on the fast path (raw sockets, one epoll loop per -j thread);
TLS connections run on a slower fallback path (a goroutine per client).
`
