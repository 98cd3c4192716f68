package pgserver

import (
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
