package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/bench/script"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
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

// optSpec is one option of pgbench's getopt_long table (plus pglab's).
type optSpec struct {
	long  string
	short byte
	arg   bool
	id    string // key used by the option loop
}

var benchOpts = []optSpec{
	{"builtin", 'b', true, "b"}, {"client", 'c', true, "c"}, {"connect", 'C', false, "C"},
	{"dbname", 'd', true, "d"}, {"define", 'D', true, "D"}, {"file", 'f', true, "f"},
	{"fillfactor", 'F', true, "F"}, {"host", 'h', true, "h"}, {"initialize", 'i', false, "i"},
	{"init-steps", 'I', true, "I"}, {"jobs", 'j', true, "j"}, {"log", 'l', false, "l"},
	{"latency-limit", 'L', true, "L"}, {"no-vacuum", 'n', false, "n"}, {"port", 'p', true, "p"},
	{"progress", 'P', true, "P"}, {"protocol", 'M', true, "M"}, {"quiet", 'q', false, "q"},
	{"report-per-command", 'r', false, "r"}, {"rate", 'R', true, "R"}, {"scale", 's', true, "s"},
	{"select-only", 'S', false, "S"}, {"skip-some-updates", 'N', false, "N"}, {"time", 'T', true, "T"},
	{"transactions", 't', true, "t"}, {"username", 'U', true, "U"}, {"vacuum-all", 'v', false, "v"},
	{"unlogged-tables", 0, false, "unlogged-tables"}, {"tablespace", 0, true, "tablespace"},
	{"index-tablespace", 0, true, "index-tablespace"}, {"sampling-rate", 0, true, "sampling-rate"},
	{"aggregate-interval", 0, true, "aggregate-interval"}, {"progress-timestamp", 0, false, "progress-timestamp"},
	{"log-prefix", 0, true, "log-prefix"}, {"foreign-keys", 0, false, "foreign-keys"},
	{"random-seed", 0, true, "random-seed"}, {"show-script", 0, true, "show-script"},
	{"partitions", 0, true, "partitions"}, {"partition-method", 0, true, "partition-method"},
	{"failures-detailed", 0, false, "failures-detailed"}, {"max-tries", 0, true, "max-tries"},
	{"verbose-errors", 0, false, "verbose-errors"}, {"exit-on-abort", 0, false, "exit-on-abort"},
	{"debug", 0, false, "debug"},
	// pglab's own
	{"json", 0, false, "json"}, {"target", 0, true, "target"}, {"force", 0, false, "force"},
}

// parsedOpt is one option occurrence in command-line order.
type parsedOpt struct {
	id, arg string
}

// optError is a getopt_long complaint (printed with the program name, then
// pgbench's hint).
type optError struct{ msg string }

func (e *optError) Error() string { return e.msg }

// getoptLong parses args as glibc's getopt_long with pgbench's option table:
// bundled short options ("-nS", "-c4"), "--opt=value" and "--opt value",
// unambiguous prefixes of long options, non-options anywhere (permuted to
// the end), and "--" ending the options.
func getoptLong(args []string) ([]parsedOpt, []string, error) {
	var opts []parsedOpt
	var rest []string
	short := map[byte]optSpec{}
	for _, o := range benchOpts {
		if o.short != 0 {
			short[o.short] = o
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			return opts, rest, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			var match []optSpec
			for _, o := range benchOpts {
				if o.long == name {
					match = []optSpec{o}
					break
				}
				if strings.HasPrefix(o.long, name) {
					match = append(match, o)
				}
			}
			if len(match) == 0 {
				return nil, nil, &optError{fmt.Sprintf("unrecognized option '--%s'", name)}
			}
			if len(match) > 1 {
				var names []string
				for _, m := range match {
					names = append(names, "'--"+m.long+"'")
				}
				return nil, nil, &optError{fmt.Sprintf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(names, " "))}
			}
			o := match[0]
			if !o.arg {
				if hasVal {
					return nil, nil, &optError{fmt.Sprintf("option '--%s' doesn't allow an argument", o.long)}
				}
				opts = append(opts, parsedOpt{id: o.id})
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, &optError{fmt.Sprintf("option '--%s' requires an argument", o.long)}
				}
				i++
				val = args[i]
			}
			opts = append(opts, parsedOpt{id: o.id, arg: val})
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o, ok := short[a[j]]
				if !ok {
					return nil, nil, &optError{fmt.Sprintf("invalid option -- '%c'", a[j])}
				}
				if !o.arg {
					opts = append(opts, parsedOpt{id: o.id})
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, nil, &optError{fmt.Sprintf("option requires an argument -- '%c'", a[j])}
					}
					i++
					val = args[i]
				}
				opts = append(opts, parsedOpt{id: o.id, arg: val})
				break
			}
		default:
			rest = append(rest, a)
		}
	}
	return opts, rest, nil
}

