package hostcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrint(t *testing.T) {
	var b bytes.Buffer
	Print(&b, []Check{{Name: "a", OK: true, Detail: "fine"}, {Name: "b", Detail: "why not"}})
	want := "  [yes] a                            fine\n  [no ] b                            why not\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

func TestClientAndDir(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if c := Client("psql"); c.OK || !strings.Contains(c.Detail, "not in PATH") {
		t.Errorf("psql outside PATH: %+v", c)
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if c := Dir("scratch", dir+"/not/yet"); !c.OK || c.Detail != dir+"/not/yet" {
		t.Errorf("a directory to be made under a reachable one: %+v", c)
	}
	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if c := Dir("scratch", dir+"/not/yet"); c.OK || !strings.Contains(c.Detail, "cannot traverse") {
		t.Errorf("as root, a directory under a 0700 one: %+v", c)
	}
}
