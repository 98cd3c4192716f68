package observe

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParseCPULine(t *testing.T) {
	c, err := parseCPULine("cpu  100 5 30 800 40 2 3 20 7 1")
	if err != nil {
		t.Fatal(err)
	}
	want := cpuTimes{user: 105, system: 35, idle: 800, iowait: 40, steal: 20, total: 1000}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 2", "cpu  1 x 3 4 5"} {
		if _, err := parseCPULine(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestSampleBetween(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := reading{t: t0, cpu: cpuTimes{user: 100, system: 50, idle: 800, iowait: 50, total: 1000},
		disk: diskCounters{reads: 10, readSectors: 2048, writes: 5, writeSectors: 0, ioMillis: 100}}
	b := reading{t: t0.Add(2 * time.Second), cpu: cpuTimes{user: 160, system: 70, idle: 880, iowait: 90, total: 1200},
		disk: diskCounters{reads: 210, readSectors: 2048 + 2*2048, writes: 25, writeSectors: 4096, ioMillis: 1100}}
	x := sampleBetween(a, b)
	// 200 ticks: 60 user, 20 system, 80 idle, 40 iowait.
	check := map[string][2]float64{
		"user": {x.CPUUserPct, 30}, "system": {x.CPUSystemPct, 10}, "idle": {x.CPUIdlePct, 40},
		"iowait": {x.IOWaitPct, 20}, "busy": {x.CPUBusyPct, 40},
		"read MB/s": {x.ReadMBs, 1}, "write MB/s": {x.WriteMBs, 1}, "read IOPS": {x.ReadIOPS, 100},
		"write IOPS": {x.WriteIOPS, 10}, "util": {x.DiskUtilPct, 50}, "seconds": {x.Seconds, 2},
	}
	for name, gw := range check {
		if d := gw[0] - gw[1]; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", name, gw[0], gw[1])
		}
	}
}

func TestReadDisks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "diskstats")
	data := "   8       0 sda 100 1 2000 50 40 2 800 30 0 70 90 0 0 0 0\n" +
		"   8       1 sda1 90 1 1800 45 40 2 800 30 0 60 80\n" +
		" 259       0 nvme0n1 7 0 56 1 3 0 24 1 0 2 2 0 0 0 0 0 0\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readDisks(path, []string{"sda", "nvme0n1"})
	if err != nil {
		t.Fatal(err)
	}
	want := diskCounters{reads: 107, readSectors: 2056, writes: 43, writeSectors: 824, ioMillis: 72}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := readDisks(path, []string{"sdb"}); err == nil {
		t.Errorf("a missing device: no error")
	}
}

// TestFindDisksHere finds the disk of a directory on this machine the
// way the kernel numbers it.
func TestFindDisksHere(t *testing.T) {
	dir := t.TempDir()
	disks, note, err := hostLayout.findDisks(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v (%s)", dir, disks, note)
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	if unix.Major(st.Dev) != 0 {
		// A real block device: exactly it.
		uevent, err := os.ReadFile(filepath.Join("/sys/dev/block", fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev)), "uevent"))
		if err != nil {
			t.Fatal(err)
		}
		if len(disks) != 1 || !strings.Contains(string(uevent), "DEVNAME="+disks[0]+"\n") {
			t.Errorf("disks %v, uevent %q", disks, uevent)
		}
	}
	if _, err := readDisks("/proc/diskstats", disks); err != nil {
		t.Error(err)
	}
}

// TestFindDisksFallback: a directory on tmpfs has no disk; an overlay's
// upper directory does.
func TestFindDisksFallback(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "pglab-observe-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	disks, note, err := hostLayout.findDisks(shm)
	if err != nil {
		t.Fatal(err)
	}
	phys := hostLayout.physicalDisks()
	if strings.Join(disks, ",") != strings.Join(phys, ",") || !strings.Contains(note, "tmpfs") || !strings.Contains(note, "all physical disks") {
		t.Errorf("tmpfs: %v, %q; physical disks %v", disks, note, phys)
	}

	// The same directory described as an overlay whose upper directory
	// is on this test's temporary disk.
	upper := t.TempDir()
	want, _, err := hostLayout.findDisks(upper)
	if err != nil {
		t.Fatal(err)
	}
	proc := t.TempDir()
	line := "1 0 0:99 / /dev/shm rw,relatime - overlay overlay rw,lowerdir=/x,upperdir=" + upper + ",workdir=/y\n"
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	l := hostLayout
	l.fs.Proc = proc
	disks, note, err = l.findDisks(shm)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(disks, ",") != strings.Join(want, ",") || !strings.Contains(note, "overlay") || !strings.Contains(note, upper) {
		t.Errorf("overlay: %v, %q; want %v", disks, note, want)
	}
}

