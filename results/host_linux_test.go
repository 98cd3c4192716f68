package results

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestCollectHost(t *testing.T) {
	dir := t.TempDir()
	h := CollectHost(dir)
	if h.CPUs != runtime.NumCPU() || h.Arch != runtime.GOARCH {
		t.Errorf("CPUs %d arch %q", h.CPUs, h.Arch)
	}
	if name, _ := os.Hostname(); h.Hostname != name {
		t.Errorf("Hostname %q, want %q", h.Hostname, name)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil || h.Kernel != unix.ByteSliceToString(u.Release[:]) {
		t.Errorf("Kernel %q", h.Kernel)
	}
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err == nil {
		// sysinfo(2) and /proc/meminfo count the same memory, in
		// different units.
		want := int64(si.Totalram) * int64(si.Unit)
		if d := h.MemoryBytes - want; d < -1<<20 || d > 1<<20 {
			t.Errorf("MemoryBytes %d, sysinfo says %d", h.MemoryBytes, want)
		}
	}
	if h.OS == "" || h.CPUModel == "" {
		t.Errorf("OS %q, CPU model %q", h.OS, h.CPUModel)
	}
	if h.Disk.Path != dir || h.Disk.Filesystem == "" || h.Disk.Device == "" {
		t.Errorf("Disk %+v", h.Disk)
	}
	// A directory that does not exist yet is described by its parent's disk.
	if d := CollectHost(filepath.Join(dir, "not", "yet")).Disk; d.Filesystem != h.Disk.Filesystem || d.Device != h.Disk.Device {
		t.Errorf("missing dir: %+v, want the disk of %+v", d, h.Disk)
	}
	if d := CollectHost("").Disk; d != (Disk{}) {
		t.Errorf("no dir: %+v", d)
	}
}

func TestDiskOfVirtualFilesystems(t *testing.T) {
	for dir, fs := range map[string]string{"/proc": "proc", "/proc/self": "proc", "/sys": "sysfs"} {
		d := diskOf(dir)
		if d.Filesystem != fs || d.Rotational != nil {
			t.Errorf("diskOf(%s) = %+v, want file system %s, rotational unknown", dir, d, fs)
		}
	}
}

func TestFindMount(t *testing.T) {
	mi := filepath.Join(t.TempDir(), "mountinfo")
	data := strings.Join([]string{
		`22 1 0:21 / /proc rw,relatime - proc proc rw`,
		`27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw`,
		`30 27 259:2 / /data rw master:3 - xfs /dev/nvme0n1p2 rw`,
		`31 27 0:40 / /data2 rw - tmpfs tmpfs rw`,
		`32 30 0:41 / /data/with\040space rw - btrfs /dev/sdb1 rw`,
		`33 27 0:42 / /data2 rw - overlay overlay rw`, // mounted on top of 31
		`garbage line`,
	}, "\n")
	if err := os.WriteFile(mi, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]mount{
		"/":                  {"/", "ext4", "/dev/vda"},
		"/home/u":            {"/", "ext4", "/dev/vda"},
		"/data":              {"/data", "xfs", "/dev/nvme0n1p2"},
		"/data/pg/17":        {"/data", "xfs", "/dev/nvme0n1p2"},
		"/database":          {"/", "ext4", "/dev/vda"},
		"/data/with space/x": {"/data/with space", "btrfs", "/dev/sdb1"},
		"/data2/x":           {"/data2", "overlay", "overlay"},
		"/proc/1":            {"/proc", "proc", "proc"},
	} {
		got, ok := findMount(mi, path)
		if !ok || got != want {
			t.Errorf("findMount(%q) = %+v, %v; want %+v", path, got, ok, want)
		}
	}
}

func TestHostFileParsers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := osRelease(write("os1", "NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n")); got != "Debian GNU/Linux 13 (trixie)" {
		t.Errorf("osRelease = %q", got)
	}
	if got := osRelease(write("os2", "PRETTY_NAME=Alpine\n")); got != "Alpine" {
		t.Errorf("osRelease unquoted = %q", got)
	}
	if got := osRelease(filepath.Join(dir, "none")); got != "" {
		t.Errorf("osRelease of a missing file = %q", got)
	}
	x86 := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := cpuModel(write("cpu1", x86)); got != "Intel(R) Xeon(R) Gold 6338" {
		t.Errorf("cpuModel x86 = %q", got)
	}
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n"
	if got := cpuModel(write("cpu2", arm)); got != "Raspberry Pi 4 Model B Rev 1.4" {
		t.Errorf("cpuModel arm = %q", got)
	}
	if got := memTotal(write("mem", "MemTotal:       24684084 kB\nMemFree:  1 kB\n")); got != 24684084*1024 {
		t.Errorf("memTotal = %d", got)
	}
	if got := memTotal(write("mem2", "MemFree: 1 kB\n")); got != 0 {
		t.Errorf("memTotal without the line = %d", got)
	}
	if got := unescapeMount(`/a\040b\134c\011`); got != "/a b\\c\t" {
		t.Errorf("unescapeMount = %q", got)
	}
}
