package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/bench/script"
	"golang.org/x/sys/unix"
)

// Action is what a pgbench command line asks for.
type Action int

// The actions of a command line.
const (
	// ActionRun runs a benchmark (CommandLine.Config).
	ActionRun Action = iota
	// ActionInit initializes the tables (-i; CommandLine.Init).
	ActionInit
	// ActionHelp asks for the usage text (--help, -?).
	ActionHelp
	// ActionVersion asks for the version (--version, -V).
	ActionVersion
	// ActionDone means the parser printed what was asked (-b list,
	// --show-script) and the program exits 0.
	ActionDone
)

// CommandLine is a parsed and validated pgbench command line.
type CommandLine struct {
	Action Action
	// Config is the run (ActionRun: validated; the seed resolved) or, for
	// ActionInit, the connection settings.
	Config Config
	// Init are -i's options (ActionInit: validated).
	Init initdata.Options
}

// UsageError is a bad command line. Text is what pgbench prints for it
// (one or more lines, each ending in a newline); the exit code is 1.
type UsageError struct{ Text string }

// Error returns the text without its last newline.
func (e *UsageError) Error() string { return strings.TrimSuffix(e.Text, "\n") }

// UsageProg is the program name of getopt's complaints and the help hint.
const UsageProg = "pglab bench"

// ExtraOption is an option that the caller adds to pgbench's table (pglab's
// own, such as --json). Set receives its argument ("" for one without) and
// returns a message for a bad value.
type ExtraOption struct {
	Long string
	Arg  bool
	// Bench makes it a benchmarking option, which -i refuses.
	Bench bool
	Set   func(arg string) error
}

// ParseEnv is what parsing a command line may read and print.
type ParseEnv struct {
	// Stdin is read by "-f -".
	Stdin io.Reader
	// Stderr receives what pgbench prints while it parses ("setting random
	// seed to N", the -b list, --show-script).
	Stderr io.Writer
	// Getenv reads PGBENCH_RANDOM_SEED, PGDATABASE and PGUSER; nil means
	// os.Getenv.
	Getenv func(string) string
	// Extra options (pglab's) beside pgbench's.
	Extra []ExtraOption
	// ResolveTarget, if set, is called with the database name (-d or the
	// first argument) once the options are read, and returns the connection
	// string and database name to use (pglab's --target); its error is
	// printed as "pglab: error: ...".
	ResolveTarget func(dbname string) (connString, db string, err error)
}

// optGroup says which mode an option belongs to: -i refuses benchmarking
// options and the run refuses initialization options.
type optGroup int

const (
	groupCommon optGroup = iota
	groupBench
	groupInit
)

// option is one entry of pgbench's getopt_long table with what it sets.
type option struct {
	long  string
	short byte
	arg   bool
	group optGroup
	set   func(p *parser, v string) error
}

// errDone ends parsing successfully after the option printed its output.
var errDone = errors.New("done")

