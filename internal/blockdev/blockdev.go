// Package blockdev finds what holds a directory on Linux: the mount (from
// /proc/self/mountinfo), the block device under it, the whole disk of a
// partition (from /sys/dev/block/MAJ:MIN), the disks below a device-mapper or
// md device, and whether a disk is rotational or NVMe (from /sys/block).
//
// A [System] names the roots of the proc and sys file systems, so that tests
// can point it at fake trees; the zero System reads /proc and /sys. Reading
// sysfs and parsing mountinfo work on any system; [System.Lookup] and [DevOf],
// which need stat(2)'s device numbers, work on Linux only and report an error
// elsewhere.
package blockdev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// System names the roots of the proc and sys file systems to read.
type System struct {
	Proc string // default "/proc"
	Sys  string // default "/sys"
}

// ProcRoot returns the root of the proc file system: Proc, or "/proc".
func (s System) ProcRoot() string {
	if s.Proc == "" {
		return "/proc"
	}
	return s.Proc
}

// SysRoot returns the root of the sys file system: Sys, or "/sys".
func (s System) SysRoot() string {
	if s.Sys == "" {
		return "/sys"
	}
	return s.Sys
}

// Dev is a device number, as stat(2) and mountinfo give it.
type Dev struct {
	Major, Minor uint32
}

// String returns the device number as the kernel writes it: "MAJ:MIN".
func (d Dev) String() string {
	return strconv.FormatUint(uint64(d.Major), 10) + ":" + strconv.FormatUint(uint64(d.Minor), 10)
}

// parseDev parses "MAJ:MIN".
func parseDev(s string) (Dev, bool) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Dev{}, false
	}
	maj, err1 := strconv.ParseUint(a, 10, 32)
	min, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil {
		return Dev{}, false
	}
	return Dev{uint32(maj), uint32(min)}, true
}

// devLink is the sysfs link of a block device: /sys/dev/block/MAJ:MIN.
func (s System) devLink(dev Dev) string {
	return filepath.Join(s.SysRoot(), "dev", "block", dev.String())
}

// Name returns the kernel name of block device dev (DEVNAME in its sysfs
// uevent file: "sda1", "nvme0n1p2", "dm-0"). A device with major number 0
// (the anonymous devices of tmpfs, overlay, btrfs, NFS…) has none.
func (s System) Name(dev Dev) (string, error) {
	if dev.Major == 0 {
		return "", fmt.Errorf("device %s is not a block device", dev)
	}
	path := filepath.Join(s.devLink(dev), "uevent")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("naming block device %s: %w", dev, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "DEVNAME="); ok && name != "" {
			return name, nil
		}
	}
	return "", fmt.Errorf("naming block device %s: no DEVNAME in %s", dev, path)
}

// Disk is a whole disk (or a device-mapper or md device) in sysfs.
type Disk struct {
	Name string // kernel name: "sda", "nvme0n1", "dm-0", "md0"
	Dir  string // its sysfs directory, links resolved
}

// WholeDisk returns the disk that holds block device dev: the parent of a
// partition, the device itself otherwise.
func (s System) WholeDisk(dev Dev) (Disk, error) {
	return wholeDisk(s.devLink(dev))
}

// wholeDisk resolves a sysfs link to a block device (dev/block/MAJ:MIN or a
// slaves/NAME entry) to its whole disk.
func wholeDisk(link string) (Disk, error) {
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return Disk{}, fmt.Errorf("resolving %s: %w", link, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		dir = filepath.Dir(dir)
	}
	return Disk{Name: filepath.Base(dir), Dir: dir}, nil
}

// Dev returns the disk's own device number, from its sysfs "dev" file: what
// the cgroup io limits (io.max, blkio.throttle.*) name, since they take
// whole disks only.
func (d Disk) Dev() (Dev, error) {
	path := filepath.Join(d.Dir, "dev")
	data, err := os.ReadFile(path)
	if err != nil {
		return Dev{}, fmt.Errorf("reading the device number of %s: %w", d.Name, err)
	}
	dev, ok := parseDev(strings.TrimSpace(string(data)))
	if !ok {
		return Dev{}, fmt.Errorf("reading the device number of %s: unexpected %q in %s", d.Name, strings.TrimSpace(string(data)), path)
	}
	return dev, nil
}

// Rotational tells whether the kernel reports the disk as rotational (a
// spinning disk) in queue/rotational.
func (d Disk) Rotational() (bool, error) {
	path := filepath.Join(d.Dir, "queue", "rotational")
	data, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("reading whether %s is rotational: %w", d.Name, err)
	}
	switch v := strings.TrimSpace(string(data)); v {
	case "1":
		return true, nil
	case "0":
		return false, nil
	default:
		return false, fmt.Errorf("reading whether %s is rotational: unexpected %q in %s", d.Name, v, path)
	}
}

// IsNVMe tells whether the disk is an NVMe namespace (its kernel name starts
// with "nvme").
func (d Disk) IsNVMe() bool {
	return strings.HasPrefix(d.Name, "nvme")
}

// Slave is one device below a device-mapper or md device.
type Slave struct {
	Name string // its name in the slaves directory; a partition keeps its own ("sda1")
	Disk Disk   // the whole disk it is on
}

// Slaves returns the devices a device-mapper or md device is built on, in
// the order of their names; none for a plain disk. They may be
// device-mapper or md devices themselves.
func (d Disk) Slaves() ([]Slave, error) {
	dir := filepath.Join(d.Dir, "slaves")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the devices below %s: %w", d.Name, err)
	}
	out := make([]Slave, 0, len(entries))
	for _, e := range entries {
		disk, err := wholeDisk(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("listing the devices below %s: %w", d.Name, err)
		}
		out = append(out, Slave{Name: e.Name(), Disk: disk})
	}
	return out, nil
}

// PhysicalDisks lists, sorted, the names of the disks in /sys/block backed
// by hardware (with a "device" entry): not loop, ram, zram, device-mapper
// or md devices.
func (s System) PhysicalDisks() ([]string, error) {
	dir := filepath.Join(s.SysRoot(), "block")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing physical disks: %w", err)
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "device")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
