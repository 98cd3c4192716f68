package observe

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The profiler's rates: self time per function comes from samples at
// ProfileHz without call chains; the folded stacks from samples at
// StackHz with call chains unwound from a copy of the user stack (DWARF:
// PostgreSQL's builds keep no frame pointers, so -g stacks stop at the
// first function), StackBytes of stack each: 8 kB stopped 17's VACUUM
// stacks at heap_page_prune_and_freeze, whose PruneState on the stack is
// about as large. The rates are what sampling may cost: on this kind of
// VM (a timer interrupt per sample) BenchmarkProfileCost's CPU-bound
// count took 3.8 % more server CPU at 999 Hz, 3.4 % at 99 Hz with DWARF
// stacks, 2.8 % with both, and −0.2 % (noise: ±2 %) at these rates, 249
// and 49 Hz (medians of 20 pairs, two runs each). A step of 0.3 s of
// CPU gets about 75 samples of self time and 15 stacks; the rounds add
// up.
const (
	ProfileHz  = 249
	StackHz    = 49
	StackBytes = 16384
)

// CPU-by-function metric names.
const (
	// CPUFnPrefix names a function's self time: cpu_fn_ms:FUNCTION.
	CPUFnPrefix = "cpu_fn_ms:"
	// CPUSampledMS is the CPU time the samples stand for, all functions
	// and processes of the server together.
	CPUSampledMS = "cpu_sampled_ms"
	// MinFunctionPct is the smallest share of a step's samples a
	// function needs to get a metric of its own; MaxFunctions bounds how
	// many do.
	MinFunctionPct = 0.5
	MaxFunctions   = 40
)

// perfPath is where the profiler looks for perf first (Debian's
// linux-perf package), then in PATH.
const perfPath = "/usr/bin/perf"

// Profiler samples a local PostgreSQL instance's processes on CPU with
// perf's software cpu-clock event (no hardware counters needed): the
// postmaster and its descendants, those it starts while perf runs (new
// backends, parallel workers) included. It samples every CPU and keeps
// the server's samples: a per-process event re-arms its timer at every
// context switch, which cost a COPY TO, switching at every full socket
// buffer, 4–19 % of its time on this kind of VM (an A/A with one side
// profiled), where sampling every CPU cost it nothing measurable
// (−5…+4 %, the same within ±5 %). It samples only between Enable and
// Stop.
type Profiler struct {
	cmd      *osexec.Cmd
	dir      string
	ctl, ack *os.File
	stderr   bytes.Buffer
	waited   chan error
	mu       sync.Mutex
	kinds    map[int]string // process kind by PID
	watching chan struct{}  // closed to end watch
	watched  chan struct{}  // closed when watch has ended
	root     procFS
	pm       int
	start    time.Time
	end      time.Time
	// perfRun is perf's run time (schedstat, ns) at Enable; perfStep
	// what it ran until the samples stopped.
	perfRun, perfStep uint64
	once              sync.Once
	stopErr           error
}

// ProfileAbsent says why a server cannot be profiled from here, or "" when
// it may be (whether perf may attach is known only by trying: see
// StartProfile). dataDir is the local server's data directory, "" for a
// server elsewhere.
func ProfileAbsent(dataDir string) string {
	if dataDir == "" {
		return "perf samples processes on this machine: not a server elsewhere"
	}
	if _, err := findPerf(); err != nil {
		return err.Error()
	}
	return ""
}

// findPerf returns the perf program's path.
func findPerf() (string, error) {
	if _, err := os.Stat(perfPath); err == nil {
		return perfPath, nil
	}
	if p, err := osexec.LookPath("perf"); err == nil {
		return p, nil
	}
	return "", errors.New("perf is not installed (Debian: apt-get install linux-perf)")
}