// options is pgbench's option table (PostgreSQL 17/18), in its order.
var options = []option{
	{"builtin", 'b', true, groupBench, (*parser).setBuiltin},
	{"client", 'c', true, groupBench, (*parser).setClients},
	{"connect", 'C', false, groupBench, func(p *parser, _ string) error { p.cfg.Connect = true; return nil }},
	{"dbname", 'd', true, groupCommon, func(p *parser, v string) error { p.dbname = v; return nil }},
	{"define", 'D', true, groupBench, (*parser).setDefine},
	{"file", 'f', true, groupBench, (*parser).setFile},
	{"fillfactor", 'F', true, groupInit, func(p *parser, v string) error {
		return p.intOpt(&p.init.Fillfactor, v, "-F/--fillfactor", 10, 100)
	}},
	{"host", 'h', true, groupCommon, func(p *parser, v string) error { p.cfg.Host = v; return nil }},
	{"initialize", 'i', false, groupCommon, func(p *parser, _ string) error { p.initMode = true; return nil }},
	{"init-steps", 'I', true, groupInit, func(p *parser, v string) error {
		if _, err := initdata.ParseSteps(v); err != nil {
			return initError(err)
		}
		p.init.Steps = v
		return nil
	}},
	{"jobs", 'j', true, groupBench, func(p *parser, v string) error { return p.intOpt(&p.cfg.Threads, v, "-j/--jobs", 1, math.MaxInt32) }},
	{"log", 'l', false, groupBench, func(p *parser, _ string) error { p.cfg.Log = true; return nil }},
	{"latency-limit", 'L', true, groupBench, func(p *parser, v string) error {
		ms := cAtof(v)
		if ms <= 0 {
			return usagef("invalid latency limit: \"%s\"", v)
		}
		p.cfg.LatencyLimit = time.Duration(ms * float64(time.Millisecond))
		return nil
	}},
	{"no-vacuum", 'n', false, groupCommon, func(p *parser, _ string) error { p.noVacuum = true; return nil }},
	{"port", 'p', true, groupCommon, func(p *parser, v string) error { p.cfg.Port = v; return nil }},
	{"progress", 'P', true, groupBench, func(p *parser, v string) error {
		return p.secondsOpt(&p.cfg.Progress, v, "-P/--progress")
	}},
	{"protocol", 'M', true, groupBench, func(p *parser, v string) error {
		m, err := ParseQueryMode(v)
		if err != nil {
			return usagef("%s", err)
		}
		p.cfg.Mode = m
		return nil
	}},
	{"quiet", 'q', false, groupInit, func(p *parser, _ string) error { p.init.Quiet = true; return nil }},
	{"report-per-command", 'r', false, groupBench, func(p *parser, _ string) error { p.cfg.ReportPerCommand = true; return nil }},
	{"rate", 'R', true, groupBench, func(p *parser, v string) error {
		if p.cfg.Rate = cAtof(v); p.cfg.Rate <= 0 {
			return usagef("invalid rate limit: \"%s\"", v)
		}
		return nil
	}},
	{"scale", 's', true, groupCommon, func(p *parser, v string) error {
		p.cfg.ScaleGiven = true
		if err := p.intOpt(&p.cfg.Scale, v, "-s/--scale", 1, math.MaxInt32); err != nil {
			return err
		}
		p.init.Scale = p.cfg.Scale
		return nil
	}},
	{"select-only", 'S', false, groupBench, func(p *parser, _ string) error { return p.builtin("select-only", 1) }},
	{"skip-some-updates", 'N', false, groupBench, func(p *parser, _ string) error { return p.builtin("simple-update", 1) }},
	{"time", 'T', true, groupBench, func(p *parser, v string) error { return p.intOpt(&p.durationS, v, "-T/--time", 1, math.MaxInt32) }},
	{"transactions", 't', true, groupBench, func(p *parser, v string) error {
		return p.intOpt(&p.nxacts, v, "-t/--transactions", 1, math.MaxInt32)
	}},
	{"username", 'U', true, groupCommon, func(p *parser, v string) error { p.cfg.User = v; return nil }},
	{"vacuum-all", 'v', false, groupBench, func(p *parser, _ string) error { p.cfg.VacuumAll = true; return nil }},
	{"unlogged-tables", 0, false, groupInit, func(p *parser, _ string) error { p.init.UnloggedTables = true; return nil }},
	{"tablespace", 0, true, groupInit, func(p *parser, v string) error { p.init.Tablespace = v; return nil }},
	{"index-tablespace", 0, true, groupInit, func(p *parser, v string) error { p.init.IndexTablespace = v; return nil }},
	{"sampling-rate", 0, true, groupBench, func(p *parser, v string) error {
		if p.cfg.SamplingRate = cAtof(v); p.cfg.SamplingRate <= 0 || p.cfg.SamplingRate > 1 {
			return usagef("invalid sampling rate: \"%s\"", v)
		}
		return nil
	}},
	{"aggregate-interval", 0, true, groupBench, func(p *parser, v string) error {
		return p.secondsOpt(&p.cfg.AggregateInterval, v, "--aggregate-interval")
	}},
	{"progress-timestamp", 0, false, groupBench, func(p *parser, _ string) error { p.cfg.ProgressTimestamp = true; return nil }},
	{"log-prefix", 0, true, groupBench, func(p *parser, v string) error {
		p.cfg.LogPrefix, p.cfg.LogPrefixSet = v, true
		return nil
	}},
	{"foreign-keys", 0, false, groupInit, func(p *parser, _ string) error { p.init.ForeignKeys = true; return nil }},
	{"random-seed", 0, true, groupBench, func(p *parser, v string) error {
		return p.setSeed(v, "error while setting random seed from --random-seed option")
	}},
	{"show-script", 0, true, groupCommon, func(p *parser, v string) error {
		bi, err := script.FindBuiltin(v)
		if err != nil {
			return &UsageError{Text: errorLine("%s", err) + script.BuiltinList()}
		}
		io.WriteString(p.env.Stderr, bi.ShowScript())
		return errDone
	}},
	{"partitions", 0, true, groupInit, func(p *parser, v string) error {
		return p.intOpt(&p.init.Partitions, v, "--partitions", 0, math.MaxInt32)
	}},
	{"partition-method", 0, true, groupInit, func(p *parser, v string) error {
		m, err := initdata.ParsePartitionMethod(v)
		if err != nil {
			return initError(err)
		}
		p.init.PartitionMethod = m
		return nil
	}},
	{"failures-detailed", 0, false, groupBench, func(p *parser, _ string) error { p.cfg.FailuresDetailed = true; return nil }},
	{"max-tries", 0, true, groupBench, func(p *parser, v string) error {
		n := cAtoi(v)
		if n < 0 {
			return usagef("invalid number of maximum tries: \"%s\"", v)
		}
		p.cfg.MaxTries = int(n)
		return nil
	}},
	{"verbose-errors", 0, false, groupBench, func(p *parser, _ string) error { p.cfg.VerboseErrors = true; return nil }},
	{"exit-on-abort", 0, false, groupBench, func(p *parser, _ string) error { p.cfg.ExitOnAbort = true; return nil }},
	{"debug", 0, false, groupCommon, func(p *parser, _ string) error { p.cfg.Debug = true; return nil }},
}

