package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestMigrateEmptyFile(t *testing.T) {
	loc := sqliteLocation(t)
	if err := os.WriteFile(loc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, loc)
	var v int
	var name string
	if err := s.db.QueryRow(`SELECT version, name FROM schema_version`).Scan(&v, &name); err != nil || v != SchemaVersion() || name == "" {
		t.Errorf("schema_version: %d %q %v", v, name, err)
	}
	for _, table := range []string{"runs", "targets", "target_settings", "measurements", "artefacts"} {
		if ok, err := s.tableExists(context.Background(), s.db, table); !ok || err != nil {
			t.Errorf("table %s missing: %v", table, err)
		}
	}
	// Opening again applies nothing twice.
	s.Close()
	s = mustOpen(t, loc)
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM schema_version`).Scan(&n); err != nil || n != len(migrations) {
		t.Errorf("%d schema_version rows, %v; want %d", n, err, len(migrations))
	}
}

// TestMigrationsInOrder adds a migration, as a later pglab would: an old
// store is upgraded in place with its runs kept, and the old pglab then
// refuses the newer store.
func TestMigrationsInOrder(t *testing.T) {
	ctx := context.Background()
	loc := sqliteLocation(t)
	s := mustOpen(t, loc)
	r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	old := migrations
	t.Cleanup(func() { migrations = old })
	next := SchemaVersion() + 1
	migrations = append(append([]migration(nil), old...), migration{next, "test: run notes", []string{
		`CREATE TABLE run_notes (run_id TEXT NOT NULL REFERENCES runs (id), note TEXT NOT NULL)`,
		`INSERT INTO run_notes SELECT id, 'migrated' FROM runs`,
	}})
	s = mustOpen(t, loc)
	var note string
	if err := s.db.QueryRow(`SELECT note FROM run_notes WHERE run_id = ?`, r.ID()).Scan(&note); err != nil || note != "migrated" {
		t.Errorf("migration %d not applied: %q %v", next, note, err)
	}
	if got, err := s.Run(ctx, r.ID()); err != nil || got.Kind != KindStudy {
		t.Errorf("run lost in migration: %+v %v", got, err)
	}
	s.Close()

	migrations = old
	_, err = Open(ctx, loc)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schema version %d, newer than this pglab knows (%d)", next, next-1)) {
		t.Errorf("opening a newer store: %v", err)
	}
	if _, err := OpenReadOnly(ctx, loc); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("opening a newer store read-only: %v", err)
	}
}

// TestFailedMigrationRollsBack checks that a migration that fails half-way
// leaves the store as it was.
func TestFailedMigrationRollsBack(t *testing.T) {
	ctx := context.Background()
	loc := sqliteLocation(t)
	mustOpen(t, loc).Close()
	old := migrations
	t.Cleanup(func() { migrations = old })
	migrations = append(append([]migration(nil), old...), migration{SchemaVersion() + 1, "broken", []string{
		`CREATE TABLE half (x TEXT)`,
		`THIS IS NOT SQL`,
	}})
	if _, err := Open(ctx, loc); err == nil || !strings.Contains(err.Error(), "migration") {
		t.Fatalf("broken migration: %v", err)
	}
	migrations = old
	s := mustOpen(t, loc)
	if ok, _ := s.tableExists(ctx, s.db, "half"); ok {
		t.Error("a failed migration left a table behind")
	}
}

func TestNotAStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, text)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), text+" is not an SQLite database") {
		t.Errorf("text file: %v", err)
	}

	other := filepath.Join(dir, "other.db")
	s := mustOpen(t, other)
	rawExec(t, s, `DROP TABLE schema_version`)
	s.Close()
	if _, err := Open(ctx, other); err == nil || !strings.Contains(err.Error(), "not a pglab results store") {
		t.Errorf("foreign SQLite file: %v", err)
	}

	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(dir, "missing.db")); err == nil || !strings.Contains(err.Error(), "no results store") {
		t.Errorf("missing file read-only: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Error("OpenReadOnly created a file")
	}
}

// TestOpenReadOnly reads a store opened read-only; every write fails with
// ErrReadOnly and one line of text, and the file does not change.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	loc := sqliteLocation(t)
	s := mustOpen(t, loc)
	r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(ctx, StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	ro, err := OpenReadOnly(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got, err := ro.Run(ctx, "last"); err != nil || got.ID != r.ID() {
		t.Errorf("read: %+v %v", got, err)
	}
	_, err = ro.BeginRun(ctx, RunInfo{Kind: KindStudy})
	checkReadOnlyErr(t, err, loc)
	// Not even the driver could write: bypass the store's own check.
	_, err = ro.db.Exec(`INSERT INTO runs (id, kind, status, started_at) VALUES ('x', 'study', 'done', 'now')`)
	if classify(err) != ErrReadOnly {
		t.Errorf("raw insert on a read-only open: %v", err)
	}
}

func checkReadOnlyErr(t *testing.T, err error, loc string) {
	t.Helper()
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write to a read-only store: %v, want ErrReadOnly", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, loc) || !strings.Contains(msg, "read-only") {
		t.Errorf("message %q: want one line naming the store and saying read-only", msg)
	}
}

// TestReadOnlyFile checks what a user gets whose store file is read-only
// (mode 0400): the store still opens for reading, a write fails with
// ErrReadOnly and one line of text, and earlier runs stay intact. Then the
// directory is made read-only too (0500), so that SQLite cannot create its
// WAL index: Open fails with ErrReadOnly, and OpenReadOnly still reads.
//
// File modes bind everyone but root, and tests here run as root. So when
// the test runs as root, it copies its own binary and runs the checks in a
// child process as the unprivileged user nobody, on a store that nobody
// owns. Run as another user, it runs the checks itself.
func TestReadOnlyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	loc := filepath.Join(dir, "store", "results.db")
	s := mustOpen(t, loc)
	r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddMeasurements(ctx, []Measurement{{Study: "s", Metric: "m", Value: 42}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(ctx, StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	s.Close() // checkpoints the WAL into the file and removes -wal and -shm
	storeDir := filepath.Dir(loc)
	if err := os.Chmod(loc, 0o400); err != nil {
		t.Fatal(err)
	}
	for _, phase := range []struct {
		name    string
		dirMode os.FileMode
	}{{"file", 0o700}, {"dir", 0o500}} {
		// A reader of a read-only file leaves an empty WAL and its index
		// behind; remove them so that the next phase finds only the file.
		if st, err := os.Stat(loc + "-wal"); err == nil && st.Size() != 0 {
			t.Fatalf("%s-wal has %d bytes after read-only use", loc, st.Size())
		}
		for _, p := range []string{loc + "-wal", loc + "-shm"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(storeDir, phase.dirMode); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() != 0 {
			readOnlyChecks(t, phase.name, loc, r.ID())
		} else {
			runAsNobody(t, dir, phase.name, loc, r.ID())
		}
	}

	// Whatever happened, the earlier run is intact.
	if err := os.Chmod(storeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loc, 0o600); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, loc)
	got, err := s.Run(ctx, r.ID())
	if err != nil || got.Status != StatusDone {
		t.Fatalf("earlier run after the failed write: %+v %v", got, err)
	}
	if ms, err := s.Measurements(ctx, r.ID(), MeasurementFilter{}); err != nil || len(ms) != 1 || ms[0].Value != 42 {
		t.Errorf("earlier measurements: %+v %v", ms, err)
	}
	if runs, _ := s.Runs(ctx, RunFilter{}); len(runs) != 1 {
		t.Errorf("%d runs, want 1", len(runs))
	}
}

// readOnlyChecks opens a read-only store as a normal user would. In phase
// "file" only the file is read-only; in phase "dir" its directory is too.
func readOnlyChecks(t *testing.T, phase, loc, runID string) {
	ctx := context.Background()
	read := func(s *Store) {
		t.Helper()
		if got, err := s.Run(ctx, runID); err != nil || got.ID != runID {
			t.Errorf("%s: read: %+v %v", phase, got, err)
		}
		if ms, err := s.Measurements(ctx, runID, MeasurementFilter{}); err != nil || len(ms) != 1 {
			t.Errorf("%s: read measurements: %+v %v", phase, ms, err)
		}
	}
	s, err := Open(ctx, loc)
	switch phase {
	case "file":
		if err != nil {
			t.Fatalf("Open of a read-only file with a current schema: %v", err)
		}
		read(s)
		_, err = s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		checkReadOnlyErr(t, err, loc)
		t.Logf("%s: write error: %v", phase, err)
		s.Close()
	case "dir":
		if err == nil {
			s.Close()
			t.Fatal("Open in a read-only directory succeeded")
		}
		checkReadOnlyErr(t, err, loc)
		t.Logf("%s: open error: %v", phase, err)
	default:
		t.Fatalf("unknown phase %q", phase)
	}
	ro, err := OpenReadOnly(ctx, loc)
	if err != nil {
		t.Fatalf("%s: OpenReadOnly: %v", phase, err)
	}
	read(ro)
	ro.Close()
}

const childEnv = "PGLAB_RESULTS_TEST_CHILD"

// TestReadOnlyFileChild is the child half of TestReadOnlyFile; it does
// nothing unless that test started it.
func TestReadOnlyFileChild(t *testing.T) {
	arg := os.Getenv(childEnv)
	if arg == "" {
		t.Skip("runs only as the child process of TestReadOnlyFile")
	}
	f := strings.Split(arg, "\n")
	if len(f) != 3 {
		t.Fatalf("bad %s: %q", childEnv, arg)
	}
	if os.Geteuid() == 0 {
		t.Fatal("the child runs as root")
	}
	readOnlyChecks(t, f[0], f[1], f[2])
}

// runAsNobody runs TestReadOnlyFileChild as the user nobody on a store
// that nobody owns, with the directories on the way open to it.
func runAsNobody(t *testing.T, dir, phase, loc, runID string) {
	const uid, gid = 65534, 65534
	bin := filepath.Join(dir, "results.test")
	if _, err := os.Stat(bin); err != nil {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		if err := copyFile(self, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		// t.TempDir makes 0700 directories: let nobody through.
		for p := dir; p != os.TempDir() && p != "/" && p != "."; p = filepath.Dir(p) {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	storeDir := filepath.Dir(loc)
	for _, p := range []string{storeDir, loc} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chown(p, 0, 0) })
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOCOVERDIR=") {
			env = append(env, e)
		}
	}
	cmd := exec.Command(bin, "-test.run=^TestReadOnlyFileChild$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(env, childEnv+"="+phase+"\n"+loc+"\n"+runID, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	out, err := cmd.CombinedOutput()
	t.Logf("%s: child as uid %s:\n%s", phase, strconv.Itoa(uid), out)
	if err != nil {
		t.Fatalf("%s: child failed: %v", phase, err)
	}
	if !strings.Contains(string(out), "--- PASS: TestReadOnlyFileChild") {
		t.Fatalf("%s: the child did not run its checks", phase)
	}
	for _, p := range []string{storeDir, loc} {
		if err := os.Chown(p, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestDiskFull fills the store and checks that the failed write leaves the
// earlier runs intact. A real full disk cannot be made here without
// mounting a small file system, so SQLite's max_page_count caps the file
// instead: SQLite reports that cap with the same SQLITE_FULL as a full
// disk.
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	loc := sqliteLocation(t)
	s := mustOpen(t, loc)
	var pages int
	if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddMeasurements(ctx, []Measurement{{Study: "s", Metric: "m", Value: 7}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(ctx, StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	full, err := open(ctx, loc, false, []string{fmt.Sprintf("max_page_count(%d)", pages+4)})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	r2, err := full.BeginRun(ctx, RunInfo{Kind: KindStudy})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 256<<10)
	err = r2.AddArtefact(ctx, Artefact{Name: "big", ContentType: "application/octet-stream", Data: big})
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("AddArtefact on a full store: %v, want ErrDiskFull", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, loc) || !strings.Contains(msg, "full") {
		t.Errorf("message %q", msg)
	}
	t.Logf("error: %v", err)
	// The run can still be finished: the failed write took nothing with it.
	if err := r2.Finish(ctx, StatusFailed, err); err != nil {
		t.Fatal(err)
	}
	full.Close()

	s = mustOpen(t, loc)
	got, err := s.Run(ctx, r.ID())
	if err != nil || got.Status != StatusDone {
		t.Fatalf("earlier run: %+v %v", got, err)
	}
	if ms, _ := s.Measurements(ctx, r.ID(), MeasurementFilter{}); len(ms) != 1 || ms[0].Value != 7 {
		t.Errorf("earlier measurements: %+v", ms)
	}
	if arts, _ := s.Artefacts(ctx, r2.ID(), ArtefactFilter{}); len(arts) != 0 {
		t.Errorf("%d artefacts stored from the failed write", len(arts))
	}
	got2, err := s.Run(ctx, r2.ID())
	if err != nil || got2.Status != StatusFailed || !strings.Contains(got2.Error, "full") {
		t.Errorf("failed run: %+v %v", got2, err)
	}
	var check string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
}

// TestConcurrentOpen opens a new store from several goroutines at once, as
// two pglab processes started together would: the schema is made once.
func TestConcurrentOpen(t *testing.T) {
	loc := sqliteLocation(t)
	const n = 4
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			s, err := Open(context.Background(), loc)
			if err == nil {
				_, err = s.BeginRun(context.Background(), RunInfo{Kind: KindBench})
				s.Close()
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s := mustOpen(t, loc)
	var rows int
	if err := s.db.QueryRow(`SELECT count(*) FROM schema_version`).Scan(&rows); err != nil || rows != len(migrations) {
		t.Errorf("%d schema_version rows, %v", rows, err)
	}
	if runs, err := s.Runs(context.Background(), RunFilter{}); err != nil || len(runs) != n {
		t.Errorf("%d runs, %v; want %d", len(runs), err, n)
	}
}
