package apply

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/tune"
)

// ErrAlterSystemDisabled is returned (wrapped) when the server does not
// allow ALTER SYSTEM (allow_alter_system = off, PostgreSQL 17 and later).
var ErrAlterSystemDisabled = errors.New("ALTER SYSTEM is disabled")

// ErrPermission is returned (wrapped) when the user may not change the
// server's configuration with ALTER SYSTEM, or may not read what
// postgresql.auto.conf holds.
var ErrPermission = errors.New("permission denied")

// ErrNothingToRevert is returned (wrapped) by Revert when pglab has applied
// nothing to the server.
var ErrNothingToRevert = errors.New("nothing to revert")

// reloadTimeout bounds the wait for the server to load its changed
// configuration after pg_reload_conf().
const reloadTimeout = 15 * time.Second

// The statuses of a Change after its verification.
const (
	// StatusOK: the value in effect is the one wanted.
	StatusOK = "ok"
	// StatusPending: the new value waits for a restart pglab may not do.
	StatusPending = "pending restart"
	// StatusNotTaken: the value in effect is still another one.
	StatusNotTaken = "not taken"
)

// Change is one parameter that Apply or Revert changed with ALTER SYSTEM.
type Change struct {
	// Name is the parameter's name.
	Name string `json:"name"`
	// Action is "set" (ALTER SYSTEM SET) or "reset" (ALTER SYSTEM RESET).
	Action string `json:"action"`
	// Value is the value set, or "" for a reset.
	Value string `json:"value,omitempty"`
	// Before is the value in effect before, as SHOW prints it.
	Before string `json:"before"`
	// After is the value in effect afterwards, as SHOW prints it.
	After string `json:"after"`
	// Restart is true when the parameter takes a new value only at a
	// restart.
	Restart bool `json:"restart"`
	// Status is StatusOK, StatusPending or StatusNotTaken.
	Status string `json:"status"`
	// Detail says why a value was not taken, e.g. "set on the command
	// line"; empty otherwise.
	Detail string `json:"detail,omitempty"`
}

// Skip is a parameter left alone.
type Skip struct {
	// Name is the parameter's name.
	Name string `json:"name"`
	// Value is the value that was not applied.
	Value string `json:"value"`
	// Reason says why.
	Reason string `json:"reason"`
}

// Result is what Apply or Revert did.
type Result struct {
	// Server is the server's label.
	Server string `json:"server"`
	// Changes are the parameters changed, with their verification.
	Changes []Change `json:"changes"`
	// Unchanged are the parameters already as wanted.
	Unchanged []string `json:"unchanged"`
	// Skipped are parameters left alone: values the server cannot take
	// (Apply), or values changed by someone else since pglab set them
	// (Revert).
	Skipped []Skip `json:"skipped"`
	// Reloaded is true when the configuration was reloaded.
	Reloaded bool `json:"reloaded"`
	// Restarted is true when the server was restarted.
	Restarted bool `json:"restarted"`
	// RestartedFor lists the parameters that waited for the restart.
	RestartedFor []string `json:"restarted_for,omitempty"`
	// PendingRestart lists every parameter waiting for a restart
	// afterwards (pg_settings.pending_restart), including ones pglab did
	// not change; empty after a restart.
	PendingRestart []string `json:"pending_restart"`
	// Record says where the record of applied settings is kept.
	Record string `json:"record"`
}

// NotTaken returns the changes whose value did not take.
func (r *Result) NotTaken() []Change {
	var out []Change
	for _, c := range r.Changes {
		if c.Status == StatusNotTaken {
			out = append(out, c)
		}
	}
	return out
}

