package dist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pglab/pglab/bench"
)

// WorkerOptions configure a worker.
type WorkerOptions struct {
	// Join is the coordinator's address (host:port).
	Join string
	// Token is the coordinator's secret (PGLAB_TOKEN).
	Token string
	// Name identifies the worker in the coordinator's messages; Index is
	// its Kubernetes completion index (JOB_COMPLETION_INDEX), or -1.
	Name  string
	Index int
	// JoinTimeout bounds how long the worker tries to reach the
	// coordinator (it may start first, as pods do).
	JoinTimeout time.Duration
	// Version is pglab's version, which the coordinator checks.
	Version string
	// Connect, if set, replaces the connection settings the coordinator
	// sends (pglab worker --target): a connection string for this worker.
	Connect string
	// Stderr receives the worker's notices and its engine's messages
	// (which also go to the coordinator).
	Stderr io.Writer
	// Quiet leaves out the notices.
	Quiet bool
}

// CoordinatorError is a session that ended badly: the coordinator refused
// the worker, went away, or ended its run as failed (exit code 2).
type CoordinatorError struct{ Msg string }

// Error returns the message.
func (e *CoordinatorError) Error() string { return e.Msg }

// worker is one worker's session with the coordinator.
type worker struct {
	o    WorkerOptions
	c    *conn
	mu   sync.Mutex
	cur  *share
	wg   sync.WaitGroup
	done chan struct{}
}

// share is the run a worker is assigned.
type share struct {
	id     int
	ctx    context.Context
	cancel context.CancelFunc
	start  chan bool // true: start; false: stop before the start
}

// Work joins the coordinator at o.Join and runs the shares it assigns
// until it says bye (nil, or *CoordinatorError when the run failed), goes
// away or refuses the worker (*CoordinatorError), or ctx ends.
func Work(ctx context.Context, o WorkerOptions) error {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.JoinTimeout <= 0 {
		o.JoinTimeout = 5 * time.Minute
	}
	nc, err := dial(ctx, o)
	if err != nil {
		return err
	}
	w := &worker{o: o, c: newConn(nc), done: make(chan struct{})}
	defer func() {
		close(w.done)
		w.stopShare()
		w.wg.Wait()
		w.c.close()
	}()
	if err := w.hello(); err != nil {
		return err
	}
	go w.heartbeats()
	stop := context.AfterFunc(ctx, func() { w.c.close() })
	defer stop()
	return w.serve(ctx)
}

func (w *worker) notice(format string, args ...any) {
	if !w.o.Quiet {
		fmt.Fprintf(w.o.Stderr, "%s worker: %s\n", bench.Progname, fmt.Sprintf(format, args...))
	}
}

// dial reaches the coordinator, retrying once a second until JoinTimeout.
func dial(ctx context.Context, o WorkerOptions) (net.Conn, error) {
	deadline := time.Now().Add(o.JoinTimeout)
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 15 * time.Second}
	said := false
	for {
		nc, err := d.DialContext(ctx, "tcp", o.Join)
		if err == nil {
			return nc, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, &CoordinatorError{Msg: fmt.Sprintf("could not reach the coordinator at %s within %s: %v", o.Join, o.JoinTimeout, err)}
		}
		if !said && !o.Quiet {
			fmt.Fprintf(o.Stderr, "%s worker: waiting for the coordinator at %s (%v)\n", bench.Progname, o.Join, err)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// hello answers the coordinator's challenge.
func (w *worker) hello() error {
	f, err := w.c.recv(0)
	if err != nil {
		return &CoordinatorError{Msg: fmt.Sprintf("no greeting from %s: %v", w.o.Join, err)}
	}
	var ch challengeMsg
	if f.Type != msgChallenge {
		return &CoordinatorError{Msg: fmt.Sprintf("%s is not a pglab coordinator (it sent %q)", w.o.Join, f.Type)}
	}
	if err := decode(f, &ch); err != nil {
		return &CoordinatorError{Msg: err.Error()}
	}
	if ch.Protocol != Protocol {
		return &CoordinatorError{Msg: fmt.Sprintf("the coordinator at %s speaks %s, this worker %s", w.o.Join, ch.Protocol, Protocol)}
	}
	return w.c.send(msgHello, helloMsg{Protocol: Protocol, Version: w.o.Version, Name: w.o.Name, Index: w.o.Index, MAC: mac(w.o.Token, ch.Nonce)})
}

func (w *worker) heartbeats() {
	t := time.NewTicker(HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
			if w.c.send(msgHeartbeat, nil) != nil {
				return
			}
		}
	}
}

// serve handles the coordinator's frames.
func (w *worker) serve(ctx context.Context) error {
	for {
		f, err := w.c.recv(0)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &CoordinatorError{Msg: fmt.Sprintf("lost the coordinator at %s: %v; the run is stopped", w.o.Join, err)}
		}
		switch f.Type {
		case msgHeartbeat:
		case msgRefuse:
			var m refuseMsg
			_ = decode(f, &m)
			return &CoordinatorError{Msg: fmt.Sprintf("the coordinator at %s refused this worker: %s", w.o.Join, m.Reason)}
		case msgAssign:
			var m assignMsg
			if err := decode(f, &m); err != nil {
				return &CoordinatorError{Msg: err.Error()}
			}
			w.notice("worker %d of %d of run %d", m.Worker, m.Workers, m.Run)
			w.assign(m)
		case msgStart:
			w.signal(true)
		case msgStop:
			var m stopMsg
			_ = decode(f, &m)
			w.notice("stopping: %s", m.Reason)
			w.stopShare()
		case msgBye:
			var m byeMsg
			_ = decode(f, &m)
			w.stopShare()
			w.wg.Wait()
			if m.Failed {
				return &CoordinatorError{Msg: "the coordinator ended the run as failed: " + m.Reason}
			}
			return nil
		default:
			return &CoordinatorError{Msg: fmt.Sprintf("unexpected %q from the coordinator", f.Type)}
		}
	}
}

