package dist

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/pglab/pglab/bench"
)

// TestSplit: for many (clients, threads, workers, rate) the shares' client
// ranges are disjoint and cover [0, c), the rates add up to -R, every
// worker has at least one client and one thread, and shares differ by at
// most one client.
func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		n := 1 + rng.IntN(20)
		c := n + rng.IntN(3000)
		j := 1 + rng.IntN(100)
		cfg := bench.DefaultConfig()
		cfg.Clients, cfg.Threads, cfg.Rate = c, j, float64(1+rng.IntN(100000))
		shares, err := Split(cfg, n)
		if err != nil {
			t.Fatalf("c=%d j=%d n=%d: %v", c, j, n, err)
		}
		next, nextT, minC, maxC := 0, 0, c, 0
		rate := 0.0
		for k, s := range shares {
			if s.Part.FirstClient != next || s.Clients < 1 || s.Threads < 1 || s.Threads > s.Clients {
				t.Fatalf("c=%d j=%d n=%d: share %d: first %d (want %d) clients %d threads %d", c, j, n, k, s.Part.FirstClient, next, s.Clients, s.Threads)
			}
			if s.Part.TotalClients != c || s.Part.FirstThread != nextT || s.Part.TotalThreads != TotalThreads(shares) {
				t.Fatalf("c=%d j=%d n=%d: share %d: part %+v", c, j, n, k, s.Part)
			}
			if k > 0 && !s.NoVacuum {
				t.Fatalf("share %d vacuums too", k)
			}
			next += s.Clients
			nextT += s.Threads
			rate += s.Rate
			minC, maxC = min(minC, s.Clients), max(maxC, s.Clients)
		}
		if next != c || maxC-minC > 1 {
			t.Fatalf("c=%d n=%d: clients cover %d, spread %d..%d", c, n, next, minC, maxC)
		}
		if want := max(min(j, c), n); TotalThreads(shares) != min(want, c) && TotalThreads(shares) < n {
			t.Fatalf("c=%d j=%d n=%d: %d threads", c, j, n, TotalThreads(shares))
		}
		if math.Abs(rate-cfg.Rate) > 1e-6*cfg.Rate {
			t.Fatalf("rates add up to %f, want %f", rate, cfg.Rate)
		}
	}
	cfg := bench.DefaultConfig()
	cfg.Clients = 2
	if _, err := Split(cfg, 3); err == nil {
		t.Error("2 clients split over 3 workers")
	}
}

// ksExponential is the Kolmogorov-Smirnov statistic of the sample against
// the exponential distribution of the given rate.
func ksExponential(x []float64, rate float64) float64 {
	sort.Float64s(x)
	n := float64(len(x))
	d := 0.0
	for i, v := range x {
		f := 1 - math.Exp(-rate*v)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(float64(i+1)/n-f))
	}
	return d
}

