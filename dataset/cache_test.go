package dataset_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// The tests start helper processes from their own binary: with
// helperEnv set, TestMain acquires an entry instead of running tests.
const helperEnv = "PGLAB_DATASET_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// helperMain acquires the entry of the dataset named by the environment
// (rows in PGLAB_TEST_ROWS) in the cache PGLAB_TEST_CACHE and prints what
// it got as JSON; with PGLAB_TEST_HANG set, the build stops halfway (the
// server running, the table loaded) and waits to be killed.
func helperMain() int {
	ctx := context.Background()
	rows, _ := strconv.Atoi(os.Getenv("PGLAB_TEST_ROWS"))
	spec, err := pgserver.ParseVersionSpec(os.Getenv("PGLAB_TEST_VERSION"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	b, err := (&pgserver.Finder{}).Find(ctx, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c, err := dataset.Open(os.Getenv("PGLAB_TEST_CACHE"), 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	build := tableBuild(b, rows)
	if marker := os.Getenv("PGLAB_TEST_HANG"); marker != "" {
		build = hangingBuild(b, rows, marker)
	}
	e, got, err := c.Acquire(ctx, testKey(b, rows), build)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Release()
	json.NewEncoder(os.Stdout).Encode(map[string]any{"built": got.Built, "id": e.ID, "created": e.Created, "waited_ms": got.Waited.Milliseconds()})
	return 0
}

func testKey(b *pgserver.Binaries, rows int) dataset.Key {
	return dataset.Key{Version: b.Version.String(), Build: b.Dir, Initdb: []string{"checksums=off"}, Database: "pglab",
		Dataset: "test-table", Params: []string{fmt.Sprintf("rows=%d", rows)}, Recipe: dataset.Recipe("CREATE TABLE t")}
}

// startBuild starts a build server in dir and fills a table t of rows
// rows; it returns the server and a connection to it.
func startBuild(ctx context.Context, b *pgserver.Binaries, dir string, rows int) (*pgserver.Instance, error) {
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: b, Name: "dataset-test", Dir: dir,
		Settings: []pgserver.Setting{{Name: "autovacuum", Value: "off"}}})
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, inst.DSN())
	if err != nil {
		inst.Stop(ctx)
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE t AS SELECT g AS id, 'x' AS v FROM generate_series(1, %d) g", rows)); err != nil {
		inst.Stop(ctx)
		return nil, err
	}
	return inst, nil
}

// tableBuild builds a real data directory: a table t of rows rows, the
// server stopped cleanly.
func tableBuild(b *pgserver.Binaries, rows int) dataset.BuildFunc {
	return func(ctx context.Context, dir string) error {
		inst, err := startBuild(ctx, b, dir, rows)
		if err != nil {
			return err
		}
		if err := inst.Stop(ctx); err != nil {
			return err
		}
		os.RemoveAll(filepath.Join(dir, "sock"))
		return nil
	}
}

// hangingBuild starts like tableBuild, then writes marker and waits for
// ever (until the process is killed).
func hangingBuild(b *pgserver.Binaries, rows int, marker string) dataset.BuildFunc {
	return func(ctx context.Context, dir string) error {
		if _, err := startBuild(ctx, b, dir, rows); err != nil {
			return err
		}
		os.WriteFile(marker, nil, 0o644)
		select {}
	}
}

// helper starts this test binary as a helper process.
func helper(t *testing.T, cache string, rows int, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "PGLAB_TEST_CACHE="+cache, "PGLAB_TEST_ROWS="+strconv.Itoa(rows),
		"PGLAB_TEST_VERSION="+pgtest.DefaultVersion())
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

type helperOut struct {
	Built    bool      `json:"built"`
	ID       string    `json:"id"`
	Created  time.Time `json:"created"`
	WaitedMS int64     `json:"waited_ms"`
}

// TestTwoProcessesBuildOneEntry starts two processes acquiring the same
// entry at once: one builds it, the other waits and uses it.
func TestTwoProcessesBuildOneEntry(t *testing.T) {
	cache := pgtest.TempDir(t)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := helper(t, cache, 20000)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	var got []helperOut
	for k, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper %d: %v", k, err)
		}
		var h helperOut
		if err := json.Unmarshal(outs[k].Bytes(), &h); err != nil {
			t.Fatalf("helper %d printed %q: %v", k, outs[k], err)
		}
		got = append(got, h)
	}
	if got[0].Built == got[1].Built {
		t.Errorf("built: %v and %v, want exactly one build", got[0].Built, got[1].Built)
	}
	for _, h := range got {
		if !h.Built && h.WaitedMS <= 0 {
			t.Errorf("the process that did not build says it waited %d ms", h.WaitedMS)
		}
	}
	if got[0].ID != got[1].ID || !got[0].Created.Equal(got[1].Created) {
		t.Errorf("the processes used different entries: %+v, %+v", got[0], got[1])
	}
	c, _ := dataset.Open(cache, 0)
	list, err := c.List()
	if err != nil || len(list) != 1 || !list[0].Complete {
		t.Errorf("cache holds %+v (%v), want one complete entry", list, err)
	}
}