// parser is the state of one command line being read.
type parser struct {
	env               ParseEnv
	cfg               Config
	init              initdata.Options
	dbname            string
	nxacts, durationS int
	initMode          bool
	benchOpt, initOpt bool
	noVacuum, seedSet bool
}

// usagef is an error line as pgbench prints it ("pglab: error: ...").
func usagef(format string, args ...any) error {
	return &UsageError{Text: errorLine(format, args...)}
}

func errorLine(format string, args ...any) string {
	return Progname + ": error: " + fmt.Sprintf(format, args...) + "\n"
}

// hintHelp is getopt's complaint or an argument error followed by
// pgbench's hint.
func hintHelp(line string) error {
	return &UsageError{Text: line + Progname + ": hint: Try \"" + UsageProg + " --help\" for more information.\n"}
}

// initError prints an init-step error as pgbench (with its detail line).
func initError(err error) error {
	var ie *initdata.Error
	if errors.As(err, &ie) {
		return &UsageError{Text: ie.Format(Progname)}
	}
	return usagef("%s", err)
}

func (p *parser) intOpt(dst *int, val, name string, lo, hi int) error {
	v, err := initdata.ParseInt(val, name, lo, hi)
	if err != nil {
		return usagef("%s", err)
	}
	*dst = v
	return nil
}

func (p *parser) secondsOpt(dst *time.Duration, val, name string) error {
	var s int
	if err := p.intOpt(&s, val, name, 1, math.MaxInt32); err != nil {
		return err
	}
	*dst = time.Duration(s) * time.Second
	return nil
}

func (p *parser) setClients(v string) error {
	if err := p.intOpt(&p.cfg.Clients, v, "-c/--clients", 1, math.MaxInt32); err != nil {
		return err
	}
	return raiseNoFile(p.cfg.Clients + 3)
}

func (p *parser) setDefine(v string) error {
	name, val, found := strings.Cut(v, "=")
	if !found || name == "" || val == "" {
		return usagef("invalid variable definition: \"%s\"", v)
	}
	if err := script.NewVariables(script.NewSymbols()).DefineString("option", name, val); err != nil {
		return usagef("%s", err)
	}
	p.cfg.Defines = append(p.cfg.Defines, Define{Name: name, Value: val})
	return nil
}

func (p *parser) setBuiltin(v string) error {
	if v == "list" {
		io.WriteString(p.env.Stderr, script.BuiltinList())
		return errDone
	}
	name, w, err := script.SplitWeight(v)
	if err != nil {
		return usagef("%s", err)
	}
	return p.builtin(name, w)
}

