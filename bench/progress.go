package bench

import (
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// tickMsg carries one thread's figures for one -P interval to the reporter.
type tickMsg struct {
	thread int
	no     int
	now    int64
	stats  statsData
	hist   *hdrhistogram.Histogram
	done   bool
}

// publishTick hands the interval's figures to the reporter and starts the
// next interval (catching up if the thread was late).
func (t *thread) publishTick(now int64) {
	r := t.r
	for t.nextReport > 0 && t.nextReport <= now {
		if r.endTime > 0 && t.nextReport >= r.endTime {
			t.nextReport = 0
			return
		}
		t.tickNo++
		r.tickCh <- tickMsg{thread: t.id, no: t.tickNo, now: now, stats: t.tick, hist: t.tickHist}
		t.tick = statsData{}
		t.tickHist = newHist()
		t.nextReport += r.cfg.Progress.Microseconds()
	}
}

// reportProgress merges the threads' interval figures into one Interval
// per tick, prints its progress line and hands it to Config.OnInterval.
func (r *runner) reportProgress(res *Result, done chan struct{}) {
	defer close(done)
	type pendingTick struct {
		got   int
		now   int64
		stats statsData
		hist  *hdrhistogram.Histogram
	}
	printer := NewProgressPrinter(r.cfg, res)
	printer.write = r.writeStderr // under the lock of the clients' messages
	ticks := map[int]*pendingTick{}
	finished := 0
	next := 1
	emit := func() {
		for {
			p, ok := ticks[next]
			if !ok || p.got < r.nthreads-finished {
				return
			}
			delete(ticks, next)
			iv := Interval{No: next, ElapsedUS: p.now - r.startTime, EpochUS: p.now + r.epochShift, Stats: p.stats.export(), Hist: p.hist}
			printer.Print(iv)
			if r.cfg.OnInterval != nil {
				r.cfg.OnInterval(iv)
			}
			next++
		}
	}
	for m := range r.tickCh {
		if m.done {
			finished++
			emit()
			continue
		}
		p := ticks[m.no]
		if p == nil {
			p = &pendingTick{hist: m.hist}
			ticks[m.no] = p
		} else {
			p.hist.Merge(m.hist)
		}
		p.got++
		p.stats.merge(&m.stats)
		p.now = max(p.now, m.now)
		emit()
	}
}

// ProgressPrinter turns a run's intervals into pgbench's progress lines
// (printProgressReport) on the Config's Stderr, appends them to a Result's
// Progress and calls Config.OnProgress. A coordinated run prints the
// merged intervals of its workers with it.
type ProgressPrinter struct {
	cfg         Config
	res         *Result
	lastElapsed int64
	write       func(string)
}

// NewProgressPrinter returns a printer for the run of cfg whose ticks go
// to res.Progress.
func NewProgressPrinter(cfg Config, res *Result) *ProgressPrinter {
	cfg.normalize()
	var mu sync.Mutex
	w := cfg.Stderr
	return &ProgressPrinter{cfg: cfg, res: res, write: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(w, s)
	}}
}

// Print prints one interval (intervals come in order).
func (p *ProgressPrinter) Print(iv Interval) {
	cur := iv.Stats.internal()
	run := float64(iv.ElapsedUS - p.lastElapsed)
	p.lastElapsed = iv.ElapsedUS
	cnt := cur.cnt
	tk := ProgressTick{
		ElapsedS: float64(iv.ElapsedUS) / 1e6,
		Epoch:    float64(iv.EpochUS) / 1e6,
		Failed:   cur.failures(),
		Skipped:  cur.skipped,
		Retried:  cur.retried,
		Retries:  cur.retries,
	}
	if run > 0 {
		tk.TPS = 1e6 * float64(cnt) / run
	}
	if cnt > 0 {
		lat := 0.001 * cur.latency.sum / float64(cnt)
		sq := cur.latency.sum2 / float64(cnt)
		v := sq - 1e6*lat*lat
		if v < 0 {
			v = 0
		}
		tk.LatencyAvgMs = lat
		tk.LatencyStddevMs = 0.001 * math.Sqrt(v)
		tk.LagMs = 0.001 * cur.lag.sum / float64(cnt)
	}
	if iv.Hist != nil {
		fillPercentiles(iv.Hist, &tk.LatencyP50Ms, nil, &tk.LatencyP99Ms, nil, &tk.LatencyMaxMs)
	}
	p.res.Progress = append(p.res.Progress, tk)
	cfg := &p.cfg
	if cfg.OnProgress != nil {
		cfg.OnProgress(tk)
	}
	if cfg.Quiet {
		return
	}
	ts := fmt.Sprintf("%.1f s", tk.ElapsedS)
	if cfg.ProgressTimestamp {
		ts = fmt.Sprintf("%.3f s", tk.Epoch)
	}
	line := fmt.Sprintf("progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %d failed", ts, tk.TPS, tk.LatencyAvgMs, tk.LatencyStddevMs, tk.Failed)
	if cfg.Rate > 0 {
		line += fmt.Sprintf(", lag %.3f ms", tk.LagMs)
		if cfg.LatencyLimit.Microseconds() > 0 {
			line += fmt.Sprintf(", %d skipped", tk.Skipped)
		}
	}
	if cfg.MaxTries != 1 {
		line += fmt.Sprintf(", %d retried, %d retries", tk.Retried, tk.Retries)
	}
	p.write(line + "\n")
}
