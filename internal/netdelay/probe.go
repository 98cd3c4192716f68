package netdelay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jackc/pgx/v5/pgconn"
)

// ProbeOptions bound a probe.
type ProbeOptions struct {
	// Samples is the most exchanges on each connection (default 200).
	Samples int
	// Budget bounds the probe's time once MinSamples are taken (default
	// 1 s): at 50 ms of round trip a probe takes 20 samples, not 200.
	Budget time.Duration
	// MinSamples are taken whatever the budget (default 10).
	MinSamples int
}

func (o ProbeOptions) withDefaults() ProbeOptions {
	if o.Samples <= 0 {
		o.Samples = 200
	}
	if o.Budget <= 0 {
		o.Budget = time.Second
	}
	if o.MinSamples <= 0 {
		o.MinSamples = 10
	}
	o.MinSamples = min(o.MinSamples, o.Samples)
	return o
}

// Probe is a measured round trip: what the proxy added, and the exchanges
// it was computed from.
type Probe struct {
	// Added is the median, over alternating pairs, of the exchange's time
	// through the proxy minus its time on a direct connection: the round
	// trip the proxy achieved.
	Added time.Duration
	// P10 and P90 of the same differences: the spread a client sees.
	P10, P90 time.Duration
	// Direct and Proxied are the medians of each connection's exchanges.
	Direct, Proxied time.Duration
	// Samples is the number of pairs.
	Samples int
}

// String renders the probe for a message.
func (p Probe) String() string {
	return fmt.Sprintf("added %v (p10 %v, p90 %v; %d exchanges, direct %v)", p.Added.Round(time.Microsecond),
		p.P10.Round(time.Microsecond), p.P90.Round(time.Microsecond), p.Samples, p.Direct.Round(time.Microsecond))
}

// ProbePostgres measures the round trip the proxy adds on PostgreSQL
// connections: it opens one connection to the server as cfg says and one
// through the proxy (cfg with its dialing redirected), then times an empty
// simple query (one round trip, no work: EmptyQueryResponse and
// ReadyForQuery) on each, alternately. cfg is not modified.
func (p *Proxy) ProbePostgres(ctx context.Context, cfg *pgconn.Config, opts ProbeOptions) (Probe, error) {
	opts = opts.withDefaults()
	pair, err := p.openPair(ctx, cfg)
	if err != nil {
		return Probe{}, err
	}
	defer pair.close()
	// Blocking system calls on a thread of its own, as libpq waits: the
	// time measured is the network's and the server's, not the Go
	// scheduler's hand-offs (which differ between a short and a long wait).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer ownP()()
	var ds, ps, diffs []time.Duration
	start := time.Now()
	for i := 0; i < opts.Samples && (i < opts.MinSamples || time.Since(start) < opts.Budget); i++ {
		a, b, err := pair.exchange(ctx)
		if err != nil {
			return Probe{}, err
		}
		ds, ps, diffs = append(ds, a), append(ps, b), append(diffs, b-a)
	}
	return summarize(ds, ps, diffs), nil
}

// exchangePair is a connection straight to the server and one through the
// proxy, each ready to time an empty query.
type exchangePair struct {
	directPC, proxiedPC *pgconn.PgConn
	direct, proxied     *exchanger
}

// openPair opens one connection to the server as cfg says and one through
// the proxy (cfg with its dialing redirected), and exchanges once on each:
// the first exchange pays for caches, not distance. cfg is not modified.
func (p *Proxy) openPair(ctx context.Context, cfg *pgconn.Config) (*exchangePair, error) {
	pair := &exchangePair{}
	var err error
	pair.directPC, err = pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("probe: connect to the server: %w", err)
	}
	pcfg := cfg.Copy()
	pcfg.Fallbacks = nil
	var d net.Dialer
	addr := p.Addr()
	pcfg.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", addr)
	}
	pair.proxiedPC, err = pgconn.ConnectConfig(ctx, pcfg)
	if err != nil {
		pair.close()
		return nil, fmt.Errorf("probe: connect through the delay proxy: %w", err)
	}
	for _, c := range []*pgconn.PgConn{pair.directPC, pair.proxiedPC} {
		if _, err := c.Exec(ctx, "").ReadAll(); err != nil {
			pair.close()
			return nil, fmt.Errorf("probe: %w", err)
		}
	}
	if pair.direct, err = newExchanger(ctx, pair.directPC); err == nil {
		pair.proxied, err = newExchanger(ctx, pair.proxiedPC)
	}
	if err != nil {
		pair.close()
		return nil, err
	}
	return pair, nil
}

// exchange times one empty query on each connection, straight first.
func (pair *exchangePair) exchange(ctx context.Context) (direct, proxied time.Duration, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	pair.direct.ctx, pair.proxied.ctx = ctx, ctx
	if direct, err = pair.direct.exchange(); err != nil {
		return 0, 0, fmt.Errorf("probe: direct: %w", err)
	}
	if proxied, err = pair.proxied.exchange(); err != nil {
		return 0, 0, fmt.Errorf("probe: through the proxy: %w", err)
	}
	return direct, proxied, nil
}

