package studies

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/bench/script"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// tpsStudy is seeds 000 §3 and 003: pgbench's workload over a list of
// client counts, with the server's WAL counters per transaction.
type tpsStudy struct{}

func init() { study.Register("tps", func() study.Study { return tpsStudy{} }) }

func (tpsStudy) Info() study.Info {
	return study.Info{
		Name:    "tps",
		Title:   "pgbench workload (TPC-B by default) over a list of client counts",
		Source:  "seed 000 §3, seed 003",
		Params:  tpsSliceParams(),
		Version: 3,
		InAll:   true,
		Presentation: &results.Presentation{
			Labels: []results.LabelColumn{{Key: "clients", Head: "clients"}},
			Primary: []results.MetricHead{
				{Metric: "tps", Head: "Throughput"},
				{Metric: "latency_avg_ms", Head: "Average latency", Twin: "tps"},
				{Metric: "latency_p99_ms", Head: "p99 latency"},
				{Metric: "server_cpu_us_per_tx", Head: "Server CPU per transaction"},
			},
			Charts: []results.Chart{
				{Kind: results.Lines, Title: "Throughput by clients", Metrics: []string{"tps"}, X: "clients", XHead: "clients"},
				{Kind: results.Lines, Title: "Latency percentiles by clients", Metrics: []string{"latency_p50_ms", "latency_p90_ms", "latency_p99_ms"}, X: "clients", XHead: "clients"},
			},
			Texts: []results.TextView{{Name: results.SummaryArtefact, Head: "pgbench's summary"}},
		},
	}
}

// tpsParams are the tps study's parameters with the given defaults; the
// tune study reuses them with the seed-003 workload.
func tpsParams(clients, quickClients, duration, quickDuration, scale, quickScale string) []study.Param {
	return []study.Param{
		{Name: "clients", Kind: study.KindIntList, Default: clients, Quick: quickClients, Min: 1, MinSet: true, Doc: "client counts (-c), one case each"},
		{Name: "jobs", Kind: study.KindInt, Default: "2", Min: 1, MinSet: true, Doc: "threads (-j)"},
		{Name: "duration", Kind: study.KindDuration, Default: duration, Quick: quickDuration, Doc: "duration of each run (-T); ignored when transactions is set"},
		{Name: "transactions", Kind: study.KindInt, Default: "0", Min: 0, MinSet: true, Doc: "transactions per client (-t) instead of a duration"},
		{Name: "scale", Kind: study.KindInt, Default: scale, Quick: quickScale, Min: 1, MinSet: true, Doc: "pgbench scale of the data (-i -s)"},
		{Name: "builtin", Kind: study.KindString, Default: "tpcb-like", Choices: []string{"tpcb-like", "simple-update", "select-only"}, Doc: "builtin script (-b; simple-update is -N, select-only is -S)"},
		{Name: "script", Kind: study.KindString, Default: "", Doc: "a pgbench script file (-f) instead of the builtin"},
		{Name: "protocol", Kind: study.KindString, Default: "simple", Choices: []string{"simple", "extended", "prepared"}, Doc: "query mode (-M)"},
		{Name: "checkpoint_before", Kind: study.KindBool, Default: "true", Doc: "CHECKPOINT before each run, so that no run inherits another's dirty buffers"},
		{Name: "warmup", Kind: study.KindDuration, Default: "5s", Quick: "1s", Doc: "time at the start of each run left out of its figures (recorded); 0 keeps the whole run"},
		{Name: "precision", Kind: study.KindFloat, Default: "1", Doc: "end a timed run once the 95 % interval of its mean throughput per second (batch means, from 10 s after the warm-up) is within ± this percent of it; 0 runs the whole duration"},
	}
}

// tpsSliceParams are the tps study's parameters: at the seeds' sizes a
// run is a 15 s slice of the seed's 60 s pgbench run (tpsSlices of them
// make one, the two targets' slices alternating A B B A), which carries
// on from the server's state without a CHECKPOINT (as the seed's runs
// follow one another), after a 1 s warm-up, for its full duration (no
// precision rule: slices of equal length pair best). Under --quick a
// slice is 1 s after a 0.5 s warm-up, tpsQuickSlices of them a round.
func tpsSliceParams() []study.Param {
	ps := tpsParams("5,10,20,50", "5,20", "15s", "1s", "100", "2")
	for i := range ps {
		switch ps[i].Name {
		case "duration":
			ps[i].Doc = "duration of each run (-T): at the seeds' sizes a slice of the seed's 60 s run, 4 slices a round of 60 s; ignored when transactions is set"
		case "checkpoint_before":
			ps[i].Default, ps[i].Quick = "false", "false"
		case "warmup":
			ps[i].Default, ps[i].Quick = "1s", "500ms"
		case "precision":
			ps[i].Default = "0"
		}
	}
	return ps
}

