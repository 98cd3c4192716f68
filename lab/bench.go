package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// BenchRun is a coordinated load run ('pglab bench --listen --store') to
// keep in the results store.
type BenchRun struct {
	// Store is the results store (empty: pglab's default).
	Store string
	// Command is the command line, program name first.
	Command []string
	// Config is the run's configuration; Workers and Listen how it was
	// coordinated.
	Config  bench.Config
	Workers int
	Listen  string
	// Outcome is what the coordinator merged, nil when nothing ran; Err
	// is the run's error; Interrupted that a signal ended it.
	Outcome     *dist.Outcome
	Err         error
	Interrupted bool
}

// StoreBench keeps a coordinated load run in the store, one run of kind
// bench on one target "db": the merged figures (case part=all) only when
// the run completed, and each worker's share (case part=worker N), each
// with its artefacts (study.RecordOfLoad), and the workers' list. It
// returns the run's ID and where the store is.
func StoreBench(ctx context.Context, b BenchRun) (id, location string, err error) {
	st, err := results.Open(ctx, b.Store)
	if err != nil {
		return "", "", err
	}
	defer st.Close()
	cfg := b.Config
	extra, _ := json.Marshal(map[string]any{"workers": b.Workers, "clients": cfg.Clients, "threads": cfg.Threads, "listen": b.Listen})
	run, err := st.BeginRun(ctx, results.RunInfo{Kind: results.KindBench, Version: buildinfo.String(),
		Command: b.Command, Host: results.CollectHost(""), Extra: extra})
	if err != nil {
		return "", "", err
	}
	status, runErr := results.StatusDone, b.Err
	switch {
	case b.Interrupted:
		status = results.StatusInterrupted
	case runErr != nil:
		status = results.StatusFailed
	case b.Outcome != nil && b.Outcome.Result != nil && b.Outcome.Result.Aborted:
		status, runErr = results.StatusFailed, errors.New("some clients aborted")
	}
	if err := storeOutcome(ctx, run, cfg, b.Outcome, status == results.StatusDone); err != nil {
		_ = run.Finish(ctx, results.StatusFailed, err)
		return "", "", err
	}
	if err := run.Finish(ctx, status, runErr); err != nil {
		return "", "", err
	}
	return run.ID(), st.Location(), nil
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
	// add keeps one part's figures and artefacts: the whole run's, or a
	// worker's share.
	add := func(part string, r *bench.Result) error {
		c := map[string]string{"part": part, "clients": strconv.Itoa(r.Clients)}
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
	if conn == "" {
		conn = strings.TrimSpace(fmt.Sprintf("host=%s port=%s user=%s dbname=%s", cfg.Host, cfg.Port, cfg.User, cfg.DBName))
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