// StartProfile starts perf on the whole machine, its events disabled, for
// the processes of the local instance whose data directory is dataDir
// (its postmaster, from postmaster.pid, and the postmaster's descendants,
// followed through the forks perf records), and returns once perf is
// ready: Enable starts the samples at once. Errors say why sampling is
// impossible (no perf, no permission, the server gone), in perf's own
// words where it gave some.
func StartProfile(ctx context.Context, dataDir string) (*Profiler, error) {
	perf, err := findPerf()
	if err != nil {
		return nil, err
	}
	root := procFS("/proc")
	pm, err := postmasterPID(dataDir)
	if err == nil {
		err = checkPostmaster(string(root), pm, dataDir)
	}
	if err != nil {
		return nil, err
	}
	p := &Profiler{root: root, pm: pm, kinds: map[int]string{pm: "postmaster"}, waited: make(chan error, 1)}
	p.readKinds()
	if p.dir, err = os.MkdirTemp("", "pglab-perf-"); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if err := p.launch(ctx, perf); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// launch starts perf record with its events disabled and waits until it
// answers on its control pipe (it reads commands only once ready).
func (p *Profiler) launch(ctx context.Context, perf string) error {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return fmt.Errorf("profile: %w", err)
	}
	p.ctl, p.ack = ctlW, ackR
	p.cmd = osexec.Command(perf, "record", "-q", "-D", "-1", "--control", "fd:3,4",
		"-e", fmt.Sprintf("cpu-clock/freq=%d/", ProfileHz),
		"-e", fmt.Sprintf("cpu-clock/freq=%d,call-graph=dwarf,stack-size=%d/", StackHz, StackBytes),
		"-a", "-o", filepath.Join(p.dir, "perf.data"), "-N", "-B")
	p.cmd.ExtraFiles = []*os.File{ctlR, ackW}
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = p.cmd.Start()
	ctlR.Close()
	ackW.Close()
	if err != nil {
		return fmt.Errorf("profile: start perf: %w", err)
	}
	go func() { p.waited <- p.cmd.Wait() }()
	return p.command(ctx, "disable")
}

// Enable starts the samples (a command to perf and its answer: well
// under a millisecond once perf is ready).
func (p *Profiler) Enable(ctx context.Context) error {
	if err := p.command(ctx, "enable"); err != nil {
		return err
	}
	p.start = time.Now()
	p.perfRun, _, _ = p.root.schedstat(p.cmd.Process.Pid)
	p.watching, p.watched = make(chan struct{}), make(chan struct{})
	go p.watch()
	return nil
}

// watchInterval is how often the profiler reads the titles of the
// server's new processes (a backend or parallel worker that ends before
// Stop is known by its title only if read while it lived): about 1 ms of
// CPU per read with a hundred processes on the machine.
const watchInterval = 250 * time.Millisecond

// watch reads the kinds of new processes until Stop.
func (p *Profiler) watch() {
	defer close(p.watched)
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-p.watching:
			return
		case <-t.C:
			p.readKinds()
		}
	}
}

// readKinds names the server's processes not yet named.
func (p *Profiler) readKinds() {
	kids, err := p.root.children(p.pm)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range kids {
		if p.kinds[k.pid] == "" {
			p.kinds[k.pid] = p.root.processKind(k.pid)
		}
	}
}

// ackWait bounds how long perf may take to act on a command (attaching
// to many processes takes a while on a busy machine).
const ackWait = 20 * time.Second

// command sends perf a control command and waits for its "ack".
func (p *Profiler) command(ctx context.Context, cmd string) error {
	if _, err := p.ctl.Write([]byte(cmd + "\n")); err != nil {
		return p.failed(cmd, err)
	}
	got := make(chan error, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := p.ack.Read(buf)
		if err == nil && !bytes.HasPrefix(buf[:n], []byte("ack")) {
			err = fmt.Errorf("perf answered %q", buf[:n])
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			return p.failed(cmd, err)
		}
		return nil
	case err := <-p.waited:
		p.waited <- err
		return p.failed(cmd, fmt.Errorf("perf exited: %v", err))
	case <-time.After(ackWait):
		return p.failed(cmd, fmt.Errorf("perf did not answer within %s", ackWait))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed is the error of a control command, in perf's words when it
// printed any.
func (p *Profiler) failed(cmd string, err error) error {
	if msg := firstLine(p.stderr.String()); msg != "" {
		return fmt.Errorf("perf record: %s", msg)
	}
	return fmt.Errorf("perf record (%s): %w", cmd, err)
}

// firstLine returns the first line of s that says something.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "[ perf record:") {
			return l
		}
	}
	return ""
}

