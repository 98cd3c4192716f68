package cli_test

// The results store on a full or read-only filesystem, through a command:
// a small tmpfs mounted by the test (root only) holds a store with one
// finished run; pglab study is then run into it with the disk full, and
// with the filesystem remounted read-only. Each must fail with one clear
// line, stop its servers, and leave the previous run readable.

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

// mountTmpfs mounts a tmpfs of the given size (e.g. "4m") on a new
// directory, unmounted at the end of the test.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("mounting a tmpfs needs root (pglab's tests run as root in CI)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "pglab-test", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			if err := syscall.Unmount(dir, 0); err == nil || errors.Is(err, syscall.EINVAL) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		syscall.Unmount(dir, syscall.MNT_DETACH)
	})
	return dir
}

// seedStore stores one finished run with a few measurements and returns
// its ID.
func seedStore(t *testing.T, path string) string {
	t.Helper()
	ctx := context.Background()
	s, err := results.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.BeginRun(ctx, results.RunInfo{Kind: results.KindStudy, Version: "test", Command: []string{"pglab", "study", "seed"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddTarget(ctx, results.Target{Name: "pg", Kind: results.TargetManaged, ServerVersion: "17.0", ServerVersionNum: 170000}); err != nil {
		t.Fatal(err)
	}
	var ms []results.Measurement
	for i := 1; i <= 3; i++ {
		ms = append(ms, results.Measurement{Target: "pg", Study: "seed", Case: map[string]string{"c": "1"}, Rep: i, Metric: "elapsed_ms", Value: float64(i), Unit: "ms"})
	}
	if err := r.AddMeasurements(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(ctx, results.StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	return r.ID()
}

// fillDisk writes a file until the filesystem is full.
func fillDisk(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for i := 0; i < 1<<20; i++ {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
	t.Fatalf("the filesystem never filled")
}

// midwayRoom is the free space left for the full-midway case: enough to
// open the store and begin a run, too little for a study's artefacts.
const midwayRoom = 96 << 10

func fillerSize(t *testing.T, dir string) int64 {
	t.Helper()
	st, err := os.Stat(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// assertSeedIntact checks the store still opens and holds the seeded run.
func assertSeedIntact(t *testing.T, path, id string) {
	t.Helper()
	ctx := context.Background()
	s, err := results.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("the store no longer opens: %v", err)
	}
	defer s.Close()
	rec, err := s.Run(ctx, id)
	if err != nil || rec.Status != results.StatusDone {
		t.Fatalf("previous run: %+v %v", rec, err)
	}
	ms, err := s.Measurements(ctx, id, results.MeasurementFilter{})
	if err != nil || len(ms) != 3 {
		t.Errorf("previous run's measurements: %d %v", len(ms), err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ic string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ic); err != nil || ic != "ok" {
		t.Errorf("integrity_check: %q %v", ic, err)
	}
}

func TestFaultStoreDiskFullAndReadOnly(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	tmp := pgtest.TempDir(t)
	t.Setenv("PGLAB_TMPDIR", tmp)
	args := []string{"--quiet", "study", "copy-errors", "--versions", pgtest.DefaultVersion()}

	t.Run("full", func(t *testing.T) {
		dir := mountTmpfs(t, "2m")
		store := filepath.Join(dir, "r.db")
		id := seedStore(t, store)
		fillDisk(t, dir)
		r := run(t, append(args, "--store", store)...)
		t.Logf("exit %d: %s", r.code, r.stderr)
		assertOneLineError(t, r, "")
		assertStoreRefusal(t, r, store, "is full", "the disk is full", tmp)
		os.Remove(filepath.Join(dir, "filler"))
		assertSeedIntact(t, store, id)
	})

	// Room for the run to begin, not for its measurements and artefacts:
	// the run fails midway, is rolled back or finished as failed, and the
	// servers are stopped.
	t.Run("full-midway", func(t *testing.T) {
		dir := mountTmpfs(t, "2m")
		store := filepath.Join(dir, "r.db")
		id := seedStore(t, store)
		fillDisk(t, dir)
		if err := os.Truncate(filepath.Join(dir, "filler"), fillerSize(t, dir)-midwayRoom); err != nil {
			t.Fatal(err)
		}
		r := run(t, append(args, "--store", store)...)
		t.Logf("exit %d: %s", r.code, r.stderr)
		if r.code != 1 {
			t.Errorf("exit code %d, want 1", r.code)
		}
		assertStoreRefusal(t, r, store, "is full", "the disk is full", tmp)
		if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
			t.Errorf("stack trace: %s", r.stderr)
		}
		os.Remove(filepath.Join(dir, "filler"))
		assertSeedIntact(t, store, id)
		if rec, _ := storedRun(t, store); rec.ID != id && rec.Status != results.StatusFailed {
			t.Errorf("the run that hit the full disk is stored as %s, want failed", rec.Status)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		dir := mountTmpfs(t, "4m")
		store := filepath.Join(dir, "r.db")
		id := seedStore(t, store)
		if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v: %s", err, out)
		}
		r := run(t, append(args, "--store", store)...)
		t.Logf("exit %d: %s", r.code, r.stderr)
		assertOneLineError(t, r, "")
		assertStoreRefusal(t, r, store, "is read-only", "the store is read-only", tmp)
		assertSeedIntact(t, store, id)
		// Reading still works on the read-only filesystem.
		if r := run(t, "runs", "--store", store); r.code != 0 || !strings.Contains(r.stdout, id) {
			t.Errorf("pglab runs on the read-only store: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// assertStoreRefusal checks that pglab's error says what is wrong with the
// store (phrase, "the error does not say <what>") and that no server it
// started under tmp is left running.
func assertStoreRefusal(t *testing.T, r result, store, phrase, what, tmp string) {
	t.Helper()
	if !strings.Contains(strings.ReplaceAll(r.stderr, store, "STORE"), phrase) {
		t.Errorf("the error does not say %s: %s", what, r.stderr)
	}
	if left := postgresProcessesUnder(tmp); len(left) > 0 {
		t.Errorf("servers left running: %v", left)
	}
}
