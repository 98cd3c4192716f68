package blockdev

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeTree writes the tree described in testdata/NAME (see
// testdata/sys.txt) into a new temporary directory and returns it.
func writeTree(t *testing.T, name string) string {
	t.Helper()
	spec, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for n, line := range strings.Split(string(spec), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if path, target, ok := strings.Cut(line, " -> "); ok {
			link := filepath.Join(root, path)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, target), link); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if path, content, ok := strings.Cut(line, " = "); ok {
			file := filepath.Join(root, path)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(strings.ReplaceAll(content, `\n`, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Fatalf("testdata/%s:%d: neither a file nor a link: %q", name, n+1, line)
	}
	return root
}

func TestName(t *testing.T) {
	s := System{Sys: writeTree(t, "sys.txt")}
	for dev, want := range map[Dev]string{{8, 0}: "sda", {8, 1}: "sda1", {259, 1}: "nvme0n1p1", {253, 0}: "dm-0", {7, 0}: "loop0"} {
		if got, err := s.Name(dev); err != nil || got != want {
			t.Errorf("Name(%v) = %q, %v; want %q", dev, got, err, want)
		}
	}
	for dev, why := range map[Dev]string{{0, 21}: "not a block device", {8, 32}: "no DEVNAME", {8, 48}: "no such file", {253, 1}: "no such file"} {
		if got, err := s.Name(dev); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Name(%v) = %q, %v; want an error saying %q", dev, got, err, why)
		}
	}
}

func TestWholeDisk(t *testing.T) {
	sys := writeTree(t, "sys.txt")
	s := System{Sys: sys}
	for dev, want := range map[Dev]string{
		{8, 0}:   "devices/pci0/ata1/block/sda",
		{8, 1}:   "devices/pci0/ata1/block/sda", // a partition: its disk
		{8, 16}:  "devices/pci0/ata2/block/sdb",
		{259, 1}: "devices/pci0/nvme0/block/nvme0n1",
		{253, 0}: "devices/virtual/block/dm-0",
		{9, 0}:   "devices/virtual/block/md0",
	} {
		d, err := s.WholeDisk(dev)
		if err != nil || d.Dir != filepath.Join(sys, want) || d.Name != filepath.Base(want) {
			t.Errorf("WholeDisk(%v) = %+v, %v; want %s", dev, d, err, want)
		}
	}
	if d, err := s.WholeDisk(Dev{1, 99}); err == nil || !strings.Contains(err.Error(), "1:99") {
		t.Errorf("WholeDisk of an unknown device = %+v, %v", d, err)
	}
}

func TestDiskDev(t *testing.T) {
	s := System{Sys: writeTree(t, "sys.txt")}
	d, err := s.WholeDisk(Dev{8, 1})
	if err != nil {
		t.Fatal(err)
	}
	if dev, err := d.Dev(); err != nil || dev != (Dev{8, 0}) {
		t.Errorf("Dev() of sda = %v, %v; want 8:0", dev, err)
	}
	d, _ = s.WholeDisk(Dev{8, 16})
	if _, err := d.Dev(); err == nil || !strings.Contains(err.Error(), "sdb") {
		t.Errorf("Dev() of a disk without a dev file: %v", err)
	}
}

func TestRotationalAndNVMe(t *testing.T) {
	s := System{Sys: writeTree(t, "sys.txt")}
	for dev, want := range map[Dev]struct{ rot, nvme bool }{
		{8, 1}:   {true, false},
		{8, 16}:  {false, false},
		{259, 1}: {false, true},
		{259, 2}: {false, true},
		{253, 0}: {false, false},
		{7, 0}:   {true, false},
	} {
		d, err := s.WholeDisk(dev)
		if err != nil {
			t.Fatal(err)
		}
		rot, err := d.Rotational()
		if err != nil || rot != want.rot || d.IsNVMe() != want.nvme {
			t.Errorf("%s: rotational %v (%v), NVMe %v; want %v, %v", d.Name, rot, err, d.IsNVMe(), want.rot, want.nvme)
		}
	}
	for dev, why := range map[Dev]string{{8, 32}: `unexpected "maybe"`, {253, 3}: "no such file"} {
		d, err := s.WholeDisk(dev)
		if err != nil {
			t.Fatal(err)
		}
		if rot, err := d.Rotational(); err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), d.Name) {
			t.Errorf("%s: rotational %v, %v; want an error saying %q", d.Name, rot, err, why)
		}
	}
}

func TestSlaves(t *testing.T) {
	sys := writeTree(t, "sys.txt")
	s := System{Sys: sys}
	type slave struct{ name, disk string }
	for dev, want := range map[Dev][]slave{
		{253, 0}: {{"nvme0n1p1", "nvme0n1"}, {"nvme1n1", "nvme1n1"}},
		{253, 1}: {{"sda1", "sda"}, {"sdb", "sdb"}},
		{9, 0}:   {{"nvme1n1", "nvme1n1"}, {"sdb", "sdb"}},
		{253, 2}: {{"md0", "md0"}},
		{8, 0}:   nil,
		{8, 1}:   nil, // asked of a partition: its disk has none
	} {
		d, err := s.WholeDisk(dev)
		if err != nil {
			t.Fatal(err)
		}
		slaves, err := d.Slaves()
		var got []slave
		for _, x := range slaves {
			got = append(got, slave{x.Name, x.Disk.Name})
			if !strings.HasPrefix(x.Disk.Dir, filepath.Join(sys, "devices")+"/") {
				t.Errorf("%s: slave %s in %s", d.Name, x.Name, x.Disk.Dir)
			}
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: slaves %v, %v; want %v", d.Name, got, err, want)
		}
	}
	d, err := s.WholeDisk(Dev{253, 3})
	if err != nil {
		t.Fatal(err)
	}
	if slaves, err := d.Slaves(); err == nil || !strings.Contains(err.Error(), "dm-3") {
		t.Errorf("a dangling slave link: %v, %v", slaves, err)
	}
}

func TestPhysicalDisks(t *testing.T) {
	sys := writeTree(t, "sys.txt")
	got, err := System{Sys: sys}.PhysicalDisks()
	if want := []string{"nvme0n1", "nvme1n1", "sda", "sdb", "sdc"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("PhysicalDisks = %q, %v; want %q", got, err, want)
	}
	if got, err := (System{Sys: filepath.Join(sys, "none")}).PhysicalDisks(); err == nil || got != nil {
		t.Errorf("PhysicalDisks without /sys/block = %q, %v", got, err)
	}
}
