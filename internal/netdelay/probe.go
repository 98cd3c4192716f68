package netdelay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/pgnet"
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
	direct, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return Probe{}, fmt.Errorf("probe: connect to the server: %w", err)
	}
	defer direct.Close(context.Background())
	pcfg := cfg.Copy()
	pcfg.Fallbacks = nil
	var d net.Dialer
	addr := p.Addr()
	pcfg.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", addr)
	}
	proxied, err := pgconn.ConnectConfig(ctx, pcfg)
	if err != nil {
		return Probe{}, fmt.Errorf("probe: connect through the delay proxy: %w", err)
	}
	defer proxied.Close(context.Background())
	// One warm-up exchange each: the first pays for caches, not distance.
	for _, c := range []*pgconn.PgConn{direct, proxied} {
		if _, err := c.Exec(ctx, "").ReadAll(); err != nil {
			return Probe{}, fmt.Errorf("probe: %w", err)
		}
	}
	dx, err := newExchanger(ctx, direct)
	if err != nil {
		return Probe{}, err
	}
	defer dx.close()
	px, err := newExchanger(ctx, proxied)
	if err != nil {
		return Probe{}, err
	}
	defer px.close()
	// Blocking system calls on a thread of its own, as libpq waits: the
	// time measured is the network's and the server's, not the Go
	// scheduler's hand-offs (which differ between a short and a long wait).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ds, ps, diffs []time.Duration
	start := time.Now()
	for i := 0; i < opts.Samples && (i < opts.MinSamples || time.Since(start) < opts.Budget); i++ {
		if err := ctx.Err(); err != nil {
			return Probe{}, err
		}
		a, err := dx.exchange()
		if err != nil {
			return Probe{}, fmt.Errorf("probe: direct: %w", err)
		}
		b, err := px.exchange()
		if err != nil {
			return Probe{}, fmt.Errorf("probe: through the proxy: %w", err)
		}
		ds, ps, diffs = append(ds, a), append(ps, b), append(diffs, b-a)
	}
	return summarize(ds, ps, diffs), nil
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
	fd  int // the socket taken from pgconn (pgnet.TakeSocket), or -1
	buf []byte
}

func newExchanger(ctx context.Context, pc *pgconn.PgConn) (*exchanger, error) {
	x := &exchanger{ctx: ctx, pc: pc, fd: -1}
	if pc.Conn() == nil {
		return x, nil
	}
	fd, ok, err := pgnet.TakeSocket(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	if !ok {
		return x, nil // TLS: time it through pgconn
	}
	x.pc, x.fd, x.buf = nil, fd, make([]byte, 4096)
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
