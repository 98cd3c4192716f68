package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/pglab/pglab/bench/script"
)

// QueryMode is how SQL commands are sent (-M).
type QueryMode int

// The query modes of pgbench's -M.
const (
	QuerySimple QueryMode = iota
	QueryExtended
	QueryPrepared
)

// String returns pgbench's name of the mode.
func (m QueryMode) String() string {
	switch m {
	case QueryExtended:
		return "extended"
	case QueryPrepared:
		return "prepared"
	}
	return "simple"
}

// ParseQueryMode parses a -M value.
func ParseQueryMode(s string) (QueryMode, error) {
	for _, m := range []QueryMode{QuerySimple, QueryExtended, QueryPrepared} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("invalid query mode (-M): \"%s\"", s)
}

// ScriptSpec is one script of a run: a builtin or a file's text, with its
// weight.
type ScriptSpec struct {
	// Desc is the script's name in the summary: a builtin's description or
	// the file name.
	Desc string
	// Text is the script source.
	Text string
	// Weight is the relative frequency with which clients choose the script
	// (0 keeps it out of the choice).
	Weight int
	// Builtin is set for pgbench's builtin scripts: the run then reads the
	// scale from pgbench_branches as pgbench does.
	Builtin bool
}

// Define is one -D variable.
type Define struct {
	Name, Value string
}

// Config is everything a run needs. Start from DefaultConfig: its zero value
// is not a valid run (Clients and MaxTries 0).
type Config struct {
	// ConnString is a libpq connection string (URL or key=value, or just a
	// database name); empty means libpq's defaults and PG* variables.
	ConnString string
	// Host, Port, User and DBName override ConnString (pgbench's -h -p -U
	// -d); empty means not given.
	Host, Port, User, DBName string

	// Scripts to run; at least one with a non-zero weight.
	Scripts []ScriptSpec
	// Defines are -D variables, set for every client.
	Defines []Define

	Clients int // -c
	Threads int // -j (capped to Clients)
	// Transactions per client (-t); used when Duration is 0.
	Transactions int
	// Duration of the run (-T), whole seconds as pgbench.
	Duration time.Duration
	Mode     QueryMode // -M
	// Connect opens a new connection for every transaction (-C).
	Connect bool
	// Rate is the target total rate in transactions per second (-R); 0 is
	// unthrottled.
	Rate float64
	// LatencyLimit counts (and under Rate skips) late transactions (-L).
	LatencyLimit time.Duration
	// Progress is the interval of progress lines (-P); 0 prints none.
	Progress time.Duration
	// ProgressTimestamp prints epoch timestamps in progress lines.
	ProgressTimestamp bool
	// ReportPerCommand collects per-command latencies (-r).
	ReportPerCommand bool

	// Log writes a per-transaction (or aggregated) log per thread (-l).
	Log               bool
	LogPrefix         string        // default "pgbench_log"
	LogPrefixSet      bool          // --log-prefix was given (pgbench checks it needs -l)
	AggregateInterval time.Duration // --aggregate-interval
	SamplingRate      float64       // --sampling-rate, 0 = log all

	// MaxTries is --max-tries: 1 means no retries, 0 unlimited (needs
	// LatencyLimit or Duration).
	MaxTries         int
	FailuresDetailed bool
	VerboseErrors    bool
	ExitOnAbort      bool

	// RandomSeed is the base seed; SeedGiven says it came from the user
	// (pgbench then prints it).
	RandomSeed uint64
	SeedGiven  bool

	// Scale labels the run and sets :scale; with a builtin script the run
	// reads it from pgbench_branches (ScaleGiven prints pgbench's warning).
	Scale      int
	ScaleGiven bool

	NoVacuum  bool // -n
	VacuumAll bool // -v

	// Debug prints pgbench's --debug lines to Stderr.
	Debug bool

	// Stderr receives what pgbench prints to stderr during a run (vacuum,
	// progress lines, client errors); nil discards it.
	Stderr io.Writer `json:"-"`
	// Stdout receives the version banner; nil discards it.
	Stdout io.Writer `json:"-"`
	// OnProgress, if set, is called (from one goroutine) for every progress
	// tick, in addition to the progress line.
	OnProgress func(ProgressTick) `json:"-"`
	// Quiet suppresses the version banner, the vacuum notice and progress
	// lines on the writers (the figures still reach Result).
	Quiet bool
	// Portable runs every client on the slower goroutine-per-client path
	// that TLS connections use, instead of raw sockets and epoll.
	Portable bool
	// NoPin leaves the raw path's threads free to run on any CPU. By
	// default, with at least two threads and as many CPUs, each thread is
	// pinned to a CPU of its own and gets the connections whose backend
	// runs there (see placement.go); $PGLAB_BENCH_NOPIN=1 does the same.
	NoPin bool
	// LogPID is the process id in log file names; 0 means os.Getpid().
	LogPID int
	// OnInterval, if set, is called (from one goroutine) with every
	// progress interval's figures (-P), histogram included.
	OnInterval func(Interval) `json:"-"`

	// Part places this process's clients and threads in a run spread over
	// several processes (a coordinated run's worker); the zero value is the
	// whole run.
	Part Part
}

