package env

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Counters are the cgroup's own counters over one measured step.
type Counters struct {
	// Elapsed is the step's wall time.
	Elapsed time.Duration
	// MemoryPeak is the most memory the cgroup used during the step
	// (page cache and shared memory included), in bytes; -1 when unknown.
	// PeakSince says what it covers when the kernel cannot reset the peak
	// per step ("since the cgroup was made").
	MemoryPeak int64
	PeakSince  string
	// Periods and ThrottledPeriods are CFS bandwidth periods elapsed and
	// those in which the quota ran out; Throttled is the time the
	// server's threads waited for quota. All zero without a CPU limit.
	Periods, ThrottledPeriods int64
	Throttled                 time.Duration
	// ReadBytes, WriteBytes, ReadOps and WriteOps are the block I/O the
	// cgroup issued, on every disk.
	ReadBytes, WriteBytes, ReadOps, WriteOps int64
	// IO is the cgroup's disk throughput sampled during the step (every
	// sampleInterval), oldest first.
	IO []IOSample
	// Have says which groups were read: "memory", "cpu", "io".
	Have map[string]bool
}

// IOSample is the cgroup's disk throughput over one sampling interval.
type IOSample struct {
	Seconds           float64
	ReadMBs, WriteMBs float64 // MB/s, MB = 2^20 bytes
}

// sampleInterval is how often a step's disk counters are sampled: reading
// the cgroup's io file costs microseconds.
const sampleInterval = 250 * time.Millisecond

// Metric is one counter as the study runner records it.
type Metric struct {
	Name  string
	Value float64
	Unit  string
}

// Metrics returns the counters as measurements: env_memory_peak_mb,
// env_cpu_throttled_ms, env_cpu_throttled_pct (share of CFS periods
// throttled), env_read_mb, env_write_mb, and the mean rates env_read_mb_s
// and env_write_mb_s. MB is 2^20 bytes.
func (c Counters) Metrics() []Metric {
	var out []Metric
	if c.Have["memory"] && c.MemoryPeak >= 0 {
		out = append(out, Metric{"env_memory_peak_mb", float64(c.MemoryPeak) / mib, "MB"})
	}
	if c.Have["cpu"] {
		out = append(out, Metric{"env_cpu_throttled_ms", float64(c.Throttled.Microseconds()) / 1000, "ms"})
		if c.Periods > 0 {
			out = append(out, Metric{"env_cpu_throttled_pct", 100 * float64(c.ThrottledPeriods) / float64(c.Periods), "%"})
		}
	}
	if c.Have["io"] {
		out = append(out,
			Metric{"env_read_mb", float64(c.ReadBytes) / mib, "MB"},
			Metric{"env_write_mb", float64(c.WriteBytes) / mib, "MB"})
		if secs := c.Elapsed.Seconds(); secs > 0 {
			out = append(out,
				Metric{"env_read_mb_s", float64(c.ReadBytes) / mib / secs, "MB/s"},
				Metric{"env_write_mb_s", float64(c.WriteBytes) / mib / secs, "MB/s"})
		}
	}
	return out
}

// StepCounters reads a cgroup's counters across one step: made by
// [Cgroup.StartStep], ended by Stop.
type StepCounters struct {
	cg      *Cgroup
	start   time.Time
	before  Counters
	peakFD  *os.File // v2 memory.peak opened for this step (reset per fd)
	peakErr string

	stop    chan struct{}
	sampled chan []IOSample
}

// StartStep resets the cgroup's memory peak and reads its cumulative
// counters; Stop then gives the step's differences. A cgroup without
// directories gives empty counters.
func (cg *Cgroup) StartStep() (*StepCounters, error) {
	s := &StepCounters{cg: cg}
	if dir := cg.dirs[Memory]; dir != "" {
		if err := s.resetPeak(dir, cg.layout.Hierarchies[Memory].Version); err != nil {
			return nil, err
		}
	}
	before, err := cg.cumulative()
	if err != nil {
		s.close()
		return nil, err
	}
	s.before, s.start = before, time.Now()
	if cg.dirs[IO] != "" {
		s.stop, s.sampled = make(chan struct{}), make(chan []IOSample, 1)
		go s.sampleIO(before, s.stop, s.sampled)
	}
	return s, nil
}

