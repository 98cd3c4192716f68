// Command bench-vs-pgbench compares pglab bench with the real pgbench on one
// managed PostgreSQL server: it starts the server with the pglab binary
// ('pglab pg start'), initializes the pgbench tables, then runs pgbench and
// pglab alternately (ABBA order, -pairs pairs, same flags) for select-only
// -M prepared, tpcb-like and simple-update at -c 8 -j 2, and times
// 'pgbench -i -s 50' against 'pglab bench -i -s 50'. It prints, per case,
// the median tps of each, their ratio pglab/pgbench, and the client CPU
// seconds (user+system, from the child's rusage) per 1000 transactions; and
// the init wall-time ratio with a check that both inits produced the same
// table contents.
//
//	go run ./scripts/bench-vs-pgbench [-pairs 3] [-T 10] [-scale 10] [-init-scale 50]
//
// Run it on a quiet machine: other load skews both tools, not equally.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	tps, cpuPer1000, wall float64
	taskPer1000           float64 // perf stat's task-clock, when -perf
	xacts                 int64
}

var (
	pairs     = flag.Int("pairs", 3, "number of pgbench/pglab pairs per case")
	duration  = flag.Int("T", 10, "seconds per run")
	scale     = flag.Int("scale", 10, "scale of the run-mode tables")
	initScale = flag.Int("init-scale", 50, "scale of the timed init (0 skips it)")
	pgbench   = flag.String("pgbench", "", "pgbench binary (default: pgbench in PATH)")
	version   = flag.String("version", "17", "PostgreSQL major version of the managed server")
	only      = flag.String("only", "", "run only the cases whose name contains this")
	usePerf   = flag.Bool("perf", false, "also measure CPU with 'perf stat' (task-clock), which counts scheduled time exactly where rusage's split can differ")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-vs-pgbench:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	if *pgbench == "" {
		p, err := exec.LookPath("pgbench")
		if err != nil {
			return fmt.Errorf("pgbench not found (apt-get install postgresql-client-15)")
		}
		*pgbench = p
	}
	tmp, err := os.MkdirTemp("", "bench-vs-pgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pglab := filepath.Join(tmp, "pglab")
	fmt.Println("building pglab ...")
	if out, err := exec.Command("scripts/build", pglab).CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/build: %v\n%s", err, out)
	}
	name := fmt.Sprintf("benchvs%d", os.Getpid())
	out, err := exec.Command(pglab, "pg", "start", "--versions", *version, "--name", name,
		"--set", "max_connections=200", "--set", "shared_buffers=512MB").Output()
	if err != nil {
		return fmt.Errorf("pglab pg start: %v", err)
	}
	// The instance is the script's own: stopped and its data removed at the end.
	defer exec.Command(pglab, "pg", "stop", "--remove", name).Run()
	dsn := strings.TrimSpace(string(out))
	fmt.Printf("server: PostgreSQL %s (managed instance %s)\n", *version, name)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average before: %s", load)
	}

	if _, err := measure(ctx, pglab, []string{"bench", "-i", "-q", "-s", strconv.Itoa(*scale), dsn}); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	cases := []struct {
		name  string
		flags []string
	}{
		{"select-only -M prepared", []string{"-S", "-M", "prepared"}},
		{"tpcb-like", nil},
		{"simple-update", []string{"-N"}},
	}
	for _, c := range cases {
		if *only != "" && !strings.Contains(c.name, *only) {
			continue
		}
		args := append(append([]string{}, c.flags...), "-c", "8", "-j", "2", "-T", strconv.Itoa(*duration), dsn)
		var pg, gl []sample
		for i := 0; i < *pairs; i++ {
			order := []bool{false, true}
			if i%2 == 1 {
				order = []bool{true, false}
			}
			for _, isPglab := range order {
				var s sample
				var err error
				if isPglab {
					s, err = measure(ctx, pglab, append([]string{"bench"}, args...))
					gl = append(gl, s)
				} else {
					s, err = measure(ctx, *pgbench, args)
					pg = append(pg, s)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
			}
		}
		mpg, mgl := median(pg, func(s sample) float64 { return s.tps }), median(gl, func(s sample) float64 { return s.tps })
		cpg, cgl := median(pg, func(s sample) float64 { return s.cpuPer1000 }), median(gl, func(s sample) float64 { return s.cpuPer1000 })
		fmt.Printf("%-24s tps pgbench %9.1f  pglab %9.1f  ratio %.3f | CPU s/1000 tx pgbench %.4f  pglab %.4f  ratio %.3f\n",
			c.name, mpg, mgl, mgl/mpg, cpg, cgl, cgl/cpg)
		if *usePerf {
			tpg, tgl := median(pg, func(s sample) float64 { return s.taskPer1000 }), median(gl, func(s sample) float64 { return s.taskPer1000 })
			fmt.Printf("%-24s   perf task-clock s/1000 tx pgbench %.4f  pglab %.4f  ratio %.3f\n", "", tpg, tgl, tgl/tpg)
		}
		fmt.Printf("%-24s   runs pgbench tps %s; pglab tps %s\n", "", list(pg), list(gl))
	}
	if *initScale > 0 && (*only == "" || strings.Contains("init", *only)) {
		var pg, gl []sample
		var sums [2]string
		for i := 0; i < *pairs; i++ {
			for _, isPglab := range []bool{i%2 == 1, i%2 == 0} {
				args := []string{"-i", "-q", "-s", strconv.Itoa(*initScale), dsn}
				var s sample
				var err error
				if isPglab {
					s, err = measure(ctx, pglab, append([]string{"bench"}, args...))
					gl = append(gl, s)
				} else {
					s, err = measure(ctx, *pgbench, args)
					pg = append(pg, s)
				}
				if err != nil {
					return fmt.Errorf("init: %w", err)
				}
				sum, err := contents(dsn)
				if err != nil {
					return err
				}
				if isPglab {
					sums[1] = sum
				} else {
					sums[0] = sum
				}
			}
		}
		wpg, wgl := median(pg, func(s sample) float64 { return s.wall }), median(gl, func(s sample) float64 { return s.wall })
		fmt.Printf("%-24s wall pgbench %.2f s  pglab %.2f s  ratio %.3f | contents equal: %v (%s)\n",
			fmt.Sprintf("init -s %d", *initScale), wpg, wgl, wgl/wpg, sums[0] == sums[1], sums[1])
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average after: %s", load)
	}
	return nil
}

