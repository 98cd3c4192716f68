package results

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// collectPlatform fills what Linux tells in /proc, /sys and uname(2).
func collectPlatform(h *Host, dir string) {
	if name := osRelease("/etc/os-release"); name != "" {
		h.OS = name
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	h.CPUModel = cpuModel("/proc/cpuinfo")
	h.MemoryBytes = memTotal("/proc/meminfo")
	if dir != "" {
		h.Disk = diskOf(dir)
	}
}

// osRelease returns PRETTY_NAME from an os-release file.
func osRelease(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// cpuModel returns the first processor's model name from /proc/cpuinfo
// ("model name" on x86, "Model" or "Hardware" on some ARM kernels, "cpu" on
// POWER).
func cpuModel(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	found := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, dup := found[k]; !dup && v != "" {
			found[k] = v
		}
	}
	for _, k := range []string{"model name", "Model", "Hardware", "cpu"} {
		if v := found[k]; v != "" {
			return v
		}
	}
	return ""
}

// memTotal returns MemTotal from /proc/meminfo in bytes.
func memTotal(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return 0
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0
			}
			if len(f) > 1 && strings.EqualFold(f[1], "kB") {
				n *= 1024
			}
			return n
		}
	}
	return 0
}

// diskOf finds the mount that holds dir (or its nearest existing parent),
// its file system and device, and whether that device is rotational.
func diskOf(dir string) Disk {
	d := Disk{Path: dir}
	path, err := filepath.Abs(dir)
	if err != nil {
		return d
	}
	for {
		if p, err := filepath.EvalSymlinks(path); err == nil {
			path = p
			break
		} else if !errors.Is(err, os.ErrNotExist) || path == filepath.Dir(path) {
			return d
		}
		path = filepath.Dir(path)
	}
	m, ok := findMount("/proc/self/mountinfo", path)
	if !ok {
		return d
	}
	d.Device, d.Filesystem = m.source, m.fstype
	// The block device: the mount's source when it is a device node (this
	// also sees through btrfs's anonymous device numbers), else the
	// directory's own st_dev when it is a real block device.
	var major, minor uint32
	var st unix.Stat_t
	if strings.HasPrefix(m.source, "/dev/") && unix.Stat(m.source, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
		major, minor = unix.Major(st.Rdev), unix.Minor(st.Rdev)
	} else if unix.Stat(path, &st) == nil && unix.Major(st.Dev) != 0 {
		major, minor = unix.Major(st.Dev), unix.Minor(st.Dev)
	} else {
		return d
	}
	d.Rotational = rotational(major, minor)
	return d
}

type mount struct{ point, fstype, source string }

// findMount returns the mount in a mountinfo file whose mount point is the
// longest prefix of path; among equal ones, the last (it is on top).
func findMount(mountinfo, path string) (mount, bool) {
	data, err := os.ReadFile(mountinfo)
	if err != nil {
		return mount{}, false
	}
	var best mount
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		f := strings.Fields(sc.Text())
		sep := -1
		for i, x := range f {
			if x == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || sep+2 >= len(f) {
			continue
		}
		point := unescapeMount(f[4])
		if !underMount(path, point) {
			continue
		}
		if !found || len(point) >= len(best.point) {
			best = mount{point: point, fstype: f[sep+1], source: unescapeMount(f[sep+2])}
			found = true
		}
	}
	return best, found
}

// underMount reports whether path is point or inside it.
func underMount(path, point string) bool {
	if point == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == point || strings.HasPrefix(path, point+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
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

// rotational reads queue/rotational of a block device, or of its parent
// disk for a partition.
func rotational(major, minor uint32) *bool {
	dev := filepath.Join("/sys/dev/block", strconv.FormatUint(uint64(major), 10)+":"+strconv.FormatUint(uint64(minor), 10))
	real, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return nil
	}
	for _, p := range []string{filepath.Join(real, "queue", "rotational"), filepath.Join(filepath.Dir(real), "queue", "rotational")} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(string(data)) {
		case "1":
			b := true
			return &b
		case "0":
			b := false
			return &b
		}
	}
	return nil
}