// sampleIO samples the cgroup's disk counters until stop is closed, then
// sends the samples.
func (s *StepCounters) sampleIO(prev Counters, stop <-chan struct{}, sampled chan<- []IOSample) {
	tick := time.NewTicker(sampleInterval)
	defer tick.Stop()
	var out []IOSample
	last := s.start
	for {
		select {
		case <-stop:
			sampled <- out
			return
		case now := <-tick.C:
			var c Counters
			if err := s.cg.readIO(&c); err != nil {
				continue
			}
			secs := now.Sub(last).Seconds()
			out = append(out, IOSample{Seconds: secs,
				ReadMBs:  float64(c.ReadBytes-prev.ReadBytes) / mib / secs,
				WriteMBs: float64(c.WriteBytes-prev.WriteBytes) / mib / secs})
			prev, last = c, now
		}
	}
}

// resetPeak starts the step's memory peak: v1 resets
// memory.max_usage_in_bytes; v2 (Linux 6.12+) resets memory.peak for an
// open file descriptor, and older kernels keep the peak since the cgroup
// was made.
func (s *StepCounters) resetPeak(dir string, version int) error {
	if version == 1 {
		path := filepath.Join(dir, "memory.max_usage_in_bytes")
		if err := os.WriteFile(path, []byte("0"), 0); err != nil {
			return fmt.Errorf("reset the memory peak (%s): %w", path, err)
		}
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, "memory.peak"), os.O_RDWR, 0)
	if err != nil {
		if f, err = os.Open(filepath.Join(dir, "memory.peak")); err != nil {
			return fmt.Errorf("open the memory peak: %w", err)
		}
		s.peakErr = "since the cgroup was made (memory.peak is read-only)"
	} else if _, err := f.WriteString("reset\n"); err != nil {
		s.peakErr = "since the cgroup was made (this kernel cannot reset memory.peak; Linux 6.12 can)"
	}
	s.peakFD = f
	return nil
}

func (s *StepCounters) close() {
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
	if s.peakFD != nil {
		s.peakFD.Close()
		s.peakFD = nil
	}
}

// Stop reads the counters again and returns the step's.
func (s *StepCounters) Stop() (Counters, error) {
	var samples []IOSample
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
		samples = <-s.sampled
	}
	defer s.close()
	after, err := s.cg.cumulative()
	if err != nil {
		return Counters{}, err
	}
	c := Counters{
		Elapsed:          time.Since(s.start),
		MemoryPeak:       -1,
		Periods:          after.Periods - s.before.Periods,
		ThrottledPeriods: after.ThrottledPeriods - s.before.ThrottledPeriods,
		Throttled:        after.Throttled - s.before.Throttled,
		ReadBytes:        after.ReadBytes - s.before.ReadBytes,
		WriteBytes:       after.WriteBytes - s.before.WriteBytes,
		ReadOps:          after.ReadOps - s.before.ReadOps,
		WriteOps:         after.WriteOps - s.before.WriteOps,
		IO:               samples,
		Have:             after.Have,
	}
	if dir := s.cg.dirs[Memory]; dir != "" {
		var peak int64
		if s.peakFD != nil {
			peak, err = readIntAt(s.peakFD)
			c.PeakSince = s.peakErr
		} else {
			peak, err = readInt(filepath.Join(dir, "memory.max_usage_in_bytes"))
		}
		if err != nil {
			return c, fmt.Errorf("read the memory peak: %w", err)
		}
		c.MemoryPeak = peak
	}
	return c, nil
}

