package observe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ServerCPU is the CPU of a local PostgreSQL instance, of pglab itself and
// of the rest of the machine over one step: how much the machine, rather
// than PostgreSQL, moved the step's time. See StartServerCPU.
type ServerCPU struct {
	Start, End time.Time
	// PID is the postmaster's; 0 when the instance's processes could not
	// be read (CPU, RunQueue and ForeignPct are then unknown).
	PID int
	// Schedstat tells whether the kernel keeps each process's run and
	// wait times (/proc/PID/schedstat); without, CPU, RunQueue and
	// ForeignPct are unknown.
	Schedstat bool
	// CPU is the time the instance's processes ran: the processes alive
	// at the end by their run times, plus the CPU of those that exited
	// during the step (the postmaster's reaped children's).
	CPU time.Duration
	// RunQueue is the time the instance's processes alive at the end
	// waited for a CPU while runnable; that of processes that exited
	// during the step is not known and not counted.
	RunQueue time.Duration
	// Processes are the instance's processes alive at the end (postmaster
	// included); Started of them began during the step; Exited were
	// alive at the start and gone at the end.
	Processes, Started, Exited int
	// Client is the CPU time of this process (pglab) over the step.
	Client time.Duration
	// StealPct is the share of all CPUs' time the hypervisor gave to
	// others; ForeignPct the share of all CPUs' time busy with neither
	// the instance nor pglab (other processes, interrupts outside them),
	// floored at 0. Both from /proc/stat.
	StealPct, ForeignPct float64

	machine bool // /proc/stat was read at both ends
}

// Metrics gives server_cpu_ms, server_runq_ms, client_cpu_ms, steal_pct
// and foreign_cpu_pct. The instance's figures (server_*, foreign_cpu_pct)
// are absent when its processes could not be read or the kernel keeps no
// per-process run times; the machine's when /proc/stat could not be read.
func (c *ServerCPU) Metrics() []Metric {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	out := []Metric{{Name: "client_cpu_ms", Value: ms(c.Client), Unit: "ms"}}
	server := c.PID > 0 && c.Schedstat
	if server {
		out = append(out, Metric{Name: "server_cpu_ms", Value: ms(c.CPU), Unit: "ms"},
			Metric{Name: "server_runq_ms", Value: ms(c.RunQueue), Unit: "ms"})
	}
	if c.machine {
		out = append(out, Metric{Name: "steal_pct", Value: c.StealPct, Unit: "pct"})
		if server {
			out = append(out, Metric{Name: "foreign_cpu_pct", Value: c.ForeignPct, Unit: "pct"})
		}
	}
	sortMetrics(out)
	return out
}

// ServerCPUSampler reads the CPU accounting of one local PostgreSQL
// instance's processes, of this process and of the machine at its start
// and at Stop.
type ServerCPUSampler struct {
	proc   procFS
	client func() time.Duration
	first  cpuReading
	err    error
	once   sync.Once
	result *ServerCPU
}

// StartServerCPU reads, now, the processes of the PostgreSQL instance
// whose data directory is dataDir (the postmaster, from the first line of
// postmaster.pid, checked to work in dataDir, and its children found by
// the parent PID in /proc/*/stat), the machine's /proc/stat and this
// process's CPU. Stop reads them again. Errors are reported by Stop.
func StartServerCPU(dataDir string) *ServerCPUSampler {
	return startServerCPU("/proc", dataDir, selfCPU)
}

func startServerCPU(root procFS, dataDir string, client func() time.Duration) *ServerCPUSampler {
	s := &ServerCPUSampler{proc: root, client: client}
	pid, err := postmasterPID(dataDir)
	if err == nil {
		if err = checkPostmaster(string(root), pid, dataDir); err != nil {
			pid = 0
		}
	}
	s.first, s.err = s.read(pid, procKey{})
	if err != nil {
		s.err = err
	}
	return s
}

