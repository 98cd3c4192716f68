package dist

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pglab/pglab/bench"
)

// Options configure a Coordinator.
type Options struct {
	// Listen is the TCP address to accept workers on (host:port).
	Listen string
	// Workers is how many workers a run needs (--expect-workers).
	Workers int
	// Token is the secret workers must prove they hold; required unless
	// Listen is a loopback address.
	Token string
	// JoinTimeout bounds the wait for all workers to join; ReadyTimeout
	// the wait, after a run's shares were sent, until every worker has
	// connected its clients (the barrier).
	JoinTimeout, ReadyTimeout time.Duration
	// Version is pglab's version; workers must run the same.
	Version string
	// Stderr receives the coordinator's notices and what the workers'
	// engines print (client errors); Stdout the version banner.
	Stderr, Stdout io.Writer
	// Quiet leaves out the notices (joins).
	Quiet bool
}

// RunError is a coordinated run that failed as a whole: a worker lost,
// refused or not ready in time. Its message is one line; the exit code is
// 2, as pgbench's for a run that did not complete.
type RunError struct{ Msg string }

// Error returns the message.
func (e *RunError) Error() string { return e.Msg }

// Coordinator accepts workers and runs workloads on them. Its methods are
// called from one goroutine.
type Coordinator struct {
	opts   Options
	ln     net.Listener
	frames chan peerFrame
	done   chan struct{}

	mu      sync.Mutex
	peers   []*peer
	refusal error // a worker refused for its version: the run cannot go on
	run     int
	closed  bool
}

// peer is one joined worker.
type peer struct {
	c     *conn
	pos   int
	name  string
	index int // its Kubernetes completion index, or -1
	addr  string
	lost  error
}

// peerFrame is a frame (or a read error) from a peer.
type peerFrame struct {
	p   *peer
	f   frame
	err error
}

