package results

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/redact"
	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrReadOnly is wrapped by the error of a write to a store that cannot be
// written: a read-only file or directory, a store opened with
// [OpenReadOnly], or a read-only PostgreSQL transaction.
var ErrReadOnly = errors.New("results store is read-only")

// ErrDiskFull is wrapped by the error of a write that found the disk (or the
// database's size limit) full. The write is rolled back; earlier runs are
// intact.
var ErrDiskFull = errors.New("results store disk is full")

// ErrNotFound is wrapped by the error of a lookup of a run that does not
// exist.
var ErrNotFound = errors.New("no such run")

// ErrAmbiguous is wrapped by the error of a lookup whose run ID prefix
// matches more than one run.
var ErrAmbiguous = errors.New("ambiguous run ID")

// errReadOnlyOpen is the cause of a write to a store opened read-only.
var errReadOnlyOpen = errors.New("opened for reading only")

// storeError is an error of a store operation, with one line of text that
// names the store and the operation, and a kind (ErrReadOnly, ErrDiskFull)
// when one applies.
type storeError struct {
	msg  string
	kind error // nil, ErrReadOnly or ErrDiskFull
	err  error
}

func (e *storeError) Error() string { return e.msg }

func (e *storeError) Unwrap() []error {
	if e.kind == nil {
		return []error{e.err}
	}
	return []error{e.kind, e.err}
}

// wrap gives err the store's location and the operation, and turns the
// driver's read-only and disk-full errors into ErrReadOnly and ErrDiskFull
// with a plain message. Error texts are redacted.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *storeError
	if errors.As(err, &se) {
		return err
	}
	cause := oneLine(redact.Text(err.Error()))
	if c, ok := primaryCode(err); ok && c == sqlite3.SQLITE_NOTADB {
		return &storeError{msg: fmt.Sprintf("cannot %s: %s is not an SQLite database (%s)", op, s.location, cause), err: err}
	}
	kind := classify(err)
	if kind == nil && s.dialect == dialectSQLite {
		kind = fsCause(err, s.location)
	}
	switch kind {
	case ErrReadOnly:
		return &storeError{
			msg:  fmt.Sprintf("cannot %s: results store %s is read-only (%s); earlier runs are intact", op, s.location, cause),
			kind: kind, err: err,
		}
	case ErrDiskFull:
		return &storeError{
			msg:  fmt.Sprintf("cannot %s: results store %s is full (%s); earlier runs are intact", op, s.location, cause),
			kind: kind, err: err,
		}
	}
	return &storeError{msg: fmt.Sprintf("cannot %s: results store %s: %s", op, s.location, cause), err: err}
}

// classify maps driver errors to ErrReadOnly or ErrDiskFull, or nil.
func classify(err error) error {
	if errors.Is(err, errReadOnlyOpen) {
		return ErrReadOnly
	}
	if c, ok := primaryCode(err); ok {
		switch c {
		case sqlite3.SQLITE_READONLY:
			return ErrReadOnly
		case sqlite3.SQLITE_FULL:
			return ErrDiskFull
		case sqlite3.SQLITE_IOERR:
			// Extended code SQLITE_IOERR_WRITE and friends come with
			// ENOSPC on a full disk; SQLite reports most of those as
			// SQLITE_FULL already.
		}
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "25006": // read_only_sql_transaction
			return ErrReadOnly
		case "53100": // disk_full
			return ErrDiskFull
		}
	}
	return nil
}

// fsCause tells, for an SQLite I/O or cannot-open error (which does not
// carry the system's errno), whether the filesystem holding the store is
// full or read-only; nil when it is neither.
func fsCause(err error, location string) error {
	if c, ok := primaryCode(err); !ok || c != sqlite3.SQLITE_IOERR && c != sqlite3.SQLITE_CANTOPEN {
		return nil
	}
	return dirCause(filepath.Dir(location))
}

// dirCause returns ErrDiskFull when dir's filesystem has no free block,
// ErrReadOnly when it is mounted read-only or dir cannot be written, else
// nil.
func dirCause(dir string) error {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) == nil {
		if st.Flags&unix.ST_RDONLY != 0 {
			return ErrReadOnly
		}
		if st.Bavail == 0 {
			return ErrDiskFull
		}
	}
	if unix.Access(dir, unix.W_OK) != nil {
		return ErrReadOnly
	}
	return nil
}

// primaryCode returns the primary result code of an SQLite error (its
// extended code without the extension bits), and false for any other error.
func primaryCode(err error) (int, bool) {
	var le *sqlite.Error
	if !errors.As(err, &le) {
		return 0, false
	}
	return le.Code() & 0xff, true
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	c, ok := primaryCode(err)
	return ok && c == sqlite3.SQLITE_BUSY
}

// isUniqueViolation reports whether err is a primary-key or unique
// constraint violation.
func isUniqueViolation(err error) bool {
	var le *sqlite.Error
	if errors.As(err, &le) {
		c := le.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || c == sqlite3.SQLITE_CONSTRAINT_UNIQUE
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// oneLine joins the lines of a multi-line message (pgx lists one line per
// host it tried) with "; ".
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, strings.TrimSuffix(l, ":"))
		}
	}
	return strings.Join(parts, "; ")
}
