package study

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/netdelay"
	"github.com/pglab/pglab/internal/pgnet"
	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/results"
)

// Schema is the schema studies create their objects in, on every target.
const Schema = "pglab"

// schemaMarker is the comment pglab puts on the schema it creates, so that
// it never takes over a user's schema of the same name.
const schemaMarker = "created by pglab for its studies; safe to drop"

// ErrNotManaged is returned by operations that need a server pglab manages
// (restarts, server-wide settings) on a user's server.
var ErrNotManaged = errors.New("not a server pglab manages")

// Target is a server a study runs on: one pglab manages, or a user's
// server given by a DSN.
type Target struct {
	// Name labels the target in results and reports, e.g. "pg17".
	Name string

	inst      *pgserver.Instance // nil for a user's server
	owned     bool               // inst was started for this run (not a named instance)
	config    *pgx.ConnConfig    // with password; never printed or stored
	redacted  string
	base      []pgserver.Setting // a managed target's settings outside any study
	session   map[string]string  // settings applied to each connection (user's servers)
	unapplied []string           // settings wanted but left as the server has them
	env       *env.Environment   // the environment of a managed server, or nil
	delay     *netdelay.Proxy    // the round trip added between clients and the server, or nil
	direct    *pgx.ConnConfig    // the server's own address while delay is set
	leftOut   []pgserver.Setting // settings wanted that this server's version does not have

	// Facts read from the server when it is opened.
	VersionNum int
	Version    string
	Checksums  bool
	// DataDir is the data directory when the server is local and known.
	DataDir string
	// Config is every setting and the build's facts, as Record read
	// them; nil before Record or when they could not be read.
	Config *observe.ServerConfig
}

// ManagedTarget wraps an instance pglab started. owned says whether it was
// started for this run (and may be restarted freely) rather than a named
// instance of the user's (whose settings are restored after each study).
func ManagedTarget(ctx context.Context, name string, inst *pgserver.Instance, owned bool) (*Target, error) {
	cfg, err := pgx.ParseConfig(inst.DSN())
	if err == nil {
		err = pgnet.Configure(&cfg.Config)
	}
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	t := &Target{Name: name, inst: inst, owned: owned, config: cfg, redacted: inst.RedactedDSN(), base: inst.Settings(), DataDir: inst.DataDir()}
	if err := t.loadFacts(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// ServerName names the target's server in messages: the target's name
// and the server's own address (not a delay proxy's).
func (t *Target) ServerName() string {
	return pgnet.ConfigServerName(t.Name, &t.directConfig().Config)
}

// lost returns err as a *pgnet.LostError naming the target's server when
// it means that the connection was lost (and ctx was not cancelled: an
// interrupted step's closed connections are not a lost server), else err.
func (t *Target) lost(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	return pgnet.AsLost(t.ServerName(), "", err)
}

// DSNTarget opens a user's server. dsn is a URL or key=value string; PG*
// environment variables and ~/.pgpass fill in what it leaves out.
func DSNTarget(ctx context.Context, name, dsn string) (*Target, error) {
	cfg, err := ParseDSN(name, dsn)
	if err != nil {
		return nil, err
	}
	t := &Target{Name: name, config: cfg, redacted: redact.DSN(dsn)}
	if err := t.loadFacts(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// ParseDSN reads the DSN of a user's server named name, as DSNTarget
// does, without connecting; errors hold no password.
func ParseDSN(name, dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message quotes the DSN: keep only the reason.
		msg := err.Error()
		if _, reason, ok := strings.Cut(msg, "`: "); ok {
			msg = reason
		}
		return nil, fmt.Errorf("target %s: invalid DSN %s: %s", name, redact.DSN(dsn), msg)
	}
	if err := pgnet.Configure(&cfg.Config); err != nil {
		return nil, fmt.Errorf("target %s: invalid DSN %s: %w", name, redact.DSN(dsn), err)
	}
	return cfg, nil
}

// Managed reports whether pglab manages the server (can restart it and
// change its settings).
func (t *Target) Managed() bool { return t.inst != nil }

// Instance returns the managed instance, or nil.
func (t *Target) Instance() *pgserver.Instance { return t.inst }

// Redacted returns a description of the connection without password.
func (t *Target) Redacted() string { return t.redacted }

// ConnConfig returns a copy of the connection configuration (password
// included: never print or store it), with search_path set to the study
// schema and application_name to pglab.
func (t *Target) ConnConfig() *pgx.ConnConfig {
	c := t.config.Copy()
	if c.RuntimeParams == nil {
		c.RuntimeParams = map[string]string{}
	}
	for k, v := range t.session {
		c.RuntimeParams[k] = v
	}
	c.RuntimeParams["search_path"] = Schema + ", public"
	if _, ok := c.RuntimeParams["application_name"]; !ok {
		c.RuntimeParams["application_name"] = "pglab"
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 30 * time.Second
	}
	return c
}

// DSN returns the connection string the target was opened with (password
// included: never print or store it).
func (t *Target) DSN() string { return t.config.ConnString() }

// DSNWithSchema returns a connection string (password included: never
// print or store it) whose sessions use the study schema, for code that
// takes a connection string (the bench engine).
func (t *Target) DSNWithSchema() string {
	c := t.ConnConfig()
	q := url.Values{}
	for k, v := range c.RuntimeParams {
		q.Set(k, v)
	}
	if c.TLSConfig == nil {
		q.Set("sslmode", "disable")
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(c.User, c.Password), Path: "/" + c.Database, RawQuery: q.Encode()}
	if strings.HasPrefix(c.Host, "/") {
		q.Set("host", c.Host)
		q.Set("port", strconv.Itoa(int(c.Port)))
		u.RawQuery = q.Encode()
	} else {
		u.Host = net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))
	}
	return u.String()
}

// Connect opens a connection to the target's database with search_path set
// to the study schema.
func (t *Target) Connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, t.ConnConfig())
	if err != nil {
		return nil, ConnectError(t.Name, err)
	}
	return conn, nil
}

