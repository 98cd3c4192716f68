package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// BenchRun is a load run of 'pglab bench --store' to keep in the results
// store: one process's run (Result), or a coordinated one ('--listen
// --store': Outcome).
type BenchRun struct {
	// Store is the results store (empty: pglab's default).
	Store string
	// Command is the command line, program name first.
	Command []string
	// Started is when the run started (zero: when it is stored).
	Started time.Time
	// Config is the run's configuration; Workers and Listen how it was
	// coordinated (0 and empty for one process).
	Config  bench.Config
	Workers int
	Listen  string
	// Result is what one process measured, nil when nothing ran or the run
	// was coordinated.
	Result *bench.Result
	// Outcome is what the coordinator merged, nil when nothing ran; Err
	// is the run's error; Interrupted that a signal ended it.
	Outcome     *dist.Outcome
	Err         error
	Interrupted bool
}

// StoreBench keeps a load run in the store, one run of kind bench on one
// target "db", its study "bench" described with a presentation (the
// pgbench figures first, the summary as text). A coordinated run keeps the
// merged figures (case part=all) only when it completed, and each
// worker's share (case part=worker N), each with its artefacts
// (study.RecordOfLoad), and the workers' list; one process's run keeps its
// figures and artefacts (case clients=N), also when interrupted, as
// pgbench prints them then. It returns the run's ID and where the store
// is.
func StoreBench(ctx context.Context, b BenchRun) (id, location string, err error) {
	st, err := results.Open(ctx, b.Store)
	if err != nil {
		return "", "", err
	}
	defer st.Close()
	cfg := b.Config
	fields := map[string]any{"clients": cfg.Clients, "threads": cfg.Threads}
	if b.Result == nil {
		fields["workers"], fields["listen"] = b.Workers, b.Listen
	}
	extra, _ := json.Marshal(fields)
	run, err := st.BeginRun(ctx, results.RunInfo{Kind: results.KindBench, Version: buildinfo.String(), StartedAt: b.Started,
		Command: b.Command, Host: results.CollectHost(""), Extra: extra})
	if err != nil {
		return "", "", err
	}
	status, runErr := results.StatusDone, b.Err
	aborted := b.Outcome != nil && b.Outcome.Result != nil && b.Outcome.Result.Aborted || b.Result != nil && b.Result.Aborted
	switch {
	case b.Interrupted:
		status = results.StatusInterrupted
	case runErr != nil:
		status = results.StatusFailed
	case aborted:
		status, runErr = results.StatusFailed, errors.New("some clients aborted")
	}
	if b.Result != nil {
		err = storeResult(ctx, run, cfg, b.Result)
	} else {
		err = storeOutcome(ctx, run, cfg, b.Outcome, status == results.StatusDone)
	}
	if err != nil {
		_ = run.Finish(ctx, results.StatusFailed, err)
		return "", "", err
	}
	if err := run.Finish(ctx, status, runErr); err != nil {
		return "", "", err
	}
	return run.ID(), st.Location(), nil
}

// benchInfo describes the study "bench" of a stored load run: its cases,
// and how reports show them (labels are the cases' keys).
func benchInfo(cases []map[string]string, labels ...results.LabelColumn) results.StudyInfo {
	var ci []results.CaseInfo
	for _, c := range cases {
		ci = append(ci, results.CaseInfo{Name: results.CaseKey(c), Labels: c})
	}
	return results.StudyInfo{Name: "bench", Title: "pglab bench: a pgbench-compatible load run", Source: "pglab bench",
		Reps: 1, Cases: ci, Version: 1,
		Presentation: &results.Presentation{
			Labels: labels,
			Primary: []results.MetricHead{
				{Metric: "tps", Head: "Throughput"},
				{Metric: "latency_avg_ms", Head: "Average latency", Twin: "tps"},
				{Metric: "latency_p99_ms", Head: "p99 latency"},
			},
			Texts: []results.TextView{{Name: results.SummaryArtefact, Head: "pgbench's summary"}},
		}}
}

