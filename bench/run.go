package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/bench/script"
	"github.com/pglab/pglab/internal/pgnet"
	"golang.org/x/sys/unix"
)

// Progname prefixes the engine's messages, as pgbench's logger prefixes its
// own with "pgbench: ".
var Progname = "pglab"

var clockBase = time.Now()

// nowUS is the engine's clock: monotonic microseconds.
func nowUS() int64 { return int64(time.Since(clockBase) / time.Microsecond) }

func sleepUS(d int64) { time.Sleep(time.Duration(d) * time.Microsecond) }

// SetupError is a failure before the run started (bad script, connection
// or setup query); pgbench exits 1 for these. Its text is pgbench's, and
// may span lines.
type SetupError struct {
	Msg string
	// Err is the error of an established connection behind Msg (one that
	// may mean a lost server), or nil; a failed first connection has none.
	Err error
}

// Error returns pgbench's message.
func (e *SetupError) Error() string { return e.Msg }

// Unwrap returns the error behind the message.
func (e *SetupError) Unwrap() error { return e.Err }

// AbortError is returned for --exit-on-abort: a client aborted and the run
// was stopped (exit 2, no summary).
type AbortError struct {
	Thread int
	// Lost is the client's lost connection when that is why it aborted
	// (see Result.Lost), else nil.
	Lost error
}

// Error returns pgbench's message for --exit-on-abort.
func (e *AbortError) Error() string {
	return fmt.Sprintf("Run was aborted due to an error in thread %d", e.Thread)
}

type runner struct {
	ctx         context.Context
	cfg         Config
	scripts     []*script.Script
	weights     []int
	totalWeight int64
	stmtNames   [][]string
	pgcfg       *pgconn.Config
	mode        QueryMode

	nclients, nthreads int
	nxacts             int
	throttleDelay      float64
	latencyLimit       int64
	endTime            int64
	maxTries           uint32
	aggInterval        int64
	samplingRate       float64
	perCommand         bool
	perScript          bool
	debug              bool
	verboseErrors      bool
	connect            bool
	epochShift         int64
	startTime          int64
	connectedAt        int64 // when every client was connected (Start's end)
	threads            []*thread
	pinnedRaw          int32        // pinned raw-path threads that start together
	started            atomic.Int32 // of those, how many have started

	stderrMu   sync.Mutex
	stderr     io.Writer
	stop       atomic.Bool
	abortTid   atomic.Int32
	anyAborted atomic.Bool

	lostMu      sync.Mutex
	lostClients int   // aborted clients whose connection was lost
	lost        error // the first of their losses

	tickCh chan tickMsg
}

func (r *runner) writeStderr(s string) {
	r.stderrMu.Lock()
	defer r.stderrMu.Unlock()
	_, _ = io.WriteString(r.stderr, s)
}

// lockedWriter writes to the run's stderr under its lock (debug() output
// comes from several threads).
type lockedWriter struct{ r *runner }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.r.stderrMu.Lock()
	defer w.r.stderrMu.Unlock()
	return w.r.stderr.Write(p)
}

func (r *runner) logError(format string, args ...any) {
	r.writeStderr(Progname + ": error: " + strings.TrimRight(fmt.Sprintf(format, args...), "\n") + "\n")
}

func (r *runner) logInfo(format string, args ...any) {
	r.writeStderr(Progname + ": " + strings.TrimSuffix(fmt.Sprintf(format, args...), "\n") + "\n")
}

func (r *runner) logDebug(format string, args ...any) {
	r.writeStderr(Progname + ": debug: " + fmt.Sprintf(format, args...) + "\n")
}

func (r *runner) timerExceeded(now int64) bool { return r.endTime > 0 && now >= r.endTime }

func (r *runner) stopped() bool { return r.stop.Load() }

// wakeAll interrupts every thread's epoll wait (after stop was set), so that
// waits need no timeout of their own.
func (r *runner) wakeAll() {
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	for _, t := range r.threads {
		if t.wakefd >= 0 {
			_, _ = unix.Write(t.wakefd, one)
		}
	}
}

// clientEnded notes a client's end; it reports true when the run must stop
// (--exit-on-abort).
func (r *runner) clientEnded(c *client) bool {
	if c.state == csAborted {
		r.anyAborted.Store(true)
		r.noteLostClient(c)
		if r.cfg.ExitOnAbort {
			if r.stop.CompareAndSwap(false, true) {
				r.abortTid.Store(int32(c.th.id))
				r.wakeAll()
			}
			return true
		}
	}
	return false
}

// noteLostClient counts an aborted client whose connection was lost.
func (r *runner) noteLostClient(c *client) {
	if _, ok := pgnet.Lost(c.lostErr); !ok {
		return
	}
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	r.lostClients++
	if r.lost == nil {
		r.lost = c.lostErr
	}
}

// lostConn returns how many aborted clients lost their connection and the
// first such loss.
func (r *runner) lostConn() (int, error) {
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	return r.lostClients, r.lost
}

