// Package detect measures the tuning inputs of this machine that a user did
// not give: total memory (/proc/meminfo), CPUs (the CPU affinity mask) and
// the kind of disk holding a directory (/sys/block/<dev>/queue/rotational).
// It works on Linux; elsewhere memory and storage report an error.
package detect

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/pglab/pglab/tune"
)

// Host names the roots of the proc and sys file systems to read; tests point
// them at a fake tree. The zero Host reads "/proc" and "/sys".
type Host struct {
	Proc string // default "/proc"
	Sys  string // default "/sys"
}

func (h Host) proc() string {
	if h.Proc == "" {
		return "/proc"
	}
	return h.Proc
}

func (h Host) sys() string {
	if h.Sys == "" {
		return "/sys"
	}
	return h.Sys
}

// MemoryKB returns MemTotal from /proc/meminfo in kilobytes, and the file it read.
func (h Host) MemoryKB() (kb int64, source string, err error) {
	path := filepath.Join(h.proc(), "meminfo")
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

// diskOf returns the sysfs directory of the whole disk holding block device
// major:minor.
func (h Host) diskOf(major, minor uint32) (string, error) {
	return wholeDisk(filepath.Join(h.sys(), "dev", "block", fmt.Sprintf("%d:%d", major, minor)))
}

// wholeDisk resolves a sysfs link to a block device (dev/block/M:m or a
// slaves/<name> entry) to the directory of its whole disk: the parent of a
// partition, the device itself otherwise.
func wholeDisk(link string) (string, error) {
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", link, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		dir = filepath.Dir(dir)
	}
	return dir, nil
}

// diskKind classifies the disk whose sysfs directory is dir, looking through
// device mapper and md devices to the disks below them.
func (h Host) diskKind(dir string, depth int) (tune.Storage, string, error) {
	name := filepath.Base(dir)
	slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
	if len(slaves) > 0 && depth < 8 {
		kinds := map[tune.Storage]bool{}
		var names []string
		for _, s := range slaves {
			d, err := wholeDisk(filepath.Join(dir, "slaves", s.Name()))
			if err != nil {
				return "", "", err
			}
			k, _, err := h.diskKind(d, depth+1)
			if err != nil {
				return "", "", err
			}
			kinds[k] = true
			names = append(names, s.Name())
		}
		source := filepath.Join(h.sys(), "block", name, "slaves") + " (" + strings.Join(names, ", ") + ")"
		switch {
		case kinds[tune.StorageHDD]:
			return tune.StorageHDD, source, nil
		case len(kinds) == 1 && kinds[tune.StorageNVMe]:
			return tune.StorageNVMe, source, nil
		}
		return tune.StorageSSD, source, nil
	}
	source := filepath.Join(h.sys(), "block", name, "queue", "rotational")
	b, err := os.ReadFile(filepath.Join(dir, "queue", "rotational"))
	if err != nil {
		return "", "", fmt.Errorf("reading whether %s is rotational: %w", name, err)
	}
	switch strings.TrimSpace(string(b)) {
	case "1":
		return tune.StorageHDD, source, nil
	case "0":
		if strings.HasPrefix(name, "nvme") {
			return tune.StorageNVMe, source, nil
		}
		return tune.StorageSSD, source, nil
	}
	return "", "", errors.New("unexpected content in " + source + ": " + strings.TrimSpace(string(b)))
}
