package results

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/pglab/pglab/redact"
)

// Run is a run being written: the handle [Store.BeginRun] returns. Its
// methods are safe for concurrent use.
type Run struct {
	s  *Store
	id string

	// mu guards targets and finished. Adding measurements and artefacts
	// holds it for reading, so that several goroutines can write at once;
	// AddTarget and Finish hold it for writing.
	mu       sync.RWMutex
	targets  map[string]int64 // target name → targets.id
	finished bool

	// studiesMu guards studies: the studies the run holds measurements of.
	studiesMu sync.Mutex
	studies   map[string]bool
}

// runIDRE is what a run ID (or a prefix of one) may look like.
var runIDRE = regexp.MustCompile(`^[0-9a-z_-]+$`)

// newRunID makes an ID from the start time and 16 random bits.
func newRunID(t time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// BeginRun stores a new run in state [StatusRunning] and returns a handle
// to add its targets, measurements and artefacts and to finish it.
func (s *Store) BeginRun(ctx context.Context, info RunInfo) (*Run, error) {
	if !info.Kind.valid() {
		return nil, fmt.Errorf("begin run: unknown run kind %q (want study, compare, plan, bench or tune)", info.Kind)
	}
	if info.ID != "" && (!runIDRE.MatchString(info.ID) || info.ID == "last") {
		return nil, fmt.Errorf("begin run: bad run ID %q: use lower-case letters, digits, '-' and '_'", info.ID)
	}
	extra, err := extraJSON(info.Extra)
	if err != nil {
		return nil, fmt.Errorf("begin run: %w", err)
	}
	cmd := redact.Args(info.Command)
	if cmd == nil {
		cmd = []string{}
	}
	cmdJSON, err := json.Marshal(cmd)
	if err != nil {
		return nil, fmt.Errorf("begin run: command: %w", err)
	}
	started := info.StartedAt
	if started.IsZero() {
		started = time.Now()
	}
	h := info.Host
	var rot sql.NullBool
	if h.Disk.Rotational != nil {
		rot = sql.NullBool{Bool: *h.Disk.Rotational, Valid: true}
	}
	q := s.rebind(`INSERT INTO runs (id, kind, status, started_at, pglab_version, command,
		host_name, host_os, host_arch, host_kernel, host_cpus, host_cpu_model, host_memory_bytes,
		disk_path, disk_device, disk_filesystem, disk_rotational, extra)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	for attempt := 0; ; attempt++ {
		id := info.ID
		if id == "" {
			id = newRunID(started)
		}
		err := s.inTx(ctx, "begin run", func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, q, id, string(info.Kind), string(StatusRunning), s.timeArg(started),
				info.Version, string(cmdJSON),
				h.Hostname, h.OS, h.Arch, h.Kernel, h.CPUs, h.CPUModel, h.MemoryBytes,
				h.Disk.Path, h.Disk.Device, h.Disk.Filesystem, rot, extra)
			return err
		})
		if err == nil {
			return &Run{s: s, id: id, targets: map[string]int64{}}, nil
		}
		if !isUniqueViolation(err) {
			return nil, err
		}
		if info.ID != "" {
			return nil, fmt.Errorf("begin run: a run with ID %q already exists", info.ID)
		}
		if attempt == 10 {
			return nil, err
		}
	}
}

// ID returns the run's ID.
func (r *Run) ID() string { return r.id }

// writeCtx is the context of a run's write: not cancelled with the caller's
// (a run interrupted by Ctrl-C must still be stored), but bounded.
func writeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), WriteTimeout)
}

func (r *Run) checkOpen() error {
	if r.finished {
		return fmt.Errorf("run %s is already finished", r.id)
	}
	return nil
}

// AddTarget stores a target of the run. Its name must be unique within the
// run. Conn, settings and Extra are redacted before they are stored.
func (r *Run) AddTarget(ctx context.Context, t Target) error {
	op := fmt.Sprintf("add target %q to run %s", t.Name, r.id)
	if t.Name == "" {
		return fmt.Errorf("add target to run %s: the target has no name", r.id)
	}
	if !t.Kind.valid() {
		return fmt.Errorf("%s: unknown target kind %q (want managed or dsn)", op, t.Kind)
	}
	extra, err := extraJSON(t.Extra)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	seen := map[string]bool{}
	for _, st := range t.Settings {
		if st.Name == "" {
			return fmt.Errorf("%s: a setting has no name", op)
		}
		if seen[st.Name] {
			return fmt.Errorf("%s: setting %q is listed twice", op, st.Name)
		}
		seen[st.Name] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkOpen(); err != nil {
		return err
	}
	if _, ok := r.targets[t.Name]; ok {
		return fmt.Errorf("%s: the run already has a target of that name", op)
	}
	ctx, cancel := writeCtx(ctx)
	defer cancel()
	var id int64
	err = r.s.inTx(ctx, op, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, r.s.rebind(`INSERT INTO targets
			(run_id, name, kind, conn, server_version, server_version_num, data_checksums, extra)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			r.id, t.Name, string(t.Kind), redact.DSN(t.Conn), t.ServerVersion, t.ServerVersionNum,
			t.DataChecksums, extra).Scan(&id)
		if err != nil {
			return err
		}
		ins := r.s.rebind(`INSERT INTO target_settings (target_id, name, value, unit, source) VALUES (?, ?, ?, ?, ?)`)
		for _, st := range t.Settings {
			if _, err := tx.ExecContext(ctx, ins, id, st.Name, redact.Text(st.Value), st.Unit, st.Source); err != nil {
				return fmt.Errorf("setting %s: %w", st.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.targets[t.Name] = id
	return nil
}

// targetID returns the targets.id of a target name, or NULL for "".
// r.mu must be held (for reading at least).
func (r *Run) targetID(name string) (sql.NullInt64, error) {
	if name == "" {
		return sql.NullInt64{}, nil
	}
	id, ok := r.targets[name]
	if !ok {
		return sql.NullInt64{}, fmt.Errorf("unknown target %q (add it with AddTarget first)", name)
	}
	return sql.NullInt64{Int64: id, Valid: true}, nil
}

// redactCase returns a redacted copy of a case.
func redactCase(c map[string]string) map[string]string {
	if len(c) == 0 {
		return nil
	}
	out := make(map[string]string, len(c))
	for k, v := range c {
		out[k] = redact.Text(v)
	}
	return out
}

// AddMeasurements stores measurements of the run, all in one transaction:
// either all are stored or none. Each must name a target added with
// [Run.AddTarget] (or none), a metric, and a finite value.
func (r *Run) AddMeasurements(ctx context.Context, ms []Measurement) error {
	if len(ms) == 0 {
		return nil
	}
	op := fmt.Sprintf("add %d measurements to run %s", len(ms), r.id)
	now := time.Now()
	r.mu.RLock()
	defer r.mu.RUnlock()
	if err := r.checkOpen(); err != nil {
		return err
	}
	type row struct {
		target        sql.NullInt64
		key, caseJSON string
		dir           Direction
		at            any
	}
	r.noteStudies(ms)
	rows := make([]row, len(ms))
	for i, m := range ms {
		where := fmt.Sprintf("measurement %d (%s %s)", i+1, m.Study, m.Metric)
		if m.Metric == "" {
			return fmt.Errorf("%s: %s has no metric", op, where)
		}
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			return fmt.Errorf("%s: %s: value %v is not a finite number", op, where, m.Value)
		}
		dir := m.Direction
		if dir == "" {
			dir = DirectionNeutral
		}
		if !dir.valid() {
			return fmt.Errorf("%s: %s: unknown direction %q (want higher, lower or neutral)", op, where, m.Direction)
		}
		tid, err := r.targetID(m.Target)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", op, where, err)
		}
		c := redactCase(m.Case)
		at := m.At
		if at.IsZero() {
			at = now
		}
		rows[i] = row{target: tid, key: CaseKey(c), caseJSON: caseJSON(c), dir: dir, at: r.s.timeArg(at)}
	}
	ctx, cancel := writeCtx(ctx)
	defer cancel()
	return r.s.inTx(ctx, op, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, r.s.rebind(`INSERT INTO measurements
			(run_id, target_id, study, case_key, case_json, rep, metric, value, unit, exact, direction, measured_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, m := range ms {
			w := rows[i]
			if _, err := stmt.ExecContext(ctx, r.id, w.target, m.Study, w.key, w.caseJSON, m.Rep,
				m.Metric, m.Value, m.Unit, m.Exact, string(w.dir), w.at); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddArtefact stores a raw artefact of the run. Text and JSON contents are
// redacted (see [Artefact.ContentType]).
func (r *Run) AddArtefact(ctx context.Context, a Artefact) error {
	op := fmt.Sprintf("add artefact %q to run %s", a.Name, r.id)
	if a.Name == "" {
		return fmt.Errorf("add artefact to run %s: the artefact has no name", r.id)
	}
	if a.ContentType == "" {
		return fmt.Errorf("%s: no content type", op)
	}
	at := a.At
	if at.IsZero() {
		at = time.Now()
	}
	data := redactArtefact(a.ContentType, a.Data)
	if data == nil {
		data = []byte{}
	}
	c := redactCase(a.Case)
	r.mu.RLock()
	defer r.mu.RUnlock()
	if err := r.checkOpen(); err != nil {
		return err
	}
	tid, err := r.targetID(a.Target)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	ctx, cancel := writeCtx(ctx)
	defer cancel()
	return r.s.inTx(ctx, op, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, r.s.rebind(`INSERT INTO artefacts
			(run_id, target_id, study, case_key, case_json, rep, name, content_type, size, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			r.id, tid, a.Study, CaseKey(c), caseJSON(c), a.Rep, a.Name, a.ContentType, int64(len(data)),
			data, r.s.timeArg(at))
		return err
	})
}

// Finish records the run's outcome: status [StatusDone], [StatusFailed] or
// [StatusInterrupted], and the text of runErr (redacted) if it is not nil.
// It is meant to be called after ctx may have been cancelled: the write uses
// a fresh context bounded by [WriteTimeout]. After Finish the run accepts no
// more writes.
func (r *Run) Finish(ctx context.Context, status Status, runErr error) error {
	if !status.valid() || status == StatusRunning {
		return fmt.Errorf("finish run %s: status %q is not a final status (want done, failed or interrupted)", r.id, status)
	}
	var text string
	if runErr != nil {
		text = redact.Text(runErr.Error())
	}
	return r.close(ctx, "finish run "+r.id, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, r.s.rebind(`UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?`),
			string(status), text, r.s.timeArg(time.Now()), r.id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n != 1 {
			return errors.New("the run is no longer in the store")
		}
		return nil
	})
}

// close makes the run's last write, write, in one transaction under a
// fresh context bounded by [WriteTimeout]; after it the run accepts no
// more writes.
func (r *Run) close(ctx context.Context, op string, write func(context.Context, *sql.Tx) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkOpen(); err != nil {
		return err
	}
	ctx, cancel := writeCtx(ctx)
	defer cancel()
	if err := r.s.inTx(ctx, op, func(tx *sql.Tx) error { return write(ctx, tx) }); err != nil {
		return err
	}
	r.finished = true
	return nil
}

// sortSettings orders settings by name.
func sortSettings(s []Setting) {
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}

// Discard removes the run and everything stored under it (targets,
// measurements, artefacts): for a run that ended on bad input, which is
// to leave nothing behind. After Discard the run accepts no more writes.
func (r *Run) Discard(ctx context.Context) error {
	return r.close(ctx, "discard run "+r.id, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, r.s.rebind(`DELETE FROM runs WHERE id = ?`), r.id)
		return err
	})
}

// noteStudies remembers the studies of measurements being stored.
func (r *Run) noteStudies(ms []Measurement) {
	r.studiesMu.Lock()
	defer r.studiesMu.Unlock()
	if r.studies == nil {
		r.studies = map[string]bool{}
	}
	for _, m := range ms {
		r.studies[m.Study] = true
	}
}

// MeasuredStudies returns the studies the run was given measurements of,
// sorted.
func (r *Run) MeasuredStudies() []string {
	r.studiesMu.Lock()
	defer r.studiesMu.Unlock()
	var out []string
	for s := range r.studies {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