func (p *parser) builtin(name string, weight int) error {
	bi, err := script.FindBuiltin(name)
	if err != nil {
		return &UsageError{Text: errorLine("%s", err) + script.BuiltinList()}
	}
	return p.addScript(BuiltinSpec(bi, weight))
}

func (p *parser) setFile(v string) error {
	name, w, err := script.SplitWeight(v)
	if err != nil {
		return usagef("%s", err)
	}
	var data []byte
	if name == "-" {
		data, err = io.ReadAll(p.env.Stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return usagef("could not open file \"%s\": %s", name, errnoText(err))
	}
	return p.addScript(ScriptSpec{Desc: name, Text: string(data), Weight: w})
}

func (p *parser) addScript(spec ScriptSpec) error {
	if _, err := script.Parse(spec.Desc, spec.Text, nil); err != nil {
		return usagef("%s", err)
	}
	if len(p.cfg.Scripts) >= script.MaxScripts {
		return usagef("at most %d SQL scripts are allowed", script.MaxScripts)
	}
	p.cfg.Scripts = append(p.cfg.Scripts, spec)
	return nil
}

func (p *parser) setSeed(v, context string) error {
	seed, err := script.ParseRandomSeed(v)
	if err != nil {
		var rse *script.RandomSeedError
		text := errorLine("%s", err)
		if errors.As(err, &rse) {
			text = errorLine("%s", rse.Error()) + Progname + ": detail: " + rse.Detail() + "\n"
		}
		return &UsageError{Text: text + errorLine("%s", context)}
	}
	p.cfg.RandomSeed, p.cfg.SeedGiven, p.seedSet = seed, true, true
	fmt.Fprintf(p.env.Stderr, "%s: setting random seed to %d\n", Progname, seed)
	return nil
}

// ParseCommandLine reads pgbench's command line (its options, pglab's in
// env.Extra, then at most a database name) as pgbench 17/18 does, with its
// error texts, and returns the validated run or init settings. Errors are
// *UsageError (exit 1). For ActionRun without --random-seed the seed is
// drawn from the clock, as pgbench's default "time".
func ParseCommandLine(args []string, env ParseEnv) (*CommandLine, error) {
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			return &CommandLine{Action: ActionHelp}, nil
		case "--version", "-V":
			return &CommandLine{Action: ActionVersion}, nil
		}
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	p := &parser{env: env, cfg: DefaultConfig()}
	p.cfg.Scripts = nil
	p.cfg.Transactions = 0
	err := p.parse(args)
	if errors.Is(err, errDone) {
		return &CommandLine{Action: ActionDone}, nil
	}
	if err != nil {
		return nil, err
	}
	if p.initMode {
		return p.finishInit()
	}
	return p.finishRun()
}

// parse reads the options and the database name.
func (p *parser) parse(args []string) error {
	if s := p.env.Getenv("PGBENCH_RANDOM_SEED"); s != "" {
		if err := p.setSeed(s, "error while setting random seed from PGBENCH_RANDOM_SEED environment variable"); err != nil {
			return err
		}
	}
	table := p.table()
	opts, rest, err := getoptLong(table, args)
	if err != nil {
		return hintHelp(UsageProg + ": " + err.Error() + "\n")
	}
	for _, o := range opts {
		if err := o.spec.set(p, o.arg); err != nil {
			return err
		}
		switch o.spec.group {
		case groupBench:
			p.benchOpt = true
		case groupInit:
			p.initOpt = true
		}
	}
	if len(p.cfg.Scripts) == 0 && !p.initMode {
		if err := p.builtin("tpcb-like", 1); err != nil {
			return err
		}
		p.benchOpt = true
	}
	if !p.initMode {
		var weights []int
		for _, s := range p.cfg.Scripts {
			weights = append(weights, s.Weight)
		}
		if err := script.CheckTotalWeight(weights); err != nil {
			return usagef("%s", err)
		}
	}
	if p.dbname == "" && len(rest) > 0 {
		p.dbname, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return hintHelp(errorLine("too many command-line arguments (first is \"%s\")", rest[0]))
	}
	p.cfg.DBName = p.dbname
	if p.env.ResolveTarget != nil {
		conn, db, err := p.env.ResolveTarget(p.dbname)
		if err != nil {
			return usagef("%s", err)
		}
		p.cfg.ConnString, p.cfg.DBName = conn, db
	}
	if p.cfg.DBName == "" && p.cfg.ConnString == "" {
		if v := p.env.Getenv("PGDATABASE"); v != "" {
			p.cfg.DBName = v
		} else if v := p.env.Getenv("PGUSER"); v != "" {
			p.cfg.DBName = v
		}
	}
	return nil
}

