// Command reps-verdicts runs the long measurements of --reps auto and
// tabulates them from the runs' report.json (issues 23 and 29, "Done
// when"):
//
//	go run ./scripts/reps-verdicts aa [-runs 10] [-noisy] [-dir DIR]
//	    `pglab compare --aa --versions 17 --quick` (--reps auto) -runs
//	    times into DIR/aaNN (DIR/aa-noisyNN with -noisy): per run the
//	    tests, raw p ≤ α, calls, and the repetitions per case;
//	go run ./scripts/reps-verdicts versions [-runs 1] [-noisy] [-versions 16,17] [-dir DIR]
//	    `pglab compare --versions 16,17 --quick` -runs times into DIR/vsNN
//	    (DIR/vs-noisyNN with -noisy);
//	go run ./scripts/reps-verdicts seed [-dir DIR] [-versions 16,17]
//	    `pglab compare --versions 16,17` at seed sizes from an empty dataset
//	    cache, again with it warm, then with a fixed --reps 5: the time per
//	    study of each, and every primary cell's outcome under --reps auto
//	    next to --reps 5;
//	    (-seed-runs build,warm: the datasets built by a run of one
//	    repetition from an empty cache, then the run with them cached);
//	go run ./scripts/reps-verdicts table [-dir DIR]
//	    the tables again from the reports already in DIR.
//
// -args adds arguments to every compare of aa and versions ("--reps
// auto:20", "--param commit.updates=500") and -tag names their series
// (DIR/vs-cap20-01), for the curve of unresolved share against time.
//
// With -noisy each compare has a noisy neighbour: a CPU hog spinning on
// about one core (this program again, as its hidden subcommand hog),
// started just before the compare and killed as soon as it ends; the
// kernel kills it should the driver die first. Each aa and versions run's
// directory records quiet or noisy in noise.txt. After aa and versions
// (and in table) a table of every aa… and vs… run gives its primary
// cells' outcomes (each on its own rounds), the family's calls, and the criteria of issues
// 29: unresolved shares, how many A/A reports call anything, and whether
// the versions runs call COPY TO faster and VACUUM's WAL (95 % updated, no
// index) smaller.
//
// While it runs it samples the machine's load (1-minute load average, the
// busiest processes) into DIR/load.log, so that the figures can say what
// else ran. It builds pglab from this checkout into DIR/pglab first. A
// SIGINT or SIGTERM asks the running compare to stop (SIGTERM), waits for
// it and ends; a second one ends the driver at once. Not a test: these
// runs take hours.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// stopWait is how long a compare asked to stop (SIGTERM) may take to
// shut its servers down before it is killed.
const stopWait = 2 * time.Minute

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: reps-verdicts aa|versions|seed|table [-dir DIR] [-runs N] [-noisy] [-versions 16,17]")
		os.Exit(2)
	}
	cmd := os.Args[1]
	if cmd == hogCommand {
		spin()
	}
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	dir := fs.String("dir", "/tmp/reps-verdicts", "directory of the runs, their reports and tables")
	runs := fs.Int("runs", 0, "compares to run (aa: 10, versions: 1)")
	noisy := fs.Bool("noisy", false, "run each compare beside a CPU hog on about one core (aa, versions)")
	versions := fs.String("versions", "16,17", "versions compared (versions, seed)")
	extra := fs.String("args", "", "more arguments of every compare, space-separated (aa, versions), e.g. \"--reps auto:20\"")
	tag := fs.String("tag", "", "a word in the name of each run's directory (aa, versions), e.g. cap20: DIR/vs-cap20-01")
	seedRuns := fs.String("seed-runs", "cold,warm,reps5", "the seed-size runs to make, in order (seed)")
	fs.Parse(os.Args[2:])
	moreArgs, runTag, seedWhich = strings.Fields(*extra), *tag, strings.Split(*seedRuns, ",")
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the driver at once
	}()
	if err := run(ctx, cmd, *dir, *runs, *noisy, *versions); err != nil {
		fatal(err)
	}
}

