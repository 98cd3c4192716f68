// Package detect measures the tuning inputs of this machine that a user did
// not give: total memory (/proc/meminfo), CPUs (the CPU affinity mask) and
// the kind of disk holding a directory (/sys/block/<dev>/queue/rotational).
// It works on Linux; elsewhere memory and storage report an error.
package detect

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/blockdev"
	"github.com/pglab/pglab/tune"
)

// Host names the roots of the proc and sys file systems to read; tests point
// them at a fake tree. The zero Host reads "/proc" and "/sys".
type Host struct {
	Proc string // default "/proc"
	Sys  string // default "/sys"
}

// system is where blockdev reads for h.
func (h Host) system() blockdev.System {
	return blockdev.System{Proc: h.Proc, Sys: h.Sys}
}

// MemoryKB returns MemTotal from /proc/meminfo in kilobytes, and the file it read.
func (h Host) MemoryKB() (kb int64, source string, err error) {
	path := filepath.Join(h.system().ProcRoot(), "meminfo")
	f, err := os.Open(path)
	if err != nil {
		return 0, "", fmt.Errorf("reading total memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[0] != "MemTotal:" {
			continue
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil || n <= 0 || (len(fields) > 2 && fields[2] != "kB") {
			return 0, "", fmt.Errorf("reading total memory: bad line %q in %s", sc.Text(), path)
		}
		return n, path, nil
	}
	if err := sc.Err(); err != nil {
		return 0, "", fmt.Errorf("reading total memory: %w", err)
	}
	return 0, "", fmt.Errorf("reading total memory: no MemTotal line in %s", path)
}

// CPUs returns the number of CPUs this process may run on (its CPU affinity
// mask, as runtime.NumCPU reads it) and a description of that source.
func CPUs() (n int, source string) {
	return runtime.NumCPU(), "the CPU affinity mask"
}

// CPUs is the package's CPUs, so that a Host is a tune.Host.
func (Host) CPUs() (n int, source string) { return CPUs() }

var _ tune.Host = Host{}

// Storage returns the kind of disk that holds dir: hdd when the kernel
// reports it rotational, nvme for a non-rotational NVMe device, ssd for any
// other non-rotational one. For a device mapper or md device it looks at the
// devices below it (any rotational one makes it hdd). source names the sysfs
// file or directory it read. It works on Linux only.
func (h Host) Storage(dir string) (kind tune.Storage, source string, err error) {
	disk, err := h.diskHolding(dir)
	if err != nil {
		return "", "", fmt.Errorf("finding the disk of %s: %w", dir, err)
	}
	return h.diskKind(disk, 0)
}

// diskHolding returns the whole disk under the file system holding dir.
func (h Host) diskHolding(dir string) (blockdev.Disk, error) {
	sys := h.system()
	loc, err := sys.Lookup(dir)
	if err != nil {
		return blockdev.Disk{}, err
	}
	// btrfs, overlay, tmpfs, NFS...: no block device in st_dev; the mount's
	// source may still be one.
	dev, err := loc.BlockDevice()
	if err != nil {
		return blockdev.Disk{}, err
	}
	return sys.WholeDisk(dev)
}

// diskKind classifies disk, looking through device mapper and md devices to
// the disks below them (any rotational one makes it hdd, all NVMe makes it
// nvme). source names the sysfs file or directory it read.
func (h Host) diskKind(disk blockdev.Disk, depth int) (kind tune.Storage, source string, err error) {
	var slaves []blockdev.Slave
	if depth < 8 {
		if slaves, err = disk.Slaves(); err != nil {
			return "", "", err
		}
	}
	if len(slaves) > 0 {
		kinds := map[tune.Storage]bool{}
		var names []string
		for _, s := range slaves {
			k, _, err := h.diskKind(s.Disk, depth+1)
			if err != nil {
				return "", "", err
			}
			kinds[k] = true
			names = append(names, s.Name)
		}
		source := filepath.Join(h.system().SysRoot(), "block", disk.Name, "slaves") + " (" + strings.Join(names, ", ") + ")"
		switch {
		case kinds[tune.StorageHDD]:
			return tune.StorageHDD, source, nil
		case len(kinds) == 1 && kinds[tune.StorageNVMe]:
			return tune.StorageNVMe, source, nil
		}
		return tune.StorageSSD, source, nil
	}
	source = filepath.Join(h.system().SysRoot(), "block", disk.Name, "queue", "rotational")
	rotational, err := disk.Rotational()
	switch {
	case err != nil:
		return "", "", err
	case rotational:
		return tune.StorageHDD, source, nil
	case disk.IsNVMe():
		return tune.StorageNVMe, source, nil
	}
	return tune.StorageSSD, source, nil
}
