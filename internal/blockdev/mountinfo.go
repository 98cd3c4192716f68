package blockdev

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mount is one line of /proc/self/mountinfo (see proc_pid_mountinfo(5)).
// Paths are unescaped (mountinfo writes a space as \040); the option lists
// are as the kernel wrote them.
type Mount struct {
	Dev          Dev    // device number of the file system (st_dev of its files)
	Root         string // the directory of the file system mounted here
	Point        string // mount point
	Options      string // per-mount options: "rw,relatime"
	FSType       string // file system type: "ext4", "overlay", "tmpfs"
	Source       string // mount source: "/dev/nvme0n1p2", "overlay", "tmpfs"
	SuperOptions string // per-file-system options: "rw,lowerdir=…,upperdir=…"
}

// ParseMountInfo parses the text of a mountinfo file. Lines it cannot read
// are skipped.
func ParseMountInfo(data []byte) []Mount {
	var out []Mount
	for _, line := range strings.Split(string(data), "\n") {
		// id parent MAJ:MIN root point options [optional…] - fstype source superoptions
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+2 >= len(f) {
			continue
		}
		dev, ok := parseDev(f[2])
		if !ok {
			continue
		}
		m := Mount{
			Dev:     dev,
			Root:    unescape(f[3]),
			Point:   unescape(f[4]),
			Options: f[5],
			FSType:  f[sep+1],
			Source:  unescape(f[sep+2]),
		}
		if sep+3 < len(f) {
			m.SuperOptions = f[sep+3]
		}
		out = append(out, m)
	}
	return out
}

// Mounts reads and parses PROC/self/mountinfo.
func (s System) Mounts() ([]Mount, error) {
	path := filepath.Join(s.ProcRoot(), "self", "mountinfo")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	return ParseMountInfo(data), nil
}

// MountOf returns the mount that holds path, an absolute path with symlinks
// resolved: the one with the longest mount point that is path or a parent
// of it. Among mounts on the same point, it prefers one whose device is dev
// (path's st_dev; the zero Dev when unknown), and otherwise the last, which
// is on top.
func MountOf(mounts []Mount, path string, dev Dev) (Mount, bool) {
	best, found, bestDev := Mount{}, false, false
	for _, m := range mounts {
		if !within(path, m.Point) {
			continue
		}
		sameDev := dev != (Dev{}) && m.Dev == dev
		if !found || len(m.Point) > len(best.Point) || len(m.Point) == len(best.Point) && (sameDev || !bestDev) {
			best, found, bestDev = m, true, sameDev
		}
	}
	return best, found
}

// within tells whether path is dir or below it.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// Backing returns the paths whose device may carry the mount's I/O, in
// order: an overlay's upper directory, then the mount's source when it is a
// path under /dev/.
func (m Mount) Backing() []string {
	var out []string
	for _, opt := range strings.Split(m.SuperOptions, ",") {
		if dir, ok := strings.CutPrefix(opt, "upperdir="); ok {
			out = append(out, unescape(dir))
		}
	}
	if strings.HasPrefix(m.Source, "/dev/") {
		out = append(out, m.Source)
	}
	return out
}

// unescape undoes mountinfo's octal escapes (\040 for a space, \134 for a
// backslash); anything else is kept as it is.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
