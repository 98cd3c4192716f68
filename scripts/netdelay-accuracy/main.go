// Command netdelay-accuracy measures how close the delay proxy
// (internal/netdelay) comes to the round trip asked for, on a real
// PostgreSQL server of this machine under load. For each round trip it
// starts a proxy in front of a managed server, runs pgbench through it with
// many connections (-load-conns, select-only: each client waits out the
// delay on every statement; unthrottled unless -load-rate) and, unless -cpu-load=0, a
// second pgbench straight to the server that keeps both cores busy; then it
// probes the achieved round trip (empty queries through the proxy minus
// direct, alternating) on several connections at once, and prints per
// round trip the median added, its error, the spread, whether it is within
// the target (±10 % or ±50 µs, the larger), the proxy's release lateness,
// its wake-up margin and write lead, its CPU use and the machine's.
//
//	go run ./scripts/netdelay-accuracy [-rtts 0.1ms,0.3ms,1ms,5ms,20ms,50ms] [-load-conns 64] [-cpu-load 4] [-probes 4] [-version 17]
//
// Run it under the heavy lock (flock /tmp/pglab-heavy.lock): it is a timing
// measurement and loads both cores.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/netdelay"
	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/pgserver"
)

var (
	rtts      = flag.String("rtts", "0.1ms,0.3ms,1ms,5ms,20ms,50ms", "round trips to measure")
	loadConns = flag.Int("load-conns", 64, "pgbench connections through the proxy (0: none)")
	loadRate  = flag.Int("load-rate", 0, "pgbench -R of the load through the proxy, transactions per second (0: unthrottled)")
	cpuLoad   = flag.Int("cpu-load", 4, "pgbench connections straight to the server, unthrottled, to keep the CPUs busy (0: none)")
	probes    = flag.Int("probes", 4, "probes run at once, each on its own pair of connections")
	budget    = flag.Duration("budget", 4*time.Second, "time each probe samples for (at least 20 samples)")
	version   = flag.String("version", "17", "PostgreSQL major version of the managed server")
	pgbench   = flag.String("pgbench", "pgbench", "pgbench binary")
	scale     = flag.Int("scale", 10, "pgbench scale")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "netdelay-accuracy:", err)
		os.Exit(1)
	}
}

type row struct {
	set                time.Duration
	added, p10, p90    time.Duration
	worst              time.Duration // the probe farthest from the setting
	samples            int
	lateP50, lateP99   float64
	early, lead        float64
	cpuPct             float64
	busyPct            float64 // the machine's CPUs while the probes ran
	tpsProxied, tpsCPU float64
	sched              string
	conns              int64
}

func run() error {
	var list []time.Duration
	for _, s := range strings.Split(*rtts, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-rtts: %w", err)
		}
		list = append(list, d)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	spec, err := pgserver.ParseVersionSpec(*version)
	if err != nil {
		return err
	}
	bin, err := (&pgserver.Finder{}).Find(ctx, spec)
	if err != nil {
		return err
	}
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: bin, Name: "netdelay-accuracy",
		Settings: []pgserver.Setting{{Name: "max_connections", Value: "300"}}})
	if err != nil {
		return err
	}
	defer inst.Destroy(context.Background())
	env := append(os.Environ(), "PGPASSWORD="+inst.Password(), "PGUSER="+inst.User(), "PGDATABASE="+inst.Database(), "PGSSLMODE=disable")
	fmt.Fprintf(os.Stderr, "pgbench -i -s %d\n", *scale)
	if out, err := pgbenchCmd(ctx, env, "127.0.0.1", inst.Port(), "-i", "-q", "-s", strconv.Itoa(*scale)).CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %v\n%s", err, out)
	}
	cfg, err := pgconn.ParseConfig(inst.DSN())
	if err != nil {
		return err
	}
	var rows []row
	for _, rtt := range list {
		r, err := measure(ctx, inst, cfg, env, rtt)
		if err != nil {
			return fmt.Errorf("rtt %v: %w", rtt, err)
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%v done\n", rtt)
	}
	printTable(rows)
	return nil
}

