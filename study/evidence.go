package study

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/observe"
)

// Names of the evidence a measured step records beside its counters, for
// the explanation of a change: the artefacts of each step (current case
// and repetition), and the metric names under which a note says why a
// target has none of a family (Unavailable).
const (
	// WALRecordsArtefact is the step's WAL by record type
	// (observe.WALRecords, JSON).
	WALRecordsArtefact = "wal-records"
	// CPUProfileArtefact is the step's CPU by function
	// (observe.Profile, JSON: every function sampled).
	CPUProfileArtefact = "cpu-profile"
	// CPUStacksArtefact is the step's folded stacks ("kind;main;…;leaf
	// count" lines, text/plain), for flame graphs.
	CPUStacksArtefact = "cpu-stacks"
	// WALRecordsAbsentMetric and ProfileAbsentMetric name the families
	// in the notes of Unavailable: wal_rec_* and cpu_fn_ms:*.
	WALRecordsAbsentMetric = "wal_rec_bytes"
	ProfileAbsentMetric    = "cpu_fn_ms"
)

// evidence gathers, around one measured step, the WAL it wrote by record
// type (15+) and, under Runner.Profile, its server's CPU by function.
type evidence struct {
	s         *Session
	walSchema string // pg_walinspect's schema; "" when WAL is not read
	prof      *observe.Profiler
	// profTime is the time spent attaching perf, reading its samples
	// and ending it: the profiler's cost of the step, outside it.
	profTime time.Duration
}

// startEvidence makes ready what the step's evidence needs before its
// opening snapshot: pg_walinspect, created in the study schema on a server
// pglab manages (or with --force) when missing. What this target cannot
// give is noted as unavailable, with the reason; nothing here fails the
// step.
func (s *Session) startEvidence(ctx context.Context, obs *pgx.Conn) *evidence {
	ev := &evidence{s: s}
	if why := observe.WALRecordsAbsent(s.Target.VersionNum); why != "" {
		s.Unavailable(WALRecordsAbsentMetric, why)
		return ev
	}
	schema, why := s.walInspect(ctx, obs)
	if why != "" {
		s.Unavailable(WALRecordsAbsentMetric, why)
	}
	ev.walSchema = schema
	return ev
}

// walInspect returns the schema of pg_walinspect in the target's
// database, creating the extension where pglab may, or why it cannot.
func (s *Session) walInspect(ctx context.Context, obs *pgx.Conn) (schema, why string) {
	schema, err := observe.WALInspectSchema(ctx, obs)
	if err != nil {
		return "", err.Error()
	}
	if schema == "" {
		if !s.Target.Managed() && !s.Force() {
			return "", fmt.Sprintf("pg_walinspect is not installed in database %s of this server, and pglab creates extensions only on servers it manages (or with --force)", s.Target.config.Database)
		}
		if err := EnsureExtension(ctx, obs, "pg_walinspect"); err != nil {
			return "", err.Error()
		}
		// The statistics of the extension's WAL reach pg_stat_wal now,
		// not after the opening snapshot: the step's wal_bytes must not
		// count them.
		if err := observe.Flush(ctx, obs); err != nil {
			return "", err.Error()
		}
		schema = Schema
	}
	var may bool
	fn := pgx.Identifier{schema, "pg_get_wal_stats"}.Sanitize() + "(pg_lsn, pg_lsn, boolean)"
	if err := obs.QueryRow(ctx, "SELECT has_function_privilege($1, 'EXECUTE')", fn).Scan(&may); err != nil {
		return "", err.Error()
	}
	if !may {
		return "", "the role may not read the WAL with pg_walinspect (superuser or pg_read_server_files)"
	}
	return schema, ""
}

// attachProfile attaches perf to the server's processes, under
// Runner.Profile, outside the samplers' window (attaching takes perf a
// few hundred milliseconds of CPU); enableProfile starts the samples. A
// target that cannot be sampled is noted as such.
func (ev *evidence) attachProfile(ctx context.Context) {
	s := ev.s
	if s.runner == nil || !s.runner.Profile {
		return
	}
	why := observe.ProfileAbsent(s.Target.DataDir)
	if why == "" {
		s.mu.Lock()
		why = s.noProfile
		s.mu.Unlock()
	}
	if why != "" {
		s.Unavailable(ProfileAbsentMetric, why)
		return
	}
	began := time.Now()
	p, err := observe.StartProfile(ctx, s.Target.DataDir)
	ev.profTime += time.Since(began)
	if err != nil {
		why = "perf could not sample the server's processes: " + err.Error()
		if ctx.Err() == nil {
			s.mu.Lock()
			s.noProfile = why
			s.mu.Unlock()
		}
		s.Unavailable(ProfileAbsentMetric, why)
		return
	}
	ev.prof = p
}

// enableProfile starts the samples, right before the step.
func (ev *evidence) enableProfile(ctx context.Context) {
	if ev.prof == nil {
		return
	}
	if err := ev.prof.Enable(ctx); err != nil {
		ev.s.Unavailable(ProfileAbsentMetric, "perf could not sample the server's processes: "+err.Error())
		ev.prof.Close()
		ev.prof = nil
	}
}

// stopProfile ends the sampling (right after the step).
func (ev *evidence) stopProfile() {
	if ev.prof != nil {
		ev.prof.Stop()
	}
}

// close ends perf and removes its file, also when the step failed, and
// counts the profiler's time (Session.addProfileTime).
func (ev *evidence) close() {
	if ev.prof != nil {
		began := time.Now()
		ev.prof.Close()
		ev.profTime += time.Since(began)
	}
	ev.s.addProfileTime(ev.profTime)
}

// record reads the step's WAL between the snapshots' positions and its
// profile, and records their metrics and artefacts (see MeasureStep). A
// figure that could not be read is noted as unavailable; only a store
// that fails is an error.
func (ev *evidence) record(ctx context.Context, obs *pgx.Conn, before, after *observe.Counters, step *Step) error {
	s := ev.s
	if ev.walSchema != "" {
		w, err := observe.ReadWALRecords(ctx, obs, ev.walSchema, before.Values["wal_lsn_bytes"], after.Values["wal_lsn_bytes"])
		switch {
		case err != nil:
			s.Unavailable(WALRecordsAbsentMetric, err.Error())
		default:
			step.WAL = w
			if err := ev.recordMetrics(ctx, w.Metrics(), WALRecordsArtefact, w); err != nil {
				return err
			}
		}
	}
	if ev.prof != nil {
		began := time.Now()
		defer func() { ev.profTime += time.Since(began) }()
		p, err := ev.prof.Profile(ctx)
		if err != nil {
			s.Unavailable(ProfileAbsentMetric, "perf could not read its samples: "+err.Error())
			return nil
		}
		step.Profile = p
		if err := ev.recordMetrics(ctx, p.Metrics(), CPUProfileArtefact, p); err != nil {
			return err
		}
		return s.Artefact(ctx, CPUStacksArtefact, "text/plain", p.Folded())
	}
	return nil
}

// recordMetrics records ms (auxiliary: no direction) and stores v as the
// JSON artefact name.
func (ev *evidence) recordMetrics(ctx context.Context, ms []observe.Metric, name string, v any) error {
	for _, m := range ms {
		ev.s.Record(m.Name, m.Value, unitText(m.Unit))
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	return ev.s.Artefact(ctx, name, "application/json", data)
}
