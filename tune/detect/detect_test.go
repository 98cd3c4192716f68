package detect

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pglab/pglab/internal/blockdev"
	"github.com/pglab/pglab/tune"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryKB(t *testing.T) {
	proc := t.TempDir()
	write(t, filepath.Join(proc, "meminfo"), "MemTotal:       24684084 kB\nMemFree:        24232520 kB\n")
	kb, src, err := Host{Proc: proc}.MemoryKB()
	if err != nil || kb != 24684084 || src != filepath.Join(proc, "meminfo") {
		t.Errorf("MemoryKB = %d, %q, %v", kb, src, err)
	}
	write(t, filepath.Join(proc, "meminfo"), "MemFree: 1 kB\n")
	if _, _, err := (Host{Proc: proc}).MemoryKB(); err == nil || !strings.Contains(err.Error(), "no MemTotal line") {
		t.Errorf("MemoryKB without MemTotal: err = %v", err)
	}
	write(t, filepath.Join(proc, "meminfo"), "MemTotal: lots kB\n")
	if _, _, err := (Host{Proc: proc}).MemoryKB(); err == nil || !strings.Contains(err.Error(), "bad line") {
		t.Errorf("MemoryKB with a bad line: err = %v", err)
	}
	if _, _, err := (Host{Proc: filepath.Join(proc, "none")}).MemoryKB(); err == nil {
		t.Error("MemoryKB without a meminfo file: no error")
	}
}

// TestMemoryKBThisMachine reads the real /proc/meminfo where there is one.
func TestMemoryKBThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc/meminfo")
	}
	kb, _, err := Host{}.MemoryKB()
	if err != nil || kb < 64*1024 {
		t.Errorf("MemoryKB = %d, %v", kb, err)
	}
}

func TestCPUs(t *testing.T) {
	if n, src := CPUs(); n < 1 || src == "" {
		t.Errorf("CPUs = %d, %q", n, src)
	}
}

// fakeSys builds a sysfs tree: disks maps a disk name to its rotational
// flag, parts maps "maj:min" to "disk" or "disk/partition", and slaves maps
// a virtual disk to the disks below it.
func fakeSys(t *testing.T, disks map[string]string, devs map[string]string, slaves map[string][]string) string {
	t.Helper()
	sys := t.TempDir()
	for name, rot := range disks {
		dir := filepath.Join(sys, "devices", "virtual", "block", name)
		write(t, filepath.Join(dir, "queue", "rotational"), rot+"\n")
		symlink(t, dir, filepath.Join(sys, "block", name))
	}
	for devno, path := range devs {
		dir := filepath.Join(sys, "devices", "virtual", "block", path)
		if strings.Contains(path, "/") {
			write(t, filepath.Join(dir, "partition"), "1\n")
		}
		symlink(t, dir, filepath.Join(sys, "dev", "block", devno))
	}
	for name, below := range slaves {
		for _, b := range below {
			symlink(t, filepath.Join(sys, "devices", "virtual", "block", b), filepath.Join(sys, "devices", "virtual", "block", name, "slaves", filepath.Base(b)))
		}
	}
	return sys
}

func TestDiskKind(t *testing.T) {
	sys := fakeSys(t,
		map[string]string{"sda": "1", "sdb": "0", "nvme0n1": "0", "nvme1n1": "0", "dm-0": "0", "dm-1": "0", "md0": "1", "dm-2": "0"},
		map[string]string{"8:1": "sda/sda1", "8:16": "sdb", "259:1": "nvme0n1/nvme0n1p1", "253:0": "dm-0", "253:1": "dm-1", "9:0": "md0", "253:2": "dm-2"},
		map[string][]string{"dm-0": {"nvme0n1/nvme0n1p1", "nvme1n1"}, "dm-1": {"sda/sda1", "sdb"}, "md0": {"sdb", "nvme1n1"}, "dm-2": {"md0"}},
	)
	h := Host{Sys: sys}
	cases := []struct {
		major, minor uint32
		want         tune.Storage
		source       string
	}{
		{8, 1, tune.StorageHDD, "block/sda/queue/rotational"},
		{8, 16, tune.StorageSSD, "block/sdb/queue/rotational"},
		{259, 1, tune.StorageNVMe, "block/nvme0n1/queue/rotational"},
		{253, 0, tune.StorageNVMe, "block/dm-0/slaves (nvme0n1p1, nvme1n1)"},
		{253, 1, tune.StorageHDD, "block/dm-1/slaves (sda1, sdb)"},
		{9, 0, tune.StorageSSD, "block/md0/slaves (nvme1n1, sdb)"},
		{253, 2, tune.StorageSSD, "block/dm-2/slaves (md0)"}, // dm on md: the disks below both
	}
	for _, c := range cases {
		disk, err := blockdev.System{Sys: sys}.WholeDisk(blockdev.Dev{Major: c.major, Minor: c.minor})
		if err != nil {
			t.Errorf("%d:%d: %v", c.major, c.minor, err)
			continue
		}
		kind, src, err := h.diskKind(disk, 0)
		if err != nil || kind != c.want || src != filepath.Join(sys, c.source) {
			t.Errorf("%d:%d = %s, %q, %v; want %s, %q", c.major, c.minor, kind, src, err, c.want, c.source)
		}
	}
}

// TestStorageThisMachine classifies the disk of the test's directory where
// the kernel tells it; it must give one of PGTune's storage kinds.
func TestStorageThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /sys")
	}
	kind, src, err := Host{}.Storage(".")
	if err != nil {
		t.Skipf("no block device behind this directory: %v", err)
	}
	if _, perr := tune.ParseStorage(string(kind)); perr != nil || !strings.HasPrefix(src, "/sys/block/") {
		t.Errorf("Storage(.) = %q, %q", kind, src)
	}
}

func TestStorageMissingDir(t *testing.T) {
	if _, _, err := (Host{}).Storage(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "finding the disk of") {
		t.Errorf("Storage of a missing dir: err = %v", err)
	}
}
