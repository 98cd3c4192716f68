// Package pgtest gives Go tests real PostgreSQL servers, started and
// stopped by the tests themselves through pgserver: one shared server per
// major version and test binary (started on first use, stopped by Main),
// or a throwaway server per test. Tests never skip for want of a server:
// when binaries are missing they fail and say how to install them.
//
// A package using Shared must run its tests through Main:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver"
)

// InstallHint tells a developer how to get the server binaries tests use.
const InstallHint = "install them with 'go run ./cmd/pglab pg install 13 16 17 18' (or run 'make test', which does), or point PGLAB_PG_BIN at a directory holding postgres, initdb and pg_ctl"

var (
	mu        sync.Mutex
	shared    = map[string]*pgserver.Instance{}
	sharedErr = map[string]error{}
	mainRuns  bool
)

// Main runs the package's tests, then stops every shared server, and exits.
// The tests get a dataset cache of their own (the user's is never
// touched), removed at the end unless $PGLAB_DATASET_CACHE names one.
func Main(m *testing.M) {
	mu.Lock()
	mainRuns = true
	mu.Unlock()
	cleanup := ownDatasetCache()
	code := m.Run()
	StopShared()
	cleanup()
	os.Exit(code)
}

// ownDatasetCache points $PGLAB_DATASET_CACHE at a new directory the
// server user can traverse, and returns what removes it.
func ownDatasetCache() func() {
	if os.Getenv(pgserver.DatasetCacheEnv) != "" {
		return func() {}
	}
	dir, err := os.MkdirTemp(pgserver.TempRoot(), "pglab-test-datasets-")
	if err != nil || os.Chmod(dir, 0o755) != nil {
		return func() {}
	}
	os.Setenv(pgserver.DatasetCacheEnv, dir)
	return func() { os.RemoveAll(dir) }
}

// StopShared stops and removes the shared servers.
func StopShared() {
	mu.Lock()
	defer mu.Unlock()
	for v, inst := range shared {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		inst.Destroy(ctx)
		cancel()
		delete(shared, v)
	}
}

// Versions returns the major versions the tests use, from
// $PGLAB_TEST_VERSIONS (comma-separated), default "17,16". The first is the
// default version.
func Versions() []string {
	v := os.Getenv("PGLAB_TEST_VERSIONS")
	if v == "" {
		v = "17,16"
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DefaultVersion is the first of Versions().
func DefaultVersion() string { return Versions()[0] }

// Binaries returns server binaries of a major version, or fails the test
// with instructions.
func Binaries(t testing.TB, version string) *pgserver.Binaries {
	t.Helper()
	b, err := findBinaries(version)
	if err != nil {
		t.Fatalf("PostgreSQL %s for tests: %v; %s", version, err, InstallHint)
	}
	return b
}

func findBinaries(version string) (*pgserver.Binaries, error) {
	spec, err := pgserver.ParseVersionSpec(version)
	if err != nil {
		return nil, err
	}
	return (&pgserver.Finder{}).Find(context.Background(), spec)
}

// Shared returns a running server of the given major version ("" means
// DefaultVersion()), shared by all tests of the test binary. Tests using it
// must leave server-wide settings as they found them and should work in
// their own database (see CreateDB).
func Shared(t testing.TB, version string) *pgserver.Instance {
	t.Helper()
	return SharedWith(t, version)
}

// SharedWith is Shared for a server started with settings on top of the
// shared servers' own: one per version and list of settings, shared by the
// tests of the binary that ask for the same (e.g. autovacuum=off for tests
// that compare page counts and visibility maps, which an autovacuum worker
// arriving at its own time would change).
func SharedWith(t testing.TB, version string, settings ...pgserver.Setting) *pgserver.Instance {
	t.Helper()
	if version == "" {
		version = DefaultVersion()
	}
	key := version
	for _, s := range settings {
		key += " " + s.String()
	}
	mu.Lock()
	defer mu.Unlock()
	if !mainRuns {
		t.Fatalf("pgtest.Shared needs the package's TestMain to call pgtest.Main(m)")
	}
	if inst, ok := shared[key]; ok {
		return inst
	}
	if err, ok := sharedErr[key]; ok {
		t.Fatalf("shared PostgreSQL %s: %v", key, err)
	}
	b, err := findBinaries(version)
	if err != nil {
		sharedErr[key] = fmt.Errorf("%v; %s", err, InstallHint)
		t.Fatalf("shared PostgreSQL %s: %v", version, sharedErr[key])
	}
	inst, err := pgserver.Start(context.Background(), pgserver.Options{
		Binaries: b,
		Name:     "test" + version,
		Settings: pgserver.MergeSettings([]pgserver.Setting{{Name: "max_connections", Value: "300"}}, settings...),
	})
	if err != nil {
		sharedErr[key] = err
		t.Fatalf("start shared PostgreSQL %s: %v", key, err)
	}
	shared[key] = inst
	return inst
}

// Options describe a throwaway server for New.
type Options struct {
	// Version is a major version; "" means DefaultVersion().
	Version   string
	Checksums bool
	Settings  []pgserver.Setting
}

// New starts a server for this test alone; it is destroyed when the test
// ends.
func New(t testing.TB, opts Options) *pgserver.Instance {
	t.Helper()
	if opts.Version == "" {
		opts.Version = DefaultVersion()
	}
	b := Binaries(t, opts.Version)
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := pgserver.Start(ctx, pgserver.Options{
		Binaries:  b,
		Name:      "test" + opts.Version,
		Checksums: opts.Checksums,
		Settings:  opts.Settings,
	})
	if err != nil {
		cancel()
		t.Fatalf("start PostgreSQL %s: %v", opts.Version, err)
	}
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
		defer dcancel()
		if err := inst.Destroy(dctx); err != nil {
			t.Errorf("destroy test server: %v", err)
		}
		cancel()
		if ended := inst.Ended(); len(ended) > 0 {
			t.Logf("test server %s: ended %d processes that outlived its postmaster: %v", inst.Name(), len(ended), ended)
		}
		if left := ProcessesUnder(inst.Dir()); len(left) > 0 {
			t.Errorf("processes of the test server left after its clean-up: %v", left)
		}
	})
	return inst
}

