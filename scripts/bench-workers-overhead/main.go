// Command bench-workers-overhead measures what a coordinated run costs: on
// one managed PostgreSQL server it runs the same workload alternately (ABBA
// order, -pairs pairs) as one pglab bench process and as a coordinator with
// -workers local pglab worker processes sharing the same total clients and
// threads, and prints the median tps of each, their ratio and the loss in
// percent, with the client CPU seconds (user+system of every process, from
// rusage) per 1000 transactions.
//
//	go run ./scripts/bench-workers-overhead [-pairs 4] [-T 10] [-c 12] [-j 3] [-workers 3]
//
// Run it on a quiet machine (under the heavy lock here): other load skews
// both sides, not equally.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
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

var (
	pairs    = flag.Int("pairs", 4, "number of single/coordinated pairs")
	duration = flag.Int("T", 10, "seconds per run")
	clients  = flag.Int("c", 12, "total clients")
	threads  = flag.Int("j", 3, "total threads")
	workers  = flag.Int("workers", 3, "local worker processes of the coordinated run")
	scale    = flag.Int("scale", 10, "scale of the tables")
	version  = flag.String("version", "17", "PostgreSQL major version of the managed server")
)

type sample struct{ tps, cpuPer1000 float64 }

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-workers-overhead:", err)
		os.Exit(1)
	}
}

func run() error {
	tmp, err := os.MkdirTemp("", "bench-workers-overhead-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pglab := filepath.Join(tmp, "pglab")
	fmt.Println("building pglab ...")
	if out, err := exec.Command("scripts/build", pglab).CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/build: %v\n%s", err, out)
	}
	name := fmt.Sprintf("overhead%d", os.Getpid())
	out, err := exec.Command(pglab, "pg", "start", "--versions", *version, "--name", name,
		"--set", "max_connections=200", "--set", "shared_buffers=512MB").Output()
	if err != nil {
		return fmt.Errorf("pglab pg start: %v", err)
	}
	defer exec.Command(pglab, "pg", "stop", "--remove", name).Run()
	dsn := strings.TrimSpace(string(out))
	u, err := url.Parse(dsn)
	if err != nil {
		return err
	}
	pw, _ := u.User.Password()
	fmt.Printf("server: PostgreSQL %s (managed instance %s)\n", *version, name)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average before: %s", load)
	}
	if out, err := exec.Command(pglab, "bench", "-i", "-q", "-s", strconv.Itoa(*scale), dsn).CombinedOutput(); err != nil {
		return fmt.Errorf("init: %v\n%s", err, out)
	}
	args := []string{"-S", "-M", "prepared", "-c", strconv.Itoa(*clients), "-j", strconv.Itoa(*threads), "-T", strconv.Itoa(*duration)}
	fmt.Printf("workload: pglab bench %s (single process) vs the same with --listen and %d local workers\n", strings.Join(args, " "), *workers)
	var single, coord []sample
	for i := 0; i < *pairs; i++ {
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, coordinated := range order {
			var s sample
			var err error
			if coordinated {
				s, err = runCoordinated(pglab, tmp, args, dsn, pw)
				coord = append(coord, s)
			} else {
				s, err = runSingle(pglab, args, dsn)
				single = append(single, s)
			}
			if err != nil {
				return err
			}
			fmt.Printf("  pair %d %-11s tps %9.1f  CPU s/1000 tx %.4f\n", i+1, map[bool]string{false: "single", true: "coordinated"}[coordinated], s.tps, s.cpuPer1000)
		}
	}
	ms, mc := median(single, func(s sample) float64 { return s.tps }), median(coord, func(s sample) float64 { return s.tps })
	cs, cc := median(single, func(s sample) float64 { return s.cpuPer1000 }), median(coord, func(s sample) float64 { return s.cpuPer1000 })
	fmt.Printf("median tps single %.1f  coordinated %.1f  ratio %.3f  loss %.1f %%\n", ms, mc, mc/ms, 100*(1-mc/ms))
	fmt.Printf("median client CPU s/1000 tx single %.4f  coordinated %.4f  ratio %.3f\n", cs, cc, cc/cs)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average after: %s", load)
	}
	return nil
}

var (
	tpsRe   = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without`)
	xactsRe = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
	joinRe  = regexp.MustCompile(`pglab worker --join (\S+)`)
)

func cpuOf(ps *os.ProcessState) float64 {
	ru := ps.SysUsage().(*syscall.Rusage)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func parse(out []byte, cpu float64) (sample, error) {
	m := tpsRe.FindSubmatch(out)
	x := xactsRe.FindSubmatch(out)
	if m == nil || x == nil {
		return sample{}, fmt.Errorf("no tps in the output:\n%s", out)
	}
	var s sample
	s.tps, _ = strconv.ParseFloat(string(m[1]), 64)
	n, _ := strconv.ParseFloat(string(x[1]), 64)
	if n > 0 {
		s.cpuPer1000 = cpu / n * 1000
	}
	return s, nil
}

func runSingle(pglab string, args []string, dsn string) (sample, error) {
	cmd := exec.Command(pglab, append(append([]string{"bench"}, args...), dsn)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("single run: %v\n%s", err, errb.String())
	}
	return parse(out.Bytes(), cpuOf(cmd.ProcessState))
}

func runCoordinated(pglab, tmp string, args []string, dsn, password string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*duration+120)*time.Second)
	defer cancel()
	cargs := append([]string{"bench", "--listen", "127.0.0.1:0", "--expect-workers", strconv.Itoa(*workers),
		"--store", filepath.Join(tmp, "results.db")}, args...)
	co := exec.CommandContext(ctx, pglab, append(cargs, dsn)...)
	var out, errb bytes.Buffer
	co.Stdout = &out
	pr, pw := io.Pipe()
	co.Stderr = io.MultiWriter(&errb, pw)
	if err := co.Start(); err != nil {
		return sample{}, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := joinRe.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var ws []*exec.Cmd
	defer func() {
		for _, w := range ws {
			if w.ProcessState == nil {
				_ = w.Process.Kill()
				_ = w.Wait()
			}
		}
	}()
	select {
	case a := <-addr:
		for i := 0; i < *workers; i++ {
			w := exec.CommandContext(ctx, pglab, "worker", "--join", a)
			w.Env = append(os.Environ(), "PGPASSWORD="+password)
			if err := w.Start(); err != nil {
				return sample{}, err
			}
			ws = append(ws, w)
		}
	case <-ctx.Done():
		return sample{}, fmt.Errorf("the coordinator printed no address: %s", errb.String())
	}
	err := co.Wait()
	pw.Close()
	if err != nil {
		return sample{}, fmt.Errorf("coordinated run: %v\n%s", err, errb.String())
	}
	cpu := cpuOf(co.ProcessState)
	for _, w := range ws {
		if err := w.Wait(); err != nil {
			return sample{}, fmt.Errorf("worker: %v", err)
		}
		cpu += cpuOf(w.ProcessState)
	}
	return parse(out.Bytes(), cpu)
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
