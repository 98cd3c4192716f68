package bench

import (
	"fmt"
	"math"

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

// reportProgress merges the threads' interval figures and prints one
// progress line per tick, as pgbench's printProgressReport.
func (r *runner) reportProgress(res *Result, done chan struct{}) {
	defer close(done)
	type pendingTick struct {
		got   int
		now   int64
		stats statsData
		hist  *hdrhistogram.Histogram
	}
	ticks := map[int]*pendingTick{}
	finished := 0
	lastReport := r.startTime
	next := 1
	emit := func() {
		for {
			p, ok := ticks[next]
			if !ok || p.got < r.nthreads-finished {
				return
			}
			delete(ticks, next)
			r.printTick(res, p.stats, p.hist, p.now, lastReport)
			lastReport = p.now
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

func (r *runner) printTick(res *Result, cur statsData, hist *hdrhistogram.Histogram, now, last int64) {
	run := float64(now - last)
	cnt := cur.cnt
	tk := ProgressTick{
		ElapsedS: float64(now-r.startTime) / 1e6,
		Epoch:    float64(now+r.epochShift) / 1e6,
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
	fillPercentiles(hist, &tk.LatencyP50Ms, nil, &tk.LatencyP99Ms, nil, &tk.LatencyMaxMs)
	res.Progress = append(res.Progress, tk)
	if r.cfg.OnProgress != nil {
		r.cfg.OnProgress(tk)
	}
	if r.cfg.Quiet {
		return
	}
	ts := fmt.Sprintf("%.1f s", tk.ElapsedS)
	if r.cfg.ProgressTimestamp {
		ts = fmt.Sprintf("%.3f s", tk.Epoch)
	}
	line := fmt.Sprintf("progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %d failed", ts, tk.TPS, tk.LatencyAvgMs, tk.LatencyStddevMs, tk.Failed)
	if r.throttleDelay > 0 {
		line += fmt.Sprintf(", lag %.3f ms", tk.LagMs)
		if r.latencyLimit > 0 {
			line += fmt.Sprintf(", %d skipped", tk.Skipped)
		}
	}
	if r.maxTries != 1 {
		line += fmt.Sprintf(", %d retried, %d retries", tk.Retried, tk.Retries)
	}
	r.writeStderr(line + "\n")
}
