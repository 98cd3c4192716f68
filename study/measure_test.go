package study

import (
	"context"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// cpuStudy runs a CPU-bound query as its measured step: on the step's
// work connection (case "open"), or on a connection of its own closed
// before the step ends (case "closed").
type cpuStudy struct{ elapsed map[string]time.Duration }

func (s *cpuStudy) Info() Info { return Info{Name: "cpu", Title: "a CPU-bound query", Version: 1} }

func (s *cpuStudy) Plan(Params) (Plan, error) {
	return Plan{Cases: []Case{
		{Name: "open", Labels: map[string]string{"case": "open"}},
		{Name: "closed", Labels: map[string]string{"case": "closed"}},
	}, Reps: 1}, nil
}

func (s *cpuStudy) Setup(context.Context, *Session) error    { return nil }
func (s *cpuStudy) Teardown(context.Context, *Session) error { return nil }

func (s *cpuStudy) Run(ctx context.Context, ss *Session, c Case, rep int) error {
	const q = "SELECT count(*) FROM generate_series(1, 5e6)"
	conn, err := ss.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	work, fn := conn, func(ctx context.Context) error { _, err := conn.Exec(ctx, q); return err }
	if c.Name == "closed" {
		work, fn = nil, func(ctx context.Context) error {
			own, err := ss.Target.Connect(ctx)
			if err != nil {
				return err
			}
			defer own.Close(ctx)
			_, err = own.Exec(ctx, q)
			return err
		}
	}
	step, err := ss.MeasureStep(ctx, "query", work, fn)
	if err != nil {
		return err
	}
	s.elapsed[c.Name] = step.Elapsed
	return nil
}

// TestMeasureStepServerCPU: a measured step on a local server records the
// server's CPU (about the query's time, also when its connection closed
// within the step), pglab's, the steal and the foreign CPU.
func TestMeasureStepServerCPU(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Shared(t, "")
	tg, err := DSNTarget(ctx, "a", pgtest.CreateDB(t, inst))
	if err != nil {
		t.Fatal(err)
	}
	if tg.DataDir != inst.DataDir() {
		t.Fatalf("target's data directory %q, the server's %q", tg.DataDir, inst.DataDir())
	}
	st := &cpuStudy{elapsed: map[string]time.Duration{}}
	out, err := (&Runner{Targets: []*Target{tg}}).Run(ctx, st, Params{})
	if err != nil {
		t.Fatal(err)
	}
	units := map[string]string{"server_cpu_ms": "ms", "server_runq_ms": "ms", "client_cpu_ms": "ms", "steal_pct": "%", "foreign_cpu_pct": "%"}
	for _, name := range []string{"open", "closed"} {
		got := map[string]float64{}
		for _, m := range out.Measurements {
			if m.Case["case"] == name && units[m.Metric] != "" {
				got[m.Metric] = m.Value
				if m.Unit != units[m.Metric] {
					t.Errorf("%s: %s in %q, want %q", name, m.Metric, m.Unit, units[m.Metric])
				}
			}
		}
		el := st.elapsed[name]
		t.Logf("%s: step %v: %v", name, el, got)
		if len(got) != len(units) {
			t.Errorf("%s: recorded %v, want all of %v", name, got, units)
		}
		ms := float64(el.Microseconds()) / 1000
		cpu, runq := got["server_cpu_ms"], got["server_runq_ms"]
		if cpu > ms*1.1+20 {
			t.Errorf("%s: server_cpu_ms %.1f in a step of %.1f ms", name, cpu, ms)
		}
		switch {
		case name == "open" && cpu+runq < ms/2:
			// The backend, runnable throughout, was on a CPU or waiting
			// for one (the wait of one that exited is not known).
			t.Errorf("%s: server_cpu_ms %.1f and server_runq_ms %.1f in a step of %.1f ms", name, cpu, runq, ms)
		case got["foreign_cpu_pct"]+got["steal_pct"] >= 40:
			t.Logf("%s: a disturbed step, the CPUs were busy with other work", name)
		case cpu < ms/2:
			t.Errorf("%s: server_cpu_ms %.1f in a step of %.1f ms", name, cpu, ms)
		}
	}
}
