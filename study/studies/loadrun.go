package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/study"
)

// Load runs sized by precision. A load run (tps, tune) measures its
// throughput per second after a warm-up that is left out of its figures;
// a timed run ends as soon as the seconds after the warm-up give the mean
// throughput to the precision asked — the half-width of its batch-means
// 95 % interval (compare.BatchMeans, 5 batches) at most that share of the
// mean, checked from minSteadySeconds on — or at its duration. The
// seconds of a run are not repetitions (Kalibera & Jones; verdicts.md
// §1.3): the run stays the unit the U test compares, the rule only
// shortens each run.

// minSteadySeconds is the fewest seconds after the warm-up before the
// precision is checked: five batches of two seconds.
const minSteadySeconds = 10

// precisionBatches is the number of batches of the precision rule.
const precisionBatches = 5

// loadWindow is what a load run measured after its warm-up.
type loadWindow struct {
	// Warmup is the time left out at the start, Measured the window the
	// figures come from.
	Warmup, Measured time.Duration
	// HalfWidthPct is the half-width of the 95 % interval of the mean
	// throughput per second in percent of it (NaN when too short).
	HalfWidthPct float64
	// Precise reports that the run ended because it reached the
	// precision asked, before its duration.
	Precise bool
	// Seconds counts the intervals after the warm-up.
	Seconds int
}

// loadMonitor watches a load run's intervals (bench.Config.OnInterval):
// it keeps those after the warm-up and ends the run (stop) once they give
// the precision asked.
type loadMonitor struct {
	// warmTicks is the number of progress intervals of the warm-up.
	warmTicks int
	// target is the relative half-width wanted (0.01 = 1 %); 0 never
	// ends a run early.
	target float64
	stop   func()

	mu        sync.Mutex
	warmEndUS int64
	after     []bench.Interval
	precise   bool
}

// add takes one interval of the run.
func (m *loadMonitor) add(iv bench.Interval) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if iv.No <= m.warmTicks {
		m.warmEndUS = iv.ElapsedUS
		return
	}
	m.after = append(m.after, iv)
	if m.target <= 0 || m.precise || len(m.after) < minSteadySeconds {
		return
	}
	mean, hw, ok := compare.BatchMeans(m.perSecond(), precisionBatches)
	if ok && mean > 0 && hw/mean <= m.target {
		m.precise = true
		if m.stop != nil {
			m.stop()
		}
	}
}

// perSecond returns the throughput of each interval after the warm-up
// (m.mu held).
func (m *loadMonitor) perSecond() []float64 {
	out := make([]float64, len(m.after))
	prev := m.warmEndUS
	for i, iv := range m.after {
		if d := iv.ElapsedUS - prev; d > 0 {
			out[i] = float64(iv.Stats.Count) / (float64(d) / 1e6)
		}
		prev = iv.ElapsedUS
	}
	return out
}

// window returns what the run measured after its warm-up.
func (m *loadMonitor) window() loadWindow {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := loadWindow{Warmup: time.Duration(m.warmEndUS) * time.Microsecond, Precise: m.precise, Seconds: len(m.after)}
	if len(m.after) > 0 {
		w.Measured = time.Duration(m.after[len(m.after)-1].ElapsedUS-m.warmEndUS) * time.Microsecond
	}
	mean, hw, ok := compare.BatchMeans(m.perSecond(), precisionBatches)
	w.HalfWidthPct = hw / mean * 100
	if !ok || mean <= 0 {
		w.HalfWidthPct = math.NaN()
	}
	return w
}

// steady returns the figures of the run after its warm-up: the intervals
// after it summed into bench's figures and summarised as one run of cfg
// whose window they are. Without intervals after the warm-up (a run
// shorter than it, or a coordinated run, whose intervals stay with its
// workers) it returns the whole run's.
func (m *loadMonitor) steady(cfg bench.Config, full *bench.Result) (*bench.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.after) == 0 || m.warmEndUS == 0 {
		return full, nil
	}
	fig, err := bench.NewFigures(&cfg)
	if err != nil {
		return nil, err
	}
	for _, iv := range m.after {
		fig.Stats.Add(iv.Stats)
		if iv.Hist != nil {
			fig.Hist.Merge(iv.Hist)
		}
	}
	fig.BenchUS = m.after[len(m.after)-1].ElapsedUS - m.warmEndUS
	if full.Figures != nil {
		fig.ConnectUS = full.Figures.ConnectUS
	}
	res := &bench.Result{ServerVersion: full.ServerVersion, Scale: full.Scale, PartitionMethod: full.PartitionMethod, Partitions: full.Partitions}
	if cfg.Duration > 0 {
		cfg.Duration = time.Duration(fig.BenchUS) * time.Microsecond
	}
	if err := bench.Summarize(cfg, fig, res); err != nil {
		return nil, fmt.Errorf("figures after the warm-up: %w", err)
	}
	res.Progress, res.Aborted = full.Progress, full.Aborted
	return res, nil
}

// runSized runs a load of cfg with the warm-up and precision of the
// study's parameters: it returns the whole run's result (for counters per
// transaction, which cover the whole run), its figures after the
// warm-up, and what it measured.
func runSized(ctx context.Context, s *study.Session, cfg bench.Config, warmup time.Duration, target float64) (full, steady *bench.Result, w loadWindow, err error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Progress == 0 {
		cfg.Progress = time.Second
	}
	m := &loadMonitor{warmTicks: int((warmup + cfg.Progress - 1) / cfg.Progress), stop: cancel}
	if cfg.Duration > 0 {
		m.target = target
		cfg.Duration += time.Duration(m.warmTicks) * cfg.Progress
	}
	cfg.OnInterval = m.add
	full, err = s.RunLoad(runCtx, cfg)
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil && full != nil {
		err = nil // ended by the precision rule
	}
	if err != nil {
		return full, nil, w, err
	}
	steady, err = m.steady(cfg, full)
	return full, steady, m.window(), err
}

// recordWindow records what a load run measured after its warm-up, as
// auxiliary figures: the warm-up left out, the window measured, the
// precision reached, and whether the run ended by the precision rule.
func recordWindow(s *study.Session, w loadWindow) {
	s.Record("warmup_s", w.Warmup.Seconds(), "s")
	s.Record("measured_s", w.Measured.Seconds(), "s")
	if !math.IsNaN(w.HalfWidthPct) {
		s.Record("tps_ci_pct", w.HalfWidthPct, "%", study.LowerIsBetter())
	}
	precise := 0.0
	if w.Precise {
		precise = 1
	}
	s.Record("ended_by_precision", precise, "count")
}
