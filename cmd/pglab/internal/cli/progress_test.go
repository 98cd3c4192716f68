package cli_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// onTerminal runs pglab with args on a pseudo-terminal (stdout and stderr
// both) and returns everything it drew and its exit code.
func onTerminal(t *testing.T, env []string, limit time.Duration, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(pglabBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatalf("start on a pty: %v", err)
	}
	defer f.Close()
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		io.Copy(&out, f) // ends with EIO once the process has exited
		close(read)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(limit):
		cmd.Process.Signal(syscall.SIGINT)
		<-done
		t.Fatalf("pglab %s did not finish within %v; it drew:\n%s", strings.Join(args, " "), limit, out.String())
	}
	select {
	case <-read:
	case <-time.After(5 * time.Second):
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		t.Fatal(werr)
	}
	return out.String(), code
}

// TestProgressBarsOnTerminal runs commands on a terminal and checks the
// bars they draw: installing (a step per npm pack, unpack and check),
// setting up a managed server (binaries, initdb, start) and the study's
// repetitions with a count and a time estimate; progress lines still
// print above the bars, and the results reach standard output.
func TestProgressBarsOnTerminal(t *testing.T) {
	e := newFaultEnv(t)
	v := pgtest.DefaultVersion()

	out, code := onTerminal(t, e.vars(), time.Minute, "pg", "install", v)
	if code != 0 {
		t.Fatalf("pg install %s: exit %d:\n%s", v, code, out)
	}
	if !regexp.MustCompile(`install: PostgreSQL `+v+`: installed`).MatchString(out) ||
		!strings.Contains(out, "(3/3") {
		t.Errorf("pg install drew no finished install bar:\n%q", out)
	}
	if !regexp.MustCompile(`(?m)^` + v + `\.\d+\t/`).MatchString(strings.ReplaceAll(out, "\r", "\n")) {
		t.Errorf("pg install printed no version and directory line:\n%q", out)
	}

	store := filepath.Join(t.TempDir(), "r.db")
	out, code = onTerminal(t, e.vars(), 3*time.Minute, "study", "copy-errors", "--versions", v, "--store", store)
	if code != 0 {
		t.Fatalf("study copy-errors: exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"setup: pg" + v + ": initdb",
		"setup: pg" + v + ": ready",
		"(3/3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in what the study drew:\n%q", want, out)
		}
	}
	if !regexp.MustCompile(`copy-errors: .*\(7/7`).MatchString(out) {
		t.Errorf("no finished copy-errors bar (7/7) in:\n%q", out)
	}
	if !strings.Contains(out, "pglab: starting PostgreSQL") {
		t.Errorf("the progress lines are gone from the terminal:\n%q", out)
	}
	if !strings.Contains(out, "ON_ERROR ignore") {
		t.Errorf("the study's table is missing:\n%q", out)
	}
}
