package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/internal/pgnet"
	"github.com/pglab/pglab/lab"
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
			args = takeGlobalFlags(env, args, "bench")
			code := runBench(env, args)
			if code != 0 {
				return &ExitError{Code: code, Silent: true}
			}
			return nil
		},
	}
}

// takeGlobalFlags applies pglab's own flags given before the command's
// word (pglab --quiet bench ...), which cobra leaves in the arguments of a
// command that parses its own, and returns the rest: pgbench's (or
// pg_dump's) command line.
func takeGlobalFlags(env *Env, args []string, word string) []string {
	n := 0
	for _, a := range env.Args {
		if a == word {
			break
		}
		if a != "pg" {
			n++
		}
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
	// server names the server for a lost connection's message: the
	// instance of --target and its address, or the address (that of the
	// server, not of a delay proxy --env puts in front of it)
	server string
}

func (b *benchRun) errorf(format string, args ...any) int {
	fmt.Fprintf(b.stderr, "%s: error: %s\n", benchProg, fmt.Sprintf(format, args...))
	return exitFailure
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
			t, err := openTarget(b.flags.target)
			if err != nil {
				return "", "", err
			}
			connString, rest := t.Conn(dbname)
			return connString, rest, nil
		},
	})
	if err != nil {
		var ue *bench.UsageError
		if errors.As(err, &ue) {
			io.WriteString(env.Stderr, ue.Text)
			return exitFailure
		}
		return b.errorf("%s", err)
	}
	switch cl.Action {
	case bench.ActionHelp:
		io.WriteString(env.Stdout, bench.Usage)
		return exitOK
	case bench.ActionVersion:
		fmt.Fprintf(env.Stdout, "pgbench (PostgreSQL) 17 (pglab bench %s)\n", buildinfo.Version)
		return exitOK
	case bench.ActionDone:
		return exitOK
	}
	b.server = b.serverName(&cl.Config)
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
	started := time.Now()
	res, err := bench.Run(env.Ctx, cfg)
	if b.coord.store != "" {
		if serr := b.store(lab.BenchRun{Started: started, Config: cfg, Result: res, Err: err}); serr != nil {
			b.errorf("%s", serr)
		}
	}
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
		if foreign := initdata.ForeignTables(env.Ctx, pgcfg); len(foreign) > 0 {
			return b.errorf("not dropping %s: pgbench did not create it (its columns differ); use --force to drop it anyway", strings.Join(foreign, ", "))
		}
	}
	if _, err := initdata.Run(env.Ctx, pgcfg, cl.Init, b.stderr); err != nil {
		return b.initError(err)
	}
	return exitOK
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
			b.lostLine("the run", ae.Lost)
			return exitAborted
		case errors.As(err, &se):
			b.errorf("%s", se.Msg)
			b.lostLine("the run's setup", se.Err)
			return exitFailure
		case env.Ctx.Err() != nil:
			// Interrupted: show what ran until then (Main adds the signal).
			if res != nil && !b.flags.json {
				res.WriteSummary(env.Stdout)
				res.WritePercentiles(env.Stdout)
			} else if res != nil {
				res.WriteJSON(env.Stdout)
			}
			return exitFailure
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
		b.lostLine(fmt.Sprintf("the run (%d of %d clients aborted)", res.LostClients, res.Clients), res.Lost)
		return exitAborted
	}
	return exitOK
}

// serverName names the server of cfg for lost-connection messages: the
// instance --target names (or the NAME of NAME=DSN), with its address, or
// the address.
func (b *benchRun) serverName(cfg *bench.Config) string {
	pc, err := bench.ConnConfig(cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName)
	if err != nil {
		return ""
	}
	var name string
	if b.flags.target != "" {
		t, _ := pgserver.ParseTarget(b.flags.target)
		name = t.Label
	}
	return pgnet.ConfigServerName(name, pc)
}

// lostLine prints, when err means that the connection to the server was
// lost, a last line naming the server, the phase and how it was lost. An
// interrupted run lost nothing: its connections were closed on purpose.
func (b *benchRun) lostLine(phase string, err error) {
	if b.env.Ctx.Err() != nil {
		return
	}
	var le *pgnet.LostError
	if errors.As(pgnet.AsLost(b.server, phase, err), &le) {
		b.errorf("%s", le)
	}
}

// openTarget opens --target TEXT (pgserver.OpenTarget): a text that does
// not parse is a usage error.
func openTarget(text string) (pgserver.Target, error) {
	if _, err := pgserver.ParseTarget(text); err != nil {
		return pgserver.Target{}, asUsage(err)
	}
	return pgserver.OpenTarget(text)
}

// connTarget opens --target TEXT with psql's -h, -p, -U and -d put in
// place of the parts of its DSN; with no TEXT, they connect as psql would
// (the PG* variables fill in the rest). A named instance takes none.
func connTarget(text string, conn pgserver.ConnParts) (pgserver.Target, error) {
	if conn.Empty() {
		return openTarget(text)
	}
	t, err := pgserver.ParseConnTarget(text, conn)
	return t, asUsage(err)
}

// initError prints a failed -i as pgbench does, then the lost server, if
// that is why it failed.
func (b *benchRun) initError(err error) int {
	var ie *initdata.Error
	switch {
	case !errors.As(err, &ie) && b.env.Ctx.Err() != nil:
		return exitFailure // interrupted between statements: Main says by what
	case ie == nil:
		return b.errorf("%s", err)
	}
	io.WriteString(b.stderr, ie.Format(benchProg))
	if ie.Step != "" {
		b.lostLine(ie.Phase(), ie.Err)
	}
	return exitFailure
}