// TestKilledBuildIsNeverUsed kills a process in the middle of a build (its
// server running, its table loaded): the entry it leaves is incomplete,
// and the next acquisition builds it again.
func TestKilledBuildIsNeverUsed(t *testing.T) {
	cache := pgtest.TempDir(t)
	marker := filepath.Join(cache, "halfway")
	cmd := helper(t, cache, 20000, "PGLAB_TEST_HANG="+marker)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the helper's build never got halfway")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	c, _ := dataset.Open(cache, 0)
	list, _ := c.List()
	if len(list) != 1 || list[0].Complete {
		t.Fatalf("after the kill the cache holds %+v, want one incomplete entry", list)
	}
	waitNoServer(t, list[0].ID, cache)
	e, got, err := c.Acquire(context.Background(), testKey(b, 20000), tableBuild(b, 20000))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	if !got.Built {
		t.Errorf("the half-built entry was used instead of being built again")
	}
	if st, err := dataset.State(e.DataDir()); err != nil || st != dataset.ShutDown {
		t.Errorf("the rebuilt entry's cluster is %q (%v)", st, err)
	}
}

// waitNoServer waits until the killed helper's server (parent-death
// signal) has exited.
func waitNoServer(t *testing.T, id, cache string) {
	deadline := time.Now().Add(30 * time.Second)
	for len(pgtest.ProcessesUnder(filepath.Join(cache, id))) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the killed build's server still runs: %v", pgtest.ProcessesUnder(filepath.Join(cache, id)))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCloneIsIndependent clones an entry's data directory twice, starts a
// server on one clone and writes to it: the other clone and the entry do
// not change, at the level of files and of rows.
func TestCloneIsIndependent(t *testing.T) {
	ctx := context.Background()
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	c, _ := dataset.Open(pgtest.TempDir(t), 0)
	e, _, err := c.Acquire(ctx, testKey(b, 1000), tableBuild(b, 1000))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	pw, err := e.Password()
	if err != nil {
		t.Fatal(err)
	}
	a := pgtest.New(t, pgtest.Options{Version: pgtest.DefaultVersion()})
	var st dataset.CloneStats
	if err := a.ReplaceData(ctx, pw, func(dir string) error {
		st, err = dataset.Clone(e.DataDir(), dir, dataset.CloneOptions{Sync: true})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if st.Method == dataset.Auto || st.Files == 0 || st.Bytes == 0 {
		t.Errorf("clone stats %+v", st)
	}
	conn := pgtest.Connect(t, a.DSN())
	if _, err := conn.Exec(ctx, "INSERT INTO t SELECT g, 'y' FROM generate_series(1, 500) g; CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	if got := pgtest.QueryString(t, conn, "SELECT count(*) FROM t"); got != "1500" {
		t.Fatalf("clone A: %s rows after the insert", got)
	}
	if st, _ := dataset.State(e.DataDir()); st != dataset.ShutDown {
		t.Errorf("the entry's cluster is %q after a write to its clone", st)
	}
	// A second clone of the entry holds the entry's rows, not A's.
	bInst := pgtest.New(t, pgtest.Options{Version: pgtest.DefaultVersion()})
	if err := bInst.ReplaceData(ctx, pw, func(dir string) error {
		_, err := dataset.Clone(e.DataDir(), dir, dataset.CloneOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := pgtest.QueryString(t, pgtest.Connect(t, bInst.DSN()), "SELECT count(*) FROM t"); got != "1000" {
		t.Errorf("clone B: %s rows, want the entry's 1000 (a write to clone A leaked)", got)
	}
	if e2, got, err := c.Acquire(ctx, testKey(b, 1000), nil); err != nil || got.Built {
		t.Errorf("the entry no longer checks after its clones were used: %v", err)
	} else {
		e2.Release()
	}
}

// TestCloneFilesIndependent writes into a cloned file: the source keeps
// its bytes.
func TestCloneFilesIndependent(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	os.MkdirAll(filepath.Join(src, "sub"), 0o700)
	os.WriteFile(filepath.Join(src, "sub", "f"), bytes.Repeat([]byte("a"), 1<<20), 0o600)
	os.Symlink("sub/f", filepath.Join(src, "link"))
	for _, m := range []dataset.Method{dataset.Auto, dataset.CopyFileRange, dataset.PlainCopy} {
		dst := filepath.Join(t.TempDir(), "dst")
		st, err := dataset.Clone(src, dst, dataset.CloneOptions{Method: m})
		if err != nil {
			t.Fatalf("%q: %v", m, err)
		}
		if err := os.WriteFile(filepath.Join(dst, "sub", "f"), []byte("b"), 0o600); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(src, "sub", "f"))
		if len(got) != 1<<20 || got[0] != 'a' {
			t.Errorf("%q: a write to the clone changed the source", m)
		}
		if l, err := os.Readlink(filepath.Join(dst, "link")); err != nil || l != "sub/f" {
			t.Errorf("%q: link %q (%v)", m, l, err)
		}
		if info, _ := os.Stat(filepath.Join(dst, "sub")); info == nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%q: directory mode %v", m, info)
		}
		if m != dataset.Auto && st.Method != m {
			t.Errorf("asked for %q, the clone says %q", m, st.Method)
		}
	}
}

// TestEvictsLeastRecentlyUsed keeps the cache under its limit: the entry
// used least recently goes first, an entry in use never.
func TestEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	dir := pgtest.TempDir(t)
	c, _ := dataset.Open(dir, 0)
	first, _, err := c.Acquire(ctx, testKey(b, 1000), tableBuild(b, 1000))
	if err != nil {
		t.Fatal(err)
	}
	first.Release()
	size := first.Bytes
	// Further entries are clones of the first under other keys: real data
	// directories, built in a second.
	cloneBuild := func(ctx context.Context, d string) error {
		if _, err := dataset.Clone(first.DataDir(), filepath.Join(d, "data"), dataset.CloneOptions{}); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(d, "password"), []byte("x\n"), 0o600)
	}
	key := func(n int) dataset.Key {
		k := testKey(b, 1000)
		k.Params = append(k.Params, fmt.Sprint("n=", n))
		return k
	}
	c.Limit = 2*size + size/2 // room for two
	second, _, err := c.Acquire(ctx, key(2), cloneBuild)
	if err != nil {
		t.Fatal(err)
	}
	second.Release()
	time.Sleep(20 * time.Millisecond)
	// Using the first makes the second the least recently used.
	if e, _, err := c.Acquire(ctx, testKey(b, 1000), nil); err != nil {
		t.Fatal(err)
	} else {
		e.Release()
	}
	third, _, err := c.Acquire(ctx, key(3), cloneBuild)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Release()
	if ids := entryIDs(t, c); !ids[first.ID] || ids[second.ID] || !ids[third.ID] {
		t.Errorf("after the third entry: %v; want the first and third kept, the second (least recently used) removed", ids)
	}
	// An entry in use is kept even over the limit.
	held, _, err := c.Acquire(ctx, testKey(b, 1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	c.Limit = size / 2
	fourth, _, err := c.Acquire(ctx, key(4), cloneBuild)
	if err != nil {
		t.Fatal(err)
	}
	defer fourth.Release()
	if ids := entryIDs(t, c); !ids[first.ID] || !ids[third.ID] || !ids[fourth.ID] {
		t.Errorf("entries in use were evicted: %v", ids)
	}
}

func entryIDs(t *testing.T, c *dataset.Cache) map[string]bool {
	list, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, in := range list {
		ids[in.ID] = true
	}
	return ids
}

// TestManifestGuardsTheEntry: a file changed or removed behind the
// cache's back makes the entry incomplete; Acquire builds it again.
func TestManifestGuardsTheEntry(t *testing.T) {
	ctx := context.Background()
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	c, _ := dataset.Open(pgtest.TempDir(t), 0)
	e, _, err := c.Acquire(ctx, testKey(b, 1000), tableBuild(b, 1000))
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if err := os.WriteFile(filepath.Join(e.DataDir(), "stray"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, _ := c.List()
	if len(list) != 1 || list[0].Complete {
		t.Fatalf("an entry with a stray file is listed as %+v", list)
	}
	e2, got, err := c.Acquire(ctx, testKey(b, 1000), tableBuild(b, 1000))
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Release()
	if !got.Built {
		t.Errorf("an entry whose files differ from its manifest was used")
	}
}

// TestClearKeepsEntriesInUse removes what no process holds.
func TestClearKeepsEntriesInUse(t *testing.T) {
	ctx := context.Background()
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	c, _ := dataset.Open(pgtest.TempDir(t), 0)
	e, _, err := c.Acquire(ctx, testKey(b, 1000), tableBuild(b, 1000))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Clear()
	if err != nil || r.Entries != 0 || len(r.Kept) != 1 {
		t.Errorf("Clear with the entry in use: %+v, %v", r, err)
	}
	e.Release()
	r, err = c.Clear()
	if err != nil || r.Entries != 1 || r.Bytes == 0 {
		t.Errorf("Clear: %+v, %v", r, err)
	}
	if ents, _ := os.ReadDir(c.Dir); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in the cache: %s", strings.Join(names, ", "))
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"40GB": 40 << 30, "1.5G": 3 << 29, "500MB": 500 << 20, "0": 0, "1024": 1024, "2 GiB": 2 << 30} {
		if got, err := dataset.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1GB", "GB"} {
		if _, err := dataset.ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// TestFailedBuildLeavesNothing: a build that fails (a script the server
// refuses) leaves neither an entry directory nor its lock file, and the
// next Acquire builds again.
func TestFailedBuildLeavesNothing(t *testing.T) {
	ctx := context.Background()
	b := pgtest.Binaries(t, pgtest.DefaultVersion())
	dir := pgtest.TempDir(t)
	c, _ := dataset.Open(dir, 0)
	refused := errors.New("ERROR: syntax error at or near \"CREAT\"")
	fail := func(ctx context.Context, dir string) error {
		if err := os.WriteFile(filepath.Join(dir, "half"), []byte("x"), 0o600); err != nil {
			return err
		}
		return refused
	}
	if _, _, err := c.Acquire(ctx, testKey(b, 10), fail); !errors.Is(err, refused) {
		t.Fatalf("a failed build returned %v", err)
	}
	left, _ := os.ReadDir(dir)
	for _, e := range left {
		t.Errorf("a failed build left %s in the cache", e.Name())
	}
	e, got, err := c.Acquire(ctx, testKey(b, 10), tableBuild(b, 10))
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if !got.Built {
		t.Error("the entry was not built after the failed build")
	}
}
