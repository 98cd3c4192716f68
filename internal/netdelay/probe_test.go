package netdelay_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/netdelay"
	"github.com/pglab/pglab/internal/pgtest"
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