// Stop ends the sampling and waits for perf to write its file; the kinds
// of the processes still alive are read first (a backend's title says
// what it is). Stop may be called more than once.
func (p *Profiler) Stop() error {
	p.once.Do(func() {
		p.stopErr = p.command(context.Background(), "disable")
		p.end = time.Now()
		if run, _, err := p.root.schedstat(p.cmd.Process.Pid); err == nil && p.perfRun > 0 {
			p.perfStep = run - p.perfRun
		}
		if p.watching != nil {
			close(p.watching)
			<-p.watched
		}
		p.readKinds()
		// perf writes its file and exits on "stop" (closing the control
		// pipe first would leave the file unfinished).
		p.ctl.Write([]byte("stop\n"))
		select {
		case <-p.waited:
		case <-time.After(time.Minute):
			p.cmd.Process.Kill()
			<-p.waited
			if p.stopErr == nil {
				p.stopErr = errors.New("perf record did not stop within a minute")
			}
		}
		p.ctl.Close()
		p.ack.Close()
	})
	return p.stopErr
}

// Close stops perf if it runs and removes its file.
func (p *Profiler) Close() {
	switch {
	case p.cmd != nil && p.cmd.Process != nil:
		p.Stop()
	case p.ctl != nil:
		// perf never started: its pipes are all there is.
		p.ctl.Close()
		p.ack.Close()
	}
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// Profile reads the samples (perf script, after Stop) into a profile and
// removes perf's file.
func (p *Profiler) Profile(ctx context.Context) (*Profile, error) {
	if err := p.Stop(); err != nil {
		p.Close()
		return nil, err
	}
	defer p.Close()
	perf, err := findPerf()
	if err != nil {
		return nil, err
	}
	cmd := osexec.CommandContext(ctx, perf, "script", "-i", filepath.Join(p.dir, "perf.data"),
		"-F", "pid,period,event,ip,sym,dso", "--show-task-events", "--no-inline")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	prof, perr := parsePerfScript(out, p.pm, p.kinds)
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("perf script: %w: %s", err, firstLine(stderr.String()))
	}
	if perr != nil {
		return nil, perr
	}
	prof.Start, prof.End = p.start, p.end
	if ps := p.cmd.ProcessState; ps != nil {
		prof.PerfCPUMS = float64((ps.UserTime() + ps.SystemTime()).Microseconds()) / 1000
	}
	prof.PerfStepCPUMS = float64(p.perfStep) / 1e6
	return prof, nil
}

// processKind names a server process by its title (/proc/PID/cmdline):
// "checkpointer", "autovacuum worker", "client backend"…; "" when it
// cannot be read or has no title yet (a child just forked still has the
// postmaster's command line; an exiting one has none).
func (p procFS) processKind(pid int) string {
	data, err := os.ReadFile(string(p) + "/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return kindOfTitle(string(bytes.TrimRight(data, "\x00 ")))
}

// backgroundKinds are the titles of PostgreSQL's background processes
// (13–18), the longest first where one begins another.
var backgroundKinds = []string{
	"autovacuum launcher", "autovacuum worker", "background writer", "checkpointer",
	"walwriter", "walsender", "walreceiver", "walsummarizer", "wal summarizer",
	"archiver", "stats collector", "startup", "logger", "logical replication launcher",
	"logical replication parallel apply worker", "logical replication tablesync worker",
	"logical replication apply worker", "logical replication worker", "parallel worker",
	"io worker", "slotsync worker", "autoprewarm leader", "autoprewarm worker", "TimescaleDB",
}

// kindOfTitle names a server process from its title: "postgres:
// [cluster: ]checkpointer" is a checkpointer, a title naming a user, a
// database and a client is a client backend; "" for a title that is not
// a server process's.
func kindOfTitle(title string) string {
	rest, ok := strings.CutPrefix(title, "postgres: ")
	if !ok {
		return ""
	}
	for _, cand := range []string{rest, afterColon(rest)} {
		for _, k := range backgroundKinds {
			if strings.HasPrefix(cand, k) {
				return k
			}
		}
	}
	return "client backend"
}

// afterColon drops a "cluster: " prefix of a title.
func afterColon(s string) string {
	_, after, ok := strings.Cut(s, ": ")
	if !ok {
		return ""
	}
	return after
}

// Profile is what the server's processes did on CPU during a step,
// from perf's samples.
type Profile struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Hz and StackHz are the sampling rates (ProfileHz, StackHz).
	Hz      int `json:"hz"`
	StackHz int `json:"stack_hz"`
	// Samples are the samples taken at Hz; SampledMS the CPU time they
	// stand for (their periods summed).
	Samples   int     `json:"samples"`
	SampledMS float64 `json:"sampled_ms"`
	// PerfCPUMS is the CPU perf record itself used, attaching and
	// writing its file included, PerfStepCPUMS the part while it sampled
	// (the step): the profile's cost beside the cost of the samples to
	// the sampled processes (their interrupts and stack copies, counted
	// in their own CPU).
	PerfCPUMS     float64 `json:"perf_cpu_ms"`
	PerfStepCPUMS float64 `json:"perf_step_cpu_ms"`
	// Functions are every function sampled, by self time, most first.
	Functions []FunctionTime `json:"functions"`
	// Stacks are the samples taken at StackHz, folded: one line per
	// distinct stack, root first, the process kind its first frame.
	Stacks       []FoldedStack `json:"-"`
	StackSamples int           `json:"stack_samples"`
	// Processes are the samples (at Hz) per process kind; OtherSamples
	// those of the machine's other processes (and idle CPUs), left out.
	Processes    map[string]int `json:"processes"`
	OtherSamples int            `json:"other_samples"`
}

