package coldcache

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEvictFiles writes a file (so it is cached), evicts it and checks
// with mincore that its pages left the cache.
func TestEvictFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	before, err := Resident(path)
	if err != nil {
		t.Fatal(err)
	}
	if before == 0 {
		t.Fatalf("a file just written and read has no cached pages; mincore does not work here")
	}
	n, err := EvictFiles([]string{path, path + ".missing"})
	if err != nil || n != int64(len(data)) {
		t.Fatalf("EvictFiles = %d, %v", n, err)
	}
	after, err := Resident(path)
	if err != nil {
		t.Fatal(err)
	}
	if after > before/10 {
		t.Fatalf("after eviction %d of %d bytes still cached", after, before)
	}
}

func TestRelationFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "base", "5"), 0o755)
	for _, f := range []string{"base/5/100", "base/5/100.1", "base/5/100.2", "base/5/100_fsm"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o600)
	}
	got := RelationFiles(dir, "base/5/100")
	want := []string{"base/5/100", "base/5/100_fsm", "base/5/100_vm", "base/5/100.1", "base/5/100.2"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != filepath.Join(dir, want[i]) {
			t.Errorf("got[%d] = %s, want %s", i, got[i], want[i])
		}
	}
}