// Stop reads the counters again and returns the figures of the step. The
// error says why figures are missing: the instance's (the server was not
// found, stopped or restarted) or the machine's; the figures that could
// be read are returned with it. Stop may be called more than once.
func (s *ServerCPUSampler) Stop() (*ServerCPU, error) {
	s.once.Do(func() {
		var want procKey
		if s.first.inst != nil {
			want = s.first.inst.pm
		}
		last, err := s.read(want.pid, want)
		if s.err == nil {
			s.err = err
		}
		c, err := cpuBetween(s.first, last, clockTick())
		if s.err == nil {
			s.err = err
		}
		s.result = c
	})
	return s.result, s.err
}

// cpuReading is one read of everything the sampler compares.
type cpuReading struct {
	t          time.Time
	machine    cpuTimes
	machineErr error
	client     time.Duration
	inst       *instReading // nil when the instance could not be read
}

// read reads the machine, this process and the instance whose postmaster
// is pid (none when 0). want, when set, is the postmaster read at the
// start: another one (a restart) is an error.
func (s *ServerCPUSampler) read(pid int, want procKey) (cpuReading, error) {
	r := cpuReading{t: time.Now()}
	r.machine, r.machineErr = readCPU(string(s.proc) + "/stat")
	r.client = s.client()
	if pid == 0 {
		return r, r.machineErr
	}
	inst, err := s.proc.readInstance(pid)
	if err == nil && want.pid != 0 && inst.pm != want {
		err = fmt.Errorf("the server's postmaster (PID %d) restarted during the step", pid)
	}
	if err != nil {
		return r, err
	}
	r.inst = &inst
	if r.machineErr != nil {
		return r, fmt.Errorf("server CPU: %w", r.machineErr)
	}
	return r, nil
}

// selfCPU is this process's user and system CPU time (getrusage).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuBetween turns two readings into a step's figures; tick is the unit
// of /proc's clock ticks.
func cpuBetween(a, b cpuReading, tick time.Duration) (*ServerCPU, error) {
	c := &ServerCPU{Start: a.t, End: b.t, Client: max(0, b.client-a.client)}
	total := b.machine.total - a.machine.total
	if a.machineErr == nil && b.machineErr == nil && total > 0 {
		c.machine = true
		c.StealPct = max(0, 100*(b.machine.steal-a.machine.steal)/total)
	}
	if a.inst == nil || b.inst == nil {
		return c, nil
	}
	if err := c.addInstance(a.inst, b.inst, tick); err != nil {
		return c, err
	}
	if c.machine && c.Schedstat {
		// Busy: user, nice, system, irq and softirq (not steal, idle, iowait).
		busy := time.Duration((b.machine.user + b.machine.system - a.machine.user - a.machine.system) * float64(tick))
		c.ForeignPct = max(0, 100*float64(busy-c.CPU-c.Client)/(total*float64(tick)))
	}
	return c, nil
}

// addInstance fills the instance's figures from two reads of it.
func (c *ServerCPU) addInstance(a, b *instReading, tick time.Duration) error {
	if a.pm != b.pm {
		return fmt.Errorf("the server's postmaster changed during the step (PID %d, then %d)", a.pm.pid, b.pm.pid)
	}
	c.PID = a.pm.pid
	c.Schedstat = a.schedstat && b.schedstat
	if !c.Schedstat {
		return nil
	}
	var cpu, wait uint64
	for k, t := range b.procs {
		c.Processes++
		s, alive := a.procs[k]
		if !alive {
			c.Started++
		}
		cpu += sub(t.run, s.run)
		wait += sub(t.wait, s.wait)
	}
	// The exited processes' whole lives are in the postmaster's reaped
	// children's time: take away what they had used before the step.
	var before uint64
	for k, s := range a.procs {
		if _, alive := b.procs[k]; !alive {
			c.Exited++
			before += s.run
		}
	}
	reaped := sub(b.reaped, a.reaped) * uint64(tick)
	c.CPU = time.Duration(cpu + sub(reaped, before))
	c.RunQueue = time.Duration(wait)
	return nil
}

// sub is b − a, or 0 when a counter went down.
func sub(b, a uint64) uint64 {
	if b < a {
		return 0
	}
	return b - a
}

// procFS is the root of /proc (tests point it at fixtures).
type procFS string

