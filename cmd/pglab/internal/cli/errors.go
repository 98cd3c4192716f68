package cli

import (
	"errors"
	"fmt"

	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/lab"
)

// The exit codes of pglab: the one table of what a script is told. Every
// command returns an error; exitCode turns it into one of these.
const (
	// exitOK: the command did what it was asked.
	exitOK = 0
	// exitFailure: bad input (flags, files, DSNs: nothing was written), or
	// a failure of the work itself.
	exitFailure = 1
	// exitAborted: a load was aborted (pgbench's code 2), or its workers
	// did not join, or their coordinator failed.
	exitAborted = 2
	// exitRegression: the report called a change that is a regression,
	// and --fail-on regression asked to be told (for CI).
	exitRegression = 3
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

// badInput returns a one-line error about the command's input (exit code
// exitFailure).
func badInput(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}