// Listen opens the coordinator's listening socket.
func Listen(opts Options) (*Coordinator, error) {
	if opts.Workers < 1 {
		return nil, fmt.Errorf("--expect-workers must be at least 1")
	}
	host, _, err := net.SplitHostPort(opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", opts.Listen, err)
	}
	if opts.Token == "" && !isLoopback(host) {
		return nil, fmt.Errorf("--listen %s is not a loopback address: give --token (or PGLAB_TOKEN) so that only your workers can join", opts.Listen)
	}
	if opts.JoinTimeout <= 0 {
		opts.JoinTimeout = 5 * time.Minute
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 2 * time.Minute
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", opts.Listen, err)
	}
	c := &Coordinator{opts: opts, ln: ln, frames: make(chan peerFrame, 1024), done: make(chan struct{})}
	go c.acceptLoop()
	return c, nil
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr is the address workers join.
func (c *Coordinator) Addr() net.Addr { return c.ln.Addr() }

func (c *Coordinator) notice(format string, args ...any) {
	if !c.opts.Quiet {
		fmt.Fprintf(c.opts.Stderr, "%s: %s\n", bench.Progname, fmt.Sprintf(format, args...))
	}
}

// acceptLoop admits workers until the run has all of them, and refuses
// later ones, until Close.
func (c *Coordinator) acceptLoop() {
	for {
		nc, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.handshake(nc)
	}
}

// handshake checks a new worker: protocol, version, token.
func (c *Coordinator) handshake(nc net.Conn) {
	cn := newConn(nc)
	nonceBytes := make([]byte, 32)
	_, _ = rand.Read(nonceBytes)
	nonce := hex.EncodeToString(nonceBytes)
	if err := cn.send(msgChallenge, challengeMsg{Protocol: Protocol, Version: c.opts.Version, Nonce: nonce}); err != nil {
		cn.close()
		return
	}
	f, err := cn.recv(0)
	var h helloMsg
	if err == nil && f.Type != msgHello {
		err = fmt.Errorf("sent %q before hello", f.Type)
	}
	if err == nil {
		err = decode(f, &h)
	}
	if err != nil {
		c.notice("ignored a connection from %s: %v", nc.RemoteAddr(), err)
		cn.close()
		return
	}
	who := fmt.Sprintf("%s from %s", h.Name, nc.RemoteAddr())
	refuse := func(reason string, fatal bool) {
		_ = cn.send(msgRefuse, refuseMsg{Reason: reason})
		cn.close()
		c.notice("refused worker %s: %s", who, reason)
		if fatal {
			c.mu.Lock()
			if c.refusal == nil {
				c.refusal = &RunError{Msg: fmt.Sprintf("refused worker %s: %s", who, reason)}
			}
			c.mu.Unlock()
		}
	}
	switch {
	case h.Protocol != Protocol:
		refuse(fmt.Sprintf("it speaks %s, this coordinator %s", h.Protocol, Protocol), true)
		return
	case h.Version != c.opts.Version:
		refuse(fmt.Sprintf("it runs pglab %s, this coordinator pglab %s", h.Version, c.opts.Version), true)
		return
	case c.opts.Token != "" && !hmac.Equal([]byte(h.MAC), []byte(mac(c.opts.Token, nonce))):
		refuse("wrong or missing token (--token, PGLAB_TOKEN)", false)
		return
	}
	c.mu.Lock()
	if c.closed || len(c.peers) >= c.opts.Workers {
		n := len(c.peers)
		c.mu.Unlock()
		refuse(fmt.Sprintf("the run already has its %d workers", n), false)
		return
	}
	p := &peer{c: cn, pos: len(c.peers), name: h.Name, index: h.Index, addr: nc.RemoteAddr().String()}
	c.peers = append(c.peers, p)
	n := len(c.peers)
	c.mu.Unlock()
	c.notice("worker %d of %d joined: %s", n, c.opts.Workers, who)
	go c.readLoop(p)
	go c.heartbeats(p)
}

// readLoop hands a peer's frames to the coordinator until its connection
// fails (which is reported as a frame with err).
func (c *Coordinator) readLoop(p *peer) {
	for {
		f, err := p.c.recv(0)
		select {
		case c.frames <- peerFrame{p: p, f: f, err: err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *Coordinator) heartbeats(p *peer) {
	t := time.NewTicker(HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if p.c.send(msgHeartbeat, nil) != nil {
				return
			}
		}
	}
}

// Accept waits until all workers have joined (JoinTimeout), a worker was
// refused for its version, or ctx ends.
func (c *Coordinator) Accept(ctx context.Context) error {
	deadline := time.Now().Add(c.opts.JoinTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c.mu.Lock()
		n, refusal := len(c.peers), c.refusal
		c.mu.Unlock()
		if refusal != nil {
			return refusal
		}
		if n >= c.opts.Workers {
			return nil
		}
		if time.Now().After(deadline) {
			return &RunError{Msg: fmt.Sprintf("only %d of %d workers joined %s within %s; the run is aborted", n, c.opts.Workers, c.Addr(), c.opts.JoinTimeout)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Close ends the session: every worker gets bye (failed tells them the
// last run failed) and the listener closes.
func (c *Coordinator) Close(failed error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	peers := c.peers
	c.mu.Unlock()
	bye := byeMsg{}
	if failed != nil {
		bye.Failed, bye.Reason = true, failed.Error()
	}
	for _, p := range peers {
		if p.lost == nil {
			_ = p.c.send(msgBye, bye)
		}
	}
	close(c.done)
	for _, p := range peers {
		p.c.close()
	}
	_ = c.ln.Close()
}

type byeMsg struct {
	Failed bool   `json:"failed"`
	Reason string `json:"reason,omitempty"`
}

// WorkerResult is one worker's share of a run and its figures.
type WorkerResult struct {
	// Worker is its position (join order), Name its host and process.
	Worker int    `json:"worker"`
	Name   string `json:"name"`
	// Index is its Kubernetes completion index, or -1.
	Index int `json:"index"`
	// FirstClient, Clients and Threads are its share.
	FirstClient int     `json:"first_client"`
	Clients     int     `json:"clients"`
	Threads     int     `json:"threads"`
	Rate        float64 `json:"rate,omitempty"`
	// Result is its share's figures as a single process's summary; nil
	// when it sent none (lost).
	Result *bench.Result `json:"result"`
}

// Outcome is a coordinated run: the merged result and each worker's.
type Outcome struct {
	// Result is the merged run as one process with all clients and
	// threads would report it; nil when the run failed before its end.
	Result  *bench.Result  `json:"result"`
	Workers []WorkerResult `json:"workers"`
}

// Run runs cfg on the joined workers and returns the merged result. Its
// errors: *bench.SetupError and script errors as Run's (exit 1: a
// worker's setup failed, its message says which); *bench.AbortError
// (--exit-on-abort); *RunError (exit 2: a worker lost, refused or not
// ready in time; nothing is merged); ctx.Err() with the merged figures of
// what ran when ctx ended (every worker was stopped).
func (c *Coordinator) Run(ctx context.Context, cfg bench.Config) (*Outcome, error) {
	c.mu.Lock()
	peers := append([]*peer(nil), c.peers...)
	c.mu.Unlock()
	if len(peers) < c.opts.Workers {
		return nil, &RunError{Msg: fmt.Sprintf("%d of %d workers joined", len(peers), c.opts.Workers)}
	}
	c.run++
	r := &coordRun{c: c, ctx: ctx, cfg: cfg, peers: peers, id: c.run}
	return r.run()
}

// coordRun is one run on the workers.
type coordRun struct {
	c      *Coordinator
	ctx    context.Context
	cfg    bench.Config
	id     int
	peers  []*peer
	shares []bench.Config
	ready  []*readyMsg
	result []*resultMsg
	res    *bench.Result

	printer  *bench.ProgressPrinter
	pending  map[int]*pendingInterval
	lastNo   []int // the last interval each worker sent
	nextTick int
	finished int
	stopped  bool
	lost     error
	failed   *failMsg
	failedBy *peer
}

type pendingInterval struct {
	iv bench.Interval
}

func (r *coordRun) run() (*Outcome, error) {
	cfg := r.cfg
	shares, err := Split(cfg, len(r.peers))
	if err != nil {
		return nil, &RunError{Msg: err.Error()}
	}
	stripped := false
	for i := range shares {
		var s1, s2 bool
		shares[i].ConnString, s1 = StripPassword(shares[i].ConnString)
		shares[i].DBName, s2 = StripPassword(shares[i].DBName) // a dbname may be a connection string
		stripped = stripped || s1 || s2
		if shares[i].Progress == 0 {
			// intervals for the run's series (no lines: workers are quiet)
			shares[i].Progress = time.Second
		}
	}
	if stripped {
		r.c.notice("the password of the connection string is not sent to the workers: they take theirs from their own environment (PGPASSWORD, .pgpass, a service file, or pglab worker --target)")
	}
	r.shares = shares
	r.ready = make([]*readyMsg, len(r.peers))
	r.lastNo = make([]int, len(r.peers))
	r.result = make([]*resultMsg, len(r.peers))
	for i, p := range r.peers {
		b, err := json.Marshal(shares[i])
		if err != nil {
			return nil, fmt.Errorf("encode the share: %w", err)
		}
		if err := p.c.send(msgAssign, assignMsg{Run: r.id, Worker: i, Workers: len(r.peers), Config: b, Hist: bench.Hist()}); err != nil {
			return nil, r.fail(&RunError{Msg: fmt.Sprintf("worker %d (%s) lost: %v", i, p.name, err)})
		}
	}
	if err := r.barrier(); err != nil {
		return r.outcome(), err
	}
	r.start()
	if err := r.collect(); err != nil {
		return r.outcome(), err
	}
	return r.merge()
}

// fail stops the other workers of a failing run.
func (r *coordRun) fail(err error) error {
	r.stopAll("the run failed: " + err.Error())
	return err
}

func (r *coordRun) stopAll(reason string) {
	if r.stopped {
		return
	}
	r.stopped = true
	for _, p := range r.peers {
		if p.lost == nil {
			_ = p.c.send(msgStop, stopMsg{Reason: reason})
		}
	}
}

// barrier waits until every worker is ready (ReadyTimeout).
func (r *coordRun) barrier() error {
	timeout := time.NewTimer(r.c.opts.ReadyTimeout)
	defer timeout.Stop()
	for n := 0; n < len(r.peers); {
		select {
		case <-r.ctx.Done():
			return r.fail(r.ctx.Err())
		case <-timeout.C:
			var late []string
			for i, p := range r.peers {
				if r.ready[i] == nil {
					late = append(late, fmt.Sprintf("%d (%s)", i, p.name))
				}
			}
			return r.fail(&RunError{Msg: fmt.Sprintf("worker %s not ready within %s (its clients did not connect); the run is aborted", strings.Join(late, ", "), r.c.opts.ReadyTimeout)})
		case pf := <-r.c.frames:
			if err := r.handle(pf); err != nil {
				return r.fail(err)
			}
			if pf.f.Type == msgReady {
				n++
			}
			if r.failed != nil {
				r.stopAll("another worker could not set up its share")
				return &bench.SetupError{Msg: fmt.Sprintf("%s\n%s: error: worker %d (%s) could not set up its share", strings.TrimPrefix(r.failed.Text, bench.Progname+": error: "), bench.Progname, r.failedBy.pos, r.failedBy.name)}
			}
		}
	}
	for i, rd := range r.ready {
		if rd.Scale != r.ready[0].Scale {
			return r.fail(&RunError{Msg: fmt.Sprintf("worker %d (%s) sees scale %d, worker 0 scale %d: not the same tables", i, r.peers[i].name, rd.Scale, r.ready[0].Scale)})
		}
	}
	return nil
}

// handle processes one frame of any phase; its error fails the run.
func (r *coordRun) handle(pf peerFrame) error {
	p := pf.p
	if pf.err != nil {
		p.lost = pf.err
		if r.lost == nil {
			r.lost = &RunError{Msg: fmt.Sprintf("worker %d (%s) lost: %v; the run is aborted, its results are incomplete and were not merged", p.pos, p.name, pf.err)}
		}
		return r.lost
	}
	f := pf.f
	switch f.Type {
	case msgHeartbeat:
	case msgLog:
		var m logMsg
		if err := decode(f, &m); err != nil {
			return err
		}
		_, _ = io.WriteString(r.c.opts.Stderr, m.Text)
	case msgReady:
		var m readyMsg
		if err := decode(f, &m); err != nil {
			return err
		}
		if m.Run != r.id {
			return nil
		}
		if want := fingerprint(r.shares[p.pos]); m.Fingerprint != want {
			return &RunError{Msg: fmt.Sprintf("worker %d (%s) would run another configuration or script (fingerprint %s, want %s): refused", p.pos, p.name, m.Fingerprint, want)}
		}
		r.ready[p.pos] = &m
	case msgFail:
		var m failMsg
		if err := decode(f, &m); err != nil {
			return err
		}
		if r.failed == nil {
			r.failed, r.failedBy = &m, p
		}
	case msgInterval:
		var m intervalMsg
		if err := decode(f, &m); err != nil {
			return err
		}
		return r.interval(p, &m)
	case msgResult:
		var m resultMsg
		if err := decode(f, &m); err != nil {
			return err
		}
		if m.Run != r.id || r.result[p.pos] != nil {
			return nil
		}
		h, err := bench.DecodeHist(m.Hist)
		if err != nil {
			return &RunError{Msg: fmt.Sprintf("worker %d (%s): %v", p.pos, p.name, err)}
		}
		m.Figures.Hist = h
		r.result[p.pos] = &m
		r.finished++
		r.emitIntervals()
	default:
		return &RunError{Msg: fmt.Sprintf("worker %d (%s) sent an unexpected %q", p.pos, p.name, f.Type)}
	}
	return nil
}

// start opens the barrier and prints what a single process prints before
// its transactions.
func (r *coordRun) start() {
	cfg := r.cfg
	r.res = &bench.Result{ServerVersion: r.ready[0].ServerVersion, Scale: r.ready[0].Scale,
		PartitionMethod: r.ready[0].PartitionMethod, Partitions: r.ready[0].Partitions}
	whole := r.wholeConfig()
	if whole.Progress == 0 {
		whole.Quiet = true // the intervals are kept (res.Progress), not printed
	}
	r.printer = bench.NewProgressPrinter(whole, r.res)
	r.pending = map[int]*pendingInterval{}
	r.nextTick = 1
	if !cfg.Quiet {
		fmt.Fprintf(r.c.opts.Stdout, "pgbench (%s, server %s)\n", "pglab", r.res.ServerVersion)
		if !cfg.NoVacuum {
			io.WriteString(r.c.opts.Stderr, "starting vacuum...end.\n")
			if cfg.VacuumAll {
				io.WriteString(r.c.opts.Stderr, "starting vacuum pgbench_accounts...end.\n")
			}
		}
	}
	for _, p := range r.peers {
		_ = p.c.send(msgStart, nil)
	}
}

// wholeConfig is the run's Config as one process with all the workers'
// clients and threads.
func (r *coordRun) wholeConfig() bench.Config {
	whole := r.cfg
	whole.Threads = TotalThreads(r.shares)
	whole.Stderr = r.c.opts.Stderr
	return whole
}

// collect receives intervals and results until every worker has sent its
// result. A lost worker stops the others; so does the end of ctx, after
// which the workers' partial results are merged.
func (r *coordRun) collect() error {
	var grace <-chan time.Time
	ctxDone := r.ctx.Done()
	for r.finished < len(r.peers) {
		select {
		case <-ctxDone:
			ctxDone = nil
			r.stopAll("the coordinator was interrupted")
			grace = time.After(2 * LostAfter)
		case <-grace:
			return &RunError{Msg: "workers did not send their results after the run was stopped"}
		case pf := <-r.c.frames:
			if err := r.handle(pf); err != nil {
				return r.fail(err)
			}
		}
	}
	return nil
}

// interval merges one worker's interval into the run's and prints the
// intervals that every running worker has delivered.
func (r *coordRun) interval(from *peer, m *intervalMsg) error {
	if m.Run != r.id || r.pending == nil {
		return nil
	}
	r.lastNo[from.pos] = max(r.lastNo[from.pos], m.No)
	h, err := bench.DecodeHist(m.Hist)
	if err != nil {
		return &RunError{Msg: err.Error()}
	}
	p := r.pending[m.No]
	if p == nil {
		p = &pendingInterval{iv: bench.Interval{No: m.No, Hist: h}}
		r.pending[m.No] = p
	} else if dropped := p.iv.Hist.Merge(h); dropped != 0 {
		return &RunError{Msg: fmt.Sprintf("interval %d: %d values out of the histogram's range", m.No, dropped)}
	}
	p.iv.Stats.Add(m.Stats)
	p.iv.ElapsedUS = max(p.iv.ElapsedUS, m.ElapsedUS)
	p.iv.EpochUS = max(p.iv.EpochUS, m.EpochUS)
	r.emitIntervals()
	return nil
}

func (r *coordRun) emitIntervals() {
	if r.pending == nil {
		return
	}
	for {
		p, ok := r.pending[r.nextTick]
		if !ok {
			return
		}
		// complete when every worker has sent it, or ended before it
		// (a worker's frames come in order)
		for i := range r.peers {
			if r.lastNo[i] < r.nextTick && r.result[i] == nil {
				return
			}
		}
		delete(r.pending, r.nextTick)
		r.printer.Print(p.iv)
		r.nextTick++
	}
}

// merge sums the workers' figures into the run's result.
func (r *coordRun) merge() (*Outcome, error) {
	whole := r.wholeConfig()
	fig, err := bench.NewFigures(&whole)
	if err != nil {
		return nil, err
	}
	abortThread := -1
	aborted, interrupted := false, false
	for i, m := range r.result {
		if err := fig.Merge(m.Figures); err != nil {
			return r.outcome(), &RunError{Msg: fmt.Sprintf("worker %d (%s): %v", i, r.peers[i].name, err)}
		}
		aborted = aborted || m.Aborted
		interrupted = interrupted || m.Interrupted
		if m.AbortThread >= 0 && abortThread < 0 {
			abortThread = m.AbortThread
		}
	}
	if abortThread >= 0 && r.cfg.ExitOnAbort {
		return r.outcome(), &bench.AbortError{Thread: abortThread}
	}
	if err := bench.Summarize(whole, fig, r.res); err != nil {
		return nil, err
	}
	r.res.Aborted = aborted
	out := r.outcome()
	out.Result = r.res
	if interrupted && r.ctx.Err() != nil {
		return out, r.ctx.Err()
	}
	return out, nil
}

// outcome is what is known of each worker's share.
func (r *coordRun) outcome() *Outcome {
	out := &Outcome{}
	for i, p := range r.peers {
		w := WorkerResult{Worker: i, Name: p.name, Index: p.index}
		if i < len(r.shares) {
			s := r.shares[i]
			w.FirstClient, w.Clients, w.Threads, w.Rate = s.Part.FirstClient, s.Clients, s.Threads, s.Rate
			if m := r.result[i]; m != nil {
				res := &bench.Result{}
				if rd := r.ready[i]; rd != nil {
					res.ServerVersion, res.Scale = rd.ServerVersion, rd.Scale
				}
				share := s
				share.Progress = r.cfg.Progress
				if bench.Summarize(share, m.Figures, res) == nil {
					res.Aborted = m.Aborted
					w.Result = res
				}
			}
		}
		out.Workers = append(out.Workers, w)
	}
	return out
}

// StripPassword removes a password from a connection string (URL or
// key=value); it reports whether there was one.
func StripPassword(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		u, err := url.Parse(s)
		if err != nil {
			return s, false
		}
		found := false
		if _, ok := u.User.Password(); ok {
			u.User = url.User(u.User.Username())
			found = true
		}
		q := u.Query()
		if q.Has("password") {
			q.Del("password")
			u.RawQuery = q.Encode()
			found = true
		}
		return u.String(), found
	}
	if !strings.Contains(s, "=") {
		return s, false
	}
	out := kvPassword.ReplaceAllString(s, "")
	return strings.TrimSpace(out), out != s
}

// kvPassword matches a password in a key=value connection string (libpq
// allows spaces around '=' and quoted values with backslash escapes).
var kvPassword = regexp.MustCompile(`(^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)
