package cli

import "fmt"

// ExitError carries a specific exit code out of a command. Main prints Err
// as one line prefixed with "pglab: " unless Silent is set (for commands that
// printed their own message, as pgbench-compatible ones do).
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

// badInput returns an exit-code-1 error with a formatted message.
func badInput(format string, args ...any) error {
	return &ExitError{Code: 1, Err: fmt.Errorf(format, args...)}
}
