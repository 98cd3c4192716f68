package pgserver

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/pglab/pglab/internal/units"
)

// WriteCachedBuilds prints the builds of found that pglab's cache holds
// (Source "cache"), as pglab cache list shows them: a heading naming
// CacheDir, then each build's version, size on disk and directory.
func WriteCachedBuilds(w io.Writer, found []*Binaries) error {
	fmt.Fprintf(w, "PostgreSQL builds (%s):\n", CacheDir())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSIZE\tDIRECTORY")
	n := 0
	for _, b := range found {
		if b.Source != "cache" {
			continue
		}
		n++
		dir := filepath.Dir(b.Dir)
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Version, units.Bytes(float64(treeSize(dir))), dir)
	}
	if n == 0 {
		fmt.Fprintln(tw, "(none)\t\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write builds: %w", err)
	}
	return nil
}

// RemovedBuilds says what RemoveCachedBuilds removed.
type RemovedBuilds struct {
	// Dir is the cache directory (CacheDir).
	Dir string
	// Builds counts the builds removed, Bytes their size on disk.
	Builds int
	Bytes  int64
}

// RemoveCachedBuilds removes every build of pglab's cache (CacheDir); a
// missing cache removes nothing. Builds are installed again on next use.
func RemoveCachedBuilds() (RemovedBuilds, error) {
	r := RemovedBuilds{Dir: CacheDir()}
	ents, err := os.ReadDir(r.Dir)
	if err != nil && !os.IsNotExist(err) {
		return r, err
	}
	for _, e := range ents {
		p := filepath.Join(r.Dir, e.Name())
		r.Bytes += treeSize(p)
		if err := os.RemoveAll(p); err != nil {
			return r, fmt.Errorf("remove %s: %w", p, err)
		}
		r.Builds++
	}
	return r, nil
}

// treeSize adds up the sizes of the regular files under dir.
func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