var (
	tpsRe   = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without`)
	xactsRe = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
)

// measure runs one command and reads its tps, transactions, wall time and
// CPU time (user + system of the child, from its rusage).
func measure(ctx context.Context, bin string, args []string) (sample, error) {
	perfOut := ""
	if *usePerf {
		f, err := os.CreateTemp("", "perfstat-")
		if err != nil {
			return sample{}, err
		}
		f.Close()
		perfOut = f.Name()
		defer os.Remove(perfOut)
		args = append([]string{"stat", "-x,", "-e", "task-clock", "-o", perfOut, bin}, args...)
		bin = "perf"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, errb.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	s := sample{wall: wall}
	if m := tpsRe.FindSubmatch(out.Bytes()); m != nil {
		s.tps, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := xactsRe.FindSubmatch(out.Bytes()); m != nil {
		s.xacts, _ = strconv.ParseInt(string(m[1]), 10, 64)
		if s.xacts > 0 {
			s.cpuPer1000 = cpu / float64(s.xacts) * 1000
		}
	}
	if perfOut != "" && s.xacts > 0 {
		data, _ := os.ReadFile(perfOut)
		for _, l := range strings.Split(string(data), "\n") {
			f := strings.Split(l, ",")
			if len(f) > 2 && strings.HasPrefix(f[2], "task-clock") {
				ms, _ := strconv.ParseFloat(f[0], 64)
				s.taskPer1000 = ms / 1000 / float64(s.xacts) * 1000
			}
		}
	}
	return s, nil
}

// contents summarizes the pgbench tables: row counts, sum(abalance), aid
// range and the filler length, so that two inits can be compared.
func contents(dsn string) (string, error) {
	q := `select (select count(*) from pgbench_branches) || '/' || (select count(*) from pgbench_tellers) || '/' ||
 (select count(*) from pgbench_accounts) || '/' || (select count(*) from pgbench_history) || ' sum=' ||
 (select sum(abalance) from pgbench_accounts) || ' aid=' || (select min(aid) || '..' || max(aid) from pgbench_accounts) ||
 ' bid=' || (select sum(bid::bigint) from pgbench_accounts) || ' filler=' || (select count(*) from pgbench_accounts where octet_length(filler) = 84)`
	out, err := exec.Command("psql", "-XAtq", dsn, "-c", q).Output()
	if err != nil {
		return "", fmt.Errorf("psql: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Scan()
	return sc.Text(), nil
}

func median(s []sample, f func(sample) float64) float64 {
	v := make([]float64, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	sort.Float64s(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func list(s []sample) string {
	var parts []string
	for _, x := range s {
		parts = append(parts, fmt.Sprintf("%.0f", x.tps))
	}
	return strings.Join(parts, " ")
}
