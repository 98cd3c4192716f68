package observe

import (
	"context"
	"io"
	"sort"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// BenchmarkProfileCost measures what sampling costs a CPU-bound step —
// copy: a COPY TO STDOUT of a prewarmed table (about 0.3 s of server CPU,
// many context switches), cpu: a count over generate_series (one
// backend on CPU) — run without and with the profiler in alternating
// pairs. It reports the
// medians of the server's CPU per step (schedstat: the sampled
// processes pay for their interrupts and stack copies there) and of the
// step's wall time, each as the ratio on/off − 1 in percent, and perf
// record's own CPU while it sampled the step (another process, on another
// CPU when one is free). Run it with
// -benchtime=10x or more: each iteration is one pair.
func BenchmarkProfileCost(b *testing.B) {
	ctx := context.Background()
	inst := pgtest.Shared(b, "")
	conn := pgtest.Connect(b, pgtest.CreateDB(b, inst))
	for _, q := range []string{
		"CREATE EXTENSION pg_prewarm",
		"CREATE TABLE c AS SELECT g AS id, md5(g::text) AS a, repeat('z', 600) AS b FROM generate_series(1, 150000) g",
		"SELECT pg_prewarm('c')",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	b.Run("copy", func(b *testing.B) {
		profileCost(b, inst.DataDir(), func() error {
			_, err := conn.PgConn().CopyTo(ctx, io.Discard, "COPY c TO STDOUT")
			return err
		})
	})
	b.Run("cpu", func(b *testing.B) {
		profileCost(b, inst.DataDir(), func() error {
			_, err := conn.Exec(ctx, "SELECT count(*) FROM generate_series(1, 3000000)")
			return err
		})
	})
}

// profileCost runs work b.N times without and with the profiler (see
// BenchmarkProfileCost).
func profileCost(b *testing.B, dataDir string, work func() error) {
	ctx := context.Background()
	step := func(profile bool) (cpu, wall, perf float64) {
		var prof *Profiler
		if profile {
			var err error
			if prof, err = StartProfile(ctx, dataDir); err != nil {
				b.Fatal(err)
			}
			defer prof.Close()
		}
		sampler := StartServerCPU(dataDir)
		if prof != nil {
			if err := prof.Enable(ctx); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if err := work(); err != nil {
			b.Fatal(err)
		}
		wall = float64(time.Since(start).Microseconds()) / 1000
		if prof != nil {
			prof.Stop()
		}
		used, err := sampler.Stop()
		if err != nil {
			b.Fatal(err)
		}
		if prof != nil {
			p, err := prof.Profile(ctx)
			if err != nil {
				b.Fatal(err)
			}
			perf = p.PerfStepCPUMS
		}
		return float64(used.CPU.Microseconds()) / 1000, wall, perf
	}
	var cpuRatio, wallRatio, perfMS []float64
	for i := 0; i < b.N; i++ {
		first := i%2 == 0 // alternate which goes first
		c0, w0, p0 := step(!first)
		c1, w1, p1 := step(first)
		if !first {
			c0, c1, w0, w1 = c1, c0, w1, w0
		}
		cpuRatio = append(cpuRatio, c1/c0-1)
		wallRatio = append(wallRatio, w1/w0-1)
		perfMS = append(perfMS, p0+p1)
	}
	b.ReportMetric(100*median(cpuRatio), "server-cpu-%")
	b.ReportMetric(100*median(wallRatio), "wall-%")
	b.ReportMetric(median(perfMS), "perf-step-cpu-ms")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
