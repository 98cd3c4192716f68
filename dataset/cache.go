package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Cache is a directory of entries, one per Key: <dir>/<id>/ holding the
// data directory (data/), the superuser's password (password) and the
// manifest (manifest.json, written last), beside a lock file <id>.lock.
type Cache struct {
	// Dir is the cache directory.
	Dir string
	// Limit is the size the cache is kept under (bytes; 0: no limit):
	// after a build, the entries used least recently are removed until
	// the rest fit, except those in use.
	Limit int64
	// Progress receives a line per build and eviction; nil discards them.
	Progress func(string)
}

const manifestName = "manifest.json"

// Open returns the cache in dir (DefaultDir() when empty), creating it.
func Open(dir string, limit int64) (*Cache, error) {
	if dir == "" {
		dir = DefaultDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dataset cache: %w", err)
	}
	return &Cache{Dir: dir, Limit: limit}, nil
}

func (c *Cache) say(format string, args ...any) {
	if c.Progress != nil {
		c.Progress(fmt.Sprintf(format, args...))
	}
}

func (c *Cache) entryDir(id string) string { return filepath.Join(c.Dir, id) }
func (c *Cache) lockPath(id string) string { return filepath.Join(c.Dir, id+".lock") }

// Entry is a complete cache entry held in use (a shared lock): it is not
// evicted or rebuilt until Release.
type Entry struct {
	Manifest
	dir  string
	lock *entryLock
}

// Dir returns the entry's directory.
func (e *Entry) Dir() string { return e.dir }

// DataDir returns the stopped data directory to clone.
func (e *Entry) DataDir() string { return filepath.Join(e.dir, "data") }

// Password returns the password of the data directory's superuser.
func (e *Entry) Password() (string, error) {
	b, err := os.ReadFile(filepath.Join(e.dir, "password"))
	if err != nil {
		return "", fmt.Errorf("dataset %s: %w", e.ID, err)
	}
	return string(trimNewline(b)), nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Release lets the entry be evicted or rebuilt again.
func (e *Entry) Release() {
	if e != nil {
		e.lock.unlock()
	}
}

// Acquired says how an entry was obtained.
type Acquired struct {
	// Built is true when this call built the entry (a cache miss).
	Built bool
	// Build is the time building it; Waited the time spent waiting while
	// another process built, used (for a rebuild) or removed it.
	Build, Waited time.Duration
}

// BuildFunc makes an entry's content in dir: a stopped, cleanly shut down
// data directory dir/data and its superuser's password in dir/password.
// Anything else it leaves in dir is kept.
type BuildFunc func(ctx context.Context, dir string) error

// Acquire returns the complete entry of key, building it with build when
// there is none. Two processes acquiring one key build it once: the
// second waits and uses the first's. A half-written entry (a build that
// was killed) is removed and built again. The entry is held in use until
// Release.
//
// The entry's lock is only ever taken without blocking: shared to use a
// complete entry, exclusive to build a missing one. A process that gets
// neither (another builds it, or uses it while this one wants to build)
// tries both again until one succeeds, so that two processes that both
// found the entry missing never wait for each other.
func (c *Cache) Acquire(ctx context.Context, key Key, build BuildFunc) (*Entry, Acquired, error) {
	id := key.ID()
	path := c.lockPath(id)
	var got Acquired
	for {
		e, done, err := c.tryUse(id, key, path)
		if err != nil || done {
			return e, got, err
		}
		if got.Built {
			return nil, got, fmt.Errorf("dataset %s: the entry just built does not check", key)
		}
		l, ok, err := tryLock(path, unix.LOCK_EX)
		if err != nil {
			return nil, got, err
		}
		if ok {
			if err := c.buildLocked(ctx, id, key, build, &got); err != nil {
				// The build left nothing (build removes its directory):
				// neither does its lock file.
				l.remove()
				return nil, got, err
			}
			l.unlock()
			continue
		}
		t0 := time.Now()
		select {
		case <-ctx.Done():
			return nil, got, fmt.Errorf("wait for dataset %s: %w", key, ctx.Err())
		case <-time.After(lockPoll):
		}
		got.Waited += time.Since(t0)
	}
}

// tryUse takes the entry for use when it is complete and no process
// builds or removes it: done is false when it is not (yet) to be had.
func (c *Cache) tryUse(id string, key Key, path string) (*Entry, bool, error) {
	l, ok, err := tryLock(path, unix.LOCK_SH)
	if err != nil || !ok {
		return nil, false, err
	}
	m, err := c.check(id, key)
	if err != nil {
		l.unlock()
		return nil, false, nil
	}
	c.touch(id)
	return &Entry{Manifest: m, dir: c.entryDir(id), lock: l}, true, nil
}

// buildLocked builds the entry under its exclusive lock, unless another
// process completed it meanwhile, then keeps the cache under its limit.
func (c *Cache) buildLocked(ctx context.Context, id string, key Key, build BuildFunc, got *Acquired) error {
	if _, err := c.check(id, key); err == nil {
		return nil
	}
	if build == nil {
		return fmt.Errorf("dataset %s: not in the cache", key)
	}
	t0 := time.Now()
	err := c.build(ctx, id, key, build)
	got.Built, got.Build = true, time.Since(t0)
	if err == nil {
		c.evict(id)
	}
	return err
}

// check reads and verifies an entry's manifest against key and the files
// on disk.
func (c *Cache) check(id string, key Key) (Manifest, error) {
	dir := c.entryDir(id)
	m, err := readManifest(dir)
	if err != nil {
		return m, err
	}
	if m.Format != manifestFormat || m.ID != id || !m.Key.Equal(key) {
		return m, fmt.Errorf("dataset %s: the manifest is of another key", id)
	}
	sum, files, bytes, err := listFiles(dir)
	if err != nil {
		return m, err
	}
	if sum != m.FileList || files != m.Files || bytes != m.Bytes {
		return m, fmt.Errorf("dataset %s: its files differ from its manifest", id)
	}
	if st, err := State(filepath.Join(dir, "data")); err != nil || st != ShutDown {
		return m, fmt.Errorf("dataset %s: the data directory is %q, not %q (%v)", id, st, ShutDown, err)
	}
	return m, nil
}

func readManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("manifest %s: %w", dir, err)
	}
	return m, nil
}

