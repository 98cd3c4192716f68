package observe

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// cpuTimes are the machine's CPU times from /proc/stat's "cpu" line, in
// clock ticks, summed over all CPUs.
type cpuTimes struct {
	user, system, idle, iowait, steal, total float64
}

// readCPU reads /proc/stat (path given for tests).
func readCPU(path string) (cpuTimes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return cpuTimes{}, err
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return parseCPULine(string(line))
}

// parseCPULine parses "cpu  user nice system idle iowait irq softirq
// steal guest guest_nice". guest and guest_nice are already counted in
// user and nice, so they are not added to the total.
func parseCPULine(line string) (cpuTimes, error) {
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	v := make([]float64, 8)
	for i := 0; i < 8 && i+1 < len(f); i++ {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("/proc/stat: %q: %w", line, err)
		}
		v[i] = x
	}
	user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return cpuTimes{
		user:   user + nice,
		system: system + irq + softirq,
		idle:   idle,
		iowait: iowait,
		steal:  steal,
		total:  user + nice + system + idle + iowait + irq + softirq + steal,
	}, nil
}

// diskCounters are cumulative counters of one or more block devices from
// /proc/diskstats.
type diskCounters struct {
	reads, readSectors, writes, writeSectors, ioMillis float64
}

func (a diskCounters) add(b diskCounters) diskCounters {
	return diskCounters{a.reads + b.reads, a.readSectors + b.readSectors, a.writes + b.writes, a.writeSectors + b.writeSectors, a.ioMillis + b.ioMillis}
}

// readDisks reads /proc/diskstats (path given for tests) and sums the
// named devices. A device missing from the file is an error.
func readDisks(path string, names []string) (diskCounters, error) {
	f, err := os.Open(path)
	if err != nil {
		return diskCounters{}, err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var sum diskCounters
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		// major minor name reads merged sectors ms writes merged sectors ms inflight io_ms …
		if len(fs) < 13 || !want[fs[2]] {
			continue
		}
		var v [13]float64
		for _, i := range []int{3, 5, 7, 9, 12} {
			if v[i], err = strconv.ParseFloat(fs[i], 64); err != nil {
				return diskCounters{}, fmt.Errorf("%s: %s: %w", path, fs[2], err)
			}
		}
		sum = sum.add(diskCounters{reads: v[3], readSectors: v[5], writes: v[7], writeSectors: v[9], ioMillis: v[12]})
		found++
	}
	if err := sc.Err(); err != nil {
		return diskCounters{}, fmt.Errorf("%s: %w", path, err)
	}
	if found != len(want) {
		return diskCounters{}, fmt.Errorf("%s: %d of the devices %s found", path, found, strings.Join(names, ", "))
	}
	return sum, nil
}

// diskLayout is where the sampler looks: paths of /proc and /sys (tests
// point them at fixtures).
type diskLayout struct {
	sys       string // "/sys"
	diskstats string // "/proc/diskstats"
	mountinfo string // "/proc/self/mountinfo"
}

var hostLayout = diskLayout{sys: "/sys", diskstats: "/proc/diskstats", mountinfo: "/proc/self/mountinfo"}

// findDisks returns the block devices whose /proc/diskstats lines measure
// I/O to dir, and a note saying how they were chosen: the device holding
// dir; for a file system without a device of its own (overlay, btrfs
// subvolume…) the device of the mount's source or overlay upper
// directory; failing that, every physical disk.
func (l diskLayout) findDisks(dir string) ([]string, string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return nil, "", fmt.Errorf("find the disk of %s: %w", dir, err)
	}
	if name, ok := l.deviceName(st.Dev); ok {
		return []string{name}, fmt.Sprintf("%s holds %s", name, dir), nil
	}
	mnt, ok := l.mountOf(dir, st.Dev)
	if ok {
		for _, cand := range mnt.underlying() {
			var cst unix.Stat_t
			if unix.Stat(cand, &cst) != nil {
				continue
			}
			dev := cst.Dev
			if cst.Mode&unix.S_IFMT == unix.S_IFBLK {
				dev = cst.Rdev
			}
			if name, ok := l.deviceName(dev); ok {
				return []string{name}, fmt.Sprintf("%s has no device statistics (%s); using %s, which holds %s", dir, mnt.fstype, name, cand), nil
			}
		}
	}
	disks := l.physicalDisks()
	if len(disks) == 0 {
		return nil, "", fmt.Errorf("find the disk of %s: no block device with statistics", dir)
	}
	what := "a file system without a device"
	if ok {
		what = mnt.fstype
	}
	return disks, fmt.Sprintf("%s is on %s; using all physical disks (%s)", dir, what, strings.Join(disks, ", ")), nil
}

// deviceName returns the kernel name of a block device with statistics.
func (l diskLayout) deviceName(dev uint64) (string, bool) {
	maj, min := unix.Major(dev), unix.Minor(dev)
	if maj == 0 {
		return "", false // anonymous device: overlay, tmpfs, btrfs subvolume, NFS…
	}
	base := filepath.Join(l.sys, "dev", "block", fmt.Sprintf("%d:%d", maj, min))
	data, err := os.ReadFile(filepath.Join(base, "uevent"))
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "DEVNAME="); ok && name != "" {
			if _, err := readDisks(l.diskstats, []string{name}); err != nil {
				return "", false
			}
			return name, true
		}
	}
	return "", false
}

// physicalDisks lists /sys/block entries backed by hardware (a "device"
// link): not loop, ram, zram, device-mapper or md devices.
func (l diskLayout) physicalDisks() []string {
	entries, err := os.ReadDir(filepath.Join(l.sys, "block"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(l.sys, "block", e.Name(), "device")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// mount is one line of /proc/self/mountinfo.
type mount struct {
	point, fstype, source, options string
}

// underlying returns paths whose device may carry a mount's I/O: an
// overlay's upper directory, or the mount's source device.
func (m mount) underlying() []string {
	var out []string
	for _, opt := range strings.Split(m.options, ",") {
		if dir, ok := strings.CutPrefix(opt, "upperdir="); ok {
			out = append(out, dir)
		}
	}
	if strings.HasPrefix(m.source, "/dev/") {
		out = append(out, m.source)
	}
	return out
}

// mountOf returns the mount holding dir (the longest mount point that is
// a prefix of it, preferring one with dir's device number).
func (l diskLayout) mountOf(dir string, dev uint64) (mount, bool) {
	data, err := os.ReadFile(l.mountinfo)
	if err != nil {
		return mount{}, false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return mount{}, false
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	devText := fmt.Sprintf("%d:%d", unix.Major(dev), unix.Minor(dev))
	var best mount
	bestLen, bestDev := -1, false
	for _, line := range strings.Split(string(data), "\n") {
		// id parent maj:min root point options [optional…] - fstype source superopts
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 2 {
			continue
		}
		point := unescapeMount(a[4])
		if !within(abs, point) {
			continue
		}
		m := mount{point: point, fstype: b[0], source: b[1]}
		if len(b) > 2 {
			m.options = b[2]
		}
		sameDev := a[2] == devText
		if len(point) > bestLen || len(point) == bestLen && sameDev && !bestDev {
			best, bestLen, bestDev = m, len(point), sameDev
		}
	}
	return best, bestLen >= 0
}

// within tells whether path is dir or below it.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
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
