package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pglab/pglab/internal/pgnet"
	"github.com/pglab/pglab/redact"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store is an open results store. Its methods are safe for concurrent use.
type Store struct {
	db       *sql.DB
	dialect  dialect
	location string // redacted path or DSN, for messages
	readOnly bool
}

type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
)

// pgSchema is the PostgreSQL schema that holds a PostgreSQL store's tables.
const pgSchema = "pglab_results"

// BusyTimeout is how long an SQLite write waits for another process's write
// to finish before it fails.
const BusyTimeout = 10 * time.Second

// WriteTimeout bounds each write of a [Run]. Writes of a run do not stop
// when the caller's context is cancelled (so that an interrupted run can be
// stored), but they never take longer than this.
const WriteTimeout = 30 * time.Second

// DefaultPath returns where the results store lives when no location is
// given: $XDG_DATA_HOME/pglab/results.db, or ~/.local/share/pglab/results.db
// when XDG_DATA_HOME is unset or not an absolute path, as the XDG base
// directory specification says.
func DefaultPath() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the results store: neither XDG_DATA_HOME nor HOME is set: %w", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "pglab", "results.db"), nil
}

// IsPostgresDSN reports whether location names a PostgreSQL database rather
// than an SQLite file: a postgres:// or postgresql:// URL, or a libpq
// key=value string: one that starts with "key=" and whose keys include at
// least one of host, hostaddr, port, dbname, user, service or sslmode (so that
// files named "a=b.db" or "/data/host=x/results.db" stay files).
func IsPostgresDSN(location string) bool {
	l := strings.ToLower(strings.TrimSpace(location))
	if strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://") {
		return true
	}
	if !kvStartRE.MatchString(location) {
		return false
	}
	keys := kvKeyRE.FindAllStringSubmatch(location, -1)
	for _, k := range keys {
		switch strings.ToLower(k[1]) {
		case "host", "hostaddr", "port", "dbname", "user", "service", "sslmode":
			return true
		}
	}
	return false
}

var (
	kvStartRE = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)
	kvKeyRE   = regexp.MustCompile(`(?:^|\s)([A-Za-z_]+)\s*=`)
)

// Open opens the results store at location, creating it (and, for SQLite,
// its directory) if needed, and brings its schema up to date. location is ""
// for [DefaultPath], a PostgreSQL connection string (see [IsPostgresDSN]),
// or an SQLite file path. A store that cannot be written (a read-only file)
// still opens when its schema is current, so that it can be read; writing
// then fails with an error that wraps [ErrReadOnly].
func Open(ctx context.Context, location string) (*Store, error) {
	return open(ctx, location, false, nil)
}

// OpenReadOnly opens an existing results store for reading only: it creates
// nothing, migrates nothing, and every write fails with [ErrReadOnly]. An
// SQLite file is opened with mode=ro and PRAGMA query_only; a PostgreSQL
// store's sessions have default_transaction_read_only on. Any number of
// readers can share a store with one pglab writing to it. A
// store whose schema is older than this pglab's must first be opened once
// with [Open]. An SQLite file in a directory the user cannot write (where
// SQLite cannot create the WAL index that readers share) is read as an
// immutable file, without locks.
func OpenReadOnly(ctx context.Context, location string) (*Store, error) {
	return open(ctx, location, true, nil)
}

// open is Open with test hooks: extra SQLite pragmas for every connection.
func open(ctx context.Context, location string, readOnly bool, pragmas []string) (*Store, error) {
	var s *Store
	var err error
	if IsPostgresDSN(location) {
		s, err = openPostgres(ctx, location, readOnly)
	} else {
		s, err = openSQLite(location, readOnly, false, pragmas)
	}
	if err != nil {
		return nil, err
	}
	err = s.init(ctx)
	if err != nil && readOnly && s.dialect == dialectSQLite && (errors.Is(err, ErrReadOnly) || dirCause(filepath.Dir(s.location)) == ErrReadOnly) {
		// A WAL-mode file in a directory this user cannot write: SQLite
		// cannot make the shared-memory file that readers use. Read it as
		// an immutable file instead (no locks: a pglab writing to it at
		// the same time is not seen).
		s.db.Close()
		if s, err = openSQLite(location, readOnly, true, pragmas); err != nil {
			return nil, err
		}
		err = s.init(ctx)
	}
	if err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

func openSQLite(location string, readOnly, immutable bool, pragmas []string) (*Store, error) {
	path := location
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	} else if path == "~" || strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("results store %s: expand ~: %w", location, err)
		}
		path = filepath.Join(home, path[1:])
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	path = abs
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("results store %s is a directory, not a file", path)
	}
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("no results store at %s", path)
			}
			return nil, fmt.Errorf("results store %s: %w", path, err)
		}
	} else if err := createFile(path); err != nil {
		return nil, err
	}

	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	if readOnly {
		// mode=ro opens the file read-only; query_only makes the
		// connection refuse every write even to what mode=ro would let
		// SQLite touch.
		q.Add("_pragma", "query_only(1)")
		q.Set("mode", "ro")
		if immutable {
			q.Set("immutable", "1")
		}
	} else {
		q.Add("_pragma", "synchronous(FULL)")
		q.Set("_txlock", "immediate")
	}
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	// WAL lets readers go on while one connection writes; a few connections
	// let concurrent goroutines read while another writes.
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	return &Store{db: db, dialect: dialectSQLite, location: path, readOnly: readOnly}, nil
}

