// Package pgnet gives pglab's PostgreSQL connections the TCP timeouts that
// keep a run from hanging when the network stops answering: a TCP user
// timeout (TCP_USER_TIMEOUT: how long sent data may stay unacknowledged,
// SYNs included, before the kernel drops the connection) and keepalive
// probes (so that a connection waiting for a reply notices a peer that
// went away).
//
// The settings are libpq's connection parameters, read from the DSN:
//
//	tcp_user_timeout     milliseconds; 0 = the kernel's default (none)   default 30000
//	keepalives           1 or 0                                          default 1
//	keepalives_idle      seconds of idleness before the first probe     default 15
//	keepalives_interval  seconds between probes                         default 15
//	keepalives_count     probes before the connection is dropped        default 9
//
// $PGLAB_TCP_USER_TIMEOUT (milliseconds, or a Go duration such as "10s")
// changes the default user timeout for every connection without one in its
// DSN. pgx would otherwise send these parameters to the server as settings
// (which the server rejects for the keepalives_* names); Configure takes
// them out and applies them to the connection's socket instead. With the
// defaults a dead peer is noticed within about 30 s of unacknowledged data
// and within about 45 s on an idle connection (the user timeout bounds the
// keepalive probes too).
//
// The bench engine's raw sockets are dialled through the same function, so
// the options stay on the socket after it is taken away from pgconn.
package pgnet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"
)

// Defaults of the settings (see the package documentation).
const (
	DefaultUserTimeout       = 30 * time.Second
	DefaultKeepaliveIdle     = 15 * time.Second
	DefaultKeepaliveInterval = 15 * time.Second
	DefaultKeepaliveCount    = 9
)

// EnvUserTimeout names the environment variable that changes the default
// TCP user timeout.
const EnvUserTimeout = "PGLAB_TCP_USER_TIMEOUT"

// Options are the TCP settings of a connection.
type Options struct {
	// UserTimeout is TCP_USER_TIMEOUT; 0 leaves the kernel's default.
	UserTimeout time.Duration
	// Keepalives turns keepalive probes on.
	Keepalives        bool
	KeepaliveIdle     time.Duration
	KeepaliveInterval time.Duration
	KeepaliveCount    int
	// ConnectTimeout bounds the dial (libpq's connect_timeout); 0 = none.
	ConnectTimeout time.Duration
}

// params are the libpq parameters Configure takes out of RuntimeParams.
var params = []string{"tcp_user_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count"}

// DefaultOptions returns the defaults, with $PGLAB_TCP_USER_TIMEOUT
// applied.
func DefaultOptions() (Options, error) {
	o := Options{
		UserTimeout:       DefaultUserTimeout,
		Keepalives:        true,
		KeepaliveIdle:     DefaultKeepaliveIdle,
		KeepaliveInterval: DefaultKeepaliveInterval,
		KeepaliveCount:    DefaultKeepaliveCount,
	}
	if v := os.Getenv(EnvUserTimeout); v != "" {
		d, err := parseMillis(v)
		if err != nil {
			return o, fmt.Errorf("$%s: %w", EnvUserTimeout, err)
		}
		o.UserTimeout = d
	}
	return o, nil
}

// parseMillis reads a duration given as whole milliseconds ("30000") or
// as a Go duration ("30s").
func parseMillis(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("invalid value %q: want milliseconds >= 0", s)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d/time.Millisecond > math.MaxInt32 {
		return 0, fmt.Errorf("invalid value %q: want milliseconds >= 0 or a duration such as 30s", s)
	}
	return d, nil
}

func parseSeconds(name, s string) (time.Duration, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid %s %q: want whole seconds >= 0", name, s)
	}
	return time.Duration(n) * time.Second, nil
}

// Parse reads the libpq TCP parameters from a connection's parameters
// (pgconn's RuntimeParams) over the defaults.
func Parse(p map[string]string) (Options, error) {
	o, err := DefaultOptions()
	if err != nil {
		return o, err
	}
	if v, ok := p["tcp_user_timeout"]; ok {
		if o.UserTimeout, err = parseMillis(v); err != nil {
			return o, fmt.Errorf("tcp_user_timeout: %w", err)
		}
	}
	if v, ok := p["keepalives"]; ok {
		switch strings.TrimSpace(v) {
		case "1":
			o.Keepalives = true
		case "0":
			o.Keepalives = false
		default:
			return o, fmt.Errorf("invalid keepalives %q: want 1 or 0", v)
		}
	}
	if v, ok := p["keepalives_idle"]; ok {
		if o.KeepaliveIdle, err = parseSeconds("keepalives_idle", v); err != nil {
			return o, err
		}
	}
	if v, ok := p["keepalives_interval"]; ok {
		if o.KeepaliveInterval, err = parseSeconds("keepalives_interval", v); err != nil {
			return o, err
		}
	}
	if v, ok := p["keepalives_count"]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n < 0 {
			return o, fmt.Errorf("invalid keepalives_count %q: want a count >= 0", v)
		}
		o.KeepaliveCount = int(n)
	}
	return o, nil
}

