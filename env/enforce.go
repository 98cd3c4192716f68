package env

import (
	"fmt"
	"runtime"
	"strings"
)

// Status says whether a limit holds.
type Status string

// The statuses of a limit.
const (
	// Enforced: the kernel holds the server to the limit.
	Enforced Status = "enforced"
	// Partial: the limit is written but the kernel applies it to some of
	// the server's work only (Why says which).
	Partial Status = "partly enforced"
	// NotEnforced: the limit does not hold; Why says why.
	NotEnforced Status = "not enforced"
)

// Enforcement is what became of one limit of a profile on one server.
type Enforcement struct {
	// Key and Value are the limit as the profile sets it
	// ("memory", "256MiB").
	Key, Value string
	Status     Status
	// How names what holds the limit: "cgroup v1 memory.limit_in_bytes
	// = 268435456".
	How string
	// Mechanism is How without the values: "cgroup v1
	// memory.limit_in_bytes".
	Mechanism string
	// Why says why a limit is not (fully) enforced.
	Why string
	// Note is a remark on an enforced limit ("the host has 2 CPUs: this
	// limit takes nothing away").
	Note string
}

// String is the enforcement in one line: "memory=256MiB: enforced (cgroup
// v1 memory.limit_in_bytes = 268435456)" or "write=87MB/s: partly enforced
// (…): why".
func (e Enforcement) String() string {
	s := fmt.Sprintf("%s=%s: %s", e.Key, e.Value, e.Status)
	if e.How != "" {
		s += " (" + e.How + ")"
	}
	if e.Why != "" {
		s += ": " + e.Why
	}
	if e.Note != "" {
		s += "; " + e.Note
	}
	return s
}

// write is one cgroup file pglab writes, and the limits it enforces.
type write struct {
	ctrl  Controller
	file  string
	value string
	// keys are the SPEC keys the write enforces; none for a write that
	// only sets something up (a CFS period).
	keys []string
	// optional writes go to files a kernel may not have (swap
	// accounting): a missing file is no error.
	optional bool
}

// cfsPeriodUs is the CFS bandwidth period pglab uses, as Docker and
// systemd do: 100 ms.
const cfsPeriodUs = 100000

func cpuQuotaUs(cpus float64) int64 {
	q := int64(cpus*cfsPeriodUs + 0.5)
	return max(q, 1000) // the kernel's minimum quota is 1 ms
}

// planV1 returns the cgroup v1 writes that set a machine's limits; dev is
// the whole disk's "MAJ:MIN" for the blkio throttles ("" when unknown: no
// disk limit is written).
func planV1(m Machine, dev string) []write {
	var w []write
	if m.CPUs > 0 {
		w = append(w,
			write{ctrl: CPU, file: "cpu.cfs_period_us", value: fmt.Sprint(cfsPeriodUs)},
			write{ctrl: CPU, file: "cpu.cfs_quota_us", value: fmt.Sprint(cpuQuotaUs(m.CPUs)), keys: []string{KeyCPUs}})
	}
	if m.Memory > 0 {
		w = append(w,
			write{ctrl: Memory, file: "memory.limit_in_bytes", value: fmt.Sprint(m.Memory), keys: []string{KeyMemory}},
			// memory+swap at the same limit: no swapping past it.
			write{ctrl: Memory, file: "memory.memsw.limit_in_bytes", value: fmt.Sprint(m.Memory), optional: true})
	}
	if dev != "" {
		for _, t := range []struct {
			n    int64
			file string
			key  string
		}{
			{m.ReadBPS, "blkio.throttle.read_bps_device", KeyRead},
			{m.WriteBPS, "blkio.throttle.write_bps_device", KeyWrite},
			{m.ReadIOPS, "blkio.throttle.read_iops_device", KeyReadIOPS},
			{m.WriteIOPS, "blkio.throttle.write_iops_device", KeyWriteIOPS},
		} {
			if t.n > 0 {
				w = append(w, write{ctrl: IO, file: t.file, value: fmt.Sprintf("%s %d", dev, t.n), keys: []string{t.key}})
			}
		}
	}
	return w
}

