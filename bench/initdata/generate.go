package initdata

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// relInfo is what step g needs to know about a table before loading it.
type relInfo struct {
	relkind byte
	// columns lists the columns COPY fills, in order, as name:type:typmod
	// (dropped and generated columns left out).
	columns string
}

const relInfoSQL = "SELECT c.relkind, coalesce((SELECT pg_catalog.string_agg(a.attname || ':' || a.atttypid || ':' || a.atttypmod, ',' ORDER BY a.attnum) " +
	"FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''), '') " +
	"FROM pg_catalog.pg_class c WHERE c.oid = $1::pg_catalog.regclass"

// lookupRel reads a table's relkind (pgbench reads it to decide on
// FREEZE) and columns.
func lookupRel(ctx context.Context, conn *pgconn.PgConn, table string) (*relInfo, error) {
	rows, err := queryStrings(ctx, conn, relInfoSQL, table)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || len(rows[0][0]) != 1 {
		return nil, queryError(relInfoSQL, errors.New("unexpected result"))
	}
	return &relInfo{relkind: rows[0][0][0], columns: rows[0][1]}, nil
}

// copyStatement returns pgbench's COPY statement for a table, with FREEZE
// as pgbench uses it (servers from 14, ordinary tables).
func copyStatement(table string, freeze bool) string {
	if freeze {
		return "copy " + table + " from stdin with (freeze on)"
	}
	return "copy " + table + " from stdin"
}

// copyError words a failed COPY as pgbench does, or returns err itself
// when the COPY ended for its context (see interrupted). The server rejects a
// statement it cannot analyze (unknown table, no privilege: SQLSTATE
// class 42) before the copy starts: "unexpected copy in result". Anything
// else (bad data, a constraint, FREEZE refused) comes when the copy ends:
// libpq prints it as a notice, then pgbench says "PQendcopy failed".
func copyError(err error, sql string) error {
	if interrupted(err) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if strings.HasPrefix(pe.Code, "42") {
			return &Error{Messages: []string{"unexpected copy in result: " + serverMessage(err)}, Err: err, Query: sql}
		}
		return &Error{Notice: serverMessage(err), Messages: []string{"PQendcopy failed"}, Err: err, Query: sql}
	}
	return &Error{Messages: []string{"PQputline failed"}, Detail: "Query was: " + sql, Err: err, Query: sql}
}

// generateClientSide is step g: in one transaction, truncate the tables
// and COPY branches, tellers and accounts, as pgbench does.
func (r *runner) generateClientSide(ctx context.Context) error {
	r.out.printf("generating data (client-side)...\n")
	if err := execSQL(ctx, r.conn, "begin"); err != nil {
		return err
	}
	if err := execSQL(ctx, r.conn, TruncateStatement); err != nil {
		return err
	}
	for _, t := range []Table{Branches, Tellers, Accounts} {
		info, err := lookupRel(ctx, r.conn, t.Name())
		if err != nil {
			return err
		}
		if t == Accounts && info.relkind == 'p' {
			done, err := r.loadPartitionsInParallel(ctx, info)
			if done || err != nil {
				return err
			}
		}
		if err := r.load(ctx, t, info); err != nil {
			return err
		}
	}
	return execSQL(ctx, r.conn, "commit")
}

// loadPartitionsInParallel loads the range partitions of pgbench_accounts
// on several connections when that leaves the tables a COPY into the
// parent leaves (see accountLeaves, newLeafSource, leavesGrowAlike). It
// commits the main transaction first (the other connections must see the
// truncation), so a failure leaves branches and tellers loaded; pgbench
// would have rolled them back. It reports whether it loaded them.
func (r *runner) loadPartitionsInParallel(ctx context.Context, info *relInfo) (bool, error) {
	if r.o.Method != MethodFast || r.o.connections() < 2 {
		return false, nil
	}
	total := Accounts.PerScale() * int64(r.o.scale())
	leaves, err := accountLeaves(ctx, r.conn, info, total)
	if err != nil || len(leaves) < 2 {
		return false, err
	}
	if alike, err := leavesGrowAlike(ctx, r.conn, r.serverVersion, len(leaves)); !alike || err != nil {
		return false, err
	}
	if err := execSQL(ctx, r.conn, "commit"); err != nil {
		return false, err
	}
	prog := newProgress(r.out, Accounts.Name(), total, r.o.Quiet)
	err = r.loadLeaves(ctx, leaves, prog)
	prog.finish()
	return true, err
}

// load fills one table on the main connection.
func (r *runner) load(ctx context.Context, t Table, info *relInfo) error {
	total := t.PerScale() * int64(r.o.scale())
	sql := copyStatement(t.Name(), r.serverVersion >= 140000 && info.relkind == 'r')
	prog := newProgress(r.out, t.Name(), total, r.o.Quiet)
	src := newRowSource(t, 0, total, prog)
	_, err := r.conn.CopyFrom(ctx, src, sql)
	prog.finish()
	if err != nil {
		return copyError(err, sql)
	}
	return nil
}
