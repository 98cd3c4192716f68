// Command reps-verdicts runs the long measurements of --reps auto and
// tabulates them from the runs' report.json (issue 23, "Done when"):
//
//	go run ./scripts/reps-verdicts aa [-runs 10] [-dir DIR]
//	    ten `pglab compare --aa --versions 17 --quick` (--reps auto): per
//	    run the tests, raw p ≤ α, calls, and the repetitions per case;
//	go run ./scripts/reps-verdicts seed [-dir DIR] [-versions 16,17]
//	    `pglab compare --versions 16,17` at seed sizes from an empty dataset
//	    cache, again with it warm, then with a fixed --reps 5: the time per
//	    study of each, and every primary cell's outcome under --reps auto
//	    next to --reps 5;
//	go run ./scripts/reps-verdicts table [-dir DIR]
//	    the tables again from the reports already in DIR.
//
// While it runs it samples the machine's load (1-minute load average, the
// busiest processes that are not this run's) into DIR/load.log, so that
// the figures can say what else ran. It builds pglab from this checkout
// into DIR/pglab first. Not a test: these runs take hours.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: reps-verdicts aa|seed|table [-dir DIR] [-runs N] [-versions 16,17]")
		os.Exit(2)
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	dir := fs.String("dir", "/tmp/reps-verdicts", "directory of the runs, their reports and tables")
	runs := fs.Int("runs", 10, "A/A runs (aa)")
	versions := fs.String("versions", "16,17", "versions compared (seed)")
	fs.Parse(os.Args[2:])
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fatal(err)
	}
	var err error
	switch cmd {
	case "aa":
		err = runAA(*dir, *runs)
	case "seed":
		err = runSeed(*dir, *versions)
	case "table":
		err = tables(*dir)
	default:
		err = fmt.Errorf("unknown command %q: want aa, seed or table", cmd)
	}
	if err != nil {
		fatal(err)
	}
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
func pglab(bin, out string, env []string, args ...string) time.Duration {
	os.MkdirAll(out, 0o755)
	stdout, _ := os.Create(filepath.Join(out, "stdout.txt"))
	stderr, _ := os.Create(filepath.Join(out, "stderr.txt"))
	defer stdout.Close()
	defer stderr.Close()
	c := exec.Command(bin, args...)
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

// runAA runs the A/A comparisons and tabulates them.
func runAA(dir string, n int) error {
	bin, err := build(dir)
	if err != nil {
		return err
	}
	stop := sampleLoad(filepath.Join(dir, "load.log"))
	defer stop()
	for i := 1; i <= n; i++ {
		out := filepath.Join(dir, fmt.Sprintf("aa%02d", i))
		pglab(bin, out, nil, "--quiet", "compare", "--aa", "--versions", "17", "--quick",
			"--store", filepath.Join(dir, "results.db"), "--out", out)
	}
	return tables(dir)
}

// runSeed runs the seed-size comparisons (empty cache, warm cache, fixed
// --reps 5) and tabulates them.
func runSeed(dir, versions string) error {
	bin, err := build(dir)
	if err != nil {
		return err
	}
	stop := sampleLoad(filepath.Join(dir, "load.log"))
	defer stop()
	cache := filepath.Join(dir, "datasets")
	os.RemoveAll(cache)
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
		{"seed-cold", nil},
		{"seed-warm", nil},
		{"seed-reps5", []string{"--reps", "5"}},
	} {
		out := filepath.Join(dir, r.name)
		args := append([]string{"--quiet", "compare", "--versions", versions, "--store", store, "--out", out}, r.args...)
		pglab(bin, out, env, args...)
	}
	return tables(dir)
}