// createFile creates the store's directory (0700) and file (0600) unless
// they exist. Existing ones keep their modes.
func createFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create results store directory %s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create results store %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create results store %s: %w", path, err)
	}
	return nil
}

func openPostgres(ctx context.Context, location string, readOnly bool) (*Store, error) {
	redacted := redact.DSN(location)
	cfg, err := pgx.ParseConfig(location)
	if err == nil {
		err = pgnet.Configure(&cfg.Config)
	}
	if err != nil {
		return nil, fmt.Errorf("results store %s: %s", redacted, redact.Text(err.Error()))
	}
	cfg.RuntimeParams["search_path"] = pgSchema
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "pglab results"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	s := &Store{db: db, dialect: dialectPostgres, location: redacted, readOnly: readOnly}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, s.wrap("connect", err)
	}
	return s, nil
}

// init checks or migrates the schema and, for a new SQLite file, turns on
// WAL journal mode.
func (s *Store) init(ctx context.Context) error {
	if s.readOnly {
		v, err := s.currentVersion(ctx, s.db)
		if err != nil {
			return s.wrap("read schema version", err)
		}
		if err := s.checkVersion(v); err != nil {
			return err
		}
		if v == 0 {
			return fmt.Errorf("no results store at %s: nothing was ever stored there", s.location)
		}
		if v < SchemaVersion() {
			return fmt.Errorf("results store %s has schema version %d, older than this pglab's (%d): open it once for writing to upgrade it",
				s.location, v, SchemaVersion())
		}
		return nil
	}
	if s.dialect == dialectSQLite {
		// journal_mode is kept in the file: set it once, so that a file
		// that is already in WAL mode is not written just to open it.
		var mode string
		if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			return s.wrap("open", err)
		}
		if !strings.EqualFold(mode, "wal") {
			if err := s.setWAL(ctx); err != nil {
				return s.wrap("set WAL journal mode", err)
			}
		}
	}
	return s.migrate(ctx)
}

// setWAL switches a new SQLite file to WAL journal mode. The switch takes
// an exclusive lock, and when another process opening the same new file
// holds a lock that it is itself upgrading, SQLite returns SQLITE_BUSY at
// once instead of calling the busy handler (that wait could deadlock; see
// sqlite3_busy_handler). So a busy switch is tried again until
// BusyTimeout has passed, as the busy handler would have waited; once the
// other process has switched the file, the statement finds it in WAL mode.
func (s *Store) setWAL(ctx context.Context) error {
	deadline := time.Now().Add(BusyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Close closes the store.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close results store %s: %w", s.location, err)
	}
	return nil
}

// Location returns where the store is, for messages: the SQLite file's
// absolute path, or the PostgreSQL connection string with its password
// redacted.
func (s *Store) Location() string { return s.location }

// ReadOnly reports whether the store was opened with [OpenReadOnly]: every
// connection to it then refuses writes (SQLite mode=ro and query_only; on
// PostgreSQL, default_transaction_read_only, so that each statement runs
// in a read-only transaction).
func (s *Store) ReadOnly() bool { return s.readOnly }

// IsPostgres reports whether the store is a PostgreSQL database.
func (s *Store) IsPostgres() bool { return s.dialect == dialectPostgres }

// rebind turns '?' placeholders into PostgreSQL's $1, $2, ... The queries of
// this package have no '?' anywhere else.
func (s *Store) rebind(q string) string {
	if s.dialect != dialectPostgres || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// inTx runs fn in a transaction and commits it, or rolls it back when fn
// fails. Errors are wrapped with op by s.wrap.
func (s *Store) inTx(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	if s.readOnly {
		return s.wrap(op, errReadOnlyOpen)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(op, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return s.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.wrap(op, err)
	}
	return nil
}

// timeArg is a time as the dialect stores it: TIMESTAMPTZ for PostgreSQL,
// fixed-width UTC text (which sorts in time order) for SQLite.
func (s *Store) timeArg(t time.Time) any {
	t = normTime(t)
	if s.dialect == dialectPostgres {
		return t
	}
	return t.Format(sqliteTimeFormat)
}

const sqliteTimeFormat = "2006-01-02T15:04:05.000000Z"

// normTime is t in UTC to the microsecond (what PostgreSQL keeps) without a
// monotonic clock reading.
func normTime(t time.Time) time.Time {
	return t.Round(0).UTC().Truncate(time.Microsecond)
}

// dbTime scans a time stored by timeArg; NULL gives the zero time.
type dbTime struct{ t time.Time }

func (d *dbTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		d.t = time.Time{}
	case time.Time:
		d.t = normTime(v)
	case string:
		return d.parse(v)
	case []byte:
		return d.parse(string(v))
	default:
		return fmt.Errorf("cannot scan %T as a time", src)
	}
	return nil
}

func (d *dbTime) parse(v string) error {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("bad stored time %q: %w", v, err)
	}
	d.t = normTime(t)
	return nil
}
