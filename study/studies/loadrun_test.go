package studies

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/script"
)

// tick returns interval no of a run whose seconds ran tps transactions of
// 2 ms each.
func tick(no int, tps int64) bench.Interval {
	h := hdrhistogram.New(bench.Hist().Lowest, bench.Hist().Highest, int(bench.Hist().SigFigs))
	for range tps {
		h.RecordValue(2000)
	}
	return bench.Interval{No: no, ElapsedUS: int64(no) * 1e6,
		Stats: bench.Stats{Count: tps, Latency: bench.Series{Count: tps, Min: 2000, Max: 2000, Sum: 2000 * float64(tps), Sum2: 4e6 * float64(tps)}}, Hist: h}
}

func selectOnly(t *testing.T) bench.Config {
	b, err := script.FindBuiltin("select-only")
	if err != nil {
		t.Fatal(err)
	}
	cfg := bench.DefaultConfig()
	cfg.Scripts = []bench.ScriptSpec{bench.BuiltinSpec(b, 1)}
	cfg.Clients, cfg.Threads, cfg.Duration, cfg.Progress = 4, 2, 65*time.Second, time.Second
	return cfg
}

// TestLoadMonitor: the warm-up's seconds are left out of the figures, and
// a steady run ends once 5 batch means agree within the precision asked.
func TestLoadMonitor(t *testing.T) {
	stops := 0
	m := &loadMonitor{warmTicks: 5, target: 0.01, stop: func() { stops++ }}
	// Warm-up: slow seconds; then 1000 tps ± 0.5 %.
	for no := 1; no <= 5; no++ {
		m.add(tick(no, 200))
	}
	n := 5
	for stops == 0 && n < 65 {
		n++
		m.add(tick(n, 1000+int64(5*((n%3)-1))))
	}
	w := m.window()
	if stops != 1 || !w.Precise || w.Seconds != minSteadySeconds || w.Warmup != 5*time.Second || w.Measured != 10*time.Second || !(w.HalfWidthPct <= 1) {
		t.Errorf("stops %d, window %+v", stops, w)
	}
	m.add(tick(n+1, 1000)) // a tick after the stop is kept, no second stop
	if stops != 1 {
		t.Errorf("stopped %d times", stops)
	}
	cfg := selectOnly(t)
	full := &bench.Result{TPS: 700, ServerVersion: "17.10", Figures: &bench.Figures{ConnectUS: 1500}}
	steady, err := m.steady(cfg, full)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(steady.TPS-1000) > 2 || steady.Transactions < 10000 || math.Abs(steady.LatencyAvgMs-2) > 1e-9 || steady.ServerVersion != "17.10" || steady.ConnMs != 1.5 {
		t.Errorf("steady figures: tps %v, %d transactions, latency %v, conn %v", steady.TPS, steady.Transactions, steady.LatencyAvgMs, steady.ConnMs)
	}
	if math.Abs(steady.LatencyP99Ms-2) > 0.01 {
		t.Errorf("p99 %v from the merged histograms", steady.LatencyP99Ms)
	}
}

// TestLoadMonitorNoisy: a run whose seconds swing ±20 % never reaches 1 %
// and runs to its duration; without a warm-up the whole run is the window.
func TestLoadMonitorNoisy(t *testing.T) {
	stops := 0
	m := &loadMonitor{target: 0.01, stop: func() { stops++ }}
	rng := rand.New(rand.NewPCG(1, 1))
	for no := 1; no <= 60; no++ {
		m.add(tick(no, 1000+int64(200*rng.NormFloat64())))
	}
	w := m.window()
	if stops != 0 || w.Precise || w.Seconds != 60 || w.Warmup != 0 || w.Measured != 60*time.Second || w.HalfWidthPct <= 1 {
		t.Errorf("stops %d, window %+v", stops, w)
	}
	full := &bench.Result{TPS: 999}
	if steady, _ := m.steady(selectOnly(t), full); steady != full {
		t.Error("no warm-up: the figures are not the whole run's")
	}
	// Precision 0 never ends a run.
	stops = 0
	m = &loadMonitor{warmTicks: 1, stop: func() { stops++ }}
	for no := 1; no <= 30; no++ {
		m.add(tick(no, 1000))
	}
	if stops != 0 {
		t.Error("precision 0 ended the run")
	}
}
