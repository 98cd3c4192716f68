package blockdev

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func statDev(t *testing.T, path string) Dev {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return Dev{unix.Major(st.Dev), unix.Minor(st.Dev)}
}

// TestLookupThisMachine looks up a temporary directory through a symbolic
// link, and follows it to its disk where there is one.
func TestLookupThisMachine(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real dir")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := System{}.Lookup(filepath.Join(dir, "link"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", loc)
	if loc.Path != resolved || loc.Dev != statDev(t, real) || loc.MountErr != nil {
		t.Fatalf("Lookup = %+v; want path %s, device %v", loc, resolved, statDev(t, real))
	}
	if !within(loc.Path, loc.Mount.Point) || statDev(t, loc.Mount.Point) != loc.Mount.Dev && loc.Mount.FSType != "btrfs" {
		t.Errorf("mount %+v does not hold %s (device %v)", loc.Mount, loc.Path, loc.Dev)
	}
	dev, err := loc.BlockDevice()
	if err != nil {
		t.Skipf("no block device under %s: %v", dir, err)
	}
	name, err := System{}.Name(dev)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := System{}.WholeDisk(dev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("/sys/block", disk.Name)); err != nil || !strings.HasPrefix(name, disk.Name) {
		t.Errorf("device %v is %s, on disk %+v (%v)", dev, name, disk, err)
	}
	if _, err := disk.Rotational(); err != nil {
		t.Error(err)
	}
	if slaves, err := disk.Slaves(); err != nil {
		t.Errorf("%s: slaves %v, %v", disk.Name, slaves, err)
	}
}

// TestLookupVirtual: /proc and a tmpfs have no block device; among the
// mounts stacked on a point, the one whose device the directory has wins.
func TestLookupVirtual(t *testing.T) {
	loc, err := System{}.Lookup("/proc/self")
	if err != nil {
		t.Fatal(err)
	}
	if loc.Mount.Point != "/proc" || loc.Mount.FSType != "proc" {
		t.Errorf("/proc/self: %+v", loc)
	}
	if dev, err := loc.BlockDevice(); err == nil || err.Error() != "it is on proc (proc), not on a block device" {
		t.Errorf("/proc: block device %v, %v", dev, err)
	}

	shm, err := os.MkdirTemp("/dev/shm", "pglab-blockdev-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	loc, err = System{}.Lookup(shm)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Mount.FSType != "tmpfs" || loc.Mount.Dev != loc.Dev || loc.Dev != statDev(t, shm) {
		t.Errorf("%s: %+v", shm, loc)
	}
	if _, err := loc.BlockDevice(); err == nil || !strings.Contains(err.Error(), "(tmpfs), not on a block device") {
		t.Errorf("%s: block device error %v", shm, err)
	}
}

// TestLookupFakeMountTable reads the mount table from a fake /proc.
func TestLookupFakeMountTable(t *testing.T) {
	dir := t.TempDir()
	proc := t.TempDir()
	s := System{Proc: proc}
	loc, err := s.Lookup(dir)
	if err != nil || loc.Dev != statDev(t, dir) || loc.Mount != (Mount{}) || loc.MountErr == nil {
		t.Errorf("without a mount table: %+v, %v", loc, err)
	}
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	escaped := strings.ReplaceAll(resolved, " ", `\040`)
	table := "1 0 0:99 / /elsewhere rw - tmpfs tmpfs rw\n" +
		"2 0 0:98 / " + escaped + " rw - overlay overlay rw,upperdir=/u\n"
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	loc, err = s.Lookup(dir)
	if err != nil || loc.MountErr != nil || loc.Mount.Point != resolved || loc.Mount.FSType != "overlay" {
		t.Errorf("with a fake mount table: %+v, %v", loc, err)
	}
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(table[:strings.Index(table, "\n")+1]), 0o644); err != nil {
		t.Fatal(err)
	}
	loc, err = s.Lookup(dir)
	if err != nil || loc.MountErr == nil || !strings.Contains(loc.MountErr.Error(), "no mount in") {
		t.Errorf("no mount holds it: %+v, %v", loc, err)
	}
}

func TestLookupMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "not", "yet")
	if loc, err := (System{}).Lookup(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Lookup(%s) = %+v, %v", missing, loc, err)
	}
	if dev, err := DevOf(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("DevOf(%s) = %v, %v", missing, dev, err)
	}
}

// TestBlockDevice covers each way to the block device: the directory's own
// device, the mount's source node, and the failures.
func TestBlockDevice(t *testing.T) {
	if dev, err := (Location{Dev: Dev{8, 1}}).BlockDevice(); err != nil || dev != (Dev{8, 1}) {
		t.Errorf("a real device: %v, %v", dev, err)
	}
	l := Location{Dev: Dev{0, 45}, Mount: Mount{FSType: "overlay", Source: "overlay"}}
	if _, err := l.BlockDevice(); err == nil || err.Error() != "it is on overlay (overlay), not on a block device" {
		t.Errorf("overlay: %v", err)
	}
	l = Location{Dev: Dev{0, 46}, MountErr: errors.New("no table")}
	if _, err := l.BlockDevice(); err == nil || err.Error() != "no block device behind device 0:46: no table" {
		t.Errorf("no mount: %v", err)
	}
	// A source under /dev/ that is not a block device.
	l = Location{Dev: Dev{0, 47}, Mount: Mount{FSType: "ext4", Source: "/dev/null"}}
	if _, err := l.BlockDevice(); err == nil || !strings.Contains(err.Error(), "/dev/null (ext4)") {
		t.Errorf("a character device: %v", err)
	}
	// A real block device node of this machine, as btrfs would name it.
	node := ""
	if entries, err := os.ReadDir("/sys/block"); err == nil {
		for _, e := range entries {
			if p := filepath.Join("/dev", e.Name()); isBlock(p) {
				node = p
				break
			}
		}
	}
	if node == "" {
		t.Skip("no block device node in /dev")
	}
	var st unix.Stat_t
	if err := unix.Stat(node, &st); err != nil {
		t.Fatal(err)
	}
	want := Dev{unix.Major(st.Rdev), unix.Minor(st.Rdev)}
	l = Location{Dev: Dev{0, 48}, Mount: Mount{FSType: "btrfs", Source: node}}
	if dev, err := l.BlockDevice(); err != nil || dev != want {
		t.Errorf("source %s: %v, %v; want %v", node, dev, err, want)
	}
	if dev, err := DevOf(node); err != nil || dev != want {
		t.Errorf("DevOf(%s) = %v, %v; want %v", node, dev, err, want)
	}
	if dev, err := DevOf("/dev/null"); err != nil || dev != statDev(t, "/dev/null") {
		t.Errorf("DevOf(/dev/null) = %v, %v; want the device of /dev", dev, err)
	}
}

func isBlock(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0
}
