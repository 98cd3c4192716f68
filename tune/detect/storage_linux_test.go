package detect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStorageMountTable: a directory without a block device of its own (on
// a tmpfs) is classified by its mount's source, which the mount table of a
// fake /proc names here.
func TestStorageMountTable(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "pglab-detect-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	var st unix.Stat_t
	if err := unix.Stat(shm, &st); err != nil {
		t.Fatal(err)
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	if unix.Major(st.Dev) != 0 {
		t.Skipf("/dev/shm is on block device %s", dev)
	}
	proc := t.TempDir()
	for _, c := range []struct{ mountinfo, err string }{
		{"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" +
			"90 27 " + dev + " / /dev/shm rw,relatime shared:5 - overlay overlay rw,lowerdir=/a\n",
			"it is on overlay (overlay), not on a block device"},
		{"90 27 " + dev + " / /elsewhere rw - tmpfs tmpfs rw\n",
			"no block device behind device " + dev + ": no mount in " + filepath.Join(proc, "self", "mountinfo") + " holds"},
		{"", "no block device behind device " + dev + ": reading the mount table"},
	} {
		if c.mountinfo == "" {
			os.Remove(filepath.Join(proc, "self", "mountinfo"))
		} else {
			write(t, filepath.Join(proc, "self", "mountinfo"), c.mountinfo)
		}
		_, _, err := Host{Proc: proc}.Storage(shm)
		if want := "finding the disk of " + shm + ": " + c.err; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("mount table %q: err = %v, want %q…", c.mountinfo, err, want)
		}
	}

	// The same directory as btrfs would show it: an anonymous st_dev, the
	// mount's source a real disk of this machine.
	disks, _ := os.ReadDir("/sys/block")
	for _, d := range disks {
		node := filepath.Join("/dev", d.Name())
		var nst unix.Stat_t
		if _, err := os.Stat(filepath.Join("/sys/block", d.Name(), "device")); err != nil ||
			unix.Stat(node, &nst) != nil || nst.Mode&unix.S_IFMT != unix.S_IFBLK {
			continue
		}
		write(t, filepath.Join(proc, "self", "mountinfo"), "90 27 "+dev+" / /dev/shm rw - btrfs "+node+" rw\n")
		kind, src, err := Host{Proc: proc}.Storage(shm)
		if err != nil || kind == "" || !strings.HasPrefix(src, filepath.Join("/sys/block", d.Name())+"/") {
			t.Errorf("on %s: %s, %q, %v", node, kind, src, err)
		}
		return
	}
	t.Skip("no disk with a device node in /dev")
}