// ConnectError keeps a connection failure on one line: pgx puts each
// address tried on a line of its own.
func ConnectError(target string, err error) error {
	return fmt.Errorf("target %s: connect: %w", target, OneLineError{err})
}

// OneLineError prints a wrapped error with its line breaks folded.
type OneLineError struct{ Err error }

// Error returns the error's text on one line.
func (e OneLineError) Error() string {
	msg := strings.ReplaceAll(e.Err.Error(), "\n\t", " ")
	return strings.ReplaceAll(msg, "\n", "; ")
}

// Unwrap returns the error.
func (e OneLineError) Unwrap() error { return e.Err }

// ConnectWithNotices is Connect with a handler receiving the server's
// notices (INFO, NOTICE, WARNING messages such as VACUUM VERBOSE output).
func (t *Target) ConnectWithNotices(ctx context.Context, onNotice func(*pgconn.Notice)) (*pgx.Conn, error) {
	cfg := t.ConnConfig()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { onNotice(n) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, ConnectError(t.Name, err)
	}
	return conn, nil
}

func (t *Target) loadFacts(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, t.config)
	if err != nil {
		return ConnectError(t.Name, err)
	}
	defer conn.Close(context.Background())
	var num, checksums string
	err = conn.QueryRow(cctx, "SELECT current_setting('server_version_num'), current_setting('server_version'), current_setting('data_checksums')").Scan(&num, &t.Version, &checksums)
	if err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	t.VersionNum, _ = strconv.Atoi(num)
	t.Checksums = checksums == "on"
	if t.DataDir == "" {
		// Readable only by superusers and pg_read_all_settings members.
		var dir string
		if conn.QueryRow(cctx, "SELECT setting FROM pg_settings WHERE name = 'data_directory'").Scan(&dir) == nil && isLocalHost(t.config.Host) {
			t.DataDir = dir
		}
	}
	return nil
}