// TestOSSamplerSeesRead reads a file that is not in the page cache and
// checks that the sampler saw its bytes come from the disk.
func TestOSSamplerSeesRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big")
	const size = 128 << 20
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	rand.Read(buf)
	for i := 0; i < size/len(buf); i++ {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if inCache := residentPages(t, path); inCache > size/10 {
		t.Fatalf("%d bytes of the file still cached after POSIX_FADV_DONTNEED", inCache)
	}

	s := StartOS(context.Background(), dir, 100*time.Millisecond)
	time.Sleep(250 * time.Millisecond)
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, r, buf)
	r.Close()
	if err != nil || n != size {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	time.Sleep(250 * time.Millisecond)
	series, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	m := metricsOf(series.Metrics())
	readMB := series.Mean.ReadMBs * series.End.Sub(series.Start).Seconds()
	t.Logf("%s; read %.1f MB from disk in %.2f s: mean %.1f MB/s, peak %.1f MB/s, %d samples",
		series.DiskNote, readMB, series.End.Sub(series.Start).Seconds(), m["disk_read_mb_s"], m["disk_read_mb_s_max"], len(series.Samples))
	if readMB < 0.9*size/mib {
		t.Errorf("disk reads %.1f MB, want at least 90 %% of the file's %d MB", readMB, size/mib)
	}
	if m["disk_read_mb_s_max"] < m["disk_read_mb_s"] || m["disk_read_iops"] <= 0 {
		t.Errorf("metrics %v", m)
	}
	if len(series.Samples) < 3 {
		t.Errorf("%d samples", len(series.Samples))
	}
	var sum float64
	for _, x := range series.Samples {
		sum += x.ReadMBs * x.Seconds
	}
	if d := sum - readMB; d > 0.01*readMB+1 || d < -0.01*readMB-1 {
		t.Errorf("samples add up to %.1f MB, the whole step to %.1f MB", sum, readMB)
	}
}

// residentPages returns how many bytes of a file are in the page cache.
func residentPages(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(data)
	page := os.Getpagesize()
	vec := make([]byte, (len(data)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		if v&1 != 0 {
			n += page
		}
	}
	return n
}

func TestOSSamplerStopTwiceAndCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := StartOS(ctx, "", 20*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	cancel()
	a, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Stop()
	if a != b || len(a.Samples) == 0 || a.CPUs < 1 {
		t.Errorf("series %+v", a)
	}
	if a.Mean.CPUBusyPct+a.Mean.CPUIdlePct+a.Mean.IOWaitPct < 99 {
		t.Errorf("CPU shares %+v", a.Mean)
	}
}

func TestOSSamplerNoProc(t *testing.T) {
	s := startOS(context.Background(), hostLayout, "/nonexistent/stat", "", time.Second)
	if _, err := s.Stop(); err == nil || !strings.Contains(err.Error(), "/nonexistent/stat") {
		t.Errorf("err %v", err)
	}
}

// BenchmarkOSSamplerCost runs the sampler at its default interval and
// reports the process's CPU time as a share of one CPU, start-up left out
// (each iteration is a second: run with -benchtime 20x for 20 seconds).
func BenchmarkOSSamplerCost(b *testing.B) {
	s := StartOS(context.Background(), b.TempDir(), 0)
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(time.Second)
	}
	wall := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	series, err := s.Stop()
	if err != nil {
		b.Fatal(err)
	}
	cpu := time.Duration(after.Utime.Nano()-before.Utime.Nano()) + time.Duration(after.Stime.Nano()-before.Stime.Nano())
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu%")
	b.ReportMetric(float64(len(series.Samples))/wall.Seconds(), "samples/s")
}

// BenchmarkOSRead is the cost of one sample's reads.
func BenchmarkOSRead(b *testing.B) {
	s := &OSSampler{layout: hostLayout, statPath: "/proc/stat"}
	s.series.Disks = hostLayout.physicalDisks()
	for i := 0; i < b.N; i++ {
		if _, err := s.read(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOSSamplerMissingDir(t *testing.T) {
	s := StartOS(context.Background(), "/nonexistent/pglab", 10*time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	series, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(series.DiskNote, "/nonexistent/pglab") || !strings.Contains(series.DiskNote, "all physical disks") ||
		strings.Join(series.Disks, ",") != strings.Join(hostLayout.physicalDisks(), ",") {
		t.Errorf("disks %v, note %q", series.Disks, series.DiskNote)
	}
}
