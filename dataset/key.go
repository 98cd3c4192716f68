package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Key is what makes two builds of a dataset the same data directory: the
// server build, the initdb choices, the database, the dataset's definition
// and its parameters (including any setting that changes the physical
// layout, such as a fillfactor).
type Key struct {
	// Version is the server's full release, e.g. "17.10".
	Version string `json:"version"`
	// Build names the binaries (their directory): two builds of one
	// release can differ in block size or compile options.
	Build string `json:"build"`
	// Initdb are the initdb choices, e.g. "checksums=off",
	// "encoding=UTF8", "locale=C".
	Initdb []string `json:"initdb"`
	// Database is the database holding the data.
	Database string `json:"database"`
	// Dataset names the definition, e.g. "vacuum-table".
	Dataset string `json:"dataset"`
	// Params are the definition's parameters as name=value, e.g.
	// "rows=3000000"; Recipe is a digest of the statements that build it,
	// so that a changed definition is a new entry.
	Params []string `json:"params"`
	Recipe string   `json:"recipe"`
}

// ID is the entry's name in the cache: a digest of the whole key.
func (k Key) ID() string {
	h := sha256.New()
	fmt.Fprintf(h, "v1\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s",
		k.Version, k.Build, strings.Join(sorted(k.Initdb), ","), k.Database, k.Dataset, strings.Join(sorted(k.Params), ","), k.Recipe)
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// String describes the key in one line, e.g. "vacuum-table rows=3000000
// (PostgreSQL 17.10, checksums=off encoding=UTF8 locale=C)".
func (k Key) String() string {
	s := k.Dataset
	if len(k.Params) > 0 {
		s += " " + strings.Join(k.Params, " ")
	}
	return fmt.Sprintf("%s (PostgreSQL %s, %s)", s, k.Version, strings.Join(k.Initdb, " "))
}

// Equal reports whether two keys name the same entry.
func (k Key) Equal(o Key) bool { return k.ID() == o.ID() }

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// Recipe returns a digest of the statements that build a dataset, for
// Key.Recipe.
func Recipe(statements ...string) string {
	h := sha256.Sum256([]byte(strings.Join(statements, "\x00")))
	return hex.EncodeToString(h[:8])
}

// Manifest describes a complete entry. It is written last, once the data
// directory is stopped, checkpointed and flushed; an entry without one, or
// whose files no longer match it, is never used.
type Manifest struct {
	Format  int       `json:"format"`
	ID      string    `json:"id"`
	Key     Key       `json:"key"`
	Created time.Time `json:"created"`
	// BuildMS is how long the build took.
	BuildMS float64 `json:"build_ms"`
	// Files and Bytes count the entry's files; FileList is a digest of
	// their names, sizes and modes.
	Files    int    `json:"files"`
	Bytes    int64  `json:"bytes"`
	FileList string `json:"file_list"`
	// State is the cluster state pg_control recorded ("shut down");
	// SystemID its system identifier.
	State    ClusterState `json:"state"`
	SystemID uint64       `json:"system_identifier"`
}

const manifestFormat = 1

// listFiles digests the regular files and directories under root (names,
// sizes, modes), leaving out the manifest itself.
func listFiles(root string) (digest string, files int, bytes int64, err error) {
	var lines []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == manifestName {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		size := int64(0)
		if info.Mode().IsRegular() {
			size = info.Size()
			files++
			bytes += size
		}
		lines = append(lines, fmt.Sprintf("%s\t%d\t%o", rel, size, info.Mode()))
		return nil
	})
	if err != nil {
		return "", 0, 0, err
	}
	slices.Sort(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:]), files, bytes, nil
}

// dirBytes adds up the sizes of the regular files under root.
func dirBytes(root string) int64 {
	var n int64
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// removeTree removes a directory tree (a no-op when it is absent).
func removeTree(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}
