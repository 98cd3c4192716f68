package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pglab/pglab/internal/units"
)

// RunFilter selects runs for [Store.Runs]. Zero fields select everything.
type RunFilter struct {
	Kind   Kind      // only runs of this kind
	Status Status    // only runs in this state
	Since  time.Time // only runs started at or after this time
	Before time.Time // only runs started before this time
	Limit  int       // at most this many runs (the newest); 0 means no limit
}

// MeasurementFilter selects measurements for [Store.Measurements]. Empty
// fields select everything.
type MeasurementFilter struct {
	Target  string // target name
	Study   string
	CaseKey string // see [CaseKey]
	Metric  string
}

// ArtefactFilter selects artefacts for [Store.Artefacts]. Empty fields
// select everything.
type ArtefactFilter struct {
	Target  string // target name
	Study   string
	CaseKey string // see [CaseKey]
	Name    string
	// ID selects the one artefact of that ID (see [Artefact.ID]); 0
	// selects any.
	ID int64
	// SkipData leaves Data nil, for listing artefacts without loading them.
	SkipData bool
}

const runColumns = `id, kind, status, error, started_at, finished_at, pglab_version, command,
	host_name, host_os, host_arch, host_kernel, host_cpus, host_cpu_model, host_memory_bytes,
	disk_path, disk_device, disk_filesystem, disk_rotational, extra`

// scanRun reads one row of runColumns.
func scanRun(sc interface{ Scan(...any) error }) (RunRecord, error) {
	var r RunRecord
	var kind, status, cmd, extra string
	var started, finished dbTime
	var rot sql.NullBool
	h := &r.Host
	err := sc.Scan(&r.ID, &kind, &status, &r.Error, &started, &finished, &r.Version, &cmd,
		&h.Hostname, &h.OS, &h.Arch, &h.Kernel, &h.CPUs, &h.CPUModel, &h.MemoryBytes,
		&h.Disk.Path, &h.Disk.Device, &h.Disk.Filesystem, &rot, &extra)
	if err != nil {
		return r, err
	}
	r.Kind, r.Status = Kind(kind), Status(status)
	r.StartedAt, r.FinishedAt = started.t, finished.t
	if rot.Valid {
		b := rot.Bool
		h.Disk.Rotational = &b
	}
	if err := json.Unmarshal([]byte(cmd), &r.Command); err != nil {
		return r, fmt.Errorf("run %s: bad stored command line: %w", r.ID, err)
	}
	r.Extra = json.RawMessage(extra)
	return r, nil
}

// Runs returns the runs that match f, newest first.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]RunRecord, error) {
	sel, args := f.query(s, runColumns)
	rows, err := s.db.QueryContext(ctx, s.rebind(sel), args...)
	if err != nil {
		return nil, s.wrap("list runs", err)
	}
	defer rows.Close()
	var out []RunRecord
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, s.wrap("list runs", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("list runs", err)
	}
	return out, nil
}

