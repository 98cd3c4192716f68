// Package pgclient provides PostgreSQL's client programs (pg_dump, psql,
// pg_basebackup, …) of a newer major version than the machine has: the
// server builds pglab installs (package pgserver) hold initdb, pg_ctl and
// postgres only, and a pg_dump refuses a server of a newer major version
// than its own.
//
// Fetch takes them from Debian's packages of the release that ships that
// major version (postgresql-client-17 from Debian 13, trixie;
// postgresql-client-18 from Debian unstable), with apt-get on a private
// list of sources (the machine's own apt configuration and dpkg database
// are not touched): the package, the libraries it needs, and the C library
// they were built against, unpacked into pglab's cache
// (<cache>/client/<major>). Programs run through that C library's own
// dynamic loader with the unpacked libraries first (Tools.Command), so
// they need nothing of the machine's libraries: a Debian 12 machine runs
// Debian 13's pg_dump. It needs apt-get, apt-cache and dpkg-deb (any
// Debian or Ubuntu), an amd64 machine, and access to deb.debian.org.
//
// A pg_dump of major version N dumps servers of 9.2 to N; its plain
// output loads into servers of other versions as far as the objects
// allow (pglab's replay.data loader skips the settings a server lacks).
package pgclient

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pglab/pglab/pgserver"
)

// suites are the Debian releases that ship each major version's client.
var suites = map[int]string{17: "trixie", 18: "sid"}

// Majors returns the major versions Fetch can provide, in order.
func Majors() []int {
	var out []int
	for m := range suites {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// skip are dependencies no program of the client needs: the wrapper
// scripts (pg_wrapper, in Perl) and what they pull in, and data packages.
var skip = map[string]bool{
	"postgresql-client-common": true, "sensible-utils": true, "perl": true, "perl-base": true,
	"netbase": true, "readline-common": true, "debconf": true, "libc-bin": true,
}

// Tools are one major version's client programs, unpacked.
type Tools struct {
	Major int
	// Root is the directory the packages were unpacked into.
	Root string
}

// Dir returns where fetched clients are kept: beside pglab's PostgreSQL
// builds.
func Dir() string { return filepath.Join(filepath.Dir(pgserver.CacheDir()), "client") }

// complete is the file Fetch writes last into Root.
const complete = "pglab-complete"

// Find returns the client of major version major fetched before.
func Find(major int) (*Tools, bool) {
	t := &Tools{Major: major, Root: filepath.Join(Dir(), fmt.Sprint(major), "root")}
	if _, err := os.Stat(filepath.Join(t.Root, complete)); err != nil {
		return nil, false
	}
	return t, true
}

// Fetch returns the client of major version major, fetching and unpacking
// it first when it is not in the cache; say, when not nil, is told what
// happens.
func Fetch(ctx context.Context, major int, say func(string)) (*Tools, error) {
	if t, ok := Find(major); ok {
		return t, nil
	}
	suite, ok := suites[major]
	if !ok {
		return nil, fmt.Errorf("pglab fetches the client programs of PostgreSQL %s only (Debian's packages), not %d's: 17's pg_dump dumps servers of 13 to 17", MajorsText(), major)
	}
	if say == nil {
		say = func(string) {}
	}
	dir := filepath.Join(Dir(), fmt.Sprint(major))
	a, err := newApt(dir, suite)
	if err != nil {
		return nil, err
	}
	say(fmt.Sprintf("fetching the package list of Debian %s (apt-get update on pglab's own sources list)", suite))
	if err := a.run(ctx, "apt-get", "update"); err != nil {
		return nil, err
	}
	pkgs, err := a.closure(ctx, fmt.Sprintf("postgresql-client-%d", major))
	if err != nil {
		return nil, err
	}
	say(fmt.Sprintf("fetching %d packages (postgresql-client-%d, the libraries it needs, their C library)", len(pkgs), major))
	root := filepath.Join(dir, "root")
	if err := os.RemoveAll(root); err != nil {
		return nil, err
	}
	if err := a.unpack(ctx, pkgs, root); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	t := &Tools{Major: major, Root: root}
	if _, err := t.loader(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, complete), []byte(strings.Join(pkgs, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	say(fmt.Sprintf("installed PostgreSQL %d's client programs in %s", major, t.BinDir()))
	return t, nil
}

// MajorsText names the majors of Majors in a sentence: "17 and 18".
func MajorsText() string {
	var parts []string
	for _, m := range Majors() {
		parts = append(parts, fmt.Sprint(m))
	}
	return strings.Join(parts, " and ")
}

// BinDir is the directory of the programs.
func (t *Tools) BinDir() string {
	return filepath.Join(t.Root, "usr", "lib", "postgresql", fmt.Sprint(t.Major), "bin")
}

// loader returns the unpacked C library's dynamic loader.
func (t *Tools) loader() (string, error) {
	for _, p := range []string{"usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "usr/lib64/ld-linux-x86-64.so.2"} {
		if _, err := os.Stat(filepath.Join(t.Root, p)); err == nil {
			return filepath.Join(t.Root, p), nil
		}
	}
	return "", fmt.Errorf("%s: no dynamic loader (ld-linux-x86-64.so.2) among the unpacked packages", t.Root)
}

// Command returns the program name (pg_dump, psql, …) with args, run by
// the unpacked C library's loader with the unpacked libraries first.
func (t *Tools) Command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	prog := filepath.Join(t.BinDir(), name)
	if _, err := os.Stat(prog); err != nil {
		return nil, fmt.Errorf("PostgreSQL %d's client has no %s: %w", t.Major, name, err)
	}
	ld, err := t.loader()
	if err != nil {
		return nil, err
	}
	libs := filepath.Join(t.Root, "usr", "lib", "x86_64-linux-gnu") + ":" + filepath.Join(t.Root, "lib", "x86_64-linux-gnu")
	return exec.CommandContext(ctx, ld, append([]string{"--library-path", libs, "--argv0", name, prog}, args...)...), nil
}

// apt runs apt-get and apt-cache on a sources list of one suite, with
// lists and downloads under dir and no dpkg status (every package counts
// as not installed, so the closure is complete).
type apt struct {
	dir  string
	opts []string
}

func newApt(dir, suite string) (*apt, error) {
	for _, tool := range []string{"apt-get", "apt-cache", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("fetching PostgreSQL's client programs needs %s (Debian or Ubuntu): %w", tool, err)
		}
	}
	lists := filepath.Join(dir, "apt", "lists")
	if err := os.MkdirAll(filepath.Join(lists, "partial"), 0o755); err != nil {
		return nil, fmt.Errorf("client cache: %w", err)
	}
	sources := filepath.Join(dir, "apt", "sources.list")
	line := fmt.Sprintf("deb http://deb.debian.org/debian %s main\n", suite)
	if err := os.WriteFile(sources, []byte(line), 0o644); err != nil {
		return nil, fmt.Errorf("client cache: %w", err)
	}
	return &apt{dir: dir, opts: []string{
		"-o", "Dir::Etc::SourceList=" + sources, "-o", "Dir::Etc::SourceParts=/dev/null",
		"-o", "Dir::State::Lists=" + lists, "-o", "Dir::State::status=/dev/null",
		"-o", "APT::Architecture=amd64", "-o", "Debug::NoLocking=1",
	}}, nil
}

// run runs an apt tool, its output in the error when it fails.
func (a *apt) run(ctx context.Context, tool string, args ...string) error {
	_, err := a.output(ctx, "", tool, args...)
	return err
}

func (a *apt) output(ctx context.Context, wd, tool string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, tool, append(slices.Clone(a.opts), args...)...)
	cmd.Dir = wd
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("%s %s: %w: %s", tool, args[0], err, msg)
	}
	return out.Bytes(), nil
}

