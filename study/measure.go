package study

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/coldcache"
	"github.com/pglab/pglab/observe"
)

// Step is what the runner observed around one measured step.
type Step struct {
	// Elapsed is the client's wall time of the step.
	Elapsed time.Duration
	// Counters are the differences of the server's cumulative counters
	// across the step (WAL, fsyncs, buffers, I/O, commits), as observe
	// names them.
	Counters []observe.Metric
	// OS is what the machine did during the step (local servers only).
	OS *observe.OSSeries
	// CPU is the CPU time of the server's processes, of pglab and of
	// the machine's other work over the step (local servers only).
	CPU *observe.ServerCPU
	// Waits is what the server's sessions waited on during the step.
	Waits *observe.WaitProfile
	// Env are the counters of the environment's cgroup over the step
	// (peak memory, CPU throttling, disk bytes); nil without one.
	Env *env.Counters
	// WAL is the WAL written between the snapshots by record type (15+);
	// Profile the server's CPU by function (Runner.Profile). Nil when
	// not read.
	WAL     *observe.WALRecords
	Profile *observe.Profile
}

// osMetrics are the OS figures recorded with every measured step: the
// machine's CPU and disk (observe.OSSeries), and the CPU of the server's
// processes, of pglab and of the rest of the machine (observe.ServerCPU).
var osMetrics = map[string]bool{
	"cpu_busy_pct": true, "cpu_user_pct": true, "cpu_sys_pct": true, "iowait_pct": true,
	"disk_read_mb_s": true, "disk_write_mb_s": true, "disk_read_iops": true, "disk_write_iops": true,
	"disk_read_mb_s_max": true, "disk_write_mb_s_max": true, "disk_util_pct": true,
	"server_cpu_ms": true, "server_runq_ms": true, "client_cpu_ms": true, "steal_pct": true, "foreign_cpu_pct": true,
}

// Counter returns a counter difference by name.
func (st *Step) Counter(name string) (float64, bool) {
	m, ok := observe.Find(st.Counters, name)
	return m.Value, ok
}

// Measure runs fn as the measured step: the server's counters are read
// before and after (on a connection of the runner's own), and the wall time
// of fn is taken. work is the connection fn does its work on, flushed
// before the closing snapshot so that its statistics are counted; pass nil
// when fn works on other connections, which must be closed when it returns
// (the runner then waits for their statistics to arrive). The counters are
// stored as an artefact "counters" of the current case and repetition.
func (s *Session) Measure(ctx context.Context, work *pgx.Conn, fn func(context.Context) error) (*Step, error) {
	return s.MeasureStep(ctx, "step", work, fn)
}

// MeasureStep is Measure with the step's name for the bottleneck notes
// ("scan", "run", "VACUUM"). On a local server the file system's dirty
// pages are written out first (the same starting state on every target). While the step runs, the machine's CPU and
// the data directory's disk are sampled (local servers), and so are the
// server's wait events; their summaries are recorded as metrics of the
// current case (cpu_busy_pct, iowait_pct, disk_read_mb_s, …,
// wait_pct:EVENT), bottlenecks become notes, and the series are kept as
// artefacts "os-series" and "waits". On a local server the CPU time of
// the server's processes, of pglab and of the machine's other work over
// the step are recorded too (server_cpu_ms, server_runq_ms,
// client_cpu_ms, steal_pct, foreign_cpu_pct): how much the machine,
// rather than PostgreSQL, moved the step's time. On 15+ the WAL written
// between the snapshots is read by record type (wal_rec_count:TYPE,
// wal_rec_bytes:TYPE, wal_fpi_bytes:TYPE, wal_rec_total_bytes; artefact
// "wal-records"), and under Runner.Profile the server's processes are
// sampled on CPU during the step (cpu_fn_ms:FUNCTION, cpu_sampled_ms;
// artefacts "cpu-profile" and "cpu-stacks"): see evidence.go.
func (s *Session) MeasureStep(ctx context.Context, name string, work *pgx.Conn, fn func(context.Context) error) (*Step, error) {
	if err := s.probeRoundTrip(ctx); err != nil {
		return nil, err
	}
	obs, err := s.observer(ctx)
	if err != nil {
		return nil, err
	}
	ev := s.startEvidence(ctx, obs)
	defer ev.close()
	if s.Target.DataDir != "" {
		// Every step starts with no dirty page cache: the kernel's
		// write-back of what a target did before (this one's set-up, or
		// the other target's step just before) would otherwise run, and
		// be counted, inside this step.
		if err := coldcache.WriteBack(s.Target.DataDir); err != nil {
			return nil, err
		}
	}
	before, err := observe.Snapshot(ctx, obs)
	if err != nil {
		return nil, err // observe's errors say "read server counters: …"
	}
	var sessions map[int32]bool
	if work == nil {
		// fn's own connections: closed when it returns, and waited for.
		if sessions, err = observe.Sessions(ctx, obs); err != nil {
			return nil, err
		}
	}
	ev.attachProfile(ctx)
	sctx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	var osSampler *observe.OSSampler
	if s.Target.DataDir != "" {
		osSampler = observe.StartOS(sctx, s.Target.DataDir, 0)
	}
	waits, werr := observe.StartWaitsConfig(sctx, s.Target.observeConfig(), s.WaitInterval)
	if werr != nil {
		waits = nil
	}
	envStep, err := s.startEnvStep()
	if err != nil {
		return nil, err
	}
	var cpu *observe.ServerCPUSampler
	if s.Target.DataDir != "" {
		cpu = observe.StartServerCPU(s.Target.DataDir)
	}
	ev.enableProfile(ctx)
	start := time.Now()
	ferr := fn(ctx)
	step := &Step{Elapsed: time.Since(start)}
	ev.stopProfile()
	if cpu != nil {
		// Figures that could not be read are absent (a server that
		// restarted, a kernel without per-process run times).
		step.CPU, _ = cpu.Stop()
	}
	step.Env, err = stopEnvStep(envStep)
	if err != nil && ferr == nil {
		ferr = err
	}
	s.AddMeasured(step.Elapsed)
	if osSampler != nil {
		step.OS, _ = osSampler.Stop()
	}
	if waits != nil {
		step.Waits, _ = waits.Stop()
	}
	if ferr != nil {
		return step, ferr
	}
	if err := s.recordSampling(ctx, name, step); err != nil {
		return step, err
	}
	s.recordEnvStep(name, step)
	if work != nil {
		err = observe.Flush(ctx, work)
	} else {
		err = observe.SettleSessions(ctx, obs, sessions)
	}
	if err != nil {
		return step, err // observe's errors say "flush statistics: …"
	}
	after, err := observe.Snapshot(ctx, obs)
	if err != nil {
		return step, err
	}
	step.Counters = observe.Diff(before, after)
	if err := ev.record(ctx, obs, before, after, step); err != nil {
		return step, err
	}
	if data, err := json.Marshal(map[string]any{"elapsed_ms": float64(step.Elapsed.Microseconds()) / 1000, "counters": step.Counters}); err == nil {
		if err := s.Artefact(ctx, "counters", "application/json", data); err != nil {
			return step, err
		}
	}
	return step, nil
}

