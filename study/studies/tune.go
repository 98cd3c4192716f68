package studies

import (
	"context"
	"fmt"
	"strings"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/detect"
)

// tuneStudy is seed 003: PGTune's recommendations applied to a server,
// pgbench -N -c 30 -t 1000 five times with the defaults and five times
// with the recommendations, interleaved, and the change with its
// significance.
type tuneStudy struct{}

func init() { study.Register("tune", func() study.Study { return tuneStudy{} }) }

func (tuneStudy) Info() study.Info {
	params := []study.Param{
		{Name: "type", Kind: study.KindString, Default: "web", Choices: []string{"web", "oltp", "dw", "desktop", "mixed"}, Doc: "PGTune's DB type"},
		{Name: "memory", Kind: study.KindString, Default: "", Doc: "total memory for PGTune, e.g. 4GB (default: this machine's)"},
		{Name: "cpus", Kind: study.KindInt, Default: "0", Min: 0, MinSet: true, Doc: "CPUs for PGTune (0: this machine's)"},
		{Name: "connections", Kind: study.KindInt, Default: "100", Min: 0, MinSet: true, Doc: "connections for PGTune (the seed's 100; 0: PGTune's default for the type)"},
		{Name: "storage", Kind: study.KindString, Default: "", Doc: "ssd, hdd, san or nvme (default: the disk of the servers)"},
	}
	// The seed's workload: pgbench -N -c 30 -t 1000.
	for _, p := range tpsParams("30", "30", "60s", "60s", "1", "1") {
		switch p.Name {
		case "transactions":
			p.Default, p.Quick = "1000", "200"
		case "builtin":
			p.Default = "simple-update"
		case "checkpoint_before":
			p.Default = "true"
		}
		params = append(params, p)
	}
	return study.Info{
		Name:    "tune",
		Title:   "PGTune's recommendations versus the defaults, pgbench -N -c 30 -t 1000, interleaved",
		Source:  "seed 003",
		Params:  params,
		Version: 1,
		// Not in --studies all: it compares configurations of one server.
		Presentation: &results.Presentation{
			Labels: []results.LabelColumn{{Key: "clients", Head: "clients"}},
			Primary: []results.MetricHead{
				{Metric: "tps", Head: "Throughput"},
				{Metric: "latency_avg_ms", Head: "Average latency", Twin: "tps"},
			},
			Charts: []results.Chart{
				{Kind: results.Lines, Title: "Throughput by clients, defaults and tuned", Metrics: []string{"tps"}, X: "clients", XHead: "clients"},
			},
			Texts: []results.TextView{{Name: results.SummaryArtefact, Head: "pgbench's summary"}},
		},
	}
}

func (tuneStudy) Plan(p study.Params) (study.Plan, error) {
	if err := checkTPSParams(p); err != nil {
		return study.Plan{}, err
	}
	if _, err := tuneInputs(p, 17); err != nil {
		return study.Plan{}, err
	}
	return study.Plan{Cases: tpsCases(p), Reps: 5, QuickReps: 8}, nil
}

// tuneInputs builds PGTune's inputs from the parameters, detecting what
// was not given on this machine.
func tuneInputs(p study.Params, major int) (tune.Inputs, error) {
	in := tune.DefaultInputs()
	in.Version = major
	w, err := tune.ParseWorkload(p.String("type"))
	if err != nil {
		return in, err
	}
	in.Workload = w
	if m := p.String("memory"); m != "" {
		if in.Memory, err = tune.ParseMemory(m); err != nil {
			return in, err
		}
	} else {
		kb, _, err := (detect.Host{}).MemoryKB()
		if err != nil {
			return in, fmt.Errorf("detect memory (give --param memory=4GB): %w", err)
		}
		in.Memory = tune.MemoryFromKB(kb)
	}
	in.CPUs = int(p.Int("cpus"))
	if in.CPUs == 0 {
		in.CPUs, _ = detect.CPUs()
	}
	in.Connections = int(p.Int("connections"))
	if s := p.String("storage"); s != "" {
		if in.Storage, err = tune.ParseStorage(s); err != nil {
			return in, err
		}
	} else if st, _, err := (detect.Host{}).Storage(pgserver.TempRoot()); err == nil {
		in.Storage = st
	}
	if err := in.Validate(); err != nil {
		return in, err
	}
	return in, nil
}

// Variants are the server's defaults and PGTune's recommendations for its
// version.
func (tuneStudy) Variants(p study.Params, major int) ([]study.Variant, error) {
	in, err := tuneInputs(p, major)
	if err != nil {
		return nil, err
	}
	rec, err := tune.Recommend(in)
	if err != nil {
		return nil, err
	}
	var sets []pgserver.Setting
	var text []string
	for _, par := range rec.Parameters {
		sets = append(sets, pgserver.Setting{Name: par.Name, Value: par.Value})
		text = append(text, par.Name+"="+par.Value)
	}
	return []study.Variant{
		{Name: "default", Note: "the server's defaults"},
		{Name: "tuned", Settings: sets, Note: fmt.Sprintf("PGTune for PostgreSQL %d, %s, %s, %d CPUs, %d connections, %s: %s",
			major, in.Workload, in.Memory, in.CPUs, in.Connections, in.Storage, strings.Join(text, ", "))},
	}, nil
}

func (tuneStudy) Setup(ctx context.Context, s *study.Session) error { return tpsSetup(ctx, s) }

func (tuneStudy) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	return tpsRun(ctx, s, c.Data.(int))
}

func (tuneStudy) Teardown(ctx context.Context, s *study.Session) error { return tpsTeardown(ctx, s) }
