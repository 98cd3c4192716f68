package observe

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultOSInterval is the OS sampler's interval when none is given. One
// sample reads /proc/stat and /proc/diskstats: about 0.14 ms of CPU on a
// 2-core VM (BenchmarkOSRead); the sampler running at this interval used
// 0.16 % of one CPU (BenchmarkOSSamplerCost, 20 s), while a 2-second step
// still gets 8 samples.
const DefaultOSInterval = 250 * time.Millisecond

// mib is the "MB" of MB/s: 2^20 bytes, as PostgreSQL and iostat count.
const mib = 1 << 20

// OSSample is the machine's activity over one interval.
type OSSample struct {
	// Time is the end of the interval, Seconds its length.
	Time    time.Time
	Seconds float64
	// CPU shares in percent of all CPUs' time: busy = 100 − idle − iowait;
	// user includes nice; system includes irq and softirq.
	CPUBusyPct, CPUUserPct, CPUSystemPct, IOWaitPct, CPUIdlePct float64
	// Disk figures of the devices in OSSeries.Disks: MB/s (2^20 bytes),
	// operations per second, and the share of time with I/O in flight.
	ReadMBs, WriteMBs, ReadIOPS, WriteIOPS, DiskUtilPct float64
}

// OSSeries is what an OSSampler recorded.
type OSSeries struct {
	Start, End time.Time
	Interval   time.Duration
	// CPUs is the number of CPUs /proc/stat lists.
	CPUs int
	// Disks are the block devices the disk figures sum; DiskNote says how
	// they were chosen (or why there are none).
	Disks    []string
	DiskNote string
	// Samples are the intervals, oldest first.
	Samples []OSSample
	// Mean is the whole step as one interval (exact, from the first and
	// last readings, not an average of samples).
	Mean OSSample
}

// HasDisk tells whether the series has disk figures.
func (s *OSSeries) HasDisk() bool { return len(s.Disks) > 0 }

// Metrics summarises the series: means over the step (cpu_busy_pct,
// cpu_user_pct, cpu_sys_pct, iowait_pct, disk_read_mb_s, disk_write_mb_s,
// disk_read_iops, disk_write_iops, disk_util_pct), the peak of each
// sample as NAME_max, and os_samples. Disk metrics are absent when no
// disk was found; peaks are absent without samples.
func (s *OSSeries) Metrics() []Metric {
	type fig struct {
		name, unit string
		get        func(OSSample) float64
		disk       bool
	}
	figs := []fig{
		{"cpu_busy_pct", "pct", func(x OSSample) float64 { return x.CPUBusyPct }, false},
		{"cpu_user_pct", "pct", func(x OSSample) float64 { return x.CPUUserPct }, false},
		{"cpu_sys_pct", "pct", func(x OSSample) float64 { return x.CPUSystemPct }, false},
		{"iowait_pct", "pct", func(x OSSample) float64 { return x.IOWaitPct }, false},
		{"disk_read_mb_s", "MB/s", func(x OSSample) float64 { return x.ReadMBs }, true},
		{"disk_write_mb_s", "MB/s", func(x OSSample) float64 { return x.WriteMBs }, true},
		{"disk_read_iops", "count/s", func(x OSSample) float64 { return x.ReadIOPS }, true},
		{"disk_write_iops", "count/s", func(x OSSample) float64 { return x.WriteIOPS }, true},
		{"disk_util_pct", "pct", func(x OSSample) float64 { return x.DiskUtilPct }, true},
	}
	out := []Metric{{Name: "os_samples", Value: float64(len(s.Samples)), Unit: "count"}}
	for _, f := range figs {
		if f.disk && !s.HasDisk() {
			continue
		}
		out = append(out, Metric{Name: f.name, Value: f.get(s.Mean), Unit: f.unit})
		if len(s.Samples) > 0 {
			peak := f.get(s.Samples[0])
			for _, x := range s.Samples[1:] {
				peak = max(peak, f.get(x))
			}
			out = append(out, Metric{Name: f.name + "_max", Value: peak, Unit: f.unit})
		}
	}
	sortMetrics(out)
	return out
}

