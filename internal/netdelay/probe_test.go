package netdelay_test

import (
	"context"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/netdelay"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestProbePostgres(t *testing.T) {
	inst := pgtest.Shared(t, "")
	cfg, err := pgconn.ParseConfig(inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	p, err := netdelay.Start(netdelay.Options{Upstream: net.JoinHostPort("127.0.0.1", strconv.Itoa(inst.Port())), RTT: 3 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, err := p.ProbePostgres(ctx, cfg, netdelay.ProbeOptions{Samples: 30})
	if err != nil {
		t.Fatal(err)
	}
	// Behaviour, not accuracy (scripts/netdelay-accuracy measures that): the
	// probe took its samples, and what it saw includes the delay.
	if pr.Samples != 30 || pr.Added < 2500*time.Microsecond || pr.Proxied < pr.Added || pr.P10 > pr.Added || pr.P90 < pr.Added {
		t.Fatalf("probe %+v", pr)
	}
	// The budget bounds a slow probe once the minimum is taken.
	slow, err := netdelay.Start(netdelay.Options{Upstream: p.Upstream(), RTT: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	pr, err = slow.ProbePostgres(ctx, cfg, netdelay.ProbeOptions{Budget: 200 * time.Millisecond, MinSamples: 5})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Samples < 5 || pr.Samples > 8 {
		t.Fatalf("probe with a 200 ms budget at 50 ms took %d samples", pr.Samples)
	}
	bad, _ := pgconn.ParseConfig("postgres://x@127.0.0.1:1/x?sslmode=disable&connect_timeout=5")
	if _, err := p.ProbePostgres(ctx, bad, netdelay.ProbeOptions{}); err == nil {
		t.Fatal("probe of an unreachable server succeeded")
	}
}

// slowWrites is a client's TCP connection on a loaded machine: while slow
// is set, each write returns 30 ms after it was sent, and pgconn starts its
// background reader, which is then left blocked in a read of the socket.
// inFlight counts the reads under way.
type slowWrites struct {
	*net.TCPConn
	slow     atomic.Bool
	inFlight atomic.Int32
}

func (c *slowWrites) Write(b []byte) (int, error) {
	n, err := c.TCPConn.Write(b)
	if c.slow.Load() {
		time.Sleep(30 * time.Millisecond)
	}
	return n, err
}

func (c *slowWrites) Read(b []byte) (int, error) {
	c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	return c.TCPConn.Read(b)
}

// TestProbeTakesTheSocketFromPgconn: the probe's exchanges run on the
// socket of a pgconn connection; no read of pgconn's may be left on it (a
// background read left by a slow write swallowed an answer, and the probe
// waited for ever on an idle server).
func TestProbeTakesTheSocketFromPgconn(t *testing.T) {
	inst := pgtest.Shared(t, "")
	cfg, err := pgconn.ParseConfig(inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	var conn *slowWrites
	var d net.Dialer
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		conn = &slowWrites{TCPConn: c.(*net.TCPConn)}
		conn.slow.Store(true)
		return conn, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for attempt := 1; ; attempt++ {
		pc, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Exec(ctx, "").ReadAll(); err != nil {
			t.Fatal(err)
		}
		conn.slow.Store(false)
		if conn.inFlight.Load() == 0 {
			// The server answered after the write returned: no read was left.
			pc.Close(ctx)
			if attempt == 10 {
				t.Fatal("pgconn left no background read in 10 connections with slow writes")
			}
			continue
		}
		exchange, closeSocket, err := netdelay.TakeSocket(ctx, pc)
		if err != nil {
			t.Fatal(err)
		}
		defer closeSocket()
		deadline := time.Now().Add(2 * time.Second)
		for conn.inFlight.Load() != 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := conn.inFlight.Load(); n != 0 {
			t.Fatalf("%d read(s) of pgconn's still under way on the socket the probe took", n)
		}
		for i := range 20 {
			if _, err := exchange(); err != nil {
				t.Fatalf("exchange %d: %v", i, err)
			}
		}
		return
	}
}