// observer returns the session's own connection for counter snapshots.
func (s *Session) observer(ctx context.Context) (*pgx.Conn, error) {
	s.mu.Lock()
	c := s.obs
	s.mu.Unlock()
	if c != nil && !c.IsClosed() {
		return c, nil
	}
	c, err := s.Target.connectDirect(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.obs = c
	s.mu.Unlock()
	return c, nil
}

// closeObserver closes the snapshot connection (the runner calls it before
// restarts and at the end).
func (s *Session) closeObserver() {
	s.mu.Lock()
	c := s.obs
	s.obs = nil
	s.mu.Unlock()
	if c != nil {
		c.Close(context.Background())
	}
}

// recordSampling records the OS, CPU and wait-event summaries of a step, its
// bottleneck notes, and the series as artefacts.
func (s *Session) recordSampling(ctx context.Context, name string, step *Step) error {
	if step.OS != nil {
		for _, m := range step.OS.Metrics() {
			if osMetrics[m.Name] {
				s.Record(m.Name, m.Value, unitText(m.Unit))
			}
		}
		for _, n := range observe.OSNotes(step.OS, name) {
			s.Note("%s", n.Text)
		}
		if data, err := json.Marshal(step.OS); err == nil {
			if err := s.Artefact(ctx, "os-series", "application/json", data); err != nil {
				return err
			}
		}
	}
	if step.CPU != nil {
		for _, m := range step.CPU.Metrics() {
			if osMetrics[m.Name] {
				s.Record(m.Name, m.Value, unitText(m.Unit))
			}
		}
	}
	if step.Waits != nil && step.Waits.Sessions > 0 {
		for _, m := range step.Waits.Metrics(3) {
			if m.Name != "wait_samples" {
				s.Record(waitMetricName(m.Name), m.Value, unitText(m.Unit))
			}
		}
		for _, n := range observe.WaitNotes(step.Waits) {
			s.Note("%s", n.Text)
		}
		if data, err := json.Marshal(step.Waits); err == nil {
			if err := s.Artefact(ctx, "waits", "application/json", data); err != nil {
				return err
			}
		}
	}
	return nil
}

// unitText maps observe's unit names to those reports format.
func unitText(u string) string {
	switch u {
	case "pct":
		return "%"
	case "count/s":
		return "/s"
	}
	return u
}

// waitMetricName gives wait events one spelling across versions:
// PostgreSQL 17 renamed many (IO:WALSync became IO:WalSync), which would
// split one event into two half-empty rows of a comparison.
func waitMetricName(name string) string {
	if ev, ok := strings.CutPrefix(name, "wait_pct:"); ok {
		return "wait_pct:" + strings.ToLower(ev)
	}
	return name
}

// RecordServerCPUPer records the server's CPU time per operation of a step
// as metric (µs, lower is better): the CPU its processes used over the
// step divided by ops. The server's own accounting is touched less by the
// machine than the step's wall time: waiting for a CPU, a disk or a
// client adds nothing to it. Absent, with a note, on a user's server and
// where the kernel keeps no per-process run times.
func (s *Session) RecordServerCPUPer(step *Step, metric string, ops float64) {
	switch {
	case ops <= 0:
		return
	case s.Target.DataDir == "":
		s.Unavailable(metric, "the server's CPU is read from /proc on this machine: not for a server elsewhere")
		return
	case step.CPU == nil || step.CPU.PID == 0 || !step.CPU.Schedstat:
		s.Unavailable(metric, "the server's processes or their run times (/proc/PID/schedstat) could not be read")
		return
	}
	s.Record(metric, float64(step.CPU.CPU.Nanoseconds())/1000/ops, "us", LowerIsBetter())
}