// touch marks the entry as just used (the manifest's modification time):
// eviction removes the least recently used first.
func (c *Cache) touch(id string) {
	now := time.Now()
	os.Chtimes(filepath.Join(c.entryDir(id), manifestName), now, now)
}

// build makes the entry under the exclusive lock: whatever a killed build
// left is removed first; on failure nothing is left.
func (c *Cache) build(ctx context.Context, id string, key Key, build BuildFunc) (err error) {
	dir := c.entryDir(id)
	if err := removeTree(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("dataset cache: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	c.say("building dataset %s", key)
	start := time.Now()
	if err := build(ctx, dir); err != nil {
		return fmt.Errorf("build dataset %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("build dataset %s: %w", key, err)
	}
	return c.seal(dir, id, key, time.Since(start))
}

// seal turns a built directory into an entry: checks that the cluster was
// shut down cleanly, drops recycled WAL, flushes every file, and writes the
// manifest last.
func (c *Cache) seal(dir, id string, key Key, took time.Duration) error {
	data := filepath.Join(dir, "data")
	f, err := readControl(data)
	if err != nil {
		return err
	}
	if f.State != ShutDown {
		return fmt.Errorf("dataset %s: the built data directory is %q, not %q", key, f.State, ShutDown)
	}
	if _, err := TrimWAL(data); err != nil {
		return fmt.Errorf("dataset %s: %w", key, err)
	}
	if err := syncTree(dir); err != nil {
		return fmt.Errorf("dataset %s: flush: %w", key, err)
	}
	sum, files, bytes, err := listFiles(dir)
	if err != nil {
		return err
	}
	m := Manifest{Format: manifestFormat, ID: id, Key: key, Created: time.Now().UTC(), BuildMS: float64(took.Microseconds()) / 1000,
		Files: files, Bytes: bytes, FileList: sum, State: f.State, SystemID: f.SystemID}
	return writeManifest(dir, m)
}

// writeManifest writes the manifest through a temporary file, flushed and
// renamed into place, then flushes the directory.
func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, manifestName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, manifestName))
	}
	if err == nil {
		err = syncPath(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// syncTree flushes every file and directory under root to disk.
func syncTree(root string) error {
	return filepathWalkSync(root)
}

// errInUse marks an entry another process holds.
var errInUse = errors.New("in use")