// ParseScripts parses the scripts of cfg as pgbench does before it
// connects; errors are pgbench's messages (exit 1).
func ParseScripts(cfg *Config) ([]*script.Script, *script.Symbols, error) {
	syms := script.NewSymbols()
	var out []*script.Script
	for _, sp := range cfg.Scripts {
		s, err := script.Parse(sp.Desc, sp.Text, syms)
		if err != nil {
			return nil, nil, err
		}
		if cfg.Mode != QuerySimple {
			if err := s.CheckParams(); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, s)
	}
	return out, syms, nil
}

// ConnConfig builds the pgconn configuration from the connection string and
// the -h -p -U -d overrides, with libpq's conventions (a dbname that is a
// URL or holds '=' is a connection string).
func ConnConfig(connString, host, port, user, dbname string) (*pgconn.Config, error) {
	base := connString
	if dbname != "" {
		if isConnString(dbname) {
			base = dbname
			dbname = ""
		}
	}
	if base != "" && !isConnString(base) {
		if dbname == "" {
			dbname = base
		}
		base = ""
	}
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			return nil, fmt.Errorf("invalid connection string: %w", err)
		}
		if host != "" || port != "" {
			h, p := u.Hostname(), u.Port()
			if host != "" {
				h = host
			}
			if port != "" {
				p = port
			}
			u.Host = h
			if p != "" {
				u.Host = h + ":" + p
			}
			if strings.HasPrefix(h, "/") {
				q := u.Query()
				q.Set("host", h)
				if p != "" {
					q.Set("port", p)
				}
				u.Host = ""
				u.RawQuery = q.Encode()
			}
		}
		if user != "" {
			if pw, ok := u.User.Password(); ok {
				u.User = url.UserPassword(user, pw)
			} else {
				u.User = url.User(user)
			}
		}
		if dbname != "" {
			u.Path = "/" + dbname
		}
		base = u.String()
		if !strings.Contains(base, "://") {
			// postgresql:// alone (everything from the environment):
			// url.URL drops the empty authority.
			base = u.Scheme + "://" + strings.TrimPrefix(base, u.Scheme+":")
		}
	} else {
		var sb strings.Builder
		sb.WriteString(base)
		add := func(k, v string) {
			if v == "" {
				return
			}
			v = strings.ReplaceAll(v, `\`, `\\`)
			v = strings.ReplaceAll(v, `'`, `\'`)
			fmt.Fprintf(&sb, " %s='%s'", k, v)
		}
		add("host", host)
		add("port", port)
		add("user", user)
		add("dbname", dbname)
		base = strings.TrimSpace(sb.String())
	}
	cfg, err := pgconn.ParseConfig(base)
	if err != nil {
		return nil, err
	}
	if err := pgnet.Configure(cfg); err != nil {
		return nil, err
	}
	setApplicationName(cfg.RuntimeParams)
	return cfg, nil
}

// ApplicationName is the application_name of the connections, unless the
// connection string or PGAPPNAME gives one: pgbench's, which it sets as
// libpq's fallback_application_name.
const ApplicationName = "pgbench"

// setApplicationName gives the connection pgbench's application_name
// unless the connection string or PGAPPNAME set one, honouring a
// fallback_application_name of the connection string (which pgx would
// otherwise send to the server as a setting).
func setApplicationName(params map[string]string) {
	fallback, ok := params["fallback_application_name"]
	delete(params, "fallback_application_name")
	if !ok {
		fallback = ApplicationName
	}
	if params["application_name"] == "" {
		params["application_name"] = fallback
	}
}

func isConnString(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") || strings.Contains(s, "=")
}

// Run runs a benchmark as pgbench's run mode does and returns its figures.
// Errors before the run are *SetupError or script errors (pgbench exits 1);
// a run with aborted clients returns a Result with Aborted set (exit 2);
// --exit-on-abort returns *AbortError. A run cancelled through ctx returns
// the figures of what ran until then together with ctx.Err().
//
// Run is Start, Go and Wait in a row; a coordinated run's worker calls
// them itself, with the start barrier between Start and Go.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	s, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.Go()
	return s.Wait()
}

// Session is a run between its phases: Start has prepared it (scripts,
// setup connection, vacuum, clients and threads) and connected every
// client; Go starts the transactions; Wait returns the figures.
type Session struct {
	r        *runner
	res      *Result
	scale    int
	clients  []*client
	goCh     chan struct{}
	finished sync.WaitGroup
	cleanup  []func()
	// stopReporter ends the progress reporter once the threads are done
	stopReporter func()
	released     bool
	connErr      error
}