// FunctionTime is one function's self time: samples whose innermost
// frame was in it.
type FunctionTime struct {
	// Name is the symbol, or "[DSO]" when perf could not name it.
	Name string `json:"name"`
	// DSO is the file the code is in: the postgres program, a library,
	// "[kernel.kallsyms]" for the kernel.
	DSO     string  `json:"dso"`
	Samples int     `json:"samples"`
	MS      float64 `json:"ms"`
	Pct     float64 `json:"pct"`
}

// FoldedStack is one stack of the folded format: frames root first,
// joined by ';', and how many samples ended in it.
type FoldedStack struct {
	Stack   string
	Samples int
}

// Metrics gives cpu_sampled_ms and cpu_fn_ms:FUNCTION (self time in ms)
// for the functions with at least MinFunctionPct of the samples, at most
// MaxFunctions of them. A function without a metric in a step whose
// cpu_sampled_ms is there had less than that share: Functions has its
// figure.
func (p *Profile) Metrics() []Metric {
	out := []Metric{{Name: CPUSampledMS, Value: p.SampledMS, Unit: "ms"}}
	for i, f := range p.Functions {
		if i == MaxFunctions || f.Pct < MinFunctionPct {
			break
		}
		out = append(out, Metric{Name: CPUFnPrefix + f.Name, Value: f.MS, Unit: "ms"})
	}
	sortMetrics(out)
	return out
}

// Folded writes the stacks in the folded format of flame graph tools
// ("kind;main;…;leaf count" per line), most samples first.
func (p *Profile) Folded() []byte {
	var b bytes.Buffer
	for _, s := range p.Stacks {
		fmt.Fprintf(&b, "%s %d\n", s.Stack, s.Samples)
	}
	return b.Bytes()
}

// parsePerfScript reads perf script's output (-F
// pid,period,event,ip,sym,dso --show-task-events) of a system-wide
// recording: a sample of the call-chain event is a header line and one
// line per frame, innermost first, ended by an empty line; a sample of
// the other event is one line with its innermost frame; a FORK line
// names a new process and its parent (perf writes one for every process
// alive when it starts, then one per fork). Only the samples of the
// postmaster pm and its descendants count; the others are tallied in
// OtherSamples. kinds names processes by PID; a process not in it is
// "postgres" (one that started and ended within the step).
func parsePerfScript(r io.Reader, pm int, kinds map[int]string) (*Profile, error) {
	ps := &perfParser{
		prof:   &Profile{Hz: ProfileHz, StackHz: StackHz, Processes: map[string]int{}},
		fns:    map[string]*FunctionTime{},
		stacks: map[string]int{},
		server: map[int]bool{pm: true},
		kinds:  kinds,
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if err := ps.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	ps.endStack()
	return ps.finish(), nil
}

// perfParser is parsePerfScript's state.
type perfParser struct {
	prof   *Profile
	fns    map[string]*FunctionTime
	stacks map[string]int
	server map[int]bool // the postmaster and its descendants
	kinds  map[int]string
	// frames are the current call chain's (innermost first), kind its
	// process's; inStack: a chain of the server's is being read.
	frames  []string
	kind    string
	inStack bool
}

// line reads one line of perf script's output.
func (ps *perfParser) line(line string) error {
	switch {
	case strings.TrimSpace(line) == "":
		ps.endStack()
		return nil
	case line[0] == '\t':
		if ps.inStack {
			name, _ := frameName(strings.TrimSpace(line))
			ps.frames = append(ps.frames, strings.ReplaceAll(name, ";", ":"))
		}
		return nil
	}
	ps.endStack()
	f := strings.Fields(line)
	if len(f) >= 2 && strings.HasPrefix(f[1], "PERF_RECORD_") {
		ps.task(f[1])
		return nil
	}
	if len(f) < 3 {
		return fmt.Errorf("perf script: unexpected line %q", line)
	}
	pid, err1 := strconv.Atoi(f[0])
	period, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("perf script: unexpected line %q", line)
	}
	if !ps.server[pid] {
		if !strings.Contains(f[2], "call-graph") {
			ps.prof.OtherSamples++
		}
		return nil
	}
	ps.kind = cmp.Or(ps.kinds[pid], "postgres")
	if strings.Contains(f[2], "call-graph") {
		ps.inStack = true
		return nil
	}
	_, rest, _ := strings.Cut(line, f[2])
	ps.sample(strings.TrimSpace(rest), period)
	return nil
}

