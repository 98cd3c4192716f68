package initdata

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is an option or initialization failure worded as pgbench words it.
// pgbench prints Messages as "pgbench: error: ..." lines, then Detail as
// "pgbench: detail: ..." and Hint as "pgbench: hint: ...", and exits 1;
// Format renders exactly that. Server messages embedded in Messages are
// rendered as libpq renders them ("ERROR:  ..." with DETAIL and HINT
// lines).
type Error struct {
	// Notice is a server message that libpq prints on its own line before
	// pgbench's lines (pgbench's PQendcopy failures), or "".
	Notice string
	// Messages are pgbench's error lines, in order; never empty.
	Messages []string
	// Detail and Hint are pgbench's detail and hint lines, or "".
	Detail string
	Hint   string
	// Err is the underlying error (a *pgconn.PgError, a connection
	// error, a context error), or nil.
	Err error
	// Step is pgbench's name of the step that failed ("client-side
	// generate", "primary keys", ...; see Run), or "" before the steps.
	Step string
	// Query is the statement that failed, or "".
	Query string
}

func newError(msg string) *Error { return &Error{Messages: []string{msg}} }

// Error returns pgbench's last error line.
func (e *Error) Error() string { return e.Messages[len(e.Messages)-1] }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Phase says where the error happened: the step and the statement, e.g.
// "primary keys (alter table pgbench_accounts add primary key (aid))";
// "" before the steps.
func (e *Error) Phase() string {
	switch {
	case e.Step == "":
		return ""
	case e.Query == "":
		return e.Step
	}
	return e.Step + " (" + e.Query + ")"
}

// Format renders the error as pgbench prints it on standard error, with
// prog ("pgbench") as the program name; the result ends with a newline.
func (e *Error) Format(prog string) string {
	var b strings.Builder
	if e.Notice != "" {
		b.WriteString(e.Notice)
		if !strings.HasSuffix(e.Notice, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, m := range e.Messages {
		b.WriteString(prog + ": error: " + strings.TrimSuffix(m, "\n") + "\n")
	}
	if e.Detail != "" {
		b.WriteString(prog + ": detail: " + e.Detail + "\n")
	}
	if e.Hint != "" {
		b.WriteString(prog + ": hint: " + e.Hint + "\n")
	}
	return b.String()
}

// queryError is pgbench's executeStatement failure, or err itself when
// the statement ended for ctx (see interrupted).
func queryError(sql string, err error) error {
	if interrupted(err) {
		return err
	}
	return &Error{
		Messages: []string{"query failed: " + serverMessage(err)},
		Detail:   "Query was: " + sql,
		Err:      err,
		Query:    sql,
	}
}

// interrupted reports whether err is a statement's end by its context
// rather than by the server: a statement begun after the cancellation, or
// one the server did not cancel (a cancel request that arrives while the
// server waits for the next command is ignored) before pgconn gave up on
// it. Run returns such errors as they are (they wrap ctx.Err()), not
// worded as pgbench's failures: nothing failed, the run was interrupted.
func interrupted(err error) bool {
	var pe *pgconn.PgError
	return !errors.As(err, &pe) && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// serverMessage renders an error as libpq's PQerrorMessage would, without
// the final newline: "ERROR:  message" plus DETAIL, HINT and CONTEXT
// lines for server errors, the error text otherwise.
func serverMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return formatServerMessage(pe.Severity, pe.Message, pe.Detail, pe.Hint, pe.Where, true)
	}
	return err.Error()
}

// formatServerMessage renders a server error or notice in libpq's default
// verbosity; context is shown for errors only (PQSHOW_CONTEXT_ERRORS).
func formatServerMessage(severity, msg, detail, hint, where string, isError bool) string {
	var b strings.Builder
	b.WriteString(severity + ":  " + msg)
	if detail != "" {
		b.WriteString("\nDETAIL:  " + detail)
	}
	if hint != "" {
		b.WriteString("\nHINT:  " + hint)
	}
	if isError && where != "" {
		b.WriteString("\nCONTEXT:  " + where)
	}
	return b.String()
}

// formatNotice renders a notice as libpq's default notice processor
// prints it, with its final newline.
func formatNotice(n *pgconn.Notice) string {
	return formatServerMessage(n.Severity, n.Message, n.Detail, n.Hint, n.Where, false) + "\n"
}