// Apply loads the configuration files as they are (pg_reload_conf), sets
// every recommended parameter whose value in effect differs (or that waits
// for a restart) with ALTER SYSTEM, reloads the configuration, restarts the server when a parameter needs it and
// s.Restart is set, and verifies that each value took. Values the server
// cannot take are skipped. The record of what was set is written before
// the first change; a failed ALTER SYSTEM undoes this call's changes.
// A value that did not take is reported in the result (Status
// StatusNotTaken), not as an error.
func (s *Server) Apply(ctx context.Context, params []tune.Parameter) (*Result, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { conn.Close(context.Background()) }()
	if err := s.checkAllowed(ctx, conn); err != nil {
		return nil, err
	}
	// Load the configuration files as they are now, so that a value
	// someone wrote but did not load yet is compared, not the one it
	// replaces (Apply's own reload would load it anyway).
	if err := s.reload(ctx, conn); err != nil {
		return nil, err
	}
	rows, err := s.compare(ctx, conn, params)
	if err != nil {
		return nil, err
	}
	res := &Result{Server: s.Label, Record: s.RecordLocation(), Reloaded: true, Changes: []Change{}, Unchanged: []string{}, Skipped: []Skip{}, PendingRestart: []string{}}
	var todo []Row
	for _, r := range rows {
		switch {
		case r.Unsupported != "":
			res.Skipped = append(res.Skipped, Skip{Name: r.Name, Value: r.Recommended, Reason: r.Unsupported})
		case r.Differs || r.PendingRestart:
			todo = append(todo, r)
		default:
			res.Unchanged = append(res.Unchanged, r.Name)
		}
	}
	if len(todo) == 0 {
		return res, nil
	}
	names := make([]string, len(todo))
	for i, r := range todo {
		names[i] = r.Name
	}
	if err := s.checkParams(ctx, conn, names); err != nil {
		return nil, err
	}
	auto, err := s.readAutoConf(ctx, conn)
	if err != nil {
		return nil, err
	}
	old, err := s.loadRecord(ctx, conn, auto)
	if err != nil {
		return nil, err
	}
	rec := &Record{Format: recordFormat}
	if old != nil {
		rec.Params = slices.Clone(old.Params)
	}
	rec.Applied = time.Now().UTC().Truncate(time.Second)
	for _, r := range todo {
		if p := rec.find(r.Name); p != nil {
			p.Value = r.Recommended
			continue
		}
		var before *string
		if v, ok := auto.get(r.Name); ok {
			before = &v
		}
		rec.Params = append(rec.Params, RecordedParam{Name: r.Name, Value: r.Recommended, Before: before})
	}
	if err := s.saveRecord(ctx, conn, rec); err != nil {
		return nil, s.alterError(err)
	}
	for i, r := range todo {
		v := r.Recommended
		if err := alterSystem(ctx, conn, r.Name, &v); err != nil {
			return nil, s.undo(ctx, conn, todo[:i], auto, old, s.alterError(err))
		}
	}
	if err := s.reload(ctx, conn); err != nil {
		return nil, err
	}
	if conn, err = s.restartIfNeeded(ctx, conn, res); err != nil {
		return nil, err
	}
	info, err := readParams(ctx, conn, names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Label, err)
	}
	for _, r := range todo {
		now := info[r.Name]
		c := Change{Name: r.Name, Action: "set", Value: r.Recommended, Before: r.Current, After: now.Display, Restart: r.Restart, Status: StatusOK}
		switch {
		case sameSetting(now, r.target, now.Setting) && !now.PendingRestart:
		case now.PendingRestart && !res.Restarted:
			c.Status = StatusPending
		default:
			c.Status, c.Detail = StatusNotTaken, notTakenDetail(now)
		}
		res.Changes = append(res.Changes, c)
	}
	return res, nil
}

// notTakenDetail says where the value in effect comes from.
func notTakenDetail(p param) string {
	switch {
	case p.PendingRestart:
		return "still waits for a restart"
	case p.Source == "command line":
		return "set on the server's command line, which ALTER SYSTEM cannot override"
	case p.Source != "" && p.Source != "configuration file" && p.Source != "default":
		return "in effect from " + p.Source
	}
	return "the server kept " + p.Display
}

// undo puts back this call's changes after a failed ALTER SYSTEM: the
// parameters already set get postgresql.auto.conf's old values again and
// the record its old content. It returns cause, with any failure of the
// undo appended.
func (s *Server) undo(ctx context.Context, conn *pgx.Conn, done []Row, auto autoConf, old *Record, cause error) error {
	// Undo even when the failure was a cancellation.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var errs []string
	for _, r := range done {
		var v *string
		if prev, ok := auto.get(r.Name); ok {
			v = &prev
		}
		if err := alterSystem(ctx, conn, r.Name, v); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", r.Name, err))
		}
	}
	if err := s.saveRecord(ctx, conn, old); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w; undoing the changes made so far failed too: %s", cause, strings.Join(errs, "; "))
	}
	return cause
}

