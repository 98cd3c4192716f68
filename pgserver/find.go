package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Binaries is one located set of PostgreSQL server programs (postgres,
// initdb, pg_ctl) of one release.
type Binaries struct {
	// Dir is the directory holding the programs.
	Dir string
	// Version is what `postgres --version` printed.
	Version Version
	// Source says how the directory was found: "--pg-bin",
	// "PGLAB_PG_BIN", "cache", "pg_config", "debian" or "PATH".
	Source string
}

// Postgres returns the path of the postgres program.
func (b *Binaries) Postgres() string { return filepath.Join(b.Dir, "postgres") }

// Initdb returns the path of the initdb program.
func (b *Binaries) Initdb() string { return filepath.Join(b.Dir, "initdb") }

// Finder locates server binaries. Its zero value searches the standard
// places; fields override them.
type Finder struct {
	// PgBin is the directory given with --pg-bin; searched first.
	PgBin string
	// Getenv reads the environment (os.Getenv when nil); used for
	// PGLAB_PG_BIN and PATH.
	Getenv func(string) string
	// CacheDir overrides CacheDir().
	CacheDir string
	// DebianRoot overrides /usr/lib/postgresql.
	DebianRoot string
}

// ErrNotFound is returned (wrapped) when no binaries match a version.
var ErrNotFound = errors.New("PostgreSQL binaries not found")

func (f *Finder) getenv(k string) string {
	if f != nil && f.Getenv != nil {
		return f.Getenv(k)
	}
	return os.Getenv(k)
}

func (f *Finder) cacheDir() string {
	if f != nil && f.CacheDir != "" {
		return f.CacheDir
	}
	return CacheDir()
}

type candidate struct{ dir, source string }

// candidates lists directories to probe, in priority order, without
// duplicates.
func (f *Finder) candidates(ctx context.Context) []candidate {
	var out []candidate
	seen := map[string]bool{}
	add := func(dir, source string) {
		if dir == "" {
			return
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		// Directories of symlinks to another's programs are the same binaries.
		key := abs
		if real, err := filepath.EvalSymlinks(filepath.Join(abs, "postgres")); err == nil {
			key = filepath.Dir(real)
		}
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, candidate{abs, source})
	}
	if f != nil && f.PgBin != "" {
		add(f.PgBin, "--pg-bin")
	}
	for _, d := range filepath.SplitList(f.getenv("PGLAB_PG_BIN")) {
		add(d, "PGLAB_PG_BIN")
	}
	for _, d := range cachedReleases(f.cacheDir()) {
		add(filepath.Join(d, "bin"), "cache")
	}
	if pgc, err := lookPath("pg_config", f.getenv("PATH")); err == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		out2, err := exec.CommandContext(cctx, pgc, "--bindir").Output()
		cancel()
		if err == nil {
			add(strings.TrimSpace(string(out2)), "pg_config")
		}
	}
	debRoot := "/usr/lib/postgresql"
	if f != nil && f.DebianRoot != "" {
		debRoot = f.DebianRoot
	}
	if ents, err := os.ReadDir(debRoot); err == nil {
		var dirs []string
		for _, e := range ents {
			dirs = append(dirs, filepath.Join(debRoot, e.Name(), "bin"))
		}
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			add(d, "debian")
		}
	}
	if p, err := lookPath("postgres", f.getenv("PATH")); err == nil {
		add(filepath.Dir(p), "PATH")
	}
	return out
}

// cachedReleases lists release directories in the cache, newest first.
func cachedReleases(cache string) []string {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return nil
	}
	type rel struct {
		dir string
		v   Version
	}
	var rels []rel
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		spec, err := ParseVersionSpec(e.Name())
		if err != nil || spec.Minor < 0 {
			continue
		}
		rels = append(rels, rel{filepath.Join(cache, e.Name()), Version{Major: spec.Major, Minor: spec.Minor}})
	}
	sort.Slice(rels, func(i, j int) bool { return rels[j].v.Less(rels[i].v) })
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = r.dir
	}
	return out
}

func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// probe checks that dir holds postgres, initdb and pg_ctl and reads the
// version.
func probe(ctx context.Context, dir string) (Version, error) {
	for _, prog := range []string{"postgres", "initdb", "pg_ctl"} {
		st, err := os.Stat(filepath.Join(dir, prog))
		if err != nil {
			return Version{}, fmt.Errorf("%s: no %s", dir, prog)
		}
		if st.Mode()&0o111 == 0 {
			return Version{}, fmt.Errorf("%s/%s is not executable", dir, prog)
		}
	}
	return runVersion(ctx, filepath.Join(dir, "postgres"))
}

func runVersion(ctx context.Context, postgres string) (Version, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(cctx, postgres, "--version")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return Version{}, fmt.Errorf("%s --version: %s", postgres, msg)
	}
	return parseServerVersion(string(out))
}

// All returns every set of binaries found, in search order. Directories
// that do not hold a working server are skipped.
func (f *Finder) All(ctx context.Context) []*Binaries {
	var out []*Binaries
	for _, c := range f.candidates(ctx) {
		v, err := probe(ctx, c.dir)
		if err != nil {
			continue
		}
		out = append(out, &Binaries{Dir: c.dir, Version: v, Source: c.source})
	}
	return out
}

// Find returns the first binaries in search order matching spec. Among
// cached releases the newest comes first, so "17" picks the newest 17.x
// installed.
func (f *Finder) Find(ctx context.Context, spec VersionSpec) (*Binaries, error) {
	var looked []string
	for _, c := range f.candidates(ctx) {
		v, err := probe(ctx, c.dir)
		if err != nil {
			continue
		}
		looked = append(looked, fmt.Sprintf("%s (%s)", c.dir, v))
		if spec.Matches(v) {
			return &Binaries{Dir: c.dir, Version: v, Source: c.source}, nil
		}
	}
	where := "none found"
	if len(looked) > 0 {
		where = "found " + strings.Join(looked, ", ")
	}
	return nil, fmt.Errorf("%w for PostgreSQL %s (%s)", ErrNotFound, spec, where)
}

// VersionWords names the versions a command line may ask for here: the
// majors pglab works with, up to the newest found (18 at least), then the
// releases found (17.10).
func (f *Finder) VersionWords(ctx context.Context) []string {
	found := f.All(ctx)
	newest := 18
	for _, b := range found {
		newest = max(newest, b.Version.Major)
	}
	var out []string
	for m := MinMajor; m <= newest; m++ {
		out = append(out, strconv.Itoa(m))
	}
	for _, b := range found {
		out = append(out, b.Version.String())
	}
	return out
}