// CreateDB creates a database of its own for the test on inst and returns
// its DSN; the database is dropped when the test ends.
func CreateDB(t testing.TB, inst *pgserver.Instance) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, inst.DSNFor("postgres"))
	if err != nil {
		t.Fatalf("connect to test server: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, inst.DSNFor("postgres"))
		if err != nil {
			return // the server may be gone (a test that stopped it)
		}
		defer conn.Close(context.Background())
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return inst.DSNFor(name)
}

// Connect opens a connection closed at the end of the test.
func Connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// QueryString runs a query returning one text value, failing the test on
// error.
func QueryString(t testing.TB, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// TempDir returns a directory removed at the end of the test that the
// server user can traverse (t.TempDir's are private to the test's user).
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp(pgserver.TempRoot(), "pglab-test-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// ProcessesUnder lists live processes (zombies and this one excepted)
// whose command line mentions dir, or whose working directory or open
// files are in dir (removed or not: the kernel shows a removed one as
// "PATH (deleted)"), as "pid: command line": what a test checks to prove
// that no server was left behind. A postmaster's children name no
// directory in their command line ("postgres: parallel worker for PID
// 18258"): their working directory is the data directory.
func ProcessesUnder(dir string) []string {
	real := dir
	if abs, err := filepath.Abs(dir); err == nil {
		real = abs
	}
	if r, err := filepath.EvalSymlinks(real); err == nil {
		real = r
	}
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			continue
		}
		if !strings.Contains(string(cmdline), dir) && !inDir("/proc/"+pid, real) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + pid + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, pid+": "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return out
}

// inDir reports whether the process of /proc directory proc works in dir
// or has a file open there.
func inDir(proc, dir string) bool {
	links := []string{proc + "/cwd"}
	fds, _ := os.ReadDir(proc + "/fd")
	for _, fd := range fds {
		links = append(links, proc+"/fd/"+fd.Name())
	}
	for _, l := range links {
		target, err := os.Readlink(l)
		if err != nil {
			continue
		}
		target = strings.TrimSuffix(target, " (deleted)")
		if target == dir || strings.HasPrefix(target, dir+"/") {
			return true
		}
	}
	return false
}
