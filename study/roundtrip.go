package study

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/internal/netdelay"
)

// probeOptions bound the round-trip probe before each measured step: at
// most 100 exchanges or half a second, at least 10.
var probeOptions = netdelay.ProbeOptions{Samples: 100, Budget: 500 * time.Millisecond, MinSamples: 10}

// AddRoundTrip puts a delay proxy of rtt between every client of the
// target and the server (internal/netdelay): the studies' connections, the
// bench engine and pgbench reach the server through it, as clients on
// another host would. The runner's own observation (counter snapshots,
// wait sampling) connects directly, and before each measured step a probe
// measures the round trip the proxy achieves, recorded as env_rtt_us.
// Close stops the proxy.
func (t *Target) AddRoundTrip(rtt time.Duration) error {
	if t.delay != nil {
		return fmt.Errorf("target %s: a round trip is added already", t.Name)
	}
	host := t.config.Host
	if strings.HasPrefix(host, "/") {
		return fmt.Errorf("target %s: a round trip needs a TCP connection to the server, not a unix socket (%s)", t.Name, host)
	}
	px, err := netdelay.Start(netdelay.Options{Upstream: net.JoinHostPort(host, strconv.Itoa(int(t.config.Port))), RTT: rtt})
	if err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	t.direct = t.config.Copy()
	t.config.Host, t.config.Port = px.Host(), px.Port()
	t.config.Fallbacks = nil
	t.delay = px
	return nil
}

// RoundTrip returns the delay proxy in front of the server, or nil.
func (t *Target) RoundTrip() *netdelay.Proxy { return t.delay }

// Close stops what the target started for the run (its delay proxy). The
// server itself is the lab's.
func (t *Target) Close() error {
	if t.delay == nil {
		return nil
	}
	err := t.delay.Close()
	t.delay = nil
	if t.direct != nil {
		t.config, t.direct = t.direct, nil
	}
	return err
}

// directConfig is the connection configuration that bypasses the delay
// proxy (the runner's observation, the probe): the target's own without
// one.
func (t *Target) directConfig() *pgx.ConnConfig {
	if t.direct != nil {
		return t.direct
	}
	return t.config
}

// observeConfig is ConnConfig (search_path, application_name) at the
// server's own address, bypassing the delay proxy.
func (t *Target) observeConfig() *pgx.ConnConfig {
	c := t.ConnConfig()
	if d := t.direct; d != nil {
		c.Host, c.Port, c.DialFunc, c.Fallbacks = d.Host, d.Port, d.DialFunc, d.Fallbacks
	}
	return c
}

// connectDirect is Connect without the delay proxy.
func (t *Target) connectDirect(ctx context.Context) (*pgx.Conn, error) {
	return ConnectConfig(ctx, t.Name, t.observeConfig())
}

// followPort points the proxy at the server's port after a restart (the
// port is kept when it is free, but need not be).
func (t *Target) followPort() error {
	if t.delay == nil || t.inst == nil || int(t.direct.Port) == t.inst.Port() {
		return nil
	}
	t.direct.Port = uint16(t.inst.Port())
	if err := t.delay.SetUpstream(net.JoinHostPort(t.direct.Host, strconv.Itoa(t.inst.Port()))); err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	return nil
}

// probeRoundTrip measures the round trip the target's proxy adds and
// records it (env_rtt_us, with its spread env_rtt_p90_us); nothing
// without a proxy. A proxy that died is the step's error.
func (s *Session) probeRoundTrip(ctx context.Context) error {
	px := s.Target.delay
	if px == nil {
		return nil
	}
	if err := px.Err(); err != nil {
		return fmt.Errorf("target %s: %w", s.Target.Name, err)
	}
	pr, err := px.ProbePostgres(ctx, &s.Target.observeConfig().Config, probeOptions)
	if err != nil {
		return fmt.Errorf("target %s: round-trip probe: %w", s.Target.Name, err)
	}
	s.Record("env_rtt_us", float64(pr.Added.Nanoseconds())/1e3, "us")
	s.Record("env_rtt_p90_us", float64(pr.P90.Nanoseconds())/1e3, "us")
	return nil
}
