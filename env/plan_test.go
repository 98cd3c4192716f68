package env

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pglab/pglab/internal/blockdev"
)

func writesText(ws []write) []string {
	var out []string
	for _, w := range ws {
		s := string(w.ctrl) + " " + w.file + " = " + w.value
		if len(w.keys) > 0 {
			s += " [" + strings.Join(w.keys, ",") + "]"
		}
		if w.optional {
			s += " (optional)"
		}
		out = append(out, s)
	}
	return out
}

func TestPlanV2(t *testing.T) {
	m := T3Micro.Machine
	got := writesText(planV2(m, "254:0"))
	want := []string{
		"cpu cpu.max = 200000 100000 [cpus]",
		"memory memory.max = 1073741824 [memory]",
		"memory memory.swap.max = 0 (optional)",
		"io io.max = 254:0 rbps=91226112 wbps=91226112 riops=3000 wiops=3000 [read,write,read_iops,write_iops]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("planV2(t3.micro):\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = writesText(planV2(Machine{CPUs: 0.5, ReadIOPS: 100}, "8:0"))
	want = []string{"cpu cpu.max = 50000 100000 [cpus]", "io io.max = 8:0 riops=100 [read_iops]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("planV2(half, 100 IOPS) = %q, want %q", got, want)
	}
	if got := planV2(Machine{ReadBPS: 1}, ""); len(got) != 0 {
		t.Errorf("io.max without a disk: %q", writesText(got))
	}
	if got := writesText(planV2(Machine{CPUs: 0.001}, "")); got[0] != "cpu cpu.max = 1000 100000 [cpus]" {
		t.Errorf("a quota under the kernel's 1 ms: %q", got)
	}
}

func TestPlanV1(t *testing.T) {
	got := writesText(planV1(T3Micro.Machine, "254:0"))
	want := []string{
		"cpu cpu.cfs_period_us = 100000",
		"cpu cpu.cfs_quota_us = 200000 [cpus]",
		"memory memory.limit_in_bytes = 1073741824 [memory]",
		"memory memory.memsw.limit_in_bytes = 1073741824 (optional)",
		"io blkio.throttle.read_bps_device = 254:0 91226112 [read]",
		"io blkio.throttle.write_bps_device = 254:0 91226112 [write]",
		"io blkio.throttle.read_iops_device = 254:0 3000 [read_iops]",
		"io blkio.throttle.write_iops_device = 254:0 3000 [write_iops]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("planV1(t3.micro):\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// fakeV2 lays out a directory like a cgroup v2 root whose children get the
// cpu, memory and io controllers, and a layout pointing at it. The kernel
// creates a cgroup's interface files itself; in the fake tree New creates
// them by writing, which is enough to check what it writes.
func fakeV2(t *testing.T) *Layout {
	t.Helper()
	root := t.TempDir()
	for file, text := range map[string]string{
		"cgroup.controllers":     "cpuset cpu io memory pids",
		"cgroup.subtree_control": "cpu io memory",
		"cgroup.procs":           "",
	} {
		if err := os.WriteFile(filepath.Join(root, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := &Layout{Hierarchies: map[Controller]*Hierarchy{}, Unified: root, Mode: "v2"}
	for _, c := range Controllers {
		l.Hierarchies[c] = &Hierarchy{Controller: c, Version: 2, Mount: root, Own: root, Base: root}
	}
	return l
}

func TestNewV2Files(t *testing.T) {
	l := fakeV2(t)
	dataDir := t.TempDir()
	cg, err := New(T3Micro, Options{Server: "pg17", DataDir: dataDir, Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	dirs := cg.Dirs()
	if len(dirs) != 1 || filepath.Dir(dirs[0]) != l.Unified || !strings.HasPrefix(filepath.Base(dirs[0]), Prefix) {
		t.Fatalf("v2 cgroup directories %q, want one pglab-… under %s", dirs, l.Unified)
	}
	if OwnerPID(cg.Name) != os.Getpid() || !strings.Contains(cg.Name, "-pg17-") {
		t.Errorf("cgroup name %q", cg.Name)
	}
	disk := diskOf(dataDir)
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		return string(b)
	}
	if got := read("cpu.max"); got != "200000 100000" {
		t.Errorf("cpu.max = %q", got)
	}
	if got := read("memory.max"); got != "1073741824" {
		t.Errorf("memory.max = %q", got)
	}
	if got := read("memory.swap.max"); got != "0" {
		t.Errorf("memory.swap.max = %q", got)
	}
	if disk.Dev != "" {
		if got := read("io.max"); got != disk.Dev+" rbps=91226112 wbps=91226112 riops=3000 wiops=3000" {
			t.Errorf("io.max = %q", got)
		}
	}
	byKey := map[string]Enforcement{}
	for _, e := range cg.Enforcement() {
		byKey[e.Key] = e
	}
	if e := byKey["cpus"]; e.Status != Enforced || e.How != "cgroup v2 cpu.max = 200000 100000" {
		t.Errorf("cpus: %s", e)
	}
	if e := byKey["memory"]; e.Status != Enforced || e.How != "cgroup v2 memory.max = 1073741824" {
		t.Errorf("memory: %s", e)
	}
	if disk.Dev != "" {
		e := byKey["read"]
		if e.Status != Enforced || !strings.HasPrefix(e.How, "cgroup v2 io.max = "+disk.Dev+" rbps=") {
			t.Errorf("read: %s", e)
		}
		// v2 throttles buffered writeback with the memory controller on
		// ext4 and the like.
		if w := byKey["write"]; writebackFS[disk.FSType] && w.Status != Enforced {
			t.Errorf("write on %s: %s", disk.FSType, w)
		}
	}
	if len(byKey) != 6 {
		t.Errorf("enforcement of %d keys, want 6: %v", len(byKey), cg.Enforcement())
	}
	// Counters read the v2 files.
	os.WriteFile(filepath.Join(dirs[0], "cpu.stat"), []byte("usage_usec 10\nnr_periods 10\nnr_throttled 4\nthrottled_usec 2500\n"), 0o644)
	os.WriteFile(filepath.Join(dirs[0], "io.stat"), []byte("254:0 rbytes=1048576 wbytes=0 rios=4 wios=0 dbytes=0 dios=0\n"), 0o644)
	os.WriteFile(filepath.Join(dirs[0], "memory.peak"), []byte("123456789\n"), 0o644)
	st, err := cg.StartStep()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dirs[0], "cpu.stat"), []byte("usage_usec 20\nnr_periods 30\nnr_throttled 14\nthrottled_usec 7500\n"), 0o644)
	os.WriteFile(filepath.Join(dirs[0], "io.stat"), []byte("254:0 rbytes=5242880 wbytes=2097152 rios=9 wios=2 dbytes=0 dios=0\n8:0 rbytes=1048576\n"), 0o644)
	os.WriteFile(filepath.Join(dirs[0], "memory.peak"), []byte("268435456\n"), 0o644)
	c, err := st.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if c.Periods != 20 || c.ThrottledPeriods != 10 || c.Throttled.Microseconds() != 5000 || c.ReadBytes != 5<<20 || c.WriteBytes != 2<<20 || c.ReadOps != 5 || c.MemoryPeak != 256<<20 {
		t.Errorf("v2 counters %+v", c)
	}
	if err := cg.Remove(); err != nil {
		// The fake directory holds the files New wrote; a real cgroup's
		// rmdir ignores its interface files.
		if !strings.Contains(err.Error(), "directory not empty") {
			t.Error(err)
		}
	}
}

func TestLayoutOf(t *testing.T) {
	hybrid := `30 23 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
33 30 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
34 30 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 30 0:32 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
`
	own := parseProcCgroup("7:blkio:/\n4:memory:/process_api/abc\n1:cpu:/\n2:cpuacct:/\n0::/\n")
	l := layoutOf(blockdev.ParseMountInfo([]byte(hybrid)), own)
	if l.Unified != "/sys/fs/cgroup/unified" {
		t.Errorf("unified %q", l.Unified)
	}
	for c, want := range map[Controller][2]string{
		CPU:    {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu"},
		Memory: {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/memory/process_api/abc"},
		IO:     {"/sys/fs/cgroup/blkio", "/sys/fs/cgroup/blkio"},
	} {
		h := l.Hierarchies[c]
		if h.Version != 1 || h.Mount != want[0] || h.Own != want[1] {
			t.Errorf("%s: %+v, want v1 at %s, own %s", c, h, want[0], want[1])
		}
	}
	if modeOf(l) != "v1" {
		t.Errorf("mode %s", modeOf(l))
	}

	// A container: cpu and cpuacct co-mounted, the mount showing the
	// container's subtree only.
	container := `40 30 0:33 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct
41 30 0:34 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory
`
	own = parseProcCgroup("3:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc/inner\n")
	l = layoutOf(blockdev.ParseMountInfo([]byte(container)), own)
	if h := l.Hierarchies[CPU]; h.Own != "/sys/fs/cgroup/cpu,cpuacct" {
		t.Errorf("container cpu own %q", h.Own)
	}
	if h := l.Hierarchies[Memory]; h.Own != "/sys/fs/cgroup/memory/inner" {
		t.Errorf("container memory own %q", h.Own)
	}
	if h := l.Hierarchies[IO]; h.Version != 0 {
		t.Errorf("container io %+v", h)
	}

	// Pure v2: Detect's second step (the controllers its root offers)
	// decides; layoutOf finds the mount.
	v2 := "25 20 0:23 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	l = layoutOf(blockdev.ParseMountInfo([]byte(v2)), parseProcCgroup("0::/user.slice/user-1000.slice/session-2.scope\n"))
	if l.Unified != "/sys/fs/cgroup" || l.Hierarchies[CPU].Version != 0 {
		t.Errorf("v2 layout %+v", l)
	}
	if got := dirIn("/sys/fs/cgroup", "/", "/user.slice/x.scope"); got != "/sys/fs/cgroup/user.slice/x.scope" {
		t.Errorf("dirIn = %q", got)
	}
	if got := dirIn("/c", "/docker/abc", "/docker/abcd"); got != "" {
		t.Errorf("dirIn outside the mounted subtree = %q", got)
	}
}

func TestParseBlkioAndIOStat(t *testing.T) {
	var c Counters
	parseIOStat("254:0 rbytes=100 wbytes=20 rios=3 wios=1 dbytes=0 dios=0\n8:16 rbytes=1 wbytes=2 rios=1 wios=1\n", &c)
	if c.ReadBytes != 101 || c.WriteBytes != 22 || c.ReadOps != 4 || c.WriteOps != 2 {
		t.Errorf("io.stat: %+v", c)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "blkio.throttle.io_service_bytes"), []byte("254:0 Read 4096\n254:0 Write 8192\n254:0 Sync 0\n254:0 Async 12288\n254:0 Discard 0\n254:0 Total 12288\nTotal 12288\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "blkio.throttle.io_serviced"), []byte("254:0 Read 1\n254:0 Write 2\nTotal 3\n"), 0o644)
	c = Counters{}
	if err := readBlkioV1(dir, &c); err != nil {
		t.Fatal(err)
	}
	if c.ReadBytes != 4096 || c.WriteBytes != 8192 || c.ReadOps != 1 || c.WriteOps != 2 {
		t.Errorf("blkio: %+v", c)
	}
}