// addInfo stores si as the run's description of its study.
func addInfo(ctx context.Context, run *results.Run, si results.StudyInfo) error {
	data, err := json.Marshal(si)
	if err != nil {
		return fmt.Errorf("encode the run's description: %w", err)
	}
	return run.AddArtefact(ctx, results.Artefact{Study: si.Name, Name: results.StudyInfoArtefact, ContentType: "application/json", Data: data})
}

// storeResult adds the target, the figures and the artefacts of one
// process's run to run.
func storeResult(ctx context.Context, run *results.Run, cfg bench.Config, res *bench.Result) error {
	if err := run.AddTarget(ctx, benchTarget(cfg, &dist.Outcome{Result: res})); err != nil {
		return err
	}
	c := map[string]string{"clients": strconv.Itoa(res.Clients)}
	if err := addInfo(ctx, run, benchInfo([]map[string]string{c}, results.LabelColumn{Key: "clients", Head: "clients"})); err != nil {
		return err
	}
	rec, err := study.RecordOfLoad(res)
	if err != nil {
		return err
	}
	kept, _ := rec.Finite()
	for i := range kept {
		kept[i].Target, kept[i].Study, kept[i].Case, kept[i].Rep = "db", "bench", c, 1
	}
	for _, a := range rec.Artefacts {
		a.Target, a.Study, a.Case, a.Rep = "db", "bench", c, 1
		if err := run.AddArtefact(ctx, a); err != nil {
			return err
		}
	}
	return run.AddMeasurements(ctx, kept)
}

// storeOutcome adds the target, the parts' figures and artefacts and the
// workers' list to run.
func storeOutcome(ctx context.Context, run *results.Run, cfg bench.Config, out *dist.Outcome, complete bool) error {
	if out == nil {
		return nil
	}
	if err := run.AddTarget(ctx, benchTarget(cfg, out)); err != nil {
		return err
	}
	var ms []results.Measurement
	var cases []map[string]string
	// add keeps one part's figures and artefacts: the whole run's, or a
	// worker's share.
	add := func(part string, r *bench.Result) error {
		c := map[string]string{"part": part, "clients": strconv.Itoa(r.Clients)}
		cases = append(cases, c)
		rec, err := study.RecordOfLoad(r)
		if err != nil {
			return err
		}
		kept, _ := rec.Finite()
		for _, m := range kept {
			m.Target, m.Study, m.Case, m.Rep = "db", "bench", c, 1
			ms = append(ms, m)
		}
		for _, a := range rec.Artefacts {
			a.Target, a.Study, a.Case, a.Rep = "db", "bench", c, 1
			if err := run.AddArtefact(ctx, a); err != nil {
				return err
			}
		}
		return nil
	}
	if complete && out.Result != nil {
		if err := add("all", out.Result); err != nil {
			return err
		}
	}
	for _, w := range out.Workers {
		if w.Result != nil {
			if err := add(fmt.Sprintf("worker %d", w.Worker), w.Result); err != nil {
				return err
			}
		}
	}
	if err := addInfo(ctx, run, benchInfo(cases, results.LabelColumn{Key: "part", Head: "part"}, results.LabelColumn{Key: "clients", Head: "clients"})); err != nil {
		return err
	}
	if data, err := json.Marshal(out.Workers); err == nil {
		if err := run.AddArtefact(ctx, results.Artefact{Name: "workers", ContentType: "application/json", Data: data}); err != nil {
			return err
		}
	}
	return run.AddMeasurements(ctx, ms)
}

// benchTarget is the database of a coordinated run as the store keeps it.
func benchTarget(cfg bench.Config, out *dist.Outcome) results.Target {
	conn := cfg.ConnString
	if pc, err := bench.ConnConfig(cfg.ConnString, cfg.Host, cfg.Port, cfg.User, cfg.DBName); err == nil {
		// what the clients connected to, PG* variables and a
		// connection string given as dbname included (no password)
		conn = fmt.Sprintf("host=%s port=%d user=%s dbname=%s", pc.Host, pc.Port, pc.User, pc.Database)
	}
	t := results.Target{Name: "db", Kind: results.TargetDSN, Conn: conn}
	if out.Result != nil {
		t.ServerVersion = out.Result.ServerVersion
		return t
	}
	for _, w := range out.Workers {
		if w.Result != nil {
			t.ServerVersion = w.Result.ServerVersion
			break
		}
	}
	return t
}