func measure(ctx context.Context, inst *pgserver.Instance, cfg *pgconn.Config, env []string, rtt time.Duration) (row, error) {
	px, err := netdelay.Start(netdelay.Options{Upstream: net.JoinHostPort("127.0.0.1", strconv.Itoa(inst.Port())), RTT: rtt})
	if err != nil {
		return row{}, err
	}
	defer px.Close()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var tpsProxied, tpsCPU float64
	var loadErr error
	var mu sync.Mutex
	warm := 2*time.Second + 10*rtt
	secs := int((warm + *budget*3/2 + 40*rtt).Seconds()) + 3
	load := func(port, conns, rate int, out *float64) {
		defer wg.Done()
		// A fixed duration that outlasts the probes: pgbench prints its
		// summary only when it ends by itself.
		args := []string{"-n", "-S", "-M", "prepared", "-c", strconv.Itoa(conns), "-j", "2", "-T", strconv.Itoa(secs)}
		if rate > 0 {
			args = append(args, "-R", strconv.Itoa(rate))
		}
		cmd := pgbenchCmd(lctx, env, "127.0.0.1", port, args...)
		outb, err := cmd.CombinedOutput()
		mu.Lock()
		defer mu.Unlock()
		m := regexp.MustCompile(`tps = ([0-9.]+)`).FindSubmatch(outb)
		if err != nil || m == nil {
			loadErr = fmt.Errorf("pgbench: %v\n%s", err, lastLines(string(outb), 5))
			return
		}
		*out, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if *loadConns > 0 {
		wg.Add(1)
		go load(int(px.Port()), *loadConns, *loadRate, &tpsProxied)
	}
	if *cpuLoad > 0 {
		wg.Add(1)
		go load(inst.Port(), *cpuLoad, 0, &tpsCPU)
	}
	// Let the load connect (each connection pays the round trip a few times).
	time.Sleep(warm)
	if _, err := px.Stats(); err != nil { // resets the lateness window
		return row{}, err
	}
	cpu0, t0 := mustStats(px).CPUSeconds, time.Now()
	machine := observe.StartOS(ctx, "", time.Second)
	results := make([]netdelay.Probe, *probes)
	errs := make([]error, *probes)
	var pwg sync.WaitGroup
	for i := range results {
		pwg.Add(1)
		go func(i int) {
			defer pwg.Done()
			results[i], errs[i] = px.ProbePostgres(ctx, cfg, netdelay.ProbeOptions{Samples: 100000, Budget: *budget, MinSamples: 20})
		}(i)
	}
	pwg.Wait()
	st := mustStats(px)
	elapsed := time.Since(t0).Seconds()
	osSeries, osErr := machine.Stop()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return row{}, err
		}
	}
	if loadErr != nil {
		return row{}, loadErr
	}
	r := row{set: rtt, lateP50: st.LateP50US, lateP99: st.LateP99US, early: st.EarlyUS, lead: st.LeadUS, cpuPct: 100 * (st.CPUSeconds - cpu0) / elapsed,
		tpsProxied: tpsProxied, tpsCPU: tpsCPU, sched: st.Sched, conns: st.Open}
	if osErr == nil {
		r.busyPct = osSeries.Mean.CPUBusyPct
	}
	var adds []time.Duration
	r.worst = results[0].Added
	for _, p := range results {
		adds = append(adds, p.Added)
		r.samples += p.Samples
		if math.Abs(float64(p.Added-rtt)) > math.Abs(float64(r.worst-rtt)) {
			r.worst = p.Added
		}
		r.p10 += p.P10 / time.Duration(len(results))
		r.p90 += p.P90 / time.Duration(len(results))
	}
	slices.Sort(adds)
	r.added = adds[len(adds)/2]
	return r, nil
}

func mustStats(px *netdelay.Proxy) netdelay.Stats {
	st, err := px.Stats()
	if err != nil {
		fmt.Fprintln(os.Stderr, "netdelay-accuracy:", err)
		os.Exit(1)
	}
	return st
}

func tolerance(set time.Duration) time.Duration {
	return max(set/10, 50*time.Microsecond)
}

func printTable(rows []row) {
	rate := "unthrottled"
	if *loadRate > 0 {
		rate = fmt.Sprintf("-R %d", *loadRate)
	}
	fmt.Printf("load: %d pgbench connections through the proxy (select-only, prepared, %s), %d straight to the server (unthrottled); %d probes at once\n\n", *loadConns, rate, *cpuLoad, *probes)
	fmt.Println("| RTT set | added (median) | error | worst probe | p10 .. p90 | target | in target | release late p50/p99 | wake early / write lead | proxy CPU | CPUs busy | tps via proxy | tps direct | sched |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		tol := tolerance(r.set)
		ok := "yes"
		if d := r.added - r.set; d > tol || d < -tol {
			ok = "NO"
		}
		fmt.Printf("| %v | %s | %+.1f %% | %s | %s .. %s | ±%s | %s | %.0f / %.0f µs | %.0f / %.0f µs | %.0f %% | %.0f %% | %.0f | %.0f | %s |\n",
			r.set, us(r.added), 100*float64(r.added-r.set)/float64(r.set), us(r.worst), us(r.p10), us(r.p90), us(tol), ok,
			r.lateP50, r.lateP99, r.early, r.lead, r.cpuPct, r.busyPct, r.tpsProxied, r.tpsCPU, r.sched)
	}
}

func us(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return fmt.Sprintf("%.2f ms", d.Seconds()*1e3)
	}
	return fmt.Sprintf("%.0f µs", d.Seconds()*1e6)
}

func pgbenchCmd(ctx context.Context, env []string, host string, port int, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, *pgbench, append([]string{"-h", host, "-p", strconv.Itoa(port)}, args...)...)
	cmd.Env = env
	return cmd
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