// cAtof is C's atof: the longest prefix that is a number, 0 if none.
func cAtof(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	best := 0.0
	for i := len(s); i > 0; i-- {
		if v, err := strconv.ParseFloat(s[:i], 64); err == nil {
			return v
		} else if ne, ok := err.(*strconv.NumError); ok && errors.Is(ne.Err, strconv.ErrRange) {
			return v
		}
	}
	return best
}

// cAtoi is C's atoi (strtol truncated to int).
func cAtoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	v, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		if strings.HasPrefix(s, "-") && i > 1 {
			return int64(int32(math.MinInt64 & 0xffffffff))
		}
		if i > 0 && s[:i] != "-" && s[:i] != "+" {
			return -1
		}
		return 0
	}
	return int64(int32(v))
}

// benchRun is the state of one pglab bench invocation.
type benchRun struct {
	env    *Env
	stderr io.Writer
}

func (b *benchRun) errorf(format string, args ...any) int {
	fmt.Fprintf(b.stderr, "%s: error: %s\n", benchProg, fmt.Sprintf(format, args...))
	return 1
}

func (b *benchRun) hintHelp() {
	fmt.Fprintf(b.stderr, "%s: hint: Try \"pglab bench --help\" for more information.\n", benchProg)
}

// runBench is pgbench's main(): it returns the exit code after printing
// what pgbench prints.
func runBench(env *Env, args []string) int {
	b := &benchRun{env: env, stderr: env.Stderr}
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			io.WriteString(env.Stdout, benchUsage)
			return 0
		case "--version", "-V":
			fmt.Fprintf(env.Stdout, "pgbench (PostgreSQL) 17 (pglab bench %s)\n", buildinfo.Version)
			return 0
		}
	}
	cfg := bench.DefaultConfig()
	cfg.Scripts = nil
	cfg.Transactions = 0
	cfg.Stderr = env.Stderr
	cfg.Stdout = env.Stdout
	var (
		initMode, benchOpt, initOpt, noVacuum, jsonOut bool
		force                                          bool
		initOpts                                       initdata.Options
		target, dbname                                 string
		durationS, nxacts                              int
		seedSet                                        bool
		err                                            error
	)
	if s := os.Getenv("PGBENCH_RANDOM_SEED"); s != "" {
		seed, err := script.ParseRandomSeed(s)
		if err != nil {
			b.printSeedError(err)
			return b.errorf("error while setting random seed from PGBENCH_RANDOM_SEED environment variable")
		}
		cfg.RandomSeed, cfg.SeedGiven, seedSet = seed, true, true
		fmt.Fprintf(b.stderr, "%s: setting random seed to %d\n", benchProg, seed)
	}
	opts, rest, gerr := getoptLong(args)
	if gerr != nil {
		fmt.Fprintf(b.stderr, "pglab bench: %s\n", gerr)
		b.hintHelp()
		return 1
	}
	intOpt := func(val, name string, lo, hi int) (int, bool) {
		v, err := initdata.ParseInt(val, name, lo, hi)
		if err != nil {
			b.errorf("%s", err)
			return 0, false
		}
		return v, true
	}
	addScript := func(spec bench.ScriptSpec) int {
		if _, err := script.Parse(spec.Desc, spec.Text, nil); err != nil {
			return b.scriptError(err)
		}
		if len(cfg.Scripts) >= script.MaxScripts {
			return b.errorf("at most %d SQL scripts are allowed", script.MaxScripts)
		}
		cfg.Scripts = append(cfg.Scripts, spec)
		return 0
	}
	builtin := func(name string, weight int) int {
		bi, err := script.FindBuiltin(name)
		if err != nil {
			b.errorf("%s", err)
			io.WriteString(b.stderr, script.BuiltinList())
			return 1
		}
		return addScript(bench.BuiltinSpec(bi, weight))
	}
	for _, o := range opts {
		var ok bool
		switch o.id {
		case "b":
			if o.arg == "list" {
				io.WriteString(b.stderr, script.BuiltinList())
				return 0
			}
			name, w, err := script.SplitWeight(o.arg)
			if err != nil {
				return b.errorf("%s", err)
			}
			if c := builtin(name, w); c != 0 {
				return c
			}
			benchOpt = true
		case "c":
			benchOpt = true
			if cfg.Clients, ok = intOpt(o.arg, "-c/--clients", 1, math.MaxInt32); !ok {
				return 1
			}
			if c := b.raiseNoFile(cfg.Clients + 3); c != 0 {
				return c
			}
		case "C":
			benchOpt = true
			cfg.Connect = true
		case "d":
			dbname = o.arg
		case "D":
			benchOpt = true
			name, val, found := strings.Cut(o.arg, "=")
			if !found || name == "" || val == "" {
				return b.errorf("invalid variable definition: \"%s\"", o.arg)
			}
			if err := script.NewVariables(script.NewSymbols()).DefineString("option", name, val); err != nil {
				return b.errorf("%s", err)
			}
			cfg.Defines = append(cfg.Defines, bench.Define{Name: name, Value: val})
		case "f":
			name, w, err := script.SplitWeight(o.arg)
			if err != nil {
				return b.errorf("%s", err)
			}
			var data []byte
			if name == "-" {
				data, err = io.ReadAll(env.Stdin)
			} else {
				data, err = os.ReadFile(name)
			}
			if err != nil {
				return b.errorf("could not open file \"%s\": %s", name, errnoText(err))
			}
			if c := addScript(bench.ScriptSpec{Desc: name, Text: string(data), Weight: w}); c != 0 {
				return c
			}
			benchOpt = true
		case "F":
			initOpt = true
			if initOpts.Fillfactor, ok = intOpt(o.arg, "-F/--fillfactor", 10, 100); !ok {
				return 1
			}
		case "h":
			cfg.Host = o.arg
		case "i":
			initMode = true
		case "I":
			if _, err := initdata.ParseSteps(o.arg); err != nil {
				return b.initError(err)
			}
			initOpts.Steps = o.arg
			initOpt = true
		case "j":
			benchOpt = true
			if cfg.Threads, ok = intOpt(o.arg, "-j/--jobs", 1, math.MaxInt32); !ok {
				return 1
			}
		case "l":
			benchOpt = true
			cfg.Log = true
		case "L":
			ms := cAtof(o.arg)
			if ms <= 0 {
				return b.errorf("invalid latency limit: \"%s\"", o.arg)
			}
			benchOpt = true
			cfg.LatencyLimit = time.Duration(ms * float64(time.Millisecond))
		case "M":
			benchOpt = true
			if cfg.Mode, err = bench.ParseQueryMode(o.arg); err != nil {
				return b.errorf("%s", err)
			}
		case "n":
			noVacuum = true
		case "N":
			if c := builtin("simple-update", 1); c != 0 {
				return c
			}
			benchOpt = true
		case "p":
			cfg.Port = o.arg
		case "P":
			benchOpt = true
			p, ok := intOpt(o.arg, "-P/--progress", 1, math.MaxInt32)
			if !ok {
				return 1
			}
			cfg.Progress = time.Duration(p) * time.Second
		case "q":
			initOpt = true
			initOpts.Quiet = true
		case "r":
			benchOpt = true
			cfg.ReportPerCommand = true
		case "R":
			benchOpt = true
			rate := cAtof(o.arg)
			if rate <= 0 {
				return b.errorf("invalid rate limit: \"%s\"", o.arg)
			}
			cfg.Rate = rate
		case "s":
			cfg.ScaleGiven = true
			if cfg.Scale, ok = intOpt(o.arg, "-s/--scale", 1, math.MaxInt32); !ok {
				return 1
			}
			initOpts.Scale = cfg.Scale
		case "S":
			if c := builtin("select-only", 1); c != 0 {
				return c
			}
			benchOpt = true
		case "t":
			benchOpt = true
			if nxacts, ok = intOpt(o.arg, "-t/--transactions", 1, math.MaxInt32); !ok {
				return 1
			}
		case "T":
			benchOpt = true
			if durationS, ok = intOpt(o.arg, "-T/--time", 1, math.MaxInt32); !ok {
				return 1
			}
		case "U":
			cfg.User = o.arg
		case "v":
			benchOpt = true
			cfg.VacuumAll = true
		case "unlogged-tables":
			initOpt = true
			initOpts.UnloggedTables = true
		case "tablespace":
			initOpt = true
			initOpts.Tablespace = o.arg
		case "index-tablespace":
			initOpt = true
			initOpts.IndexTablespace = o.arg
		case "sampling-rate":
			benchOpt = true
			cfg.SamplingRate = cAtof(o.arg)
			if cfg.SamplingRate <= 0 || cfg.SamplingRate > 1 {
				return b.errorf("invalid sampling rate: \"%s\"", o.arg)
			}
		case "aggregate-interval":
			benchOpt = true
			v, ok := intOpt(o.arg, "--aggregate-interval", 1, math.MaxInt32)
			if !ok {
				return 1
			}
			cfg.AggregateInterval = time.Duration(v) * time.Second
		case "progress-timestamp":
			benchOpt = true
			cfg.ProgressTimestamp = true
		case "log-prefix":
			benchOpt = true
			cfg.LogPrefix = o.arg
			cfg.LogPrefixSet = true
		case "foreign-keys":
			initOpt = true
			initOpts.ForeignKeys = true
		case "random-seed":
			benchOpt = true
			seed, err := script.ParseRandomSeed(o.arg)
			if err != nil {
				b.printSeedError(err)
				return b.errorf("error while setting random seed from --random-seed option")
			}
			cfg.RandomSeed, cfg.SeedGiven, seedSet = seed, true, true
			fmt.Fprintf(b.stderr, "%s: setting random seed to %d\n", benchProg, seed)
		case "show-script":
			bi, err := script.FindBuiltin(o.arg)
			if err != nil {
				b.errorf("%s", err)
				io.WriteString(b.stderr, script.BuiltinList())
				return 1
			}
			io.WriteString(b.stderr, bi.ShowScript())
			return 0
		case "partitions":
			initOpt = true
			if initOpts.Partitions, ok = intOpt(o.arg, "--partitions", 0, math.MaxInt32); !ok {
				return 1
			}
		case "partition-method":
			initOpt = true
			if initOpts.PartitionMethod, err = initdata.ParsePartitionMethod(o.arg); err != nil {
				return b.initError(err)
			}
		case "failures-detailed":
			benchOpt = true
			cfg.FailuresDetailed = true
		case "max-tries":
			v := cAtoi(o.arg)
			if v < 0 {
				return b.errorf("invalid number of maximum tries: \"%s\"", o.arg)
			}
			benchOpt = true
			cfg.MaxTries = int(v)
		case "verbose-errors":
			benchOpt = true
			cfg.VerboseErrors = true
		case "exit-on-abort":
			benchOpt = true
			cfg.ExitOnAbort = true
		case "debug":
			cfg.Debug = true
		case "json":
			jsonOut = true
		case "target":
			target = o.arg
		case "force":
			force = true
		}
	}
	if len(cfg.Scripts) == 0 && !initMode {
		if c := builtin("tpcb-like", 1); c != 0 {
			return c
		}
		benchOpt = true
	}
	if !initMode {
		var weights []int
		for _, s := range cfg.Scripts {
			weights = append(weights, s.Weight)
		}
		if err := script.CheckTotalWeight(weights); err != nil {
			return b.errorf("%s", err)
		}
	}
	if dbname == "" && len(rest) > 0 {
		dbname, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		b.errorf("too many command-line arguments (first is \"%s\")", rest[0])
		b.hintHelp()
		return 1
	}
	if target != "" {
		if code := b.applyTarget(&cfg, target, dbname); code != 0 {
			return code
		}
	} else {
		cfg.DBName = dbname
	}
	if cfg.DBName == "" && cfg.ConnString == "" {
		if v := os.Getenv("PGDATABASE"); v != "" {
			cfg.DBName = v
		} else if v := os.Getenv("PGUSER"); v != "" {
			cfg.DBName = v
		}
	}

	if initMode {
		if benchOpt {
			return b.errorf("some of the specified options cannot be used in initialization (-i) mode")
		}
		initOpts.NoVacuum = noVacuum
		if err := initOpts.Validate(); err != nil {
			return b.initError(err)
		}
		pgcfg, err := bench.ConnConfig(cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName)
		if err != nil {
			return b.errorf("%s", err)
		}
		steps := initOpts.Steps
		if steps == "" {
			steps = initdata.DefaultSteps
		}
		if strings.Contains(steps, "d") && !force {
			if foreign := foreignPgbenchTables(env.Ctx, pgcfg); len(foreign) > 0 {
				return b.errorf("not dropping %s: pgbench did not create it (its columns differ); use --force to drop it anyway", strings.Join(foreign, ", "))
			}
		}
		if _, err := initdata.Run(env.Ctx, pgcfg, initOpts, b.stderr); err != nil {
			return b.initError(err)
		}
		return 0
	}
	if initOpt {
		return b.errorf("some of the specified options cannot be used in benchmarking mode")
	}
	if nxacts > 0 && durationS > 0 {
		return b.errorf("specify either a number of transactions (-t) or a duration (-T), not both")
	}
	if nxacts <= 0 && durationS <= 0 {
		nxacts = 10
	}
	cfg.Transactions = nxacts
	cfg.Duration = time.Duration(durationS) * time.Second
	agg := int(cfg.AggregateInterval / time.Second)
	switch {
	case cfg.SamplingRate > 0 && !cfg.Log:
		return b.errorf("log sampling (--sampling-rate) is allowed only when logging transactions (-l)")
	case cfg.SamplingRate > 0 && agg > 0:
		return b.errorf("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
	case agg > 0 && !cfg.Log:
		return b.errorf("log aggregation is allowed only when actually logging transactions")
	case !cfg.Log && cfg.LogPrefixSet:
		return b.errorf("log file prefix (--log-prefix) is allowed only when logging transactions (-l)")
	case durationS > 0 && agg > durationS:
		return b.errorf("number of seconds for aggregation (%d) must not be higher than test duration (%d)", agg, durationS)
	case durationS > 0 && agg > 0 && durationS%agg != 0:
		return b.errorf("duration (%d) must be a multiple of aggregation interval (%d)", durationS, agg)
	case cfg.ProgressTimestamp && cfg.Progress == 0:
		return b.errorf("--progress-timestamp is allowed only under --progress")
	case cfg.MaxTries == 0 && cfg.LatencyLimit == 0 && durationS <= 0:
		return b.errorf("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
	}
	cfg.NoVacuum = noVacuum
	if !seedSet {
		seed, _ := script.ParseRandomSeed("time")
		cfg.RandomSeed = seed
	}
	if jsonOut {
		cfg.Quiet = true
	}
	res, err := bench.Run(env.Ctx, cfg)
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
			if res != nil && !jsonOut {
				res.WriteSummary(env.Stdout)
				res.WritePercentiles(env.Stdout)
			} else if res != nil {
				res.WriteJSON(env.Stdout)
			}
			return 1
		default:
			return b.scriptError(err)
		}
	}
	if jsonOut {
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

// applyTarget resolves --target: a managed instance's name, or a DSN.
func (b *benchRun) applyTarget(cfg *bench.Config, target, dbname string) int {
	if strings.Contains(target, "=") || strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") {
		cfg.ConnString = target
		cfg.DBName = dbname
		return 0
	}
	inst, err := pgserver.OpenNamed(target)
	if err != nil {
		var names []string
		if list, lerr := pgserver.ListNamed(); lerr == nil {
			for _, i := range list {
				names = append(names, i.Name())
			}
		}
		sort.Strings(names)
		known := "none"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return b.errorf("--target %s: no managed instance of that name (started ones: %s)", target, known)
	}
	if !inst.Running() {
		return b.errorf("--target %s: the instance is not running (start it with 'pglab pg start --name %s')", target, target)
	}
	if dbname != "" {
		cfg.ConnString = inst.DSNFor(dbname)
	} else {
		cfg.ConnString = inst.DSN()
	}
	return 0
}

