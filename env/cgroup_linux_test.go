//go:build linux

package env

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// These tests use the kernel's real cgroups (v1 or v2, whichever this
// machine has). They need write access to the cgroup hierarchies: root, as
// CI runs them, or a delegated cgroup.

const cgroupHint = "run the tests as root (CI does), so that pglab may create cgroups, or in a cgroup delegated to you (systemd-run --user --scope -p Delegate=yes go test ./env)"

// usableLayout returns this machine's layout, failing the test when pglab
// cannot create cgroups of every controller.
func usableLayout(t *testing.T) *Layout {
	t.Helper()
	l := Detect()
	for _, c := range Controllers {
		if h := l.Hierarchies[c]; !h.Usable() {
			t.Fatalf("cannot create %s cgroups here: %s; %s", c, h.Why, cgroupHint)
		}
	}
	return l
}

// newCgroup makes a cgroup removed at the end of the test, and checks
// that it is gone then.
func newCgroup(t *testing.T, p Profile) *Cgroup {
	t.Helper()
	cg, err := New(p, Options{Server: "test", DataDir: pgserver.TempRoot(), Layout: usableLayout(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cg.Remove(); err != nil {
			t.Errorf("remove cgroup: %v", err)
		}
		for _, d := range cg.Dirs() {
			if _, err := os.Stat(d); err == nil {
				t.Errorf("cgroup %s left behind", d)
			}
		}
	})
	return cg
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestLimitsInRealCgroups(t *testing.T) {
	p := Profile{Name: "test", Machine: Machine{CPUs: 0.5, Memory: 256 << 20, ReadBPS: 87 << 20, WriteBPS: 10 << 20, ReadIOPS: 3000, WriteIOPS: 500}}
	cg := newCgroup(t, p)
	if len(cg.Dirs()) == 0 {
		t.Fatal("no cgroup directory")
	}
	disk := cg.disk
	if disk.Dev == "" {
		t.Fatalf("no disk under %s: %v", pgserver.TempRoot(), disk.Err)
	}
	for _, e := range cg.Enforcement() {
		if e.Status == NotEnforced {
			t.Errorf("%s", e)
		}
		t.Logf("%s", e)
	}
	v := cg.layout.Hierarchies[Memory].Version
	if v == 1 {
		if got := readFile(t, filepath.Join(cg.Dir(Memory), "memory.limit_in_bytes")); got != "268435456" {
			t.Errorf("memory.limit_in_bytes = %s", got)
		}
	} else if got := readFile(t, filepath.Join(cg.Dir(Memory), "memory.max")); got != "268435456" {
		t.Errorf("memory.max = %s", got)
	}
	if cg.layout.Hierarchies[CPU].Version == 1 {
		q := readFile(t, filepath.Join(cg.Dir(CPU), "cpu.cfs_quota_us"))
		per := readFile(t, filepath.Join(cg.Dir(CPU), "cpu.cfs_period_us"))
		if q != "50000" || per != "100000" {
			t.Errorf("cfs quota/period = %s/%s", q, per)
		}
	} else if got := readFile(t, filepath.Join(cg.Dir(CPU), "cpu.max")); got != "50000 100000" {
		t.Errorf("cpu.max = %s", got)
	}
	if cg.layout.Hierarchies[IO].Version == 1 {
		for file, want := range map[string]string{
			"blkio.throttle.read_bps_device":   disk.Dev + " 91226112",
			"blkio.throttle.write_bps_device":  disk.Dev + " 10485760",
			"blkio.throttle.read_iops_device":  disk.Dev + " 3000",
			"blkio.throttle.write_iops_device": disk.Dev + " 500",
		} {
			if got := readFile(t, filepath.Join(cg.Dir(IO), file)); got != want {
				t.Errorf("%s = %q, want %q", file, got, want)
			}
		}
		for _, e := range cg.Enforcement() {
			if (e.Key == KeyWrite || e.Key == KeyWriteIOPS) && (e.Status != Partial || !strings.Contains(e.Why, "cannot throttle buffered writeback")) {
				t.Errorf("v1 write limit: %s", e)
			}
		}
	} else if got := readFile(t, filepath.Join(cg.Dir(IO), "io.max")); !fields(got, disk.Dev+" rbps=91226112 wbps=10485760 riops=3000 wiops=500") {
		t.Errorf("io.max = %q", got)
	}
}

// startIn runs a command placed in the cgroup, as pgserver starts the
// postmaster: from a locked thread, with PrepareFork around the fork.
func startIn(t *testing.T, cg *Cgroup, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		undo, err := cg.PrepareFork(cmd.SysProcAttr)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		err = cmd.Start()
		if uerr := undo(); uerr != nil {
			errc <- fmt.Errorf("undo: %w", uerr)
			return // the thread ends with the goroutine
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return cmd
}

// inCgroup reports whether a process is in the cgroup in every hierarchy
// the cgroup has a directory in.
func inCgroup(pid int, cg *Cgroup) error {
	own, err := readProcCgroup(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return err
	}
	for _, c := range Controllers {
		if cg.Dir(c) == "" {
			continue
		}
		key := c.v1Name()
		if cg.layout.Hierarchies[c].Version == 2 {
			key = "0:"
		}
		if filepath.Base(own[key]) != cg.Name {
			return fmt.Errorf("process %d is in %s cgroup %q, not %s", pid, c, own[key], cg.Name)
		}
	}
	return nil
}

func TestThrottlesReadsAndCPU(t *testing.T) {
	// A 4 MB/s read limit makes reading 8 MiB with O_DIRECT take 2 s; a
	// 0.2 CPU quota throttles a busy loop. Both only bound from below,
	// which a loaded machine cannot break.
	cg := newCgroup(t, Profile{Name: "slow", Machine: Machine{CPUs: 0.2, ReadBPS: 4 << 20}})
	file := filepath.Join(pgtest.TempDir(t), "data")
	if err := os.WriteFile(file, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := cg.StartStep()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	dd := startIn(t, cg, "dd", "if="+file, "of=/dev/null", "bs=1M", "iflag=direct")
	if err := inCgroup(dd.Process.Pid, cg); err != nil {
		t.Error(err)
	}
	if err := dd.Wait(); err != nil {
		t.Fatalf("dd: %v", err)
	}
	took := time.Since(start)
	busy := startIn(t, cg, "timeout", "1.5", "sh", "-c", "while :; do :; done")
	busy.Wait()
	c, err := st.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read 8 MiB in %v under read=4MB/s; counters %+v", took, c)
	if took < 1500*time.Millisecond {
		t.Errorf("8 MiB read in %v under a 4 MB/s limit", took)
	}
	if c.ReadBytes < 8<<20 {
		t.Errorf("the cgroup read %d bytes, want at least 8 MiB", c.ReadBytes)
	}
	if c.ThrottledPeriods == 0 || c.Throttled <= 0 {
		t.Errorf("a busy loop under cpus=0.2 was not throttled: %+v", c)
	}
	m := map[string]float64{}
	for _, x := range c.Metrics() {
		m[x.Name] = x.Value
	}
	if m["env_read_mb"] < 8 || m["env_cpu_throttled_pct"] <= 0 || m["env_cpu_throttled_ms"] <= 0 {
		t.Errorf("metrics %v", m)
	}
}

// serverProcesses returns the postmaster and every process below it.
func serverProcesses(t *testing.T, postmaster int) []int {
	t.Helper()
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 1 && f[0] != "Z" {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	out := []int{postmaster}
	for grew := true; grew; {
		grew = false
		for pid, pp := range parent {
			if containsInt(out, pp) && !containsInt(out, pid) {
				out = append(out, pid)
				grew = true
			}
		}
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestServerBornInCgroup(t *testing.T) {
	cg := newCgroup(t, Profile{Name: "small", Machine: Machine{Memory: 512 << 20, CPUs: 1.5}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: pgtest.Binaries(t, pgtest.DefaultVersion()), Name: "envtest", Placer: cg})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Destroy(context.Background())
	check := func(when string) {
		t.Helper()
		// Connections make backends: every one of them must be inside.
		for i := 0; i < 3; i++ {
			conn := pgtest.Connect(t, inst.DSN())
			pgtest.QueryString(t, conn, "SELECT 'x' || pg_backend_pid()")
		}
		procs := serverProcesses(t, inst.PID())
		if len(procs) < 5 {
			t.Errorf("%s: only %d server processes: %v", when, len(procs), procs)
		}
		for _, pid := range procs {
			if err := inCgroup(pid, cg); err != nil {
				t.Errorf("%s: %v", when, err)
			}
		}
		in, err := cg.Procs()
		if err != nil {
			t.Fatal(err)
		}
		for _, pid := range in {
			if !containsInt(procs, pid) {
				t.Errorf("%s: process %d is in the cgroup but not the server's", when, pid)
			}
		}
		// pglab's own threads went back where they were.
		tasks, _ := readPids(filepath.Join(cg.Dirs()[0], "tasks"))
		if cg.layout.Hierarchies[Memory].Version == 1 {
			for _, tid := range tasks {
				if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); err == nil {
					t.Errorf("%s: thread %d of this process is still in the cgroup", when, tid)
				}
			}
		}
	}
	check("after start")
	if err := inst.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	check("after restart")
	st, err := cg.StartStep()
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, inst.DSN())
	if _, err := conn.Exec(ctx, "CREATE TABLE big AS SELECT g, repeat('x', 500) AS pad FROM generate_series(1, 100000) g"); err != nil {
		t.Fatal(err)
	}
	pgtest.QueryString(t, conn, "SELECT count(*)::text FROM big")
	c, err := st.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if c.MemoryPeak <= 10<<20 || c.MemoryPeak > 512<<20 {
		t.Errorf("memory peak %d bytes while building a 60 MB table under memory=512MiB", c.MemoryPeak)
	}
	if err := inst.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if in, _ := cg.Procs(); len(in) != 0 {
		t.Errorf("processes left in the cgroup after stop: %v", in)
	}
}

func TestCleanStale(t *testing.T) {
	l := usableLayout(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.Process.Pid
	var staleDirs, liveDirs []string
	for _, c := range Controllers {
		h := l.Hierarchies[c]
		s := filepath.Join(h.Base, fmt.Sprintf("%s%d-stale-test", Prefix, dead))
		live := filepath.Join(h.Base, fmt.Sprintf("%s%d-live-test", Prefix, os.Getpid()))
		for _, d := range []string{s, live} {
			if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
		staleDirs = append(staleDirs, s)
		liveDirs = append(liveDirs, live)
	}
	defer func() {
		for _, d := range append(staleDirs, liveDirs...) {
			os.Remove(d)
		}
	}()
	removed := CleanStale(l)
	for _, d := range staleDirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("stale cgroup %s kept", d)
		}
		if !contains(removed, d) {
			t.Errorf("CleanStale did not report %s (removed %v)", d, removed)
		}
	}
	for _, d := range liveDirs {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the cgroup of a live process was removed: %s", d)
		}
	}
}

// TestCloneIntoCgroupV2 places a process with clone3(CLONE_INTO_CGROUP),
// the cgroup v2 path, in a cgroup of the machine's cgroup2 mount (which
// needs no controller for placement).
func TestCloneIntoCgroupV2(t *testing.T) {
	l := Detect()
	if l.Unified == "" {
		t.Fatalf("no cgroup2 mount: the cgroup v2 placement needs one (mount -t cgroup2 none /sys/fs/cgroup/unified)")
	}
	dir := filepath.Join(l.Unified, fmt.Sprintf("%s%d-v2test-%d", Prefix, os.Getpid(), time.Now().UnixNano()%1000))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("create %s: %v; %s", dir, err, cgroupHint)
	}
	defer os.Remove(dir)
	h := &Hierarchy{Controller: CPU, Version: 2, Mount: l.Unified, Base: l.Unified, root: l.unifiedRoot}
	cg := &Cgroup{Name: filepath.Base(dir), layout: &Layout{Hierarchies: map[Controller]*Hierarchy{CPU: h, Memory: {}, IO: {}}}, dirs: map[Controller]string{CPU: dir}}
	cmd := startIn(t, cg, "sleep", "30")
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if err := cg.Remove(); err != nil {
			t.Error(err)
		}
	}()
	if err := inCgroup(cmd.Process.Pid, cg); err != nil {
		t.Error(err)
	}
	if pids, _ := cg.Procs(); len(pids) != 1 || pids[0] != cmd.Process.Pid {
		t.Errorf("cgroup.procs = %v, want [%d]", pids, cmd.Process.Pid)
	}
	// The forking thread was not moved: this process stays where it was.
	if err := inCgroup(os.Getpid(), cg); err == nil {
		t.Error("this process is in the v2 test cgroup")
	}
}
