//go:build unix

package detect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pglab/pglab/tune"
	"golang.org/x/sys/unix"
)

// Storage returns the kind of disk that holds dir: hdd when the kernel
// reports it rotational, nvme for a non-rotational NVMe device, ssd for any
// other non-rotational one. For a device mapper or md device it looks at the
// devices below it (any rotational one makes it hdd). source names the sysfs
// file or directory it read.
func (h Host) Storage(dir string) (kind tune.Storage, source string, err error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", "", fmt.Errorf("finding the disk of %s: %w", dir, err)
	}
	major, minor := unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))
	if major == 0 {
		// btrfs, overlay, tmpfs, NFS...: no block device in st_dev; the
		// mount's source may still be one.
		major, minor, err = h.mountDevice(major, minor)
		if err != nil {
			return "", "", fmt.Errorf("finding the disk of %s: %w", dir, err)
		}
	}
	disk, err := h.diskOf(major, minor)
	if err != nil {
		return "", "", fmt.Errorf("finding the disk of %s: %w", dir, err)
	}
	return h.diskKind(disk, 0)
}

// mountDevice finds the mount whose device number is major:minor in
// /proc/self/mountinfo and returns the device number of its source when that
// is a block device.
func (h Host) mountDevice(major, minor uint32) (uint32, uint32, error) {
	path := filepath.Join(h.proc(), "self", "mountinfo")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("no block device behind device %d:%d: %w", major, minor, err)
	}
	want := fmt.Sprintf("%d:%d", major, minor)
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[2] != want {
			continue
		}
		// After the optional fields comes "-", the file system type and the source.
		for i, f := range fields {
			if f == "-" && i+2 < len(fields) {
				src := fields[i+2]
				var st unix.Stat_t
				if !strings.HasPrefix(src, "/dev/") || unix.Stat(src, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
					return 0, 0, fmt.Errorf("it is on %s (%s), not on a block device", src, fields[i+1])
				}
				return unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev)), nil
			}
		}
	}
	return 0, 0, fmt.Errorf("device %d:%d is not in %s", major, minor, path)
}