func isLocalHost(h string) bool {
	return h == "" || h[0] == '/' || h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// Restart restarts a managed server with its current settings, emptying
// shared buffers. Connections to it (the session's observer included) are
// closed by the restart; the observer reconnects by itself.
func (t *Target) Restart(ctx context.Context) error {
	if t.inst == nil {
		return fmt.Errorf("target %s: restart: %w", t.Name, ErrNotManaged)
	}
	if err := t.inst.Restart(ctx); err != nil {
		return err
	}
	return t.followPort()
}

// applySettings gives a managed server the base settings plus want (a
// restart when they differ from the current ones) and returns a function
// restoring the settings it had. On a user's server it changes nothing.
func (t *Target) applySettings(ctx context.Context, want []pgserver.Setting) (restore func(context.Context) error, err error) {
	noop := func(context.Context) error { return nil }
	if len(want) == 0 {
		return noop, nil
	}
	if t.inst == nil {
		return t.applySessionSettings(ctx, want)
	}
	t.leftOut = nil
	if want, t.leftOut, err = t.splitKnown(ctx, want); err != nil {
		return noop, err
	}
	before := t.inst.Settings()
	next := pgserver.MergeSettings(t.base, want...)
	if sameSettings(before, next) {
		return noop, nil
	}
	if err := t.inst.RestartWith(ctx, next); err != nil {
		return noop, fmt.Errorf("target %s: apply study settings: %w", t.Name, err)
	}
	if err := t.followPort(); err != nil {
		return noop, err
	}
	return func(ctx context.Context) error {
		if sameSettings(t.inst.Settings(), before) {
			return nil
		}
		if err := t.inst.RestartWith(ctx, before); err != nil {
			return fmt.Errorf("target %s: restore settings: %w", t.Name, err)
		}
		return t.followPort()
	}, nil
}

// splitKnown asks the server which of the settings it has (pg_settings):
// a setting of a newer version (track_wal_io_timing on 13) is returned in
// missing instead of failing the restart. Names with a dot (an extension's
// settings) are kept: the server accepts them as placeholders.
func (t *Target) splitKnown(ctx context.Context, want []pgserver.Setting) (known, missing []pgserver.Setting, err error) {
	var names []string
	for _, s := range want {
		names = append(names, s.Name)
	}
	conn, err := pgx.ConnectConfig(ctx, t.config)
	if err != nil {
		return nil, nil, ConnectError(t.Name, err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT name FROM pg_settings WHERE name = ANY($1)", names)
	if err != nil {
		return nil, nil, fmt.Errorf("target %s: read pg_settings: %w", t.Name, err)
	}
	has, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("target %s: read pg_settings: %w", t.Name, err)
	}
	for _, s := range want {
		if strings.Contains(s.Name, ".") || slices.Contains(has, s.Name) {
			known = append(known, s)
		} else {
			missing = append(missing, s)
		}
	}
	return known, missing, nil
}

func sameSettings(a, b []pgserver.Setting) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]string{}
	for _, s := range a {
		m[s.Name] = s.Value
	}
	for _, s := range b {
		if v, ok := m[s.Name]; !ok || v != s.Value {
			return false
		}
	}
	return true
}

// ensureSchema creates the study schema, or checks that an existing one is
// pglab's. A schema named pglab that pglab did not create is refused unless
// force.
func (t *Target) ensureSchema(ctx context.Context, force bool) error {
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var comment *string
	var exists bool
	err = conn.QueryRow(ctx, "SELECT true, obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1", Schema).Scan(&exists, &comment)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	if exists {
		if (comment == nil || *comment != schemaMarker) && !force {
			return fmt.Errorf("target %s: a schema %q exists that pglab did not create; refusing to use it (pass --force to use it anyway)", t.Name, Schema)
		}
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+Schema); err != nil {
		return fmt.Errorf("target %s: create schema %s: %w", t.Name, Schema, err)
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("COMMENT ON SCHEMA %s IS '%s'", Schema, schemaMarker)); err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	return nil
}