// run runs the command cmd with its flags.
func run(ctx context.Context, cmd, dir string, runs int, noisy bool, versions string) error {
	switch cmd {
	case "aa":
		return runSeries(ctx, dir, tagged("aa"), orDefault(runs, 10), noisy, append([]string{"--quiet", "compare", "--aa", "--versions", "17", "--quick"}, moreArgs...)...)
	case "versions":
		return runSeries(ctx, dir, tagged("vs"), orDefault(runs, 1), noisy, append([]string{"--quiet", "compare", "--versions", versions, "--quick"}, moreArgs...)...)
	case "seed":
		return runSeed(ctx, dir, versions)
	case "table":
		return tables(dir)
	}
	return fmt.Errorf("unknown command %q: want aa, versions, seed or table", cmd)
}

// moreArgs are -args, runTag is -tag, seedWhich the -seed-runs.
var (
	moreArgs  []string
	runTag    string
	seedWhich []string
)

// tagged returns a series' prefix with -tag: "vs" or "vs-cap20".
func tagged(prefix string) string {
	if runTag == "" {
		return prefix
	}
	return prefix + "-" + runTag
}

// orDefault is n, or def when n is not positive.
func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "reps-verdicts:", err)
	os.Exit(1)
}

// build builds pglab into dir and returns its path.
func build(dir string) (string, error) {
	bin := filepath.Join(dir, "pglab")
	c := exec.Command("go", "build", "-o", bin, "./cmd/pglab")
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	return bin, c.Run()
}

// pglab runs one pglab command with its output in out (stdout.txt,
// stderr.txt) and env added to the environment; it returns how long it
// took. A failed run is reported, not fatal: its report may still exist.
// When ctx ends the command is asked to stop (SIGTERM) and killed after
// stopWait.
func pglab(ctx context.Context, bin, out string, env []string, args ...string) time.Duration {
	os.MkdirAll(out, 0o755)
	stdout, _ := os.Create(filepath.Join(out, "stdout.txt"))
	stderr, _ := os.Create(filepath.Join(out, "stderr.txt"))
	defer stdout.Close()
	defer stderr.Close()
	c := exec.CommandContext(ctx, bin, args...)
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	c.WaitDelay = stopWait
	c.Stdout, c.Stderr = stdout, stderr
	c.Env = append(os.Environ(), env...)
	began := time.Now()
	err := c.Run()
	took := time.Since(began)
	fmt.Printf("%s  %s: %s (%s)\n", time.Now().Format("15:04:05"), filepath.Base(out), status(err), took.Round(time.Second))
	return took
}

func status(err error) string {
	if err == nil {
		return "done"
	}
	return "failed: " + err.Error()
}

// runSeed runs the seed-size comparisons (empty cache, warm cache, fixed
// --reps 5) and tabulates them.
func runSeed(ctx context.Context, dir, versions string) error {
	bin, err := build(dir)
	if err != nil {
		return fmt.Errorf("building pglab: %w", err)
	}
	stop := sampleLoad(filepath.Join(dir, "load.log"))
	defer stop()
	cache := filepath.Join(dir, "datasets")
	if slices.Contains(seedWhich, "cold") || slices.Contains(seedWhich, "build") {
		os.RemoveAll(cache) // the cold run (or the build of the datasets) starts from an empty cache
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	os.Chmod(dir, 0o755)
	env := []string{"PGLAB_DATASET_CACHE=" + cache}
	store := filepath.Join(dir, "results.db")
	for _, r := range []struct {
		name string
		args []string
	}{
		{"seed-build", []string{"--reps", "1"}},
		{"seed-cold", nil},
		{"seed-warm", nil},
		{"seed-reps5", []string{"--reps", "5"}},
	} {
		if !slices.Contains(seedWhich, strings.TrimPrefix(r.name, "seed-")) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		out := filepath.Join(dir, r.name)
		args := append([]string{"--quiet", "compare", "--versions", versions, "--store", store, "--out", out}, r.args...)
		pglab(ctx, bin, out, env, args...)
	}
	return tables(dir)
}
