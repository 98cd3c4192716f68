package replay

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// execResult is what one statement did.
type execResult struct {
	ms    float64 // from sending it to its result read
	rows  int64
	hash  uint64
	state string // SQLSTATE of a failure, "" for success
	// first is the first row's values, when asked for and the statement
	// succeeded.
	first [][]byte
}

// Pseudo SQLSTATEs of failures that are not the server's.
const (
	// StateConnection is a statement that failed for want of a working
	// connection (class 08: connection exception).
	StateConnection = "08006"
)

// exec sends a statement as the session sent it: the simple protocol's
// one Query message, or the extended protocol's Parse/Bind/Execute with
// its parameters in text form (types left for the server to infer), under
// its prepared statement's name when it had one (prepared on first use in
// the session, before the time starts). sql and params are the
// statement's with its ids mapped; keep asks for the first row's values.
func (r *sessionRun) exec(ctx context.Context, conn *pgconn.PgConn, st *Stmt, sql string, params [][]byte, hash, keep bool) execResult {
	rd := rowReader{hash: hash, keep: keep}
	switch {
	case !st.Extended:
		start := time.Now()
		res := rd.multi(conn.Exec(ctx, sql))
		res.ms = msSince(start)
		return res
	case st.Name == "":
		start := time.Now()
		res := rd.one(conn.ExecParams(ctx, sql, params, nil, nil, nil))
		res.ms = msSince(start)
		return res
	}
	if r.prepared[st.Name] != st.SQL {
		if _, ok := r.prepared[st.Name]; ok {
			conn.Deallocate(ctx, st.Name)
			delete(r.prepared, st.Name)
		}
		start := time.Now()
		if _, err := conn.Prepare(ctx, st.Name, st.SQL, nil); err != nil {
			return execResult{ms: msSince(start), state: sqlState(err)}
		}
		if r.prepared == nil {
			r.prepared = map[string]string{}
		}
		r.prepared[st.Name] = st.SQL
	}
	start := time.Now()
	res := rd.one(conn.ExecPrepared(ctx, st.Name, params, nil, nil))
	res.ms = msSince(start)
	return res
}

// rowReader reads results: hashing their rows, keeping the first row's
// values, as asked.
type rowReader struct {
	hash, keep bool
}

// one reads one result.
func (rd rowReader) one(rr *pgconn.ResultReader) execResult {
	var res execResult
	for rr.NextRow() {
		if rd.hash {
			res.hash += RowHash(rr.Values())
		}
		if rd.keep && res.first == nil {
			for _, v := range rr.Values() {
				res.first = append(res.first, bytes.Clone(v))
			}
		}
	}
	ct, err := rr.Close()
	if err != nil {
		res.state = sqlState(err)
		return res
	}
	res.rows = ct.RowsAffected()
	return res
}

// multi reads the results of a simple-protocol query (one or more
// statements); the first row is the first that any of them returned.
func (rd rowReader) multi(mrr *pgconn.MultiResultReader) execResult {
	var res execResult
	for mrr.NextResult() {
		r := rd.one(mrr.ResultReader())
		res.rows += r.rows
		res.hash += r.hash
		if res.first == nil {
			res.first = r.first
		}
		if res.state == "" {
			res.state = r.state
		}
	}
	if err := mrr.Close(); err != nil && res.state == "" {
		res.state = sqlState(err)
	}
	return res
}

// sqlState returns the SQLSTATE of a failure: the server's, or
// StateConnection.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return StateConnection
}

// RowHash hashes one row's values in text form (nil for NULL): FNV-1a
// over each value's length and bytes, NULL marked apart from the empty string, then
// mixed (SplitMix64's finaliser) so that sums of row hashes spread.
func RowHash(values [][]byte) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, v := range values {
		n := len(v)
		if v == nil {
			n = -1
		}
		for k := 0; k < 4; k++ {
			h = (h ^ uint64(byte(n>>(8*k)))) * prime
		}
		for _, c := range v {
			h = (h ^ uint64(c)) * prime
		}
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