// Configure applies the TCP settings of cfg's DSN (and the defaults) to
// cfg: it removes the libpq TCP parameters from RuntimeParams and replaces
// DialFunc by a dialer that sets them on every TCP socket. Call it right
// after pgconn.ParseConfig or pgx.ParseConfig, before changing DialFunc.
func Configure(cfg *pgconn.Config) error {
	o, err := Parse(cfg.RuntimeParams)
	if err != nil {
		return err
	}
	for _, k := range params {
		delete(cfg.RuntimeParams, k)
	}
	o.ConnectTimeout = cfg.ConnectTimeout
	cfg.DialFunc = o.DialContext
	return nil
}

// DialContext dials with Dialer and returns TCP connections whose kernel
// timeouts read as a lost peer (see PeerTimeoutError).
func (o Options) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := o.Dialer().DialContext(ctx, network, addr)
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &tcpConn{TCPConn: tc}, nil
	}
	return c, err
}

// tcpConn is a TCP connection whose reads and writes return the kernel's
// ETIMEDOUT as a *PeerTimeoutError. Its other methods (SyscallConn for
// TakeSocket among them) are the *net.TCPConn's.
type tcpConn struct{ *net.TCPConn }

func (c *tcpConn) Read(p []byte) (int, error) {
	n, err := c.TCPConn.Read(p)
	return n, peerTimeout(err)
}

func (c *tcpConn) Write(p []byte) (int, error) {
	n, err := c.TCPConn.Write(p)
	return n, peerTimeout(err)
}

// PeerTimeoutError is the kernel's ETIMEDOUT on a connection: the peer
// stopped answering within the TCP user timeout or the keepalive probes,
// and the kernel ended the connection. It is no deadline's timeout, so
// Timeout reports false: pgconn's background reader (running while one of
// its writes is slow, as on a loaded machine) drops an error whose
// Timeout is true as belonging to a deadline, and the next read then
// found the connection's end instead ("unexpected EOF": the kernel
// reports ETIMEDOUT once). Its text and what it wraps are the original's.
type PeerTimeoutError struct{ Err error }

// Error returns the original error's text ("... connection timed out").
func (e *PeerTimeoutError) Error() string { return e.Err.Error() }

// Unwrap returns the original error.
func (e *PeerTimeoutError) Unwrap() error { return e.Err }

// Timeout reports false: the connection is gone, no deadline passed.
func (e *PeerTimeoutError) Timeout() bool { return false }

// Temporary reports false.
func (e *PeerTimeoutError) Temporary() bool { return false }

func peerTimeout(err error) error {
	if err != nil && errors.Is(err, syscall.ETIMEDOUT) {
		return &PeerTimeoutError{Err: err}
	}
	return err
}

// Dialer returns a net.Dialer that applies o to TCP sockets (Unix sockets
// are left alone).
func (o Options) Dialer() *net.Dialer {
	d := &net.Dialer{Timeout: o.ConnectTimeout}
	if o.Keepalives {
		d.KeepAliveConfig = net.KeepAliveConfig{Enable: true, Idle: o.KeepaliveIdle, Interval: o.KeepaliveInterval, Count: o.KeepaliveCount}
		if o.KeepaliveCount == 0 {
			d.KeepAliveConfig.Count = -1 // the kernel's default
		}
		if o.KeepaliveIdle == 0 {
			d.KeepAliveConfig.Idle = -1
		}
		if o.KeepaliveInterval == 0 {
			d.KeepAliveConfig.Interval = -1
		}
	} else {
		d.KeepAlive = -1
	}
	if o.UserTimeout > 0 {
		ms := int(o.UserTimeout / time.Millisecond)
		d.Control = func(network, address string, c syscall.RawConn) error {
			if !strings.HasPrefix(network, "tcp") {
				return nil
			}
			var serr error
			err := c.Control(func(fd uintptr) {
				serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, ms)
			})
			if err != nil {
				return err
			}
			if serr != nil {
				return fmt.Errorf("set TCP_USER_TIMEOUT: %w", serr)
			}
			return nil
		}
	}
	return d
}
