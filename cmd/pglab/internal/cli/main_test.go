package cli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pglab/pglab/cmd/pglab/internal/cli"
	"github.com/pglab/pglab/pgserver/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// result is what one in-process run of pglab produced.
type result struct {
	code           int
	stdout, stderr string
}

// run runs pglab in-process with args.
func run(t testing.TB, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), args, strings.NewReader(""), &out, &errb)
	return result{code, out.String(), errb.String()}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// pglabBinary builds cmd/pglab once per test binary, for tests that need a
// separate process (signals).
func pglabBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pglab-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "pglab")
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/pglab/pglab/cmd/pglab")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build pglab: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// assertOneLineError checks the shape of a run that failed: exit 1,
// nothing on stdout, one line on stderr starting with "pglab: ", no stack
// trace.
func assertOneLineError(t *testing.T, r result, want string) {
	t.Helper()
	assertExit(t, r, 1, want)
}

// assertUsageError checks the shape every refused command line must have:
// exit 64 (EX_USAGE), nothing on stdout, one line on stderr starting with
// "pglab: ", no stack trace.
func assertUsageError(t *testing.T, r result, want string) {
	t.Helper()
	assertExit(t, r, 64, want)
}

// assertExit checks an error's exit code and its one line on stderr.
func assertExit(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "pglab: ") || !strings.Contains(last, want) {
		t.Errorf("last stderr line = %q, want 'pglab: …%s…'", last, want)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("stack trace in stderr: %s", r.stderr)
	}
}