// Revert undoes what pglab applied: each parameter it set gets
// postgresql.auto.conf's value from before (ALTER SYSTEM SET) or is
// removed from the file (ALTER SYSTEM RESET), unless someone has changed
// it since; then the configuration is reloaded, the server restarted when
// needed and s.Restart is set, and the record removed. Without a record it
// returns an error wrapping ErrNothingToRevert.
func (s *Server) Revert(ctx context.Context) (*Result, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { conn.Close(context.Background()) }()
	if err := s.checkAllowed(ctx, conn); err != nil {
		return nil, err
	}
	auto, err := s.readAutoConf(ctx, conn)
	if err != nil {
		return nil, err
	}
	rec, err := s.loadRecord(ctx, conn, auto)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("%w on %s: pglab has applied no settings there (no record in %s)", ErrNothingToRevert, s.Label, s.RecordLocation())
	}
	res := &Result{Server: s.Label, Record: s.RecordLocation(), Changes: []Change{}, Unchanged: []string{}, Skipped: []Skip{}, PendingRestart: []string{}}
	all := make([]string, len(rec.Params))
	for i, p := range rec.Params {
		all[i] = p.Name
	}
	before, err := readParams(ctx, conn, all)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Label, err)
	}
	var todo []RecordedParam
	for _, p := range rec.Params {
		cur, inFile := auto.get(p.Name)
		switch {
		case auto.holds(before, p.Name, &p.Value):
			todo = append(todo, p)
		case auto.holds(before, p.Name, p.Before):
			res.Unchanged = append(res.Unchanged, p.Name)
		case inFile:
			res.Skipped = append(res.Skipped, Skip{Name: p.Name, Value: cur, Reason: fmt.Sprintf("changed since pglab set it to %s; left as is", p.Value)})
		default:
			res.Skipped = append(res.Skipped, Skip{Name: p.Name, Reason: fmt.Sprintf("removed from postgresql.auto.conf since pglab set it to %s; left as is", p.Value)})
		}
	}
	names := make([]string, len(todo))
	for i, p := range todo {
		names[i] = p.Name
	}
	if err := s.checkParams(ctx, conn, names); err != nil {
		return nil, err
	}
	for _, p := range todo {
		if err := alterSystem(ctx, conn, p.Name, p.Before); err != nil {
			return nil, s.alterError(err)
		}
	}
	if err := s.saveRecord(ctx, conn, nil); err != nil {
		return nil, s.alterError(err)
	}
	if err := s.reload(ctx, conn); err != nil {
		return nil, err
	}
	res.Reloaded = true
	if conn, err = s.restartIfNeeded(ctx, conn, res); err != nil {
		return nil, err
	}
	after, err := readParams(ctx, conn, names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Label, err)
	}
	auto, err = s.readAutoConf(ctx, conn)
	if err != nil {
		return nil, err
	}
	for _, p := range todo {
		b, a := before[p.Name], after[p.Name]
		c := Change{Name: p.Name, Action: "reset", Before: b.Display, After: a.Display, Restart: a.needsRestart(), Status: StatusOK}
		if p.Before != nil {
			c.Action, c.Value = "set", *p.Before
		}
		switch {
		case !auto.holds(after, p.Name, p.Before):
			c.Status, c.Detail = StatusNotTaken, "postgresql.auto.conf does not hold the old value"
		case a.PendingRestart && !res.Restarted:
			c.Status = StatusPending
		case a.PendingRestart:
			c.Status, c.Detail = StatusNotTaken, notTakenDetail(a)
		case p.Before != nil:
			if want, err := canonical(a, *p.Before); err == nil && !sameSetting(a, want, a.Setting) {
				c.Status, c.Detail = StatusNotTaken, notTakenDetail(a)
			}
		}
		res.Changes = append(res.Changes, c)
	}
	return res, nil
}

// restartIfNeeded restarts the server when a parameter waits for it and
// pglab may restart it, and returns a connection to use afterwards. It
// fills res.Restarted and res.PendingRestart.
func (s *Server) restartIfNeeded(ctx context.Context, conn *pgx.Conn, res *Result) (*pgx.Conn, error) {
	pending, err := pendingRestart(ctx, conn)
	if err != nil {
		return conn, fmt.Errorf("%s: %w", s.Label, err)
	}
	if len(pending) == 0 || s.Restart == nil {
		res.PendingRestart = pending
		return conn, nil
	}
	conn.Close(context.Background())
	s.say("restarting %s for %s", s.Label, strings.Join(pending, ", "))
	if err := s.Restart(ctx); err != nil {
		return conn, fmt.Errorf("restart %s for %s: %w", s.Label, strings.Join(pending, ", "), err)
	}
	res.Restarted, res.RestartedFor = true, pending
	nc, err := s.connect(ctx)
	if err != nil {
		return conn, err
	}
	if res.PendingRestart, err = pendingRestart(ctx, nc); err != nil {
		return nc, fmt.Errorf("%s: %w", s.Label, err)
	}
	return nc, nil
}

