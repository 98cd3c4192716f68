package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// RunSummary is a run as a list of runs shows it: its record (of the host
// only the name), the targets it measured (names and server versions,
// without settings) and the studies it ran.
type RunSummary struct {
	RunRecord
	// Targets are the run's targets in the order they were added.
	Targets []TargetSummary
	// Studies are the studies of the run: those its manifest names
	// ("study" or "studies" in Extra), else those that stored a
	// description (the StudyInfoArtefact).
	Studies []string
}

// TargetSummary is a target as a list of runs shows it.
type TargetSummary struct {
	Name          string
	Kind          TargetKind
	ServerVersion string
}

// summaryColumns are what RunSummaries reads of a run: the columns a list
// shows or searches, and the run's targets aggregated into one text
// (name, kind and server version of each, in the order they were added)
// by a correlated subquery on the targets' (run_id, name) index.
const summaryColumns = `id, kind, status, error, started_at, finished_at, command, host_name, extra,
	(SELECT string_agg(t.name || ? || t.kind || ? || t.server_version, ? ORDER BY t.id) FROM targets t WHERE t.run_id = runs.id)`

// Separators of the aggregated targets: ASCII unit and record separators,
// which names and versions do not hold.
const (
	fieldSep  = "\x1f"
	recordSep = "\x1e"
)

// RunSummaries returns the runs that match f, newest first, each with its
// targets and studies. Of a run's manifest it reads only what a list of
// runs shows or searches: ID, kind, status, error, start and end, command
// line, Extra, and of the host only its name. It reads the whole list in
// one query whatever the number of runs (plus one per 200 runs whose
// manifest names no study, for their study descriptions), so that a list
// of thousands of runs stays cheap.
func (s *Store) RunSummaries(ctx context.Context, f RunFilter) ([]RunSummary, error) {
	// Size the list first: growing a slice of ten thousand summaries
	// costs more than counting them.
	cq, cargs := f.query(s, "id")
	var n int
	if err := s.db.QueryRowContext(ctx, s.rebind(`SELECT count(*) FROM (`+cq+`) c`), cargs...).Scan(&n); err != nil {
		return nil, s.wrap("count runs", err)
	}
	q, args := f.query(s, summaryColumns)
	args = append([]any{fieldSep, fieldSep, recordSep}, args...)
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, s.wrap("list runs", err)
	}
	defer rows.Close()
	out := make([]RunSummary, 0, n)
	byID := make(map[string]int, n)
	var unnamed []string // runs whose manifest names no study
	for rows.Next() {
		var r RunSummary
		var kind, status, cmd, extra string
		var started, finished dbTime
		var targets sql.NullString
		if err := rows.Scan(&r.ID, &kind, &status, &r.Error, &started, &finished, &cmd, &r.Host.Hostname, &extra, &targets); err != nil {
			return nil, s.wrap("list runs", err)
		}
		r.Kind, r.Status = Kind(kind), Status(status)
		r.StartedAt, r.FinishedAt = started.t, finished.t
		if err := json.Unmarshal([]byte(cmd), &r.Command); err != nil {
			return nil, s.wrap("list runs", fmt.Errorf("run %s: bad stored command line: %w", r.ID, err))
		}
		r.Extra = json.RawMessage(extra)
		r.Studies = manifestStudies(r.Extra)
		if targets.Valid && targets.String != "" {
			for _, rec := range strings.Split(targets.String, recordSep) {
				parts := strings.SplitN(rec, fieldSep, 3)
				if len(parts) == 3 {
					r.Targets = append(r.Targets, TargetSummary{Name: parts[0], Kind: TargetKind(parts[1]), ServerVersion: parts[2]})
				}
			}
		}
		byID[r.ID] = len(out)
		if len(r.Studies) == 0 {
			unnamed = append(unnamed, r.ID)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("list runs", err)
	}
	if err := s.describedStudies(ctx, unnamed, out, byID); err != nil {
		return nil, err
	}
	return out, nil
}

// describedStudies fills the studies of the runs ids from their study
// descriptions, in batches.
func (s *Store) describedStudies(ctx context.Context, ids []string, out []RunSummary, byID map[string]int) error {
	const batch = 200
	for len(ids) > 0 {
		n := min(batch, len(ids))
		part := ids[:n]
		ids = ids[n:]
		args := []any{StudyInfoArtefact}
		marks := make([]string, len(part))
		for i, id := range part {
			marks[i] = "?"
			args = append(args, id)
		}
		rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT run_id, study FROM artefacts
			WHERE name = ? AND study <> '' AND run_id IN (`+strings.Join(marks, ", ")+`) ORDER BY id`), args...)
		if err != nil {
			return s.wrap("list the runs' studies", err)
		}
		for rows.Next() {
			var id, study string
			if err := rows.Scan(&id, &study); err != nil {
				rows.Close()
				return s.wrap("list the runs' studies", err)
			}
			if i, ok := byID[id]; ok && slices.Index(out[i].Studies, study) < 0 {
				out[i].Studies = append(out[i].Studies, study)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return s.wrap("list the runs' studies", err)
		}
	}
	return nil
}

// manifestStudies returns the studies a run's manifest names: "study"
// (pglab study) and "studies" (pglab compare, plan).
func manifestStudies(extra json.RawMessage) []string {
	var m struct {
		Study   string   `json:"study"`
		Studies []string `json:"studies"`
	}
	if len(extra) == 0 || json.Unmarshal(extra, &m) != nil {
		return nil
	}
	var out []string
	for _, s := range append([]string{m.Study}, m.Studies...) {
		if s != "" && slices.Index(out, s) < 0 {
			out = append(out, s)
		}
	}
	return out
}

// RunsStamp is a fingerprint of the list of runs that [Store.RunsStamp]
// reads cheaply: it changes when a run is added or finished or a target
// is added, so that a caller can keep [Store.RunSummaries] while it stays
// the same.
type RunsStamp struct {
	Runs, Targets         int64
	LastStart, LastFinish time.Time
}

// RunsStamp reads the store's [RunsStamp].
func (s *Store) RunsStamp(ctx context.Context) (RunsStamp, error) {
	var st RunsStamp
	var start, finish dbTime
	err := s.db.QueryRowContext(ctx, `SELECT count(*), max(started_at), max(finished_at), (SELECT count(*) FROM targets) FROM runs`).
		Scan(&st.Runs, &start, &finish, &st.Targets)
	if err != nil {
		return st, s.wrap("read the runs' stamp", err)
	}
	st.LastStart, st.LastFinish = start.t, finish.t
	return st, nil
}