func readIntAt(f *os.File) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// cumulative reads the cgroup's cumulative CPU and I/O counters.
func (cg *Cgroup) cumulative() (Counters, error) {
	c := Counters{Have: map[string]bool{}}
	if cg.dirs[Memory] != "" {
		c.Have["memory"] = true
	}
	if dir := cg.dirs[CPU]; dir != "" {
		st, err := readKeyed(filepath.Join(dir, "cpu.stat"))
		if err != nil {
			return c, fmt.Errorf("read CPU counters: %w", err)
		}
		c.Periods, c.ThrottledPeriods = st["nr_periods"], st["nr_throttled"]
		if us, ok := st["throttled_usec"]; ok { // v2
			c.Throttled = time.Duration(us) * time.Microsecond
		} else { // v1: nanoseconds
			c.Throttled = time.Duration(st["throttled_time"])
		}
		c.Have["cpu"] = true
	}
	if cg.dirs[IO] != "" {
		if err := cg.readIO(&c); err != nil {
			return c, fmt.Errorf("read disk counters: %w", err)
		}
		c.Have["io"] = true
	}
	return c, nil
}

// readIO adds the cgroup's cumulative disk counters to c.
func (cg *Cgroup) readIO(c *Counters) error {
	dir := cg.dirs[IO]
	if cg.layout.Hierarchies[IO].Version == 2 {
		return readIOStat(filepath.Join(dir, "io.stat"), c)
	}
	return readBlkioV1(dir, c)
}

// readIOStat sums the devices of a v2 io.stat: "MAJ:MIN rbytes=… wbytes=…
// rios=… wios=… dbytes=… dios=…".
func readIOStat(path string, c *Counters) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	parseIOStat(string(data), c)
	return nil
}

func parseIOStat(text string, c *Counters) {
	for _, line := range strings.Split(text, "\n") {
		fs := strings.Fields(line)
		if len(fs) < 2 {
			continue
		}
		for _, f := range fs[1:] {
			k, v, ok := strings.Cut(f, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil {
				continue
			}
			switch k {
			case "rbytes":
				c.ReadBytes += n
			case "wbytes":
				c.WriteBytes += n
			case "rios":
				c.ReadOps += n
			case "wios":
				c.WriteOps += n
			}
		}
	}
}

// readBlkioV1 sums the devices of v1's blkio.throttle.io_service_bytes and
// io_serviced: "MAJ:MIN Read N" lines (and Write, Sync, Async, Total).
func readBlkioV1(dir string, c *Counters) error {
	for _, f := range []struct {
		file        string
		read, write *int64
	}{
		{"blkio.throttle.io_service_bytes", &c.ReadBytes, &c.WriteBytes},
		{"blkio.throttle.io_serviced", &c.ReadOps, &c.WriteOps},
	} {
		file, err := os.Open(filepath.Join(dir, f.file))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return err
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			parts := strings.Fields(sc.Text())
			if len(parts) != 3 {
				continue
			}
			n, err := strconv.ParseInt(parts[2], 10, 64)
			if err != nil {
				continue
			}
			switch parts[1] {
			case "Read":
				*f.read += n
			case "Write":
				*f.write += n
			}
		}
		file.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	return nil
}

// DropCache empties the page cache charged to the cgroup, for cold runs
// under a memory limit: v1 memory.force_empty, v2 memory.reclaim. Pages
// are charged to the cgroup that first read them, so this reaches only
// what the server itself read. A cgroup without a memory directory does
// nothing.
func (cg *Cgroup) DropCache() error {
	dir := cg.dirs[Memory]
	if dir == "" {
		return nil
	}
	if cg.layout.Hierarchies[Memory].Version == 1 {
		path := filepath.Join(dir, "memory.force_empty")
		if err := os.WriteFile(path, []byte("0"), 0); err != nil {
			return fmt.Errorf("empty the cgroup's page cache (%s): %w", path, err)
		}
		return nil
	}
	cur, err := readInt(filepath.Join(dir, "memory.current"))
	if err != nil || cur == 0 {
		return err
	}
	// memory.reclaim fails with EAGAIN when it reclaims less than asked
	// (anonymous memory and shared buffers stay): that is fine here.
	path := filepath.Join(dir, "memory.reclaim")
	if err := os.WriteFile(path, []byte(strconv.FormatInt(cur, 10)), 0); err != nil && !errors.Is(err, unix.EAGAIN) {
		return fmt.Errorf("empty the cgroup's page cache (%s): %w", path, err)
	}
	return nil
}