// table is pgbench's options followed by the caller's.
func (p *parser) table() []option {
	table := options
	for _, x := range p.env.Extra {
		group := groupCommon
		if x.Bench {
			group = groupBench
		}
		table = append(table[:len(table):len(table)], option{long: x.Long, arg: x.Arg, group: group,
			set: func(_ *parser, v string) error {
				if err := x.Set(v); err != nil {
					return usagef("%s", err)
				}
				return nil
			}})
	}
	return table
}

func (p *parser) finishInit() (*CommandLine, error) {
	if p.benchOpt {
		return nil, usagef("some of the specified options cannot be used in initialization (-i) mode")
	}
	p.init.NoVacuum = p.noVacuum
	if err := p.init.Validate(); err != nil {
		return nil, initError(err)
	}
	return &CommandLine{Action: ActionInit, Config: p.cfg, Init: p.init}, nil
}

func (p *parser) finishRun() (*CommandLine, error) {
	if p.initOpt {
		return nil, usagef("some of the specified options cannot be used in benchmarking mode")
	}
	cfg := &p.cfg
	cfg.Transactions = p.nxacts
	cfg.Duration = time.Duration(p.durationS) * time.Second
	cfg.NoVacuum = p.noVacuum
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Transactions == 0 && cfg.Duration == 0 {
		cfg.Transactions = 10
	}
	if !p.seedSet {
		cfg.RandomSeed, _ = script.ParseRandomSeed("time")
	}
	return &CommandLine{Action: ActionRun, Config: *cfg}, nil
}

// Validate checks the combinations of options that pgbench refuses, with
// its messages (*UsageError).
func (c *Config) Validate() error {
	durationS := int(c.Duration / time.Second)
	agg := int(c.AggregateInterval / time.Second)
	switch {
	case c.Transactions > 0 && durationS > 0:
		return usagef("specify either a number of transactions (-t) or a duration (-T), not both")
	case c.SamplingRate > 0 && !c.Log:
		return usagef("log sampling (--sampling-rate) is allowed only when logging transactions (-l)")
	case c.SamplingRate > 0 && agg > 0:
		return usagef("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
	case agg > 0 && !c.Log:
		return usagef("log aggregation is allowed only when actually logging transactions")
	case !c.Log && c.LogPrefixSet:
		return usagef("log file prefix (--log-prefix) is allowed only when logging transactions (-l)")
	case durationS > 0 && agg > durationS:
		return usagef("number of seconds for aggregation (%d) must not be higher than test duration (%d)", agg, durationS)
	case durationS > 0 && agg > 0 && durationS%agg != 0:
		return usagef("duration (%d) must be a multiple of aggregation interval (%d)", durationS, agg)
	case c.ProgressTimestamp && c.Progress == 0:
		return usagef("--progress-timestamp is allowed only under --progress")
	case c.MaxTries == 0 && c.LatencyLimit == 0 && durationS <= 0:
		return usagef("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
	case c.MaxTries < 0:
		return usagef("invalid number of maximum tries: \"%d\"", c.MaxTries)
	}
	return nil
}

// raiseNoFile makes room for n open files as pgbench does for -c.
func raiseNoFile(n int) error {
	hint := Progname + ": hint: Reduce number of clients, or use limit/ulimit to increase the system limit.\n"
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return usagef("getrlimit failed: %v", err)
	}
	if rl.Max < uint64(n) {
		return &UsageError{Text: errorLine("need at least %d open files, but system limit is %d", n, rl.Max) + hint}
	}
	if rl.Cur < uint64(n) {
		rl.Cur = uint64(n)
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
			return &UsageError{Text: errorLine("need at least %d open files, but couldn't raise the limit: %v", n, err) + hint}
		}
	}
	return nil
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

// parsedOpt is one option occurrence in command-line order.
type parsedOpt struct {
	spec *option
	arg  string
}

// getoptLong parses args as glibc's getopt_long with the option table:
// bundled short options ("-nS", "-c4"), "--opt=value" and "--opt value",
// unambiguous prefixes of long options, non-options anywhere (permuted to
// the end), and "--" ending the options. Its errors are getopt's messages.
func getoptLong(table []option, args []string) ([]parsedOpt, []string, error) {
	var opts []parsedOpt
	var rest []string
	short := map[byte]*option{}
	for i := range table {
		if table[i].short != 0 {
			short[table[i].short] = &table[i]
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
			o, err := matchLong(table, name)
			if err != nil {
				return nil, nil, err
			}
			if !o.arg {
				if hasVal {
					return nil, nil, fmt.Errorf("option '--%s' doesn't allow an argument", o.long)
				}
				opts = append(opts, parsedOpt{spec: o})
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, fmt.Errorf("option '--%s' requires an argument", o.long)
				}
				i++
				val = args[i]
			}
			opts = append(opts, parsedOpt{spec: o, arg: val})
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o, ok := short[a[j]]
				if !ok {
					return nil, nil, fmt.Errorf("invalid option -- '%c'", a[j])
				}
				if !o.arg {
					opts = append(opts, parsedOpt{spec: o})
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, nil, fmt.Errorf("option requires an argument -- '%c'", a[j])
					}
					i++
					val = args[i]
				}
				opts = append(opts, parsedOpt{spec: o, arg: val})
				break
			}
		default:
			rest = append(rest, a)
		}
	}
	return opts, rest, nil
}

