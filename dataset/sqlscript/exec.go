package sqlscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/workload/sqltext"
)

// Options say how Exec runs a script.
type Options struct {
	// Connect opens a session on the database the script loads into
	// (again after each \connect).
	Connect func(ctx context.Context) (*pgconn.PgConn, error)
	// User is the role Connect connects as: a statement that would alter
	// it (a cluster dump's ALTER ROLE … PASSWORD) is skipped.
	User string
}

// Skip counts the statements Exec skipped for one reason.
type Skip struct {
	Reason string
	Count  int
	// Line is where the first of them began.
	Line int
}

// Result is what Exec did.
type Result struct {
	// Statements counts the statements run (COPY included), CopyRows the
	// rows COPY loaded, Connects the \connect meta-commands followed.
	Statements int
	CopyRows   int64
	Connects   int
	Skipped    []Skip
}

// skip counts a skipped statement.
func (r *Result) skip(reason string, line int) {
	for i := range r.Skipped {
		if r.Skipped[i].Reason == reason {
			r.Skipped[i].Count++
			return
		}
	}
	r.Skipped = append(r.Skipped, Skip{Reason: reason, Count: 1, Line: line})
}

// Exec runs the script rd reads, item by item, and stops at its first
// error (an *Error naming the file and line), except for the statements
// it skips (see the package comment).
func Exec(ctx context.Context, rd *Reader, opts Options) (res Result, err error) {
	conn, err := opts.Connect(ctx)
	if err != nil {
		return res, err
	}
	defer func() { conn.Close(context.WithoutCancel(ctx)) }()
	for {
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		switch it.Kind {
		case Statement:
			err = execStatement(ctx, conn, rd, it, opts, &res)
		case Copy:
			err = execCopy(ctx, conn, rd, it, &res)
		case Connect:
			next, cerr := opts.Connect(ctx)
			if cerr != nil {
				return res, rd.errorf(it.Line, "\\connect: %w", cerr)
			}
			conn.Close(ctx)
			conn = next
			res.Connects++
		}
		if err != nil {
			return res, err
		}
	}
}

// execStatement runs one statement in the simple protocol.
func execStatement(ctx context.Context, conn *pgconn.PgConn, rd *Reader, it Item, opts Options, res *Result) error {
	w := firstWords(it.SQL, 3)
	if opts.User != "" && len(w) == 3 && w[0] == "alter" && (w[1] == "role" || w[1] == "user") && w[2] == strings.ToLower(opts.User) {
		res.skip("ALTER ROLE of the user pglab connects as", it.Line)
		return nil
	}
	_, err := conn.Exec(ctx, it.SQL).ReadAll()
	if err == nil {
		res.Statements++
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if reason := tolerated(w, it.SQL, pe); reason != "" {
			res.skip(reason, it.Line)
			return nil
		}
		return rd.errorf(it.Line, "%s", serverError(pe))
	}
	return rd.errorf(it.Line, "%w", err)
}

// copyRowLine finds the data row a COPY error names ("COPY t, line 5").
var copyRowLine = regexp.MustCompile(`^COPY [^,]*, line (\d+)`)

// execCopy runs a COPY … FROM stdin with the data that follows it.
func execCopy(ctx context.Context, conn *pgconn.PgConn, rd *Reader, it Item, res *Result) error {
	first := rd.CopyLine()
	ct, err := conn.CopyFrom(ctx, rd.Data(), it.SQL)
	if err == nil {
		res.Statements++
		res.CopyRows += ct.RowsAffected()
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		line := it.Line
		if m := copyRowLine.FindStringSubmatch(pe.Where); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				line = first + n - 1
			}
		}
		return rd.errorf(line, "%s", serverError(pe))
	}
	return rd.errorf(it.Line, "%w", err)
}

// serverError is a server's error in one line, as psql prints it.
func serverError(pe *pgconn.PgError) string {
	msg := strings.Join(strings.Fields(pe.Message), " ")
	return fmt.Sprintf("%s: %s (SQLSTATE %s)", pe.Severity, msg, pe.Code)
}

// tolerated returns why a failed statement may be skipped, or "".
func tolerated(w []string, sql string, pe *pgconn.PgError) string {
	lower := strings.ToLower(sql)
	first := ""
	if len(w) > 0 {
		first = w[0]
	}
	switch pe.Code {
	case "42704": // undefined_object
		switch {
		case strings.Contains(pe.Message, "unrecognized configuration parameter") && (first == "set" || strings.Contains(lower, "set_config")):
			return "settings this server does not have"
		case strings.HasPrefix(pe.Message, "role ") && privilegeStatement(w, lower):
			return "ownership and privileges of roles this server does not have"
		}
	case "42883": // undefined_function
		if strings.Contains(lower, "pg_restore_relation_stats") || strings.Contains(lower, "pg_restore_attribute_stats") {
			return "statistics this server cannot restore"
		}
	case "42P06": // duplicate_schema
		if len(w) == 3 && first == "create" && w[1] == "schema" && w[2] == "public" {
			return "CREATE SCHEMA public (it exists)"
		}
	case "42710": // duplicate_object
		if len(w) >= 2 && first == "create" && (w[1] == "role" || w[1] == "user") {
			return "roles that exist"
		}
	}
	return ""
}

// privilegeStatement reports whether a statement sets ownership or
// privileges.
func privilegeStatement(w []string, lower string) bool {
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "grant", "revoke":
		return true
	case "alter":
		return strings.Contains(lower, " owner to ") || (len(w) > 1 && w[1] == "default")
	}
	return false
}

// firstWords returns up to n of a statement's first words, lower-cased
// (quoted identifiers unquoted).
func firstWords(sql string, n int) []string {
	var out []string
	l := sqltext.NewLexer(sql)
	for t, ok := l.Next(); ok && len(out) < n; t, ok = l.Next() {
		switch t.Kind {
		case sqltext.Space, sqltext.Comment:
		case sqltext.Ident:
			out = append(out, strings.ToLower(t.Text))
		case sqltext.QIdent:
			out = append(out, strings.Trim(t.Text, `"`))
		default:
			return out
		}
	}
	return out
}