// Start runs the phases of a run before its transactions: it parses the
// scripts, opens the setup connection (version banner, scale, vacuum),
// builds the clients and threads and connects every client. Its errors
// are Run's setup errors; on success the caller must call Go (or Abort)
// and then Wait.
func Start(ctx context.Context, cfg Config) (*Session, error) {
	r, vars0, rr, err := newRunner(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{r: r, res: &Result{}}
	if s.scale, err = r.setupDatabase(ctx, vars0, rr, s.res); err != nil {
		return nil, err
	}
	s.clients = r.newClients(vars0, rr)
	if err := r.newThreads(s.clients, rr); err != nil {
		return nil, err
	}
	s.connect()
	if s.connErr != nil {
		_, err := s.Wait()
		return nil, err
	}
	return s, nil
}

// ServerVersion is the server's version as the setup connection saw it.
func (s *Session) ServerVersion() string { return s.res.ServerVersion }

// Scale is the run's scale (read from pgbench_branches for a builtin).
func (s *Session) Scale() int { return s.scale }

// Partitions are pgbench_accounts' partitioning as the setup connection
// saw it (a builtin script's run only).
func (s *Session) Partitions() (method string, n int) {
	return s.res.PartitionMethod, s.res.Partitions
}

// Go starts the transactions. The time since Start returned is left out
// of the initial connection time and of a -T run's duration.
func (s *Session) Go() {
	if s.released {
		return
	}
	s.released = true
	r := s.r
	if wait := nowUS() - r.connectedAt; r.connectedAt > 0 && wait > 0 {
		r.startTime += wait
		if r.endTime > 0 {
			r.endTime += wait
		}
	}
	if r.tickCh != nil {
		done := make(chan struct{})
		s.stopReporter = func() {
			close(r.tickCh)
			<-done
		}
		go r.reportProgress(s.res, done)
	}
	close(s.goCh)
}

// Abort ends a started session without running transactions (Wait still
// has to be called).
func (s *Session) Abort() {
	s.r.stop.Store(true)
	s.r.wakeAll()
	s.Go()
}

// Wait waits for the end of the run and returns its figures, with Run's
// errors.
func (s *Session) Wait() (*Result, error) {
	s.Go()
	r := s.r
	s.finished.Wait()
	end := nowUS()
	if s.stopReporter != nil {
		s.stopReporter()
	}
	connErr := s.connErr
	for _, t := range r.threads {
		if t.log != nil {
			if err := t.log.close(); err != nil && connErr == nil {
				connErr = &SetupError{Msg: err.Error()}
			}
		}
		if t.epfd >= 0 {
			unix.Close(t.epfd)
		}
	}
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
	s.cleanup = nil
	if connErr != nil {
		return nil, connErr
	}
	_, lost := r.lostConn()
	if r.cfg.ExitOnAbort && r.stop.Load() && r.anyAborted.Load() {
		return nil, &AbortError{Thread: r.cfg.Part.FirstThread + int(r.abortTid.Load()), Lost: lost}
	}
	res := s.res
	res.LostClients, res.Lost = r.lostConn()
	if res.Lost != nil {
		res.LostText = res.Lost.Error()
	}
	if r.ctx.Err() != nil {
		r.fillResult(res, s.scale, end)
		return res, r.ctx.Err()
	}
	for _, c := range s.clients {
		if c.state != csFinished {
			res.Aborted = true
		}
	}
	r.fillResult(res, s.scale, end)
	return res, nil
}

// newRunner checks and completes cfg, parses its scripts and derives the
// run's random state and connection settings.
func newRunner(ctx context.Context, cfg Config) (*runner, *script.Variables, script.RunRandom, error) {
	cfg.normalize()
	if err := cfg.Part.check(cfg.Clients, min(cfg.Threads, cfg.Clients)); err != nil {
		return nil, nil, script.RunRandom{}, &SetupError{Msg: err.Error()}
	}
	scripts, syms, err := ParseScripts(&cfg)
	if err != nil {
		return nil, nil, script.RunRandom{}, err
	}
	r := &runner{ctx: ctx, cfg: cfg, scripts: scripts, mode: cfg.Mode, stderr: cfg.Stderr}
	for _, sp := range cfg.Scripts {
		r.weights = append(r.weights, sp.Weight)
		r.totalWeight += int64(sp.Weight)
	}
	if err := script.CheckTotalWeight(r.weights); err != nil {
		return nil, nil, script.RunRandom{}, &SetupError{Msg: err.Error()}
	}
	n := 0
	for _, s := range scripts {
		names := make([]string, len(s.Commands))
		for j, c := range s.Commands {
			if c.Type == script.SQLCommand {
				names[j] = "P_" + strconv.Itoa(n)
				n++
			}
		}
		r.stmtNames = append(r.stmtNames, names)
	}
	r.nclients = cfg.Clients
	raiseOpenFiles(cfg.Clients + 3)
	r.nthreads = min(cfg.Threads, cfg.Clients)
	r.nxacts = cfg.Transactions
	if cfg.Duration > 0 {
		r.nxacts = 0
	}
	if cfg.Rate > 0 {
		r.throttleDelay = ThrottleDelayUS(cfg.Rate, r.nthreads)
	}
	r.latencyLimit = cfg.LatencyLimit.Microseconds()
	r.maxTries = uint32(max(cfg.MaxTries, 0))
	r.aggInterval = int64(cfg.AggregateInterval / time.Second * 1000000)
	r.samplingRate = cfg.SamplingRate
	r.perScript = len(scripts) > 1
	r.perCommand = cfg.ReportPerCommand
	r.debug = cfg.Debug
	r.verboseErrors = cfg.VerboseErrors
	r.connect = cfg.Connect
	r.epochShift = clockBase.UnixMicro()

	// variables: -D for client 0, copied to the others
	vars0 := script.NewVariables(syms)
	for _, d := range cfg.Defines {
		if err := vars0.DefineString("option", d.Name, d.Value); err != nil {
			return nil, nil, script.RunRandom{}, &SetupError{Msg: err.Error()}
		}
	}
	p := cfg.Part.whole(r.nclients, r.nthreads)
	rr := script.DeriveRunRandom(cfg.RandomSeed, p.TotalClients, p.TotalThreads, vars0.IsDefined("default_seed"))
	r.cfg.Part = p

	pgcfg, err := ConnConfig(cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName)
	if err != nil {
		return nil, nil, script.RunRandom{}, &SetupError{Msg: err.Error()}
	}
	r.pgcfg = pgcfg
	return r, vars0, rr, nil
}

// ThrottleDelayUS is the mean delay between the scheduled starts of one
// thread's transactions under -R: the rate is shared evenly by the
// threads, each drawing its own Poisson schedule (pgbench's throttle_delay
// *= nthreads), so that the threads' schedules together are one Poisson
// stream of the whole rate.
func ThrottleDelayUS(rate float64, threads int) float64 {
	return 1e6 / rate * float64(threads)
}

// threadRandom is the random state of the part's thread i: that of thread
// FirstThread+i of the whole run.
func threadRandom(rr script.RunRandom, p Part, i int) script.ThreadRandom {
	return rr.Threads[p.FirstThread+i]
}

// ThrottleSchedule returns the scheduled start times (microseconds from
// each thread's start) that the -R schedule of cfg's threads draws until
// horizon: one list per thread, from the same random streams and delays a
// run uses, without connecting. A coordinated run's rate split is checked
// with it.
func ThrottleSchedule(cfg Config, horizon time.Duration) ([][]int64, error) {
	if cfg.Rate <= 0 {
		return nil, fmt.Errorf("no rate (-R) to schedule")
	}
	r, _, rr, err := newRunner(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	out := make([][]int64, r.nthreads)
	for i := range out {
		rng := threadRandom(rr, r.cfg.Part, i).Throttle
		var trigger int64
		for {
			trigger += rng.Poisson(r.throttleDelay)
			if trigger > horizon.Microseconds() {
				break
			}
			out[i] = append(out[i], trigger)
		}
	}
	return out, nil
}

// setupDatabase is the setup connection's work: the version banner, the
// scale and partitioning of a builtin's tables, the automatic variables and
// pgbench's vacuum. It returns the scale.
func (r *runner) setupDatabase(ctx context.Context, vars0 *script.Variables, rr script.RunRandom, res *Result) (int, error) {
	cfg := &r.cfg
	setup, err := pgconn.ConnectConfig(ctx, r.pgcfg.Copy())
	if err != nil {
		return 0, &SetupError{Msg: connError(err) + "\n" + Progname + ": error: could not create connection for setup"}
	}
	defer setup.Close(ctx)
	res.ServerVersion = setup.ParameterStatus("server_version")
	if !cfg.Quiet {
		fmt.Fprintf(cfg.Stdout, "pgbench (%s, server %s)\n", "pglab", res.ServerVersion)
	}
	scale := cfg.Scale
	builtin := false
	for _, sp := range cfg.Scripts {
		builtin = builtin || sp.Builtin
	}
	if builtin {
		if err := r.tableInfo(ctx, setup, &scale, res); err != nil {
			return 0, err
		}
	}
	if !vars0.IsDefined("scale") {
		_ = vars0.DefineInt("startup", "scale", int64(scale))
	}
	if !vars0.IsDefined("default_seed") {
		_ = vars0.DefineInt("startup", "default_seed", rr.DefaultSeed)
	}
	if !vars0.IsDefined("random_seed") {
		_ = vars0.DefineInt("startup", "random_seed", int64(cfg.RandomSeed))
	}
	if !cfg.NoVacuum {
		r.vacuum(ctx, setup, "starting vacuum...", "vacuum pgbench_branches", "vacuum pgbench_tellers", "truncate pgbench_history")
		if cfg.VacuumAll {
			r.vacuum(ctx, setup, "starting vacuum pgbench_accounts...", "vacuum analyze pgbench_accounts")
		}
	}
	return scale, nil
}

// vacuum runs pgbench's pre-run maintenance statements between its notice
// and "end.", ignoring their errors as pgbench does.
func (r *runner) vacuum(ctx context.Context, conn *pgconn.PgConn, notice string, sqls ...string) {
	if !r.cfg.Quiet {
		r.writeStderr(notice)
	}
	for _, q := range sqls {
		r.tryExec(ctx, conn, q)
	}
	if !r.cfg.Quiet {
		r.writeStderr("end.\n")
	}
}

// newClients builds the clients with their variables and random streams;
// a part's clients have the ids (and :client_id) of their place in the
// whole run.
func (r *runner) newClients(vars0 *script.Variables, rr script.RunRandom) []*client {
	clientIDDefined := vars0.IsDefined("client_id")
	first := r.cfg.Part.FirstClient
	clients := make([]*client, r.nclients)
	for i := range clients {
		v := vars0
		if i > 0 {
			v = vars0.Clone()
		}
		id := first + i
		if !clientIDDefined {
			_ = v.DefineInt("startup", "client_id", int64(id))
		}
		c := &client{id: id, vars: v, rng: rr.Clients[id], in: make([]byte, 16<<10), out: make([]byte, 0, 1024),
			pendBuf: make([]pendItem, 0, 64), lastRows: -1}
		c.pend = c.pendBuf[:0]
		c.env = script.Env{Vars: v, Rand: &c.rng, Debug: lockedWriter{r}}
		c.prepared = make([][]bool, len(r.scripts))
		for j, s := range r.scripts {
			c.prepared[j] = make([]bool, len(s.Commands))
		}
		clients[i] = c
	}
	return clients
}

// newThreads deals the clients to the -j threads as pgbench does (evenly,
// in order) and gives each its random streams, statistics, CPU and
// eventfd.
func (r *runner) newThreads(clients []*client, rr script.RunRandom) error {
	cfg := &r.cfg
	threads := make([]*thread, r.nthreads)
	var cpus []int
	if !cfg.Portable && !r.connect {
		// (under -C each transaction has a new backend: nothing to place,
		// and a pinned thread's connects cost more than a free one's)
		cpus = pinPlan(r.nthreads, cfg.NoPin)
	}
	dealt := 0
	for i := range threads {
		ns := (r.nclients - dealt + r.nthreads - i - 1) / (r.nthreads - i)
		tr := threadRandom(rr, cfg.Part, i)
		t := &thread{id: i, r: r, clients: clients[dealt : dealt+ns], raw: !cfg.Portable, epfd: -1,
			chooseRng: tr.Choose, throttleRng: tr.Throttle, sampleRng: tr.Sample,
			hist: newHist(), tickHist: newHist(), events: make([]unix.EpollEvent, max(ns, 1))}
		t.scriptStats = make([]statsData, len(r.scripts))
		t.cmdStats = make([][]cmdStats, len(r.scripts))
		for j, s := range r.scripts {
			t.cmdStats[j] = make([]cmdStats, len(s.Commands))
		}
		t.cpu = -1
		if cpus != nil {
			t.cpu = cpus[i]
		}
		for _, c := range t.clients {
			c.th = t
		}
		dealt += ns
		threads[i] = t
		wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		if err != nil {
			for _, o := range threads[:i] {
				unix.Close(o.wakefd)
			}
			return &SetupError{Msg: fmt.Sprintf("eventfd: %v", err)}
		}
		t.wakefd = wfd
	}
	r.threads = threads
	return nil
}

// connect starts the threads, which open their clients' connections, and
// waits until all are connected (or one failed); the threads then wait for
// Go.
func (s *Session) connect() {
	r := s.r
	threads := r.threads
	s.cleanup = append(s.cleanup, func() {
		for _, t := range threads {
			unix.Close(t.wakefd)
		}
	})
	stopWatch := make(chan struct{})
	s.cleanup = append(s.cleanup, func() { close(stopWatch) })
	go func() {
		select {
		case <-r.ctx.Done():
			r.stop.Store(true)
			r.wakeAll()
		case <-stopWatch:
		}
	}()

	// Each raw-path thread holds a P even while it waits (see epollWait):
	// leave at least one more for the run's other goroutines.
	if want := r.nthreads + 1; runtime.GOMAXPROCS(0) < want {
		prev := runtime.GOMAXPROCS(want)
		s.cleanup = append(s.cleanup, func() { runtime.GOMAXPROCS(prev) })
	}
	r.startTime = nowUS()
	if r.cfg.Duration > 0 {
		r.endTime = r.startTime + int64(r.cfg.Duration/time.Second)*1000000
	}
	if r.cfg.Progress > 0 {
		r.tickCh = make(chan tickMsg, r.nthreads*4)
	}

	var connected sync.WaitGroup
	s.goCh = make(chan struct{})
	connected.Add(len(threads))
	s.finished.Add(len(threads))
	for _, t := range threads {
		go t.main(&connected, s.goCh, &s.finished)
	}
	connected.Wait()
	var connErr error
	for _, t := range threads {
		if t.connectErr != nil && connErr == nil {
			connErr = t.connectErr
		}
	}
	if connErr == nil && !r.connect {
		placeLinks(threads)
		connErr = registerAll(threads)
	}
	for _, t := range threads {
		if t.raw && t.cpu >= 0 {
			r.pinnedRaw++
		}
	}
	if connErr != nil {
		r.stop.Store(true)
		r.wakeAll()
	}
	s.connErr = connErr
	r.connectedAt = nowUS()
}

// main is a thread's life: log file, connections, barrier, run.
func (t *thread) main(connected *sync.WaitGroup, goCh chan struct{}, finished *sync.WaitGroup) {
	defer finished.Done()
	r := t.r
	if t.cpu >= 0 {
		pinned, unpin := pin(t.cpu)
		defer unpin()
		if !pinned {
			t.cpu = -1
		}
	}
	fail := func(err error) {
		t.connectErr = err
		connected.Done()
		<-goCh
	}
	if r.cfg.Log {
		pid := r.cfg.LogPID
		if pid == 0 {
			pid = os.Getpid()
		}
		l, err := openTxLog(t, r.cfg.LogPrefix, pid)
		if err != nil {
			fail(&SetupError{Msg: err.Error()})
			return
		}
		t.log = l
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		fail(&SetupError{Msg: fmt.Sprintf("epoll_create: %v", err)})
		return
	}
	t.epfd = epfd
	wake := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeID}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, t.wakefd, &wake); err != nil {
		fail(&SetupError{Msg: fmt.Sprintf("epoll_ctl: %v", err)})
		return
	}
	if !r.connect {
		// Connect a few clients at a time: authentication (SCRAM) costs
		// CPU on both sides and round trips; overlapping them shortens
		// the setup of many clients. The run itself starts after all.
		errs := make([]error, len(t.clients))
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for i, c := range t.clients {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				c.ln, errs[i] = dial(r.ctx, r.pgcfg, !t.raw)
			}()
		}
		wg.Wait()
		for i, c := range t.clients {
			if errs[i] != nil {
				for _, o := range t.clients {
					if o.ln != nil {
						o.ln.close()
						o.ln = nil
					}
				}
				fail(&SetupError{Msg: connError(errs[i]) + "\n" + Progname + ": error: " + fmt.Sprintf("could not create connection for client %d", c.id)})
				return
			}
			if c.ln.fd < 0 {
				t.raw = false
			}
		}
		// the sockets join the thread's epoll set once every thread has
		// connected (see placeLinks)
	} else if r.pgcfg.TLSConfig != nil {
		t.raw = false
	}
	connected.Done()
	<-goCh
	if r.stopped() {
		for _, c := range t.clients {
			if c.ln != nil {
				c.ln.close()
			}
		}
		return
	}
	if t.raw && t.cpu >= 0 {
		t.startTogether()
	}
	t.benchStart = nowUS()
	t.throttleTrigger = t.benchStart
	if t.log != nil {
		t.log.aggStart = (t.benchStart + r.epochShift) / 1000000 * 1000000
	}
	if r.cfg.Progress > 0 {
		t.nextReport = r.startTime + r.cfg.Progress.Microseconds()
	}
	if t.raw {
		t.runRaw()
	} else {
		t.runBlocking()
	}
	if r.tickCh != nil {
		r.tickCh <- tickMsg{thread: t.id, done: true}
	}
}

