package observe

import (
	"context"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestProfileCopyTo profiles a COPY TO STDOUT of a prewarmed table on a
// connection opened before the profiler started, and one opened after
// (a backend forked while perf runs, followed through inheritance): COPY
// TO's CopyAttributeOutText has self time, the folded stacks run from
// the client backend through DoCopyTo to CopyOneRowTo (18 calls a
// routine of the format's from it: CopyToTextOneRow), and the CPU the samples
// stand for is the server's CPU over the step (schedstat) within 25 %.
func TestProfileCopyTo(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			inst := pgtest.Shared(t, v)
			dsn := pgtest.CreateDB(t, inst)
			conn := pgtest.Connect(t, dsn)
			for _, q := range []string{
				"CREATE EXTENSION pg_prewarm",
				"CREATE TABLE c AS SELECT g AS id, md5(g::text) AS a, repeat('z', 600) AS b FROM generate_series(1, 150000) g",
				"SELECT pg_prewarm('c')",
			} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			cpu := StartServerCPU(inst.DataDir())
			began := time.Now()
			prof, err := StartProfile(ctx, inst.DataDir())
			attach := time.Since(began)
			if err != nil {
				t.Fatal(err)
			}
			defer prof.Close()
			if err := prof.Enable(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.PgConn().CopyTo(ctx, io.Discard, "COPY c TO STDOUT"); err != nil {
				t.Fatal(err)
			}
			late := pgtest.Connect(t, dsn)
			if _, err := late.PgConn().CopyTo(ctx, io.Discard, "COPY c TO STDOUT"); err != nil {
				t.Fatal(err)
			}
			late.Close(ctx)
			if err := prof.Stop(); err != nil {
				t.Fatal(err)
			}
			used, err := cpu.Stop()
			if err != nil {
				t.Fatal(err)
			}
			began = time.Now()
			p, err := prof.Profile(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("perf ready in %s, its samples read in %s; perf's CPU %.0f ms, %.1f ms of it while sampling; %d samples of other processes",
				attach.Round(time.Millisecond), time.Since(began).Round(time.Millisecond), p.PerfCPUMS, p.PerfStepCPUMS, p.OtherSamples)
			var top []string
			for _, f := range p.Functions[:min(8, len(p.Functions))] {
				top = append(top, f.Name)
			}
			serverMS := float64(used.CPU.Microseconds()) / 1000
			t.Logf("PostgreSQL %s: %d samples, %.0f ms sampled, server CPU %.0f ms; %d stack samples, %d stacks; top: %s; by process: %v",
				v, p.Samples, p.SampledMS, serverMS, p.StackSamples, len(p.Stacks), strings.Join(top, ", "), p.Processes)
			if !slices.ContainsFunc(p.Functions, func(f FunctionTime) bool { return f.Name == "CopyAttributeOutText" && f.Samples > 0 }) {
				t.Errorf("no samples in CopyAttributeOutText")
			}
			if math.Abs(p.SampledMS-serverMS) > 0.25*serverMS {
				t.Errorf("samples stand for %.0f ms of CPU, the server used %.0f ms", p.SampledMS, serverMS)
			}
			ms := p.Metrics()
			if m, ok := Find(ms, CPUFnPrefix+p.Functions[0].Name); !ok || m.Value <= 0 || m.Unit != "ms" {
				t.Errorf("no metric for the top function %s: %+v", p.Functions[0].Name, ms)
			}
			if p.Processes["client backend"] < p.Samples/2 {
				t.Errorf("client backends have %d of %d samples", p.Processes["client backend"], p.Samples)
			}
			rowFn := "CopyOneRowTo"
			folded := string(p.Folded())
			deep := false
			for _, l := range strings.Split(folded, "\n") {
				if strings.HasPrefix(l, "client backend;") && strings.Contains(l, ";DoCopyTo;"+rowFn+";") {
					deep = true
					break
				}
			}
			if !deep {
				t.Errorf("no folded stack from a client backend through DoCopyTo to %s:\n%.3000s", rowFn, folded)
			}
		})
	}
}

// TestProfileAbsent: a server elsewhere cannot be sampled; a local one
// can, perf being installed (make test installs it); a directory without
// a server cannot.
func TestProfileAbsent(t *testing.T) {
	if why := ProfileAbsent(""); !strings.Contains(why, "elsewhere") {
		t.Errorf("ProfileAbsent(\"\") = %q", why)
	}
	if why := ProfileAbsent(t.TempDir()); why != "" {
		t.Errorf("ProfileAbsent(local) = %q; install perf (apt-get install linux-perf)", why)
	}
	// A directory without a running server: StartProfile says why.
	if _, err := StartProfile(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "postmaster.pid") {
		t.Errorf("StartProfile without a server: %v", err)
	}
}
