package cli

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
)

// The exit codes of pglab: the one table of what a script is told (README,
// "Exit codes"). Every command returns an error; exitCode turns it into
// one of these. pglab bench and pglab pg dump exit with pgbench's and
// pg_dump's own codes instead (ExitError).
const (
	// exitOK: the command did what it was asked.
	exitOK = 0
	// exitFailure: the work was started and failed: a server that cannot
	// be reached or refuses, a study that fails, a full disk, a store
	// that cannot be written.
	exitFailure = 1
	// exitAborted: a load was aborted (pgbench's code 2), or its workers
	// did not join, or their coordinator failed.
	exitAborted = 2
	// exitRegression: the report called a change that is a regression,
	// and --fail-on regression asked to be told (for CI).
	exitRegression = 3
	// exitUsage: the command line was refused before any work began
	// (EX_USAGE of sysexits.h): an unknown command or flag, a bad value
	// or argument, flags that contradict each other, a file named on the
	// command line (plan, workload, log, profiles) that cannot be read or
	// does not parse, a DSN that does not parse, a name (study,
	// parameter, instance, run) that names nothing, a setting the server
	// rejects as given. Nothing was written.
	exitUsage = 64
	// exitInternal: a bug in pglab (a panic), to be reported.
	exitInternal = 70
	// exitSIGINT and exitSIGTERM: interrupted, as a shell reports it.
	exitSIGINT  = 130
	exitSIGTERM = 143
)

// exitCodes are the errors whose code is not exitFailure; the first row
// that matches decides.
var exitCodes = []struct {
	code int
	is   func(error) bool
}{
	{exitAborted, isA[*lab.WorkersError]},
	{exitAborted, isA[*dist.CoordinatorError]},
	// the machine failed the work, whatever was given: a full disk, a
	// read-only file system, an I/O error
	{exitFailure, machineFailed},
	{exitUsage, isA[*usageError]},
	// a comparison that cannot run as given: its flags or plan file
	{exitUsage, isA[*lab.InputError]},
	// a server setting (--set, --config) the server rejects as given
	{exitUsage, isA[*pgserver.SettingError]},
	// --target NAME of an instance that does not exist
	{exitUsage, func(err error) bool { return errors.Is(err, pgserver.ErrNoInstance) }},
}

// machineFailed reports whether err is the machine's failure to store
// what the work made, never the fault of the command line.
func machineFailed(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func isA[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// exitCode returns the code pglab exits with after a command returned
// err: an ExitError's own code, else the table's, else exitFailure.
func exitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.Code
	}
	for _, row := range exitCodes {
		if row.is(err) {
			return row.code
		}
	}
	return exitFailure
}

// ExitError is the outcome of a command that printed its own message, as
// pgbench-compatible ones do, and chose its code from the table (pglab
// bench: exitFailure or exitAborted). Main prints Err, when set, as one
// line prefixed with "pglab: " unless Silent is set.
type ExitError struct {
	Code   int
	Err    error
	Silent bool
}

// Error returns the message of the wrapped error.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// usageError is a command line refused before any work began (exit code
// exitUsage).
type usageError struct{ err error }

// Error returns the message.
func (e *usageError) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e *usageError) Unwrap() error { return e.err }

// badInput returns a one-line usage error about the command line (exit
// code exitUsage).
func badInput(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// asUsage marks err, when not nil, as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err}
}