// tpsSlices is the number of runs (slices) that make the seed's 60 s
// pgbench run at the seeds' sizes: Plan.LookScale.
const tpsSlices = 4

// tpsQuickSlices is the number of 1 s slices that make a round under
// --quick (Plan.QuickLookScale), about one of the 3 s runs from a
// CHECKPOINT it used before. Measured on the 2-core machine (16 vs 17,
// -c 5 and -c 20, scale 2, runs alternated A B B A): 10 rounds of 3 s
// runs from a CHECKPOINT gave the tps change a 95 % interval of ±6.2 %
// (root mean square of the four half-widths) in 168 s a run; 28 slices
// of 1 s without one ±3.6 % in 236 s, ±4.3 % in the same time: half the
// variance.
const tpsQuickSlices = 3

// tpsSettings are seed 000's postgresql.conf for its pgbench runs.
var tpsSettings = []pgserver.Setting{
	{Name: "shared_buffers", Value: "256MB"},
	{Name: "max_connections", Value: "200"},
	{Name: "checkpoint_timeout", Value: "30min"},
	{Name: "max_wal_size", Value: "1GB"},
	{Name: "autovacuum", Value: "off"},
	{Name: "log_checkpoints", Value: "on"},
}

func (tpsStudy) Plan(p study.Params) (study.Plan, error) {
	if err := checkTPSParams(p); err != nil {
		return study.Plan{}, err
	}
	plan := study.Plan{Cases: tpsCases(p), Settings: tpsSettings, Reps: 5 * tpsSlices, QuickReps: 8 * tpsQuickSlices, LookScale: tpsSlices, QuickLookScale: tpsQuickSlices}
	if p.Int("transactions") == 0 {
		plan.RoundEstimate = p.Duration("duration") + p.Duration("warmup")
	}
	return plan, nil
}

func checkTPSParams(p study.Params) error {
	if f := p.String("script"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			return &study.ParamError{Param: "script", Err: fmt.Errorf("script: %w", err)}
		}
		if _, err := script.Parse(f, string(data), script.NewSymbols()); err != nil {
			return &study.ParamError{Param: "script", Err: fmt.Errorf("script: %w", err)}
		}
	}
	return nil
}

func tpsCases(p study.Params) []study.Case {
	var cases []study.Case
	for _, c := range p.IntList("clients") {
		cases = append(cases, study.Case{Name: fmt.Sprintf("-c %d", c), Labels: map[string]string{"clients": strconv.FormatInt(c, 10)}, Data: int(c)})
	}
	return cases
}

func (tpsStudy) Setup(ctx context.Context, s *study.Session) error { return tpsSetup(ctx, s) }

// tpsSetup creates pgbench's tables at the study's scale.
func tpsSetup(ctx context.Context, s *study.Session) error {
	return s.LoadData(ctx, pgbenchData(int(s.Params.Int("scale"))))
}

// pgbenchData is pgbench -i -s scale: its tables, loaded, vacuumed, with
// primary keys (the bench/initdata engine with its defaults).
func pgbenchData(scale int) *study.Dataset {
	o := initdata.Options{Scale: scale}
	return &study.Dataset{
		Name:   "pgbench",
		Params: []string{fmt.Sprintf("scale=%d", scale)},
		Recipe: dataset.Recipe("bench/initdata defaults v1", fmt.Sprintf("%+v", o)),
		Build: func(ctx context.Context, s *study.Session) error {
			s.Log("pgbench -i -s %d", scale)
			cfg := s.Target.ConnConfig()
			t, err := initdata.Run(ctx, &cfg.Config, o, nil)
			if err != nil {
				return fmt.Errorf("pgbench -i: %w", err)
			}
			s.Log("initialised in %.1f s", t.Total.Seconds())
			return nil
		},
	}
}

func (tpsStudy) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	return tpsRun(ctx, s, c.Data.(int))
}