// procKey tells a process apart: its PID and start time.
type procKey struct {
	pid   int
	start uint64
}

// procTimes are a process's run and run-queue wait times, nanoseconds.
type procTimes struct{ run, wait uint64 }

// instReading is one read of an instance's processes.
type instReading struct {
	pm procKey
	// reaped is the postmaster's cutime + cstime, clock ticks.
	reaped uint64
	// schedstat tells whether the kernel gave run times; procs holds
	// them for the postmaster and its children (none without).
	schedstat bool
	procs     map[procKey]procTimes
}

// readInstance reads the postmaster pid and its children. A child that
// exits and is reaped while they are read would be counted twice (its
// run time and the postmaster's reaped time) or not at all, so the
// postmaster's reaped time is read before and after, and the whole read
// again (three times at most) when it moved.
func (p procFS) readInstance(pid int) (instReading, error) {
	var r instReading
	for try := 0; try < 3; try++ {
		pm, err := p.stat(pid)
		if err != nil {
			return r, fmt.Errorf("read the server's postmaster: %w", err)
		}
		if r, err = p.readProcs(pid, pm); err != nil {
			return r, err
		}
		again, err := p.stat(pid)
		if err != nil {
			return r, fmt.Errorf("read the server's postmaster: %w", err)
		}
		if again.starttime != pm.starttime {
			return r, fmt.Errorf("the server's postmaster (PID %d) restarted while read", pid)
		}
		if again.cutime+again.cstime == r.reaped {
			break
		}
	}
	return r, nil
}

// readProcs reads the run times of the postmaster (whose stat is pm) and
// of its children.
func (p procFS) readProcs(pid int, pm procStat) (instReading, error) {
	r := instReading{pm: procKey{pid, pm.starttime}, reaped: pm.cutime + pm.cstime, procs: map[procKey]procTimes{}}
	kids, err := p.children(pid)
	if err != nil {
		return r, err
	}
	run, wait, err := p.schedstat(pid)
	if errors.Is(err, fs.ErrNotExist) || err == nil && run == 0 {
		// No schedstat file, or "0 0 0" (a kernel that keeps no
		// scheduler info): the postmaster has surely run.
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("read the server's postmaster: %w", err)
	}
	r.schedstat = true
	r.procs[r.pm] = procTimes{run, wait}
	for _, k := range kids {
		run, wait, err := p.schedstat(k.pid)
		if err != nil {
			continue // exited since the scan: in the reaped time, or read again
		}
		r.procs[k] = procTimes{run, wait}
	}
	return r, nil
}

// stat reads /proc/PID/stat.
func (p procFS) stat(pid int) (procStat, error) {
	data, err := readSmall(string(p)+"/"+strconv.Itoa(pid)+"/stat", make([]byte, 1024))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(data)
}

// schedstat reads /proc/PID/schedstat.
func (p procFS) schedstat(pid int) (run, wait uint64, err error) {
	data, err := readSmall(string(p)+"/"+strconv.Itoa(pid)+"/schedstat", make([]byte, 128))
	if err != nil {
		return 0, 0, err
	}
	return parseSchedstat(data)
}

// children lists the processes whose parent is pid, from every
// process's /proc/PID/stat (zombies included: not yet reaped, they still
// have their run times).
func (p procFS) children(pid int) ([]procKey, error) {
	dir, err := os.Open(string(p))
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var out []procKey
	buf := make([]byte, 1024)
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := readSmall(string(p)+"/"+name+"/stat", buf)
		if err != nil {
			continue // gone
		}
		if ppid, ok := ppidOf(data); !ok || ppid != pid {
			continue
		}
		st, err := parseProcStat(data)
		if err != nil {
			return nil, fmt.Errorf("process %s: %w", name, err)
		}
		child, _ := strconv.Atoi(name)
		out = append(out, procKey{child, st.starttime})
	}
	return out, nil
}

// readSmall reads a file of at most len(buf) bytes into buf with three
// system calls (open, read, close; os.ReadFile makes five): the scan of
// every process's stat is most of a read's cost.
func readSmall(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		return buf[:n], nil
	}
}