func (pair *exchangePair) close() {
	for _, x := range []*exchanger{pair.direct, pair.proxied} {
		if x != nil {
			x.close()
		}
	}
	// A connection an exchanger took is closed already (Hijack).
	for _, pc := range []*pgconn.PgConn{pair.directPC, pair.proxiedPC} {
		if pc != nil && !pc.IsClosed() {
			pc.Close(context.Background())
		}
	}
}

func summarize(ds, ps, diffs []time.Duration) Probe {
	slices.Sort(ds)
	slices.Sort(ps)
	slices.Sort(diffs)
	q := func(s []time.Duration, f float64) time.Duration { return s[int(f*float64(len(s)-1)+0.5)] }
	return Probe{Added: q(diffs, 0.5), P10: q(diffs, 0.1), P90: q(diffs, 0.9),
		Direct: q(ds, 0.5), Proxied: q(ps, 0.5), Samples: len(diffs)}
}

// emptyQuery is the frontend's Query message for "": the server answers
// EmptyQueryResponse and ReadyForQuery.
var emptyQuery = []byte{'Q', 0, 0, 0, 5, 0}

// exchanger times one empty query on a connection: on its socket with
// poll(2) and read(2) when it is a plain TCP connection, else through
// pgconn (TLS).
type exchanger struct {
	ctx context.Context
	pc  *pgconn.PgConn
	fd  int // the socket taken from pgconn, or -1
	buf []byte
}

func newExchanger(ctx context.Context, pc *pgconn.PgConn) (*exchanger, error) {
	x := &exchanger{ctx: ctx, pc: pc, fd: -1}
	if pc.Conn() == nil {
		return x, nil
	}
	sc, ok := pc.Conn().(syscall.Conn)
	if !ok {
		return x, nil // TLS: time it through pgconn
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return x, nil
	}
	// pgconn starts a background reader when one of its writes takes over
	// 15 ms (a loaded machine deschedules it that long); stopped, its
	// goroutine may still be blocked in a read of the socket and would take
	// the answer to an exchange on the raw descriptor (the probe then waits
	// for ever, or reads half a message). SyncConn drains and stops it.
	if err := pc.SyncConn(ctx); err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	hj, err := pc.Hijack()
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	x.pc = nil
	var derr error
	cerr := raw.Control(func(fd uintptr) { x.fd, derr = unix.Dup(int(fd)) })
	// Closing the runtime's descriptor takes the socket out of its poller;
	// the duplicate keeps it open.
	hj.Conn.Close()
	if err := errors.Join(cerr, derr); err != nil {
		if x.fd >= 0 {
			unix.Close(x.fd)
		}
		return nil, fmt.Errorf("probe: %w", err)
	}
	x.buf = make([]byte, 4096)
	return x, nil
}

func (x *exchanger) close() {
	if x.fd >= 0 {
		unix.Write(x.fd, []byte{'X', 0, 0, 0, 4})
		unix.Close(x.fd)
	}
}

func (x *exchanger) exchange() (time.Duration, error) {
	if x.fd < 0 {
		t0 := time.Now()
		_, err := x.pc.Exec(x.ctx, "").ReadAll()
		return time.Since(t0), err
	}
	t0 := time.Now()
	for sent := 0; sent < len(emptyQuery); {
		n, err := unix.Write(x.fd, emptyQuery[sent:])
		if err == unix.EAGAIN {
			if err := x.poll(unix.POLLOUT); err != nil {
				return 0, err
			}
			continue
		}
		if err != nil {
			return 0, err
		}
		sent += n
	}
	// Read messages until ReadyForQuery ('Z'), which ends the answer.
	have := 0
	for {
		off := 0
		for have-off >= 5 {
			size := 1 + int(binary.BigEndian.Uint32(x.buf[off+1:]))
			if have-off < size {
				break
			}
			typ := x.buf[off]
			off += size
			switch typ {
			case 'E':
				return 0, errors.New("the server answered an empty query with an error")
			case 'Z':
				return time.Since(t0), nil
			}
		}
		have = copy(x.buf, x.buf[off:have])
		if have == len(x.buf) {
			return 0, errors.New("answer to an empty query too long")
		}
		n, err := unix.Read(x.fd, x.buf[have:])
		if err == unix.EAGAIN {
			if err := x.poll(unix.POLLIN); err != nil {
				return 0, err
			}
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errors.New("the server closed the connection")
		}
		have += n
	}
}

// poll waits until the socket is ready, checking the context every 100 ms.
func (x *exchanger) poll(events int16) error {
	for {
		fds := []unix.PollFd{{Fd: int32(x.fd), Events: events}}
		n, err := unix.Poll(fds, 100)
		if err != nil && err != unix.EINTR {
			return err
		}
		if n > 0 {
			return nil
		}
		if err := x.ctx.Err(); err != nil {
			return err
		}
	}
}

// ownP adds a P to the runtime for the calling thread, locked to it and
// blocking in its exchanges, and returns the function that takes it back:
// when the thread's system call returns, a P is free for it at once, even
// in a process whose other threads (a bench run's, other probes') keep
// theirs busy — else the probe would time the runtime's hand-offs. Each
// call adds one and takes one back, so that they compose with other users'
// additions.
func ownP() (release func()) {
	procsMu.Lock()
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	procsMu.Unlock()
	return func() {
		procsMu.Lock()
		runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0)-1, 1))
		procsMu.Unlock()
	}
}

var procsMu sync.Mutex
