package results

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/blockdev"
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
	var sys blockdev.System
	var loc blockdev.Location
	for {
		if loc, err = sys.Lookup(path); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) || path == filepath.Dir(path) {
			return d
		}
		path = filepath.Dir(path)
	}
	if loc.MountErr != nil {
		return d
	}
	d.Device, d.Filesystem = loc.Mount.Source, loc.Mount.FSType
	dev, err := loc.BlockDevice()
	if err != nil {
		return d
	}
	disk, err := sys.WholeDisk(dev)
	if err != nil {
		return d
	}
	if rot, err := disk.Rotational(); err == nil {
		d.Rotational = &rot
	}
	return d
}