// runBlocking runs the thread's clients on the fallback path: a goroutine
// per client with blocking I/O, all under the thread's lock except while
// waiting.
func (t *thread) runBlocking() {
	for _, c := range t.clients {
		if c.ln != nil {
			if err := c.ln.ensureConn(); err != nil {
				t.r.logError("client %d: %v", c.id, err)
			}
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	t.blockMu = &mu
	wg.Add(len(t.clients))
	for _, c := range t.clients {
		go t.runClientBlocking(c, wg.Done)
	}
	stopTicks := make(chan struct{})
	if t.nextReport > 0 {
		go func() {
			for {
				mu.Lock()
				next := t.nextReport
				mu.Unlock()
				if next == 0 {
					return
				}
				d := next - nowUS()
				select {
				case <-stopTicks:
					return
				case <-time.After(time.Duration(max(d, 0)) * time.Microsecond):
				}
				mu.Lock()
				t.publishTick(nowUS())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stopTicks)
}

func (r *runner) tryExec(ctx context.Context, conn *pgconn.PgConn, sql string) {
	_, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		var pe *pgconn.PgError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Severity + ":  " + pe.Message
		}
		r.logError("%s", msg)
		r.writeStderr(Progname + ": detail: (ignoring this error and continuing anyway)\n")
	}
}

// tableInfo reads the scale and partitioning as pgbench's GetTableInfo.
func (r *runner) tableInfo(ctx context.Context, conn *pgconn.PgConn, scale *int, res *Result) error {
	rr := conn.ExecParams(ctx, "select count(*) from pgbench_branches", nil, nil, nil, nil).Read()
	if rr.Err != nil {
		var pe *pgconn.PgError
		msg := rr.Err.Error()
		hint := ""
		if errors.As(rr.Err, &pe) {
			msg = pe.Severity + ":  " + pe.Message
			if pe.Code == "42P01" {
				hint = fmt.Sprintf("\n%s: hint: Perhaps you need to do initialization (\"pgbench -i\") in database \"%s\".", Progname, r.pgcfg.Database)
			}
		}
		return &SetupError{Msg: "could not count number of branches: " + msg + hint, Err: rr.Err}
	}
	if len(rr.Rows) == 1 {
		n, _ := strconv.Atoi(string(rr.Rows[0][0]))
		*scale = n
	}
	if r.cfg.ScaleGiven {
		r.writeStderr(fmt.Sprintf("%s: warning: scale option ignored, using count from pgbench_branches table (%d)\n", Progname, *scale))
	}
	q := `select o.n, p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c
join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace)
cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n)
left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid)
left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent)
where c.relname = 'pgbench_accounts' and o.n is not null
group by 1, 2 order by 1 asc limit 1`
	pr := conn.ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if pr.Err == nil && len(pr.Rows) == 1 {
		switch string(pr.Rows[0][1]) {
		case "r":
			res.PartitionMethod = "range"
		case "h":
			res.PartitionMethod = "hash"
		}
		res.Partitions, _ = strconv.Atoi(string(pr.Rows[0][2]))
	}
	return nil
}

// figures merges the threads' figures.
func (r *runner) figures(end int64) *Figures {
	fig := &Figures{Hist: newHist(), Scripts: make([]Stats, len(r.scripts)), Commands: make([][]CommandStats, len(r.scripts))}
	var st statsData
	var benchStart int64
	scripts := make([]statsData, len(r.scripts))
	cmds := make([][]cmdStats, len(r.scripts))
	for j, s := range r.scripts {
		cmds[j] = make([]cmdStats, len(s.Commands))
	}
	for _, t := range r.threads {
		st.merge(&t.stats)
		fig.Hist.Merge(t.hist)
		fig.LatencyLate += t.latencyLate
		fig.ConnDurationUS += t.connDuration
		if t.benchStart != 0 && (benchStart == 0 || t.benchStart < benchStart) {
			benchStart = t.benchStart
		}
		for j := range scripts {
			scripts[j].merge(&t.scriptStats[j])
			for k := range cmds[j] {
				c := &cmds[j][k]
				o := &t.cmdStats[j][k]
				c.latency.merge(&o.latency)
				c.failures += o.failures
				c.retries += o.retries
			}
		}
	}
	if benchStart == 0 {
		benchStart = end
	}
	fig.Stats = st.export()
	for j := range scripts {
		fig.Scripts[j] = scripts[j].export()
		fig.Commands[j] = make([]CommandStats, len(cmds[j]))
		for k, c := range cmds[j] {
			fig.Commands[j][k] = CommandStats{Latency: c.latency.export(), Failures: c.failures, Retries: c.retries}
		}
	}
	fig.ConnectUS = benchStart - r.startTime
	fig.BenchUS = end - benchStart
	return fig
}

// fillResult computes res from the threads' figures.
func (r *runner) fillResult(res *Result, scale int, end int64) {
	fig := r.figures(end)
	res.Scale = scale
	summarize(res, &r.cfg, r.scripts, fig)
}

// Summarize computes the Result of a run from its figures as one process
// running all of cfg's clients and threads would: a coordinated run's
// summary from its workers' merged figures. res may carry what the setup
// connection saw (server version, scale, partitions); its other figures are
// replaced.
func Summarize(cfg Config, fig *Figures, res *Result) error {
	cfg.normalize()
	scripts, _, err := ParseScripts(&cfg)
	if err != nil {
		return err
	}
	if len(fig.Scripts) != len(scripts) || len(fig.Commands) != len(scripts) {
		return fmt.Errorf("figures of %d scripts for a run of %d", len(fig.Scripts), len(scripts))
	}
	summarize(res, &cfg, scripts, fig)
	return nil
}

// summarize fills res from fig for a run of cfg (normalized) with the
// parsed scripts.
func summarize(res *Result, cfg *Config, scripts []*script.Script, fig *Figures) {
	st := fig.Stats.internal()
	nthreads := min(cfg.Threads, cfg.Clients)
	latencyLimit := cfg.LatencyLimit.Microseconds()
	var totalWeight int64
	for _, sp := range cfg.Scripts {
		totalWeight += int64(sp.Weight)
	}
	res.Figures = fig
	res.Histogram = fig.Hist
	if len(scripts) == 1 {
		res.TransactionType = scripts[0].Source
	} else {
		res.TransactionType = "multiple scripts"
	}
	res.QueryMode = cfg.Mode.String()
	res.Clients = cfg.Clients
	res.Threads = nthreads
	res.MaxTries = max(cfg.MaxTries, 0)
	if cfg.Duration > 0 {
		res.DurationSeconds = int(cfg.Duration / time.Second)
	} else {
		res.TransactionsPerClient = cfg.Transactions
	}
	res.Transactions = st.cnt
	res.Failed = st.failures()
	res.SerializationFailures = st.serFailures
	res.DeadlockFailures = st.deadFailures
	res.Retried = st.retried
	res.Retries = st.retries
	res.Skipped = st.skipped
	res.LatencyLate = fig.LatencyLate
	dur := float64(fig.BenchUS) / 1e6
	if dur > 0 {
		res.TPS = float64(st.cnt) / dur
	}
	if all := float64(fig.ConnectUS+fig.BenchUS) / 1e6; all > 0 {
		res.TPSWithConnections = float64(st.cnt) / all
	}
	res.BenchDuration = time.Duration(fig.BenchUS) * time.Microsecond
	res.LatencyAvgMs = st.latency.avg() / 1000
	res.LatencyStddevMs = st.latency.stddev() / 1000
	fillPercentiles(fig.Hist, &res.LatencyP50Ms, &res.LatencyP90Ms, &res.LatencyP99Ms, &res.LatencyP999Ms, &res.LatencyMaxMs)
	if st.cnt > 0 {
		res.LagAvgMs = st.lag.sum / float64(st.cnt) / 1000
	}
	res.LagMaxMs = st.lag.max / 1000
	if cfg.Connect {
		if n := st.cnt + st.failures(); n > 0 {
			res.ConnMs = float64(fig.ConnDurationUS) / 1000 / float64(n)
		}
	} else {
		res.ConnMs = float64(fig.ConnectUS) / 1000
	}
	total := st.cnt + st.skipped + st.failures()
	if total > 0 {
		res.computedLatency = float64(fig.BenchUS) / 1000 * float64(cfg.Clients) / float64(total)
	}
	res.latencyMeasured = cfg.Rate > 0 || cfg.Progress > 0 || cfg.LatencyLimit > 0
	res.throttled = cfg.Rate > 0
	res.latencyLimitMs = float64(latencyLimit) / 1000
	res.connect = cfg.Connect
	res.perScript = len(scripts) > 1
	res.perCommand = cfg.ReportPerCommand
	res.failuresDetailed = cfg.FailuresDetailed
	res.Scripts = nil
	for j, s := range scripts {
		ss := fig.Scripts[j].internal()
		w := cfg.Scripts[j].Weight
		sr := ScriptResult{Desc: s.Source, Weight: w, WeightPct: 100 * float64(w) / float64(totalWeight),
			Transactions: ss.cnt, Failed: ss.failures(), SerializationFailures: ss.serFailures, DeadlockFailures: ss.deadFailures,
			Retried: ss.retried, Retries: ss.retries, Skipped: ss.skipped,
			LatencyAvgMs: ss.latency.avg() / 1000, LatencyStddevMs: ss.latency.stddev() / 1000, latencyCount: ss.latency.count}
		if len(scripts) == 1 {
			sr.Transactions, sr.Failed, sr.SerializationFailures, sr.DeadlockFailures = st.cnt, st.failures(), st.serFailures, st.deadFailures
			sr.Retried, sr.Retries, sr.Skipped = st.retried, st.retries, st.skipped
			sr.LatencyAvgMs, sr.LatencyStddevMs, sr.latencyCount = res.LatencyAvgMs, res.LatencyStddevMs, st.latency.count
		}
		if dur > 0 {
			sr.TPS = float64(sr.Transactions) / dur
		}
		if cfg.ReportPerCommand {
			for k, c := range s.Commands {
				cs := fig.Commands[j][k]
				avg := 0.0
				if cs.Latency.Count > 0 {
					avg = 1000 * cs.Latency.Sum / float64(cs.Latency.Count)
				}
				sr.Commands = append(sr.Commands, CommandResult{Line: c.FirstLine, LatencyAvgMs: avg, Failures: cs.Failures, Retries: cs.Retries})
			}
		}
		res.Scripts = append(res.Scripts, sr)
	}
}

// raiseOpenFiles raises the soft limit on open files to n if the hard limit
// allows (the CLI checks and reports this as pgbench does; API callers get
// it silently).
func raiseOpenFiles(n int) {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur < uint64(n) && rl.Max >= uint64(n) {
		rl.Cur = uint64(n)
		_ = unix.Setrlimit(unix.RLIMIT_NOFILE, &rl)
	}
}

func fillPercentiles(h *hdrhistogram.Histogram, p50, p90, p99, p999, pmax *float64) {
	if h.TotalCount() == 0 {
		return
	}
	ms := func(v int64) float64 { return float64(v) / 1000 }
	if p50 != nil {
		*p50 = ms(h.ValueAtQuantile(50))
	}
	if p90 != nil {
		*p90 = ms(h.ValueAtQuantile(90))
	}
	if p99 != nil {
		*p99 = ms(h.ValueAtQuantile(99))
	}
	if p999 != nil {
		*p999 = ms(h.ValueAtQuantile(99.9))
	}
	if pmax != nil {
		*pmax = ms(h.Max())
	}
}