// signal hands start (or stop) to the current share's barrier.
func (w *worker) signal(start bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != nil {
		select {
		case w.cur.start <- start:
		default:
		}
	}
}

// stopShare ends the current share's run (before or after its start).
func (w *worker) stopShare() {
	w.signal(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != nil {
		w.cur.cancel()
	}
}

// assign sets up and runs one share in the background.
func (w *worker) assign(m assignMsg) {
	ctx, cancel := context.WithCancel(context.Background())
	sh := &share{id: m.Run, ctx: ctx, cancel: cancel, start: make(chan bool, 1)}
	w.mu.Lock()
	if w.cur != nil {
		w.cur.cancel()
	}
	w.cur = sh
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel()
		w.runShare(sh, m)
	}()
}

// logWriter copies the engine's stderr to the worker's and, as log frames,
// to the coordinator.
type logWriter struct {
	w     *worker
	local io.Writer
}

func (l logWriter) Write(p []byte) (int, error) {
	_, _ = l.local.Write(p)
	_ = l.w.c.send(msgLog, logMsg{Text: string(p)})
	return len(p), nil
}

func (w *worker) fail(run int, code int, text string) {
	fmt.Fprint(w.o.Stderr, text)
	_ = w.c.send(msgFail, failMsg{Run: run, Code: code, Text: strings.TrimSuffix(text, "\n")})
}

// runShare is one share: Start (connect every client), ready, the barrier,
// the run, the result.
func (w *worker) runShare(sh *share, m assignMsg) {
	var cfg bench.Config
	if err := decode(frame{Type: "config", Body: m.Config}, &cfg); err != nil {
		w.fail(m.Run, 2, fmt.Sprintf("%s: error: the coordinator's configuration is not this worker's (another pglab build?): %v\n", bench.Progname, err))
		return
	}
	if m.Hist != bench.Hist() {
		w.fail(m.Run, 2, fmt.Sprintf("%s: error: the coordinator's histograms (%+v) are not this worker's (%+v)\n", bench.Progname, m.Hist, bench.Hist()))
		return
	}
	fp := fingerprint(cfg)
	if w.o.Connect != "" {
		cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName = w.o.Connect, "", "", "", ""
	}
	cfg.Quiet = true
	cfg.Stdout = io.Discard
	cfg.Stderr = logWriter{w: w, local: w.o.Stderr}
	cfg.OnInterval = func(iv bench.Interval) {
		b, err := bench.EncodeHist(iv.Hist)
		if err != nil {
			return
		}
		_ = w.c.send(msgInterval, intervalMsg{Run: m.Run, No: iv.No, ElapsedUS: iv.ElapsedUS, EpochUS: iv.EpochUS, Stats: iv.Stats, Hist: b})
	}
	ses, err := bench.Start(sh.ctx, cfg)
	if err != nil {
		var se *bench.SetupError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = se.Msg
		}
		w.fail(m.Run, 1, fmt.Sprintf("%s: error: %s\n", bench.Progname, msg))
		return
	}
	method, parts := ses.Partitions()
	if err := w.c.send(msgReady, readyMsg{Run: m.Run, Fingerprint: fp, ServerVersion: ses.ServerVersion(), Scale: ses.Scale(),
		PartitionMethod: method, Partitions: parts}); err != nil {
		ses.Abort()
		_, _ = ses.Wait()
		return
	}
	select {
	case start := <-sh.start:
		if !start {
			ses.Abort()
		}
	case <-sh.ctx.Done():
		ses.Abort()
	}
	res, err := ses.Wait()
	out := resultMsg{Run: m.Run, AbortThread: -1}
	var ae *bench.AbortError
	switch {
	case errors.As(err, &ae):
		out.AbortThread = ae.Thread
		out.Aborted = true
	case err != nil && sh.ctx.Err() != nil:
		out.Interrupted = true
	case err != nil:
		w.fail(m.Run, 1, fmt.Sprintf("%s: error: %v\n", bench.Progname, err))
		return
	}
	if res == nil || res.Figures == nil {
		fig, ferr := bench.NewFigures(&cfg)
		if ferr != nil {
			return
		}
		out.Figures = fig
	} else {
		out.Figures = res.Figures
		out.Aborted = out.Aborted || res.Aborted
	}
	if out.Hist, err = bench.EncodeHist(out.Figures.Hist); err != nil {
		w.fail(m.Run, 2, fmt.Sprintf("%s: error: encode the histogram: %v\n", bench.Progname, err))
		return
	}
	_ = w.c.send(msgResult, out)
}

// DefaultName is a worker's name: host name and process id.
func DefaultName() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", h, os.Getpid())
}