// query returns the SELECT of columns from runs that f selects, newest
// first, and its arguments.
func (f RunFilter) query(s *Store, columns string) (string, []any) {
	var where []string
	var args []any
	if f.Kind != "" {
		where, args = append(where, "kind = ?"), append(args, string(f.Kind))
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if !f.Since.IsZero() {
		where, args = append(where, "started_at >= ?"), append(args, s.timeArg(f.Since))
	}
	if !f.Before.IsZero() {
		where, args = append(where, "started_at < ?"), append(args, s.timeArg(f.Before))
	}
	q := `SELECT ` + columns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	return q, args
}

// Run returns one run. ref is a run ID, an unambiguous prefix of one (as
// with git), or "last" for the run that started most recently. A ref that
// matches nothing gives an error wrapping [ErrNotFound]; a prefix of several
// runs gives one wrapping [ErrAmbiguous] that lists them.
func (s *Store) Run(ctx context.Context, ref string) (RunRecord, error) {
	id, err := s.resolve(ctx, ref)
	if err != nil {
		return RunRecord{}, err
	}
	row := s.db.QueryRowContext(ctx, s.rebind(`SELECT `+runColumns+` FROM runs WHERE id = ?`), id)
	r, err := scanRun(row)
	if err == sql.ErrNoRows { // deleted in between
		return RunRecord{}, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return RunRecord{}, s.wrap("read run "+id, err)
	}
	return r, nil
}

// resolve turns a run reference (ID, prefix, "last") into a run ID.
func (s *Store) resolve(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "last" {
		var id string
		err := s.db.QueryRowContext(ctx, `SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1`).Scan(&id)
		if err == sql.ErrNoRows {
			return "", fmt.Errorf("no last run: the results store %s has no runs: %w", s.location, ErrNotFound)
		}
		if err != nil {
			return "", s.wrap("find the last run", err)
		}
		return id, nil
	}
	if ref == "" || !runIDRE.MatchString(ref) {
		return "", fmt.Errorf("bad run ID %q: a run ID has only lower-case letters, digits, '-' and '_' (or use \"last\")", ref)
	}
	// The pattern only holds [0-9a-z_-]; '_' is LIKE's one-character
	// wildcard, so escape it.
	pattern := strings.ReplaceAll(ref, "_", `\_`) + "%"
	rows, err := s.db.QueryContext(ctx,
		s.rebind(`SELECT id FROM runs WHERE id LIKE ? ESCAPE '\' ORDER BY id LIMIT 6`), pattern)
	if err != nil {
		return "", s.wrap("find run "+ref, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", s.wrap("find run "+ref, err)
		}
		if id == ref { // an exact match wins over longer IDs
			return id, nil
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", s.wrap("find run "+ref, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("run %s: %w in %s", ref, ErrNotFound, s.location)
	case 1:
		return ids[0], nil
	}
	list := strings.Join(ids, ", ")
	if len(ids) > 5 {
		list = strings.Join(ids[:5], ", ") + ", …"
	}
	return "", fmt.Errorf("run %s: %w: it is the start of %s", ref, ErrAmbiguous, list)
}

// Targets returns the targets of a run (see [Store.Run] for ref) in the
// order they were added, with their settings sorted by name.
func (s *Store) Targets(ctx context.Context, ref string) ([]Target, error) {
	id, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	op := "read targets of run " + id
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT id, name, kind, conn, server_version, server_version_num,
		data_checksums, extra FROM targets WHERE run_id = ? ORDER BY id`), id)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	var out []Target
	byID := map[int64]int{}
	for rows.Next() {
		var t Target
		var tid int64
		var kind, extra string
		if err := rows.Scan(&tid, &t.Name, &kind, &t.Conn, &t.ServerVersion, &t.ServerVersionNum,
			&t.DataChecksums, &extra); err != nil {
			rows.Close()
			return nil, s.wrap(op, err)
		}
		t.Kind, t.Extra = TargetKind(kind), json.RawMessage(extra)
		byID[tid] = len(out)
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	if len(out) == 0 {
		return out, nil
	}
	rows, err = s.db.QueryContext(ctx, s.rebind(`SELECT st.target_id, st.name, st.value, st.unit, st.source
		FROM target_settings st JOIN targets t ON t.id = st.target_id
		WHERE t.run_id = ? ORDER BY st.target_id, st.name`), id)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var tid int64
		var st Setting
		if err := rows.Scan(&tid, &st.Name, &st.Value, &st.Unit, &st.Source); err != nil {
			return nil, s.wrap(op, err)
		}
		if i, ok := byID[tid]; ok {
			out[i].Settings = append(out[i].Settings, st)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	for i := range out {
		sortSettings(out[i].Settings) // byte order whatever the database's collation
	}
	return out, nil
}

// Measurements returns the measurements of a run (see [Store.Run] for ref)
// that match f, in the order they were stored.
func (s *Store) Measurements(ctx context.Context, ref string, f MeasurementFilter) ([]Measurement, error) {
	id, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	op := "read measurements of run " + id
	where := []string{"m.run_id = ?"}
	args := []any{id}
	if f.Target != "" {
		where, args = append(where, "t.name = ?"), append(args, f.Target)
	}
	if f.Study != "" {
		where, args = append(where, "m.study = ?"), append(args, f.Study)
	}
	if f.CaseKey != "" {
		where, args = append(where, "m.case_key = ?"), append(args, f.CaseKey)
	}
	if f.Metric != "" {
		where, args = append(where, "m.metric = ?"), append(args, f.Metric)
	}
	q := `SELECT COALESCE(t.name, ''), m.study, m.case_key, m.case_json, m.rep, m.metric, m.value, m.unit,
		m.exact, m.direction, m.measured_at
		FROM measurements m LEFT JOIN targets t ON t.id = m.target_id
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY m.id`
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	var out []Measurement
	for rows.Next() {
		var m Measurement
		var cj, dir string
		var at dbTime
		if err := rows.Scan(&m.Target, &m.Study, &m.CaseKey, &cj, &m.Rep, &m.Metric, &m.Value, &m.Unit,
			&m.Exact, &dir, &at); err != nil {
			return nil, s.wrap(op, err)
		}
		if m.Case, err = parseCase(cj); err != nil {
			return nil, s.wrap(op, err)
		}
		m.Direction, m.At = Direction(dir), at.t
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	return out, nil
}

// Artefacts returns the artefacts of a run (see [Store.Run] for ref) that
// match f, in the order they were stored.
func (s *Store) Artefacts(ctx context.Context, ref string, f ArtefactFilter) ([]Artefact, error) {
	id, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	op := "read artefacts of run " + id
	where := []string{"a.run_id = ?"}
	args := []any{id}
	if f.Target != "" {
		where, args = append(where, "t.name = ?"), append(args, f.Target)
	}
	if f.Study != "" {
		where, args = append(where, "a.study = ?"), append(args, f.Study)
	}
	if f.CaseKey != "" {
		where, args = append(where, "a.case_key = ?"), append(args, f.CaseKey)
	}
	if f.Name != "" {
		where, args = append(where, "a.name = ?"), append(args, f.Name)
	}
	if f.ID != 0 {
		where, args = append(where, "a.id = ?"), append(args, f.ID)
	}
	data := "a.data"
	if f.SkipData {
		data = "NULL"
	}
	q := `SELECT a.id, COALESCE(t.name, ''), a.study, a.case_key, a.case_json, a.rep, a.name, a.content_type,
		a.size, ` + data + `, a.created_at
		FROM artefacts a LEFT JOIN targets t ON t.id = a.target_id
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY a.id`
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	var out []Artefact
	for rows.Next() {
		var a Artefact
		var cj string
		var at dbTime
		if err := rows.Scan(&a.ID, &a.Target, &a.Study, &a.CaseKey, &cj, &a.Rep, &a.Name, &a.ContentType,
			&a.Size, &a.Data, &at); err != nil {
			return nil, s.wrap(op, err)
		}
		if a.Case, err = parseCase(cj); err != nil {
			return nil, s.wrap(op, err)
		}
		if !f.SkipData && a.Data == nil {
			a.Data = []byte{}
		}
		a.At = at.t
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	return out, nil
}

// parseCase decodes a stored case; {} gives nil.
func parseCase(s string) (map[string]string, error) {
	if s == "{}" || s == "" {
		return nil, nil
	}
	var c map[string]string
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("bad stored case %q: %w", s, err)
	}
	return c, nil
}

// RunStudies names the studies of run r: those that stored a description
// (a study-info artefact), else those its manifest names.
func (s *Store) RunStudies(ctx context.Context, r RunRecord) ([]string, error) {
	as, err := s.Artefacts(ctx, r.ID, ArtefactFilter{Name: "study-info", SkipData: true})
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, a := range as {
		if a.Study != "" && !seen[a.Study] {
			seen[a.Study] = true
			out = append(out, a.Study)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	var extra struct {
		Study   string   `json:"study"`
		Studies []string `json:"studies"`
	}
	if json.Unmarshal(r.Extra, &extra) == nil {
		if extra.Study != "" {
			out = append(out, extra.Study)
		}
		out = append(out, extra.Studies...)
	}
	return out, nil
}

// Took says how long run r took (units.Elapsed: "1 min 30 s", "<1 s"),
// "running" while it runs, "-" when it ended without a finish time.
func (r RunRecord) Took() string {
	if r.FinishedAt.IsZero() {
		if r.Status == StatusRunning {
			return "running"
		}
		return "-"
	}
	d := r.FinishedAt.Sub(r.StartedAt)
	if d < time.Second {
		return "<1 s"
	}
	return units.Elapsed(d)
}
