package results

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// RunSummary is a run as a list of runs shows it: its record, the targets
// it measured (names and server versions, without settings) and the
// studies it ran.
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

// RunSummaries returns the runs that match f, newest first, each with its
// targets and studies. It reads the whole list in three queries whatever
// the number of runs (runs, their targets, and the study descriptions of
// runs whose manifest names no study), so that a list of thousands of
// runs stays cheap.
func (s *Store) RunSummaries(ctx context.Context, f RunFilter) ([]RunSummary, error) {
	runs, err := s.Runs(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]RunSummary, len(runs))
	byID := make(map[string]int, len(runs))
	var unnamed []string // runs whose manifest names no study
	for i, r := range runs {
		out[i] = RunSummary{RunRecord: r, Studies: manifestStudies(r.Extra)}
		byID[r.ID] = i
		if len(out[i].Studies) == 0 {
			unnamed = append(unnamed, r.ID)
		}
	}
	if len(runs) == 0 {
		return out, nil
	}
	sub, args := f.query(s, "id")
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT run_id, name, kind, server_version FROM targets
		WHERE run_id IN (`+sub+`) ORDER BY run_id, id`), args...)
	if err != nil {
		return nil, s.wrap("list the runs' targets", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, kind string
		var t TargetSummary
		if err := rows.Scan(&id, &t.Name, &kind, &t.ServerVersion); err != nil {
			return nil, s.wrap("list the runs' targets", err)
		}
		t.Kind = TargetKind(kind)
		if i, ok := byID[id]; ok {
			out[i].Targets = append(out[i].Targets, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("list the runs' targets", err)
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