// Part places the clients and threads of one process within a run spread
// over several: its clients are numbers FirstClient... of TotalClients
// (their ids and :client_id), its threads numbers FirstThread... of
// TotalThreads, so that the clients' and threads' random streams are those
// of one process running the whole run. Rate and Clients of the Config are
// the part's own.
type Part struct {
	FirstClient  int `json:"first_client"`
	TotalClients int `json:"total_clients"`
	FirstThread  int `json:"first_thread"`
	TotalThreads int `json:"total_threads"`
}

// whole returns p, or for the zero Part the whole run of clients and
// threads.
func (p Part) whole(clients, threads int) Part {
	if p.TotalClients == 0 {
		return Part{TotalClients: clients, TotalThreads: threads}
	}
	return p
}

func (p Part) check(clients, threads int) error {
	if p.TotalClients == 0 {
		return nil
	}
	if p.FirstClient < 0 || p.FirstClient+clients > p.TotalClients || p.FirstThread < 0 || p.FirstThread+threads > p.TotalThreads {
		return fmt.Errorf("part of clients %d..%d of %d and threads %d..%d of %d is out of range",
			p.FirstClient, p.FirstClient+clients-1, p.TotalClients, p.FirstThread, p.FirstThread+threads-1, p.TotalThreads)
	}
	return nil
}

// normalize fills what Run defaults: at least one client and thread,
// writers, the log prefix, the scale, the tpcb-like script and ten
// transactions per client when neither -t nor -T is set.
func (c *Config) normalize() {
	if c.Clients < 1 {
		c.Clients = 1
	}
	if c.Threads < 1 {
		c.Threads = 1
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.LogPrefix == "" {
		c.LogPrefix = "pgbench_log"
	}
	if c.Scale < 1 {
		c.Scale = 1
	}
	if len(c.Scripts) == 0 {
		c.Scripts = DefaultConfig().Scripts
	}
	if c.Duration > 0 {
		c.Transactions = 0
	} else if c.Transactions <= 0 {
		c.Transactions = 10
	}
}

// DefaultConfig returns pgbench's defaults: one client, one thread, ten
// transactions, simple protocol, one try, the tpcb-like builtin.
func DefaultConfig() Config {
	return Config{
		Scripts:      []ScriptSpec{BuiltinSpec(script.Builtins()[0], 1)},
		Clients:      1,
		Threads:      1,
		Transactions: 10,
		MaxTries:     1,
		Scale:        1,
		LogPrefix:    "pgbench_log",
	}
}

// BuiltinSpec returns the ScriptSpec of a builtin with a weight.
func BuiltinSpec(b script.Builtin, weight int) ScriptSpec {
	return ScriptSpec{Desc: b.Desc, Text: b.Text, Weight: weight, Builtin: true}
}
