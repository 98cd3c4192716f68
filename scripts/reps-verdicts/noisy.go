package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// markerFile is the file in a run's directory that says whether the run
// had a noisy neighbour: "quiet", or "noisy: …".
const markerFile = "noise.txt"

// hogCommand is the hidden subcommand the driver re-executes itself with
// to be the noisy neighbour.
const hogCommand = "hog"

// spin keeps one CPU busy until the process is killed: the noisy
// neighbour, about one core.
func spin() {
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
	}
}

// hog is a running CPU hog, a child process of the driver.
type hog struct {
	cmd  *exec.Cmd
	once sync.Once
}

// startHog starts a CPU hog: this program again, spinning. The kernel
// kills it should the driver die first (Pdeathsig), so that it cannot
// outlive the driver.
func startHog() (*hog, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program for the CPU hog: %w", err)
	}
	c := exec.Command(self, hogCommand)
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("starting the CPU hog: %w", err)
	}
	return &hog{cmd: c}, nil
}

// stop kills the hog and waits for it, once however often it is called;
// a nil hog is none.
func (h *hog) stop() {
	if h == nil {
		return
	}
	h.once.Do(func() {
		h.cmd.Process.Kill()
		h.cmd.Wait()
	})
}

// writeMarker records in out whether the run has a noisy neighbour.
func writeMarker(out string, h *hog) error {
	text := "quiet\n"
	if h != nil {
		text = fmt.Sprintf("noisy: a CPU hog (pid %d, spinning on one core) started at %s, just before the compare, and killed when it ended\n",
			h.cmd.Process.Pid, time.Now().Format(time.RFC3339))
	}
	if err := os.WriteFile(filepath.Join(out, markerFile), []byte(text), 0o644); err != nil {
		return fmt.Errorf("writing the run's marker: %w", err)
	}
	return nil
}

// runOne runs one compare into out, beside a CPU hog when noisy, and
// records which in out's marker. The hog is killed as soon as the
// compare ends, whatever its end, or at once when ctx ends.
func runOne(ctx context.Context, bin, out string, noisy bool, args ...string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("creating the run's directory: %w", err)
	}
	var h *hog
	if noisy {
		var err error
		if h, err = startHog(); err != nil {
			return err
		}
		defer h.stop()
		defer context.AfterFunc(ctx, h.stop)()
	}
	if err := writeMarker(out, h); err != nil {
		return err
	}
	pglab(ctx, bin, out, nil, args...)
	return nil
}

// runSeries runs n compares with args into dir/prefixNN (store
// dir/results.db), beside a CPU hog when noisy, and tabulates them. A
// signal stops it after the running compare, which is asked to stop
// too.
func runSeries(ctx context.Context, dir, prefix string, n int, noisy bool, args ...string) error {
	bin, err := build(dir)
	if err != nil {
		return fmt.Errorf("building pglab: %w", err)
	}
	stop := sampleLoad(filepath.Join(dir, "load.log"))
	defer stop()
	if noisy {
		prefix += "-noisy"
	}
	for i := 1; i <= n && ctx.Err() == nil; i++ {
		out := filepath.Join(dir, fmt.Sprintf("%s%02d", prefix, i))
		compare := append(append([]string{}, args...), "--store", filepath.Join(dir, "results.db"), "--out", out)
		if err := runOne(ctx, bin, out, noisy, compare...); err != nil {
			return err
		}
	}
	if err := tables(dir); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stopped by a signal: %w", ctx.Err())
	}
	return nil
}