// matchLong finds the long option that name is or abbreviates. An
// abbreviation matches pglab's additions (after pgbench's options in the
// table) only when it matches none of pgbench's, so that they never make
// one of pgbench's abbreviations ambiguous.
func matchLong(table []option, name string) (*option, error) {
	for i := range table {
		if table[i].long == name {
			return &table[i], nil
		}
	}
	for _, part := range [][]option{table[:len(options)], table[len(options):]} {
		var match []*option
		for i := range part {
			o := &part[i]
			if strings.HasPrefix(o.long, name) {
				match = append(match, o)
			}
		}
		if len(match) == 1 {
			return match[0], nil
		}
		if len(match) > 1 {
			var names []string
			for _, m := range match {
				names = append(names, "'--"+m.long+"'")
			}
			return nil, fmt.Errorf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(names, " "))
		}
	}
	return nil, fmt.Errorf("unrecognized option '--%s'", name)
}

// cAtof is C's atof: the longest prefix that is a number, 0 if none.
func cAtof(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	for i := len(s); i > 0; i-- {
		if v, err := strconv.ParseFloat(s[:i], 64); err == nil {
			return v
		} else if ne, ok := err.(*strconv.NumError); ok && errors.Is(ne.Err, strconv.ErrRange) {
			return v
		}
	}
	return 0
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

// RewriteArgs returns a command line in canonical form: every option as
// --long or --long=value (in the order given), then "--" and the
// non-option arguments. Each option and argument passes through edit
// (long is "" for a non-option argument), which returns its new value and
// whether to keep it. extra are the caller's options as for
// ParseCommandLine. Errors are getopt's messages.
func RewriteArgs(args []string, extra []ExtraOption, edit func(long, val string) (string, bool, error)) ([]string, error) {
	p := &parser{env: ParseEnv{Extra: extra}}
	opts, rest, err := getoptLong(p.table(), args)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range opts {
		v, keep, err := edit(o.spec.long, o.arg)
		if err != nil {
			return nil, err
		}
		if !keep {
			continue
		}
		if o.spec.arg {
			out = append(out, "--"+o.spec.long+"="+v)
		} else {
			out = append(out, "--"+o.spec.long)
		}
	}
	var pos []string
	for _, a := range rest {
		v, keep, err := edit("", a)
		if err != nil {
			return nil, err
		}
		if keep {
			pos = append(pos, v)
		}
	}
	if len(pos) > 0 {
		out = append(append(out, "--"), pos...)
	}
	return out, nil
}
