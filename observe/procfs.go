package observe

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/blockdev"
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

// diskLayout is where the sampler looks: the roots of /proc and /sys for
// finding disks, and the diskstats file (tests point them at fixtures).
type diskLayout struct {
	fs        blockdev.System
	diskstats string // "/proc/diskstats"
}

var hostLayout = diskLayout{diskstats: "/proc/diskstats"}

// findDisks returns the block devices whose /proc/diskstats lines measure
// I/O to dir, and a note saying how they were chosen: the device holding
// dir; for a file system without a device of its own (overlay, btrfs
// subvolume…) the device of the mount's source or overlay upper
// directory; failing that, every physical disk.
func (l diskLayout) findDisks(dir string) ([]string, string, error) {
	loc, err := l.fs.Lookup(dir)
	if err != nil {
		return nil, "", fmt.Errorf("find the disk of %s: %w", dir, err)
	}
	if name, ok := l.deviceName(loc.Dev); ok {
		return []string{name}, fmt.Sprintf("%s holds %s", name, dir), nil
	}
	mounted := loc.MountErr == nil
	if mounted {
		for _, cand := range loc.Mount.Backing() {
			dev, err := blockdev.DevOf(cand)
			if err != nil {
				continue
			}
			if name, ok := l.deviceName(dev); ok {
				return []string{name}, fmt.Sprintf("%s has no device statistics (%s); using %s, which holds %s", dir, loc.Mount.FSType, name, cand), nil
			}
		}
	}
	disks := l.physicalDisks()
	if len(disks) == 0 {
		return nil, "", fmt.Errorf("find the disk of %s: no block device with statistics", dir)
	}
	what := "a file system without a device"
	if mounted {
		what = loc.Mount.FSType
	}
	return disks, fmt.Sprintf("%s is on %s; using all physical disks (%s)", dir, what, strings.Join(disks, ", ")), nil
}

// deviceName returns the kernel name of a block device with statistics.
func (l diskLayout) deviceName(dev blockdev.Dev) (string, bool) {
	name, err := l.fs.Name(dev)
	if err != nil {
		return "", false
	}
	if _, err := readDisks(l.diskstats, []string{name}); err != nil {
		return "", false
	}
	return name, true
}

// physicalDisks lists the disks backed by hardware (see
// [blockdev.System.PhysicalDisks]); none when /sys/block cannot be read.
func (l diskLayout) physicalDisks() []string {
	disks, _ := l.fs.PhysicalDisks()
	return disks
}