// planV2 returns the cgroup v2 writes that set a machine's limits; dev is
// the whole disk's "MAJ:MIN" for io.max ("" when unknown).
func planV2(m Machine, dev string) []write {
	var w []write
	if m.CPUs > 0 {
		w = append(w, write{ctrl: CPU, file: "cpu.max", value: fmt.Sprintf("%d %d", cpuQuotaUs(m.CPUs), cfsPeriodUs), keys: []string{KeyCPUs}})
	}
	if m.Memory > 0 {
		w = append(w,
			write{ctrl: Memory, file: "memory.max", value: fmt.Sprint(m.Memory), keys: []string{KeyMemory}},
			write{ctrl: Memory, file: "memory.swap.max", value: "0", optional: true})
	}
	if dev != "" {
		parts := []string{dev}
		var keys []string
		for _, t := range []struct {
			n         int64
			name, key string
		}{
			{m.ReadBPS, "rbps", KeyRead},
			{m.WriteBPS, "wbps", KeyWrite},
			{m.ReadIOPS, "riops", KeyReadIOPS},
			{m.WriteIOPS, "wiops", KeyWriteIOPS},
		} {
			if t.n > 0 {
				parts = append(parts, fmt.Sprintf("%s=%d", t.name, t.n))
				keys = append(keys, t.key)
			}
		}
		if len(keys) > 0 {
			// One line, every key at once, as systemd writes io.max.
			w = append(w, write{ctrl: IO, file: "io.max", value: strings.Join(parts, " "), keys: keys})
		}
	}
	return w
}

// writebackFS are the file systems whose buffered writeback cgroup v2
// charges to the cgroup that dirtied the pages (cgroup-v2.rst, "Writeback").
var writebackFS = map[string]bool{"ext2": true, "ext4": true, "btrfs": true, "f2fs": true, "xfs": true}

// caveats qualifies an enforced limit: what the kernel's mechanism leaves
// out (Partial) or what to know about it (a note).
func caveats(e *Enforcement, version int, memoryV2 bool, fsType string, m Machine) {
	switch e.Key {
	case KeyWrite, KeyWriteIOPS:
		switch {
		case version == 1:
			e.Status = Partial
			e.Why = "cgroup v1 cannot throttle buffered writeback: the limit holds for writes the server syncs or issues itself (WAL and checkpoint fsyncs), not for the kernel's background writeback of dirty pages"
		case !memoryV2:
			e.Status = Partial
			e.Why = "cgroup v2 throttles buffered writeback only with the memory controller in the same cgroup, which is not available here"
		case !writebackFS[fsType]:
			e.Status = Partial
			e.Why = fmt.Sprintf("cgroup v2 charges buffered writeback to the server only on ext2, ext4, btrfs, f2fs and xfs; the data directory is on %s", orUnknown(fsType))
		}
	case KeyCPUs:
		if n := runtime.NumCPU(); m.CPUs >= float64(n) {
			e.Note = fmt.Sprintf("this host has %d CPUs: the quota takes nothing away", n)
		}
	}
	if e.Key == KeyReadIOPS || e.Key == KeyWriteIOPS {
		if e.Note == "" {
			e.Note = "counted per block-layer request (EBS counts an I/O of up to 256 KiB as one)"
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown file system"
	}
	return s
}

// fields reports whether every whitespace-separated field of want is a
// field of got: how a write is checked against what the file reads back
// ("254:0 rbps=… wbps=max …" holds "254:0 rbps=…").
func fields(got, want string) bool {
	have := map[string]bool{}
	for _, f := range strings.Fields(got) {
		have[f] = true
	}
	for _, f := range strings.Fields(want) {
		if !have[f] {
			return false
		}
	}
	return true
}
