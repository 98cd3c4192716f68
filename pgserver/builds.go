package pgserver

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/internal/units"
)

// WriteFound prints binaries as pglab pg list shows them: the version,
// source and directory of each, in the order given.
func WriteFound(w io.Writer, found []*Binaries) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSOURCE\tDIRECTORY")
	for _, b := range found {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Version, b.Source, b.Dir)
	}
	if len(found) == 0 {
		fmt.Fprintln(tw, "(none)\t\t")
	}
	return tw.Flush()
}

// WriteInstallable prints the releases Install can fetch: the newest of
// each major of NPMPackage, or, when the registry cannot be asked, why
// that is unknown.
func (in *Installer) WriteInstallable(ctx context.Context, w io.Writer) error {
	rels, err := in.Releases(ctx)
	if err != nil {
		_, err = fmt.Fprintf(w, "Installable: unknown (%v)\n", err)
		return err
	}
	var parts []string
	for _, v := range NewestPerMajor(rels) {
		parts = append(parts, v.String())
	}
	_, err = fmt.Fprintf(w, "Installable with 'pglab pg install' (%s, newest of each major): %s\n", NPMPackage(), strings.Join(parts, ", "))
	return err
}

// InstallStep places a progress message of Install among its three
// steps for one release (fetch, unpack and check, done): how many steps
// are done when it is said, what comes next, and false for a message that
// moves nothing.
func InstallStep(msg string) (done int, next string, ok bool) {
	switch {
	case strings.HasPrefix(msg, "fetching "):
		return 0, "npm pack", true
	case strings.HasPrefix(msg, "fetched "):
		return 1, "unpack and check", true
	case strings.HasPrefix(msg, "installed ") || strings.Contains(msg, " is already installed"):
		return 3, "installed", true
	}
	return 0, "", false
}

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