// closure returns root and the packages it depends on, recursively (the
// first of alternatives; not the packages of skip, nor virtual ones).
func (a *apt) closure(ctx context.Context, root string) ([]string, error) {
	seen := map[string]bool{root: true}
	queue, out := []string{root}, []string{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		text, err := a.output(ctx, "", "apt-cache", "depends", "--no-recommends", "--no-suggests", "--no-conflicts",
			"--no-breaks", "--no-replaces", "--no-enhances", p)
		if err != nil {
			return nil, err
		}
		for _, d := range dependsOf(text) {
			if !seen[d] && !skip[d] && !strings.HasPrefix(d, "perl") && !strings.HasPrefix(d, "libperl") {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// dependsOf reads apt-cache depends' output of one package: the packages
// of its Depends and PreDepends lines, the first of each group of
// alternatives ("|Depends:" marks one followed by another).
func dependsOf(text []byte) []string {
	var out []string
	inAlt := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		alt := strings.HasPrefix(trimmed, "|")
		trimmed = strings.TrimPrefix(trimmed, "|")
		kind, name, ok := strings.Cut(trimmed, ": ")
		if !ok || (kind != "Depends" && kind != "PreDepends") {
			continue
		}
		if !inAlt && !strings.HasPrefix(name, "<") {
			out = append(out, name)
		}
		inAlt = alt
	}
	return out
}

// unpack downloads the packages and unpacks each into root.
func (a *apt) unpack(ctx context.Context, pkgs []string, root string) error {
	debs := filepath.Join(a.dir, "apt", "debs")
	if err := os.RemoveAll(debs); err != nil {
		return err
	}
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(debs)
	if _, err := a.output(ctx, debs, "apt-get", append([]string{"download"}, pkgs...)...); err != nil {
		return err
	}
	files, _ := filepath.Glob(filepath.Join(debs, "*.deb"))
	if len(files) != len(pkgs) {
		return fmt.Errorf("apt-get download fetched %d of %d packages", len(files), len(pkgs))
	}
	for _, f := range files {
		out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", f, root).CombinedOutput()
		if err != nil {
			return fmt.Errorf("dpkg-deb -x %s: %w: %s", filepath.Base(f), err, strings.TrimSpace(string(out)))
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}