// OSSampler samples the machine's CPU and the data directory's disk from
// /proc until Stop.
type OSSampler struct {
	layout   diskLayout
	statPath string
	interval time.Duration
	series   OSSeries
	first    reading
	err      error

	mu      sync.Mutex
	prev    reading
	samples []OSSample

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// reading is one read of the counters.
type reading struct {
	t    time.Time
	cpu  cpuTimes
	disk diskCounters
}

// StartOS starts sampling every interval (DefaultOSInterval when ≤ 0)
// until Stop or the end of ctx. dataDir selects the disk: the block device
// holding it (see OSSeries.DiskNote for fallbacks); "" means all physical
// disks. Errors are reported by Stop.
func StartOS(ctx context.Context, dataDir string, interval time.Duration) *OSSampler {
	return startOS(ctx, hostLayout, "/proc/stat", dataDir, interval)
}

func startOS(ctx context.Context, layout diskLayout, statPath, dataDir string, interval time.Duration) *OSSampler {
	if interval <= 0 {
		interval = DefaultOSInterval
	}
	s := &OSSampler{layout: layout, statPath: statPath, interval: interval, done: make(chan struct{})}
	s.series.Interval = interval
	s.series.CPUs = countCPUs(statPath)
	if dataDir == "" {
		s.series.Disks = layout.physicalDisks()
		s.series.DiskNote = "no data directory given; using all physical disks (" + strings.Join(s.series.Disks, ", ") + ")"
	} else if disks, note, err := layout.findDisks(dataDir); err != nil {
		s.series.Disks = layout.physicalDisks()
		s.series.DiskNote = err.Error() + "; using all physical disks (" + strings.Join(s.series.Disks, ", ") + ")"
	} else {
		s.series.Disks, s.series.DiskNote = disks, note
	}
	r, err := s.read()
	if err != nil {
		s.err = err
		close(s.done)
		return s
	}
	s.first, s.prev = r, r
	s.series.Start = r.t
	ctx, s.cancel = context.WithCancel(ctx)
	go s.loop(ctx)
	return s
}

// countCPUs counts the cpuN lines of /proc/stat.
func countCPUs(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "cpu") && len(line) > 3 && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return n
}

func (s *OSSampler) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r, err := s.read()
			s.mu.Lock()
			if err != nil {
				if s.err == nil {
					s.err = err
				}
			} else {
				s.samples = append(s.samples, sampleBetween(s.prev, r))
				s.prev = r
			}
			s.mu.Unlock()
		}
	}
}

// read reads the counters now.
func (s *OSSampler) read() (reading, error) {
	r := reading{t: time.Now()}
	var err error
	if r.cpu, err = readCPU(s.statPath); err != nil {
		return r, fmt.Errorf("OS sampler: %w", err)
	}
	if len(s.series.Disks) > 0 {
		if r.disk, err = readDisks(s.layout.diskstats, s.series.Disks); err != nil {
			return r, fmt.Errorf("OS sampler: %w", err)
		}
	}
	return r, nil
}

// sampleBetween turns two readings into the activity between them.
func sampleBetween(a, b reading) OSSample {
	x := OSSample{Time: b.t, Seconds: b.t.Sub(a.t).Seconds()}
	if total := b.cpu.total - a.cpu.total; total > 0 {
		pct := func(v float64) float64 { return max(0, 100*v/total) }
		x.CPUUserPct = pct(b.cpu.user - a.cpu.user)
		x.CPUSystemPct = pct(b.cpu.system - a.cpu.system)
		x.IOWaitPct = pct(b.cpu.iowait - a.cpu.iowait)
		x.CPUIdlePct = pct(b.cpu.idle - a.cpu.idle)
		x.CPUBusyPct = max(0, 100-x.CPUIdlePct-x.IOWaitPct)
	}
	if x.Seconds > 0 {
		per := func(v float64) float64 { return max(0, v/x.Seconds) }
		x.ReadMBs = per((b.disk.readSectors - a.disk.readSectors) * 512 / mib)
		x.WriteMBs = per((b.disk.writeSectors - a.disk.writeSectors) * 512 / mib)
		x.ReadIOPS = per(b.disk.reads - a.disk.reads)
		x.WriteIOPS = per(b.disk.writes - a.disk.writes)
		x.DiskUtilPct = min(100, per((b.disk.ioMillis-a.disk.ioMillis)/10))
	}
	return x
}

// Stop ends the sampling and returns the series. The error is the first
// failure to read /proc (the series holds what was read before it). Stop
// may be called more than once.
func (s *OSSampler) Stop() (*OSSeries, error) {
	s.once.Do(func() {
		if s.cancel != nil {
			s.cancel()
		}
		<-s.done
		if s.first.t.IsZero() {
			return
		}
		last, err := s.read()
		if err != nil {
			last = s.prev
		} else if last.t.Sub(s.prev.t) >= s.interval/2 {
			// The partial interval since the last tick, when long enough
			// for the clock-tick resolution of /proc/stat.
			s.samples = append(s.samples, sampleBetween(s.prev, last))
		}
		s.series.End = last.t
		s.series.Samples = s.samples
		s.series.Mean = sampleBetween(s.first, last)
	})
	return &s.series, s.err
}