// pendingRestart lists the parameters waiting for a restart.
func pendingRestart(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, "SELECT name FROM pg_settings WHERE pending_restart ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	if names == nil {
		names = []string{}
	}
	return names, nil
}

// reload asks the server to reload its configuration files and waits
// until this session has loaded them (pg_conf_load_time moves on), so
// that pg_settings shows the new values and pending restarts.
func (s *Server) reload(ctx context.Context, conn *pgx.Conn) error {
	var t0 time.Time
	if err := conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&t0); err != nil {
		return fmt.Errorf("%s: read pg_conf_load_time: %w", s.Label, err)
	}
	s.say("reloading the configuration of %s", s.Label)
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("%s: pg_reload_conf: %w", s.Label, err)
	}
	deadline := time.Now().Add(reloadTimeout)
	for {
		var t time.Time
		if err := conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&t); err != nil {
			return fmt.Errorf("%s: read pg_conf_load_time: %w", s.Label, err)
		}
		if t.After(t0) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not load its configuration files within %s of pg_reload_conf(); its log says why (often an error in a configuration file)", s.Label, reloadTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// nameRE is the shape of a parameter name pglab writes into ALTER SYSTEM.
var nameRE = regexp.MustCompile(`^[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*)?$`)

func validName(name string) bool { return nameRE.MatchString(name) }