// Summary returns the target as the store describes it, without asking
// the server: its name, kind, connection (without password), version,
// data checksums and environment. Record adds its settings.
func (t *Target) Summary() results.Target {
	kind := results.TargetManaged
	if t.inst == nil {
		kind = results.TargetDSN
	}
	return results.Target{
		Name:             t.Name,
		Kind:             kind,
		Conn:             t.redacted,
		ServerVersion:    t.Version,
		ServerVersionNum: t.VersionNum,
		DataChecksums:    t.Checksums,
		Extra:            t.envExtra(),
	}
}

// Record returns the target as the results store keeps it, with its
// non-default settings and, in Extra under "build", its build's facts
// (observe.BuildFacts); it keeps every setting in Config.
func (t *Target) Record(ctx context.Context) results.Target {
	rt := t.Summary()
	if conn, err := pgx.ConnectConfig(ctx, t.directConfig()); err == nil {
		defer conn.Close(context.Background())
		if t.Config, err = observe.ReadConfig(ctx, conn); err == nil {
			rt.Extra = t.extraWith("build", t.Config.Build)
		}
		rows, err := conn.Query(ctx, `SELECT name, setting, coalesce(unit, ''), source FROM pg_settings
			WHERE source NOT IN ('default', 'override', 'client', 'session') ORDER BY name`)
		if err == nil {
			for rows.Next() {
				var s results.Setting
				if rows.Scan(&s.Name, &s.Value, &s.Unit, &s.Source) == nil {
					rt.Settings = append(rt.Settings, s)
				}
			}
			rows.Close()
		}
	}
	return rt
}

// applySessionSettings is applySettings on a user's server: nothing
// server-wide changes; settings a session may set (context user, or
// superuser when connected as one) are given to every connection the study
// opens, and the others are reported in the returned notes.
func (t *Target) applySessionSettings(ctx context.Context, want []pgserver.Setting) (func(context.Context) error, error) {
	conn, err := pgx.ConnectConfig(ctx, t.config)
	if err != nil {
		return nil, ConnectError(t.Name, err)
	}
	defer conn.Close(context.Background())
	var super bool
	if err := conn.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	t.session = map[string]string{}
	t.unapplied = nil
	for _, s := range want {
		var context, current string
		err := conn.QueryRow(ctx, "SELECT context, current_setting(name) FROM pg_settings WHERE name = $1", s.Name).Scan(&context, &current)
		switch {
		case err != nil:
			t.unapplied = append(t.unapplied, fmt.Sprintf("%s (unknown to this server)", s))
		case context == "user" || (context == "superuser" && super):
			t.session[s.Name] = s.Value
		default:
			t.unapplied = append(t.unapplied, fmt.Sprintf("%s (server has %s)", s, current))
		}
	}
	return func(context.Context) error { t.session = nil; t.unapplied = nil; return nil }, nil
}

// ConnectConfig opens a connection with a configuration from
// Target.ConnConfig (changed by the caller, e.g. to capture notices).
func ConnectConfig(ctx context.Context, target string, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, ConnectError(target, err)
	}
	return conn, nil
}

// PlainConfig is a connection to the target's database as a client of
// the user's would make it: no search_path of pglab's (ConnConfig's), the
// session settings a user's server gets, application_name app.
func (t *Target) PlainConfig(app string) *pgx.ConnConfig {
	c := t.config.Copy()
	params := map[string]string{}
	for k, v := range c.RuntimeParams {
		params[k] = v
	}
	for k, v := range t.session {
		params[k] = v
	}
	params["application_name"] = app
	c.RuntimeParams = params
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 30 * time.Second
	}
	return c
}

// WithPlainConn runs fn on a plain connection to the target.
func (t *Target) WithPlainConn(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := pgx.ConnectConfig(ctx, t.PlainConfig("pglab"))
	if err != nil {
		return ConnectError(t.Name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return fn(conn)
}