// mergedGaps runs the engine's -R schedule of every share (the same random
// streams and delays as a run, see bench.ThrottleSchedule) and returns the
// inter-arrival times of the merged arrivals, in seconds.
func mergedGaps(t *testing.T, shares []bench.Config, horizon time.Duration) []float64 {
	t.Helper()
	var all []int64
	for _, s := range shares {
		sched, err := bench.ThrottleSchedule(s, horizon)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range sched {
			all = append(all, th...)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	gaps := make([]float64, 0, len(all))
	prev := int64(0)
	for _, v := range all {
		gaps = append(gaps, float64(v-prev)/1e6)
		prev = v
	}
	return gaps
}

// TestRateSplitIsOnePoissonStream: the workers' -R schedules of a split
// run, merged, are one Poisson stream of the whole rate: the arrival count
// is within a Poisson bound of R·T, and the inter-arrival times pass a
// Kolmogorov-Smirnov test against Exp(R) at α = 0.01 (fixed seed). Two
// wrong splits fail the same test: every worker at the whole rate, and
// workers that share their threads' random streams.
func TestRateSplitIsOnePoissonStream(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Clients, cfg.Threads, cfg.Rate, cfg.RandomSeed = 12, 3, 200, 42
	shares, err := Split(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	horizon := 100 * time.Second
	gaps := mergedGaps(t, shares, horizon)
	n := float64(len(gaps))
	want := cfg.Rate * horizon.Seconds()
	if math.Abs(n-want) > 4*math.Sqrt(want) {
		t.Errorf("%v arrivals in %v, want %v ± %v", n, horizon, want, 4*math.Sqrt(want))
	}
	crit := 1.628 / math.Sqrt(n)
	if d := ksExponential(gaps, cfg.Rate); d > crit {
		t.Errorf("KS statistic %.4f > %.4f: the merged arrivals are not Exp(%v)", d, crit, cfg.Rate)
	}

	whole := make([]bench.Config, len(shares))
	for i, s := range shares {
		s.Rate = cfg.Rate
		whole[i] = s
	}
	g := mergedGaps(t, whole, horizon)
	if d := ksExponential(g, cfg.Rate); d <= 1.628/math.Sqrt(float64(len(g))) {
		t.Errorf("every worker at the whole rate passed the test (KS %.4f)", d)
	}
	same := make([]bench.Config, len(shares))
	for i, s := range shares {
		s.Part.FirstThread = 0
		same[i] = s
	}
	g = mergedGaps(t, same, horizon)
	if d := ksExponential(g, cfg.Rate); d <= 1.628/math.Sqrt(float64(len(g))) {
		t.Errorf("workers with the same random streams passed the test (KS %.4f)", d)
	}
}

// TestMergeIsExact: latencies recorded into one histogram, and the same
// values spread over several (as workers and their threads record them)
// then sent through the wire encoding and merged, give equal histograms and
// equal percentiles; a histogram of another configuration is refused.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20; trial++ {
		parts := 1 + rng.IntN(8)
		one := hdrhistogram.New(bench.Hist().Lowest, bench.Hist().Highest, int(bench.Hist().SigFigs))
		split := make([]*hdrhistogram.Histogram, parts)
		for i := range split {
			split[i] = hdrhistogram.New(bench.Hist().Lowest, bench.Hist().Highest, int(bench.Hist().SigFigs))
		}
		for i := 0; i < 20000; i++ {
			// log-normal latencies around 1 ms, a tail up to minutes
			v := int64(math.Exp(rng.NormFloat64()*1.5+7)) + 1
			v = min(v, bench.Hist().Highest)
			_ = one.RecordValue(v)
			_ = split[rng.IntN(parts)].RecordValue(v)
		}
		merged := &bench.Figures{Scripts: []bench.Stats{{}}, Commands: [][]bench.CommandStats{{}}}
		for _, h := range split {
			b, err := bench.EncodeHist(h)
			if err != nil {
				t.Fatal(err)
			}
			d, err := bench.DecodeHist(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := merged.Merge(&bench.Figures{Scripts: []bench.Stats{{}}, Commands: [][]bench.CommandStats{{}}, Hist: d}); err != nil {
				t.Fatal(err)
			}
		}
		if !merged.Hist.Equals(one) {
			t.Fatalf("trial %d: merged histogram differs from the one of every sample", trial)
		}
		for _, q := range []float64{50, 90, 99, 99.9, 100} {
			if a, b := merged.Hist.ValueAtQuantile(q), one.ValueAtQuantile(q); a != b {
				t.Fatalf("trial %d: p%v merged %d, one histogram %d", trial, q, a, b)
			}
		}
	}
	other := hdrhistogram.New(1, 60*1000*1000, 2)
	_ = other.RecordValue(5)
	b, _ := bench.EncodeHist(other)
	if _, err := bench.DecodeHist(b); err == nil {
		t.Error("a histogram of another configuration decoded without complaint")
	}
	f := &bench.Figures{Scripts: []bench.Stats{{}}, Commands: [][]bench.CommandStats{{}}}
	if err := f.Merge(&bench.Figures{Scripts: []bench.Stats{{}}, Commands: [][]bench.CommandStats{{}}, Hist: other}); err == nil {
		t.Error("figures with a histogram of another configuration merged")
	}
}

func TestStripPassword(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"postgres://u:secret@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?sslmode=disable"},
		{"postgres://u@h/db?password=secret&sslmode=require", "postgres://u@h/db?sslmode=require"},
		{"host=h password=secret dbname=d", "host=h dbname=d"},
		{"host=h password = 'se cr\\'et' dbname=d", "host=h dbname=d"},
		{"bench", "bench"},
		{"host=h dbname=d", "host=h dbname=d"},
	} {
		got, found := StripPassword(tc.in)
		if got != tc.out || found != (tc.in != tc.out) {
			t.Errorf("StripPassword(%q) = %q, %v; want %q", tc.in, got, found, tc.out)
		}
	}
}