// tpsRun runs the workload once with the given clients and records its
// figures.
func tpsRun(ctx context.Context, s *study.Session, clients int) error {
	p := s.Params
	var spec bench.ScriptSpec
	if f := p.String("script"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		spec = bench.ScriptSpec{Desc: filepath.Base(f), Text: string(data), Weight: 1}
	} else {
		b, err := script.FindBuiltin(p.String("builtin"))
		if err != nil {
			return err
		}
		spec = bench.BuiltinSpec(b, 1)
	}
	mode, err := bench.ParseQueryMode(p.String("protocol"))
	if err != nil {
		return err
	}
	cfg := bench.DefaultConfig()
	cfg.ConnString = s.Target.DSNWithSchema()
	cfg.Scripts = []bench.ScriptSpec{spec}
	cfg.Clients = clients
	cfg.Threads = min(int(p.Int("jobs")), clients)
	cfg.Mode = mode
	cfg.Quiet = true
	cfg.Progress = time.Second
	if n := p.Int("transactions"); n > 0 {
		cfg.Transactions = int(n)
	} else {
		cfg.Duration = p.Duration("duration")
	}
	if p.Bool("checkpoint_before") {
		conn, err := s.Target.Connect(ctx)
		if err != nil {
			return err
		}
		_, err = conn.Exec(ctx, "CHECKPOINT")
		conn.Close(context.Background())
		if err != nil {
			return fmt.Errorf("CHECKPOINT: %w", err)
		}
	}
	if err := recordScriptPlans(ctx, s, spec); err != nil {
		return err
	}
	var res, steady *bench.Result
	var w loadWindow
	step, err := s.MeasureStep(ctx, "run", nil, func(ctx context.Context) error {
		var err error
		res, steady, w, err = runSized(ctx, s, cfg, p.Duration("warmup"), p.Float("precision")/100)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgbench run with %d clients: %w", clients, err)
	}
	if res.Aborted {
		if res.Lost != nil {
			return fmt.Errorf("pgbench run with %d clients: %d clients aborted: %w", clients, res.LostClients, res.Lost)
		}
		return fmt.Errorf("pgbench run with %d clients: some clients aborted", clients)
	}
	if err := s.RecordLoad(ctx, steady); err != nil {
		return err
	}
	recordWindow(s, w)
	if tx := float64(res.Transactions + res.Failed); tx > 0 {
		if v, ok := s.StepCounter(step, "wal_bytes", "wal_bytes_per_tx"); ok {
			s.Record("wal_bytes_per_tx", v/tx, "bytes", study.LowerIsBetter())
		}
		if v, ok := s.StepCounter(step, "wal_syncs", "wal_syncs_per_tx"); ok {
			s.Record("wal_syncs_per_tx", v/tx, "count", study.LowerIsBetter())
		}
		s.RecordServerCPUPer(step, "server_cpu_us_per_tx", tx)
	}
	return nil
}

func (tpsStudy) Teardown(ctx context.Context, s *study.Session) error { return tpsTeardown(ctx, s) }

func tpsTeardown(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, initdata.DropStatement)
	return err
}

// recordScriptPlans records the plan of each of the script's statements
// that has one (SELECT, INSERT, UPDATE, DELETE, WITH), its variables
// bound as $1, $2, … to 1 (study.Session.RecordPlan): the statement's
// ordinal and first line name it.
func recordScriptPlans(ctx context.Context, s *study.Session, spec bench.ScriptSpec) error {
	sc, err := script.Parse(spec.Desc, spec.Text, nil)
	if err != nil {
		return nil // the run reports the script's errors
	}
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for i, cmd := range sc.Commands {
		if cmd.Type != script.SQLCommand || !explainable(cmd.SQL) {
			continue
		}
		params := make([]string, cmd.NumParams())
		for k := range params {
			params[k] = "1"
		}
		if err := s.RecordPlan(ctx, conn, fmt.Sprintf("%d: %s", i+1, cmd.FirstLine), cmd.ParamSQL(), params...); err != nil {
			return err
		}
	}
	return nil
}

// explainable reports whether EXPLAIN takes an SQL command.
func explainable(sql string) bool {
	f := strings.Fields(strings.ToUpper(sql))
	if len(f) == 0 {
		return false
	}
	switch strings.TrimSuffix(f[0], ";") {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES", "TABLE", "MERGE":
		return true
	}
	return false
}