// quoteLiteral quotes s as an SQL string literal whatever
// standard_conforming_strings says.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		q = "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// alterSystem runs ALTER SYSTEM SET name = value, or ALTER SYSTEM RESET
// name when value is nil.
func alterSystem(ctx context.Context, conn *pgx.Conn, name string, value *string) error {
	if !validName(name) {
		return fmt.Errorf("%q is not a parameter name", name)
	}
	sql := "ALTER SYSTEM RESET " + name
	if value != nil {
		sql = "ALTER SYSTEM SET " + name + " = " + quoteLiteral(*value)
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// alterError turns the server's refusals of ALTER SYSTEM into
// ErrAlterSystemDisabled and ErrPermission.
func (s *Server) alterError(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	switch {
	case strings.Contains(pe.Message, "ALTER SYSTEM is not allowed"):
		return fmt.Errorf("%w on %s (allow_alter_system = off): pglab cannot change its settings", ErrAlterSystemDisabled, s.Label)
	case pe.Code == "42501":
		return fmt.Errorf("%w: %s on %s; connect as a superuser", ErrPermission, pe.Message, s.Label)
	}
	return fmt.Errorf("%s: %w", s.Label, err)
}

// checkAllowed fails, before any change, when ALTER SYSTEM is disabled or
// this user may not use it or reload the configuration. A non-superuser's
// rights on each parameter are checked by checkParams.
func (s *Server) checkAllowed(ctx context.Context, conn *pgx.Conn) error {
	var num, user, su string
	var allow *string
	err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num'), current_user, current_setting('is_superuser'),
		(SELECT setting FROM pg_settings WHERE name = 'allow_alter_system')`).Scan(&num, &user, &su, &allow)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	if allow != nil && *allow == "off" {
		return fmt.Errorf("%w on %s (allow_alter_system = off): pglab cannot change its settings", ErrAlterSystemDisabled, s.Label)
	}
	if su == "on" {
		return nil
	}
	if v, _ := strconv.Atoi(num); v < 150000 {
		return fmt.Errorf("%w: ALTER SYSTEM needs a superuser before PostgreSQL 15, and %s is not one on %s", ErrPermission, user, s.Label)
	}
	var reload bool
	if err := conn.QueryRow(ctx, "SELECT has_function_privilege('pg_reload_conf()', 'EXECUTE')").Scan(&reload); err != nil {
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	if !reload {
		return fmt.Errorf("%w: %s may not run pg_reload_conf() on %s; connect as a superuser or GRANT EXECUTE ON FUNCTION pg_reload_conf() TO %s",
			ErrPermission, user, s.Label, pgx.Identifier{user}.Sanitize())
	}
	return nil
}

// checkParams fails, before any change, when this user may not ALTER
// SYSTEM SET one of the named parameters (or the record parameter, when
// the record is kept in the server). Superusers may.
func (s *Server) checkParams(ctx context.Context, conn *pgx.Conn, names []string) error {
	var user, su string
	if err := conn.QueryRow(ctx, "SELECT current_user, current_setting('is_superuser')").Scan(&user, &su); err != nil {
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	if su == "on" {
		return nil
	}
	check := slices.Clone(names)
	if s.RecordFile == "" {
		check = append(check, RecordParameter)
	}
	var missing []string
	for _, n := range check {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT has_parameter_privilege($1, 'ALTER SYSTEM')", n).Scan(&ok); err != nil {
			return fmt.Errorf("%s: %w", s.Label, err)
		}
		if !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s may not ALTER SYSTEM SET %s on %s; connect as a superuser or GRANT ALTER SYSTEM ON PARAMETER %s TO %s",
			ErrPermission, user, strings.Join(missing, ", "), s.Label, strings.Join(missing, ", "), pgx.Identifier{user}.Sanitize())
	}
	return nil
}

// autoConf is what postgresql.auto.conf holds: parameter name to value as
// written.
type autoConf struct {
	values map[string]string
	// exact is true when read from the file (pg_file_settings), false
	// when read from the values in effect (pg_settings), which miss values
	// waiting for a reload or restart and hidden custom parameters.
	exact bool
}

// holds reports whether the file holds value for name, or, for a nil
// value, does not hold name at all. Read from pg_settings, the file's
// value is in the parameter's base unit and is compared as such.
func (a autoConf) holds(info map[string]param, name string, value *string) bool {
	cur, ok := a.values[name]
	if value == nil || !ok {
		return value == nil && !ok
	}
	if cur == *value {
		return true
	}
	p, known := info[name]
	if a.exact || !known {
		return false
	}
	want, err := canonical(p, *value)
	return err == nil && sameSetting(p, want, cur)
}

// get returns the file's value of name and whether the file holds it.
func (a autoConf) get(name string) (string, bool) {
	v, ok := a.values[name]
	return v, ok
}

// readAutoConf returns what postgresql.auto.conf holds. It reads
// pg_file_settings (superusers), else pg_settings' source files
// (pg_read_all_settings); without either privilege it fails with
// ErrPermission, since the old values could not be recorded.
func (s *Server) readAutoConf(ctx context.Context, conn *pgx.Conn) (autoConf, error) {
	const fileSQL = `SELECT lower(name), coalesce(setting, '') FROM pg_file_settings WHERE sourcefile LIKE '%/postgresql.auto.conf' ORDER BY seqno`
	values, err := queryAutoConf(ctx, conn, fileSQL)
	if err == nil {
		return autoConf{values, true}, nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		return autoConf{}, fmt.Errorf("%s: read pg_file_settings: %w", s.Label, err)
	}
	var allowed bool
	if err := conn.QueryRow(ctx, "SELECT pg_has_role('pg_read_all_settings', 'USAGE')").Scan(&allowed); err != nil {
		return autoConf{}, fmt.Errorf("%s: %w", s.Label, err)
	}
	if !allowed {
		return autoConf{}, fmt.Errorf("%w: pglab cannot see what postgresql.auto.conf holds on %s (pg_file_settings needs a superuser, pg_settings.sourcefile pg_read_all_settings), so it could not revert its changes; connect as a superuser", ErrPermission, s.Label)
	}
	values, err = queryAutoConf(ctx, conn, `SELECT name, setting FROM pg_settings WHERE sourcefile LIKE '%/postgresql.auto.conf'`)
	if err != nil {
		return autoConf{}, fmt.Errorf("%s: read pg_settings: %w", s.Label, err)
	}
	return autoConf{values, false}, nil
}

// queryAutoConf runs a query of (name, value) rows; later rows win.
func queryAutoConf(ctx context.Context, conn *pgx.Conn, sql string) (map[string]string, error) {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			rows.Close()
			return nil, err
		}
		out[name] = value
	}
	return out, rows.Err()
}
