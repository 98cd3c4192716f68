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
	// On a disk (not a partition), the rotational flag is the one the
	// kernel shows under the device's own name.
	if flag, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(h.Disk.Device), "queue", "rotational")); err == nil {
		if want := strings.TrimSpace(string(flag)) == "1"; h.Disk.Rotational == nil || *h.Disk.Rotational != want {
			t.Errorf("Disk %+v, want rotational %v", h.Disk, want)
		}
	}
	// A directory that does not exist yet is described by its parent's disk.
	if d := CollectHost(filepath.Join(dir, "not", "yet")).Disk; d.Filesystem != h.Disk.Filesystem || d.Device != h.Disk.Device ||
		(d.Rotational == nil) != (h.Disk.Rotational == nil) {
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
}
