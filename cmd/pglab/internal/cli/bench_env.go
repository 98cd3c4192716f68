package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/netdelay"
)

// benchEnv is --env of pglab bench: the network between the load and the
// server. Only rtt applies here (a delay proxy in front of the server
// named by the connection options); machine limits and a standby belong to
// servers pglab starts (study, compare, pg start --env).
func (b *benchRun) benchEnv(cfg *bench.Config) (stop func(), err error) {
	stop = func() {}
	if b.flags.env == "" {
		return stop, nil
	}
	if b.coord.listen != "" || b.coord.k8sJob != "" {
		return stop, fmt.Errorf("--env applies to a load run from this process, not to workers (--listen, --k8s-job)")
	}
	cat, err := env.LoadCatalog()
	if err != nil {
		return stop, err
	}
	p, err := cat.Resolve(b.flags.env)
	if err != nil {
		return stop, err
	}
	var other []string
	for _, s := range p.Settings() {
		if s.Key != env.KeyRTT {
			other = append(other, s.String())
		}
	}
	if len(other) > 0 {
		return stop, fmt.Errorf("--env %s: only rtt applies to the server pglab bench connects to; %s belong to a server pglab starts (pglab pg start --env, study, compare)", p.Name, strings.Join(other, ", "))
	}
	if p.RTT == 0 {
		return stop, nil
	}
	pc, err := bench.ConnConfig(cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName)
	if err != nil {
		return stop, err
	}
	if strings.HasPrefix(pc.Host, "/") {
		return stop, fmt.Errorf("--env %s: a round trip needs a TCP connection to the server, not the unix socket %s (give -h HOST)", p.Name, pc.Host)
	}
	px, err := netdelay.Start(netdelay.Options{Upstream: net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port))), RTT: p.RTT})
	if err != nil {
		return stop, err
	}
	pr, err := px.ProbePostgres(b.env.Ctx, pc, netdelay.ProbeOptions{})
	if err != nil {
		px.Close()
		return stop, err
	}
	if !b.env.Quiet {
		fmt.Fprintf(b.stderr, "%s: --env %s: a delay proxy adds %v between the clients and the server (measured before the run: %v)\n",
			benchProg, p.Name, p.RTT, pr)
	}
	cfg.Host, cfg.Port = px.Host(), strconv.Itoa(int(px.Port()))
	return func() { px.Close() }, nil
}