// task reads a task event: PERF_RECORD_FORK(CHILD:TID):(PARENT:TID)
// makes CHILD the server's when its parent is.
func (ps *perfParser) task(ev string) {
	rest, ok := strings.CutPrefix(ev, "PERF_RECORD_FORK(")
	if !ok {
		return
	}
	child, rest, _ := strings.Cut(rest, ":")
	_, parent, _ := strings.Cut(rest, "):(")
	parent, _, _ = strings.Cut(parent, ":")
	c, err1 := strconv.Atoi(child)
	p, err2 := strconv.Atoi(parent)
	if err1 == nil && err2 == nil && ps.server[p] {
		ps.server[c] = true
	}
}

// sample counts a sample without call chain: its function's self time.
func (ps *perfParser) sample(frame string, period float64) {
	name, dso := frameName(frame)
	fn := ps.fns[name]
	if fn == nil {
		fn = &FunctionTime{Name: name, DSO: dso}
		ps.fns[name] = fn
	}
	fn.Samples++
	fn.MS += period / 1e6
	ps.prof.Samples++
	ps.prof.SampledMS += period / 1e6
	ps.prof.Processes[ps.kind]++
}

// endStack folds the call chain read, if any.
func (ps *perfParser) endStack() {
	if ps.inStack && len(ps.frames) > 0 {
		parts := []string{ps.kind}
		for i := len(ps.frames) - 1; i >= 0; i-- {
			parts = append(parts, ps.frames[i])
		}
		ps.stacks[strings.Join(parts, ";")]++
		ps.prof.StackSamples++
	}
	ps.frames, ps.inStack = ps.frames[:0], false
}

// finish orders the functions by self time and the stacks by samples.
func (ps *perfParser) finish() *Profile {
	prof := ps.prof
	for _, fn := range ps.fns {
		fn.Pct = 100 * float64(fn.Samples) / float64(prof.Samples)
		prof.Functions = append(prof.Functions, *fn)
	}
	sort.Slice(prof.Functions, func(i, j int) bool {
		a, b := prof.Functions[i], prof.Functions[j]
		if a.MS != b.MS {
			return a.MS > b.MS
		}
		return a.Name < b.Name
	})
	for s, n := range ps.stacks {
		prof.Stacks = append(prof.Stacks, FoldedStack{s, n})
	}
	sort.Slice(prof.Stacks, func(i, j int) bool {
		a, b := prof.Stacks[i], prof.Stacks[j]
		if a.Samples != b.Samples {
			return a.Samples > b.Samples
		}
		return a.Stack < b.Stack
	})
	return prof
}

// frameName reads "ADDR SYMBOL (DSO)" into the function's name and its
// file: the symbol, or "[DSO's base name]" when perf could not name it.
func frameName(s string) (name, dso string) {
	_, rest, ok := strings.Cut(s, " ")
	if !ok {
		return "[unknown]", ""
	}
	sym := rest
	if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
		sym, dso = rest[:i], rest[i+2:len(rest)-1]
	}
	if sym == "" || sym == "[unknown]" {
		if dso == "" || dso == "[unknown]" {
			return "[unknown]", dso
		}
		return "[" + filepath.Base(dso) + "]", dso
	}
	return sym, dso
}
