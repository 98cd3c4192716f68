package observe

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier is what this package needs of a connection. *pgx.Conn, pgx.Tx
// and *pgxpool.Pool all satisfy it.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// beginner is a Querier that can open a transaction (or, on a pgx.Tx, a
// savepoint).
type beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// versionNum returns server_version_num, e.g. 170010.
func versionNum(ctx context.Context, q Querier) (int, error) {
	var n int
	if err := q.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&n); err != nil {
		return 0, fmt.Errorf("read server_version_num: %w", err)
	}
	return n, nil
}

// majorVersion returns the server's major version, from the connection's
// start-up parameters when q gives access to them (no round trip, no
// transaction), else from server_version_num.
func majorVersion(ctx context.Context, q Querier) (int, error) {
	var pc *pgconn.PgConn
	switch c := q.(type) {
	case interface{ PgConn() *pgconn.PgConn }:
		pc = c.PgConn()
	case interface{ Conn() *pgx.Conn }:
		if conn := c.Conn(); conn != nil {
			pc = conn.PgConn()
		}
	}
	if pc != nil {
		if m, ok := parseMajor(pc.ParameterStatus("server_version")); ok {
			return m, nil
		}
	}
	n, err := versionNum(ctx, q)
	return n / 10000, err
}

// parseMajor reads the major version from a server_version text such as
// "17.10", "18.4 (Debian 18.4-1)" or "13.23"; before 10 the major version
// had two parts, which pglab does not support.
func parseMajor(s string) (int, bool) {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	m, err := strconv.Atoi(s[:end])
	if err != nil || m < 10 {
		return 0, false
	}
	return m, true
}
