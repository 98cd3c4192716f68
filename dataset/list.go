package dataset

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Info describes one entry of the cache for `pglab cache list`.
type Info struct {
	ID string
	// Key is the entry's key (zero for an incomplete entry).
	Key Key
	// Bytes is the entry's size on disk (its files' sizes).
	Bytes int64
	// Created and LastUsed are when it was built and last used.
	Created, LastUsed time.Time
	// Complete is false for an entry without a valid manifest: a build
	// under way, or one that was killed (never used; removed by the next
	// build of its key, an eviction or Clear).
	Complete bool
	// InUse is true when a process holds the entry.
	InUse bool
}

// List returns the cache's entries, most recently used first.
func (c *Cache) List() ([]Info, error) {
	ents, err := os.ReadDir(c.Dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []Info
	for _, e := range ents {
		if !e.IsDir() || !isEntryName(e.Name()) {
			continue
		}
		out = append(out, c.info(e.Name()))
	}
	slices.SortFunc(out, func(a, b Info) int { return b.LastUsed.Compare(a.LastUsed) })
	return out, nil
}

// info describes the entry id as found on disk.
func (c *Cache) info(id string) Info {
	dir := c.entryDir(id)
	in := Info{ID: id, Bytes: dirBytes(dir)}
	if st, err := os.Stat(dir); err == nil {
		in.Created, in.LastUsed = st.ModTime(), st.ModTime()
	}
	if m, err := readManifest(dir); err == nil && m.ID == id {
		if _, err := c.check(id, m.Key); err == nil {
			in.Complete, in.Key, in.Created = true, m.Key, m.Created
			if st, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
				in.LastUsed = st.ModTime()
			}
		}
	}
	if l, ok, err := tryLock(c.lockPath(id), unix.LOCK_EX); err == nil && ok {
		l.unlock()
	} else {
		in.InUse = true
	}
	return in
}

// Total returns the size of all entries.
func Total(list []Info) int64 {
	var n int64
	for _, in := range list {
		n += in.Bytes
	}
	return n
}

// Removed says what Clear or an eviction removed.
type Removed struct {
	Entries int
	Bytes   int64
	// Kept lists the entries left because a process was using them.
	Kept []string
}

// Clear removes every entry no process is using.
func (c *Cache) Clear() (Removed, error) {
	list, err := c.List()
	if err != nil {
		return Removed{}, err
	}
	var r Removed
	for _, in := range list {
		if err := c.remove(in.ID); err != nil {
			if errors.Is(err, errInUse) {
				r.Kept = append(r.Kept, in.ID)
				continue
			}
			return r, err
		}
		r.Entries++
		r.Bytes += in.Bytes
	}
	return r, nil
}

// remove deletes an entry unless a process holds it: its manifest first
// (so that a half-deleted entry is never taken for a complete one), then
// its files, then its lock file.
func (c *Cache) remove(id string) error {
	l, ok, err := tryLock(c.lockPath(id), unix.LOCK_EX)
	if err != nil {
		return err
	}
	if !ok {
		return errInUse
	}
	dir := c.entryDir(id)
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		l.unlock()
		return err
	}
	if err := removeTree(dir); err != nil {
		l.unlock()
		return err
	}
	return l.remove()
}

// evict removes entries, least recently used first, until the cache fits
// its limit; entries in use and keep are left. Incomplete entries no
// process holds (killed builds) go first.
func (c *Cache) evict(keep string) Removed {
	var r Removed
	list, err := c.List()
	if err != nil {
		return r
	}
	total := Total(list)
	// Oldest first; incomplete ones before any complete one.
	slices.SortFunc(list, func(a, b Info) int {
		if a.Complete != b.Complete {
			if !a.Complete {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.LastUsed.UnixNano(), b.LastUsed.UnixNano())
	})
	for _, in := range list {
		over := c.Limit > 0 && total > c.Limit
		if in.ID == keep || in.InUse || (in.Complete && !over) {
			continue
		}
		if err := c.remove(in.ID); err != nil {
			r.Kept = append(r.Kept, in.ID)
			continue
		}
		total -= in.Bytes
		r.Entries++
		r.Bytes += in.Bytes
		what := "an incomplete entry " + in.ID
		if in.Complete {
			what = in.Key.String()
		}
		c.say("dataset cache: removed %s (%s), least recently used, to stay under its limit of %s", what, FormatSize(in.Bytes), FormatSize(c.Limit))
	}
	return r
}

// filepathWalkSync flushes every regular file and directory under root.
func filepathWalkSync(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Type().IsRegular() {
			return syncPath(path)
		}
		return nil
	})
}

// isEntryName reports whether name looks like an entry id.
func isEntryName(name string) bool {
	return len(name) == 20 && strings.Trim(name, "0123456789abcdef") == ""
}