func (b *benchRun) printSeedError(err error) {
	var rse *script.RandomSeedError
	if errors.As(err, &rse) {
		fmt.Fprintf(b.stderr, "%s: error: %s\n%s: detail: %s\n", benchProg, rse.Error(), benchProg, rse.Detail())
		return
	}
	fmt.Fprintf(b.stderr, "%s: error: %s\n", benchProg, err)
}

func (b *benchRun) initError(err error) int {
	var ie *initdata.Error
	if errors.As(err, &ie) {
		io.WriteString(b.stderr, ie.Format(benchProg))
		return 1
	}
	return b.errorf("%s", err)
}

// scriptError prints a script parse error as pgbench does (the message may
// span three lines: the message, the command and a caret).
func (b *benchRun) scriptError(err error) int {
	return b.errorf("%s", err)
}

// raiseNoFile makes room for n open files as pgbench does for -c.
func (b *benchRun) raiseNoFile(n int) int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return b.errorf("getrlimit failed: %v", err)
	}
	if rl.Max < uint64(n) {
		b.errorf("need at least %d open files, but system limit is %d", n, rl.Max)
		fmt.Fprintf(b.stderr, "%s: hint: Reduce number of clients, or use limit/ulimit to increase the system limit.\n", benchProg)
		return 1
	}
	if rl.Cur < uint64(n) {
		rl.Cur = uint64(n)
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
			b.errorf("need at least %d open files, but couldn't raise the limit: %v", n, err)
			fmt.Fprintf(b.stderr, "%s: hint: Reduce number of clients, or use limit/ulimit to increase the system limit.\n", benchProg)
			return 1
		}
	}
	return 0
}

// errnoText is strerror's text for a file error ("No such file or
// directory").
func errnoText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		var en unix.Errno
		if errors.As(pe.Err, &en) {
			s := en.Error()
			return strings.ToUpper(s[:1]) + s[1:]
		}
		return pe.Err.Error()
	}
	return err.Error()
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

After pgbench's summary, pglab prints latency percentiles (p50, p90, p99, p99.9,
max) of successful transactions from an HDR histogram. Plain TCP and Unix-socket
connections run on the fast path (raw sockets, one epoll loop per -j thread);
TLS connections run on a slower fallback path (a goroutine per client).
`
