package initdata

import (
	"context"
	"regexp"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// The server's COPY FROM buffers rows and writes them to the table in
// batches (copyfrom.c): a batch ends after 1000 rows, or once the input
// lines of the batch add up to 65535 bytes. How the table grows (and so
// how many empty pages it ends with) depends on the batches.
const (
	copyBatchRows  = 1000
	copyBatchBytes = 65535
)

// leaf is one range partition of pgbench_accounts and the rows (0-based
// k) [lo, hi) it receives.
type leaf struct {
	name   string // as regclass prints it: quoted and qualified as needed
	lo, hi int64
}

// leafSQL lists the partitions of pgbench_accounts with their bounds, and
// the partition key: strategy, and whether it is the first column alone.
const leafSQL = "SELECT c.oid::pg_catalog.regclass::pg_catalog.text, c.relkind, pg_catalog.pg_get_expr(c.relpartbound, c.oid), " +
	"p.partstrat, (p.partnatts = 1 AND p.partattrs[0] = 1 AND p.partexprs IS NULL)::pg_catalog.text " +
	"FROM pg_catalog.pg_partitioned_table p " +
	"JOIN pg_catalog.pg_inherits i ON i.inhparent = p.partrelid " +
	"JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid " +
	"WHERE p.partrelid = $1::pg_catalog.regclass"

var rangeBoundRE = regexp.MustCompile(`^FOR VALUES FROM \((MINVALUE|-?[0-9]+)\) TO \((MAXVALUE|-?[0-9]+)\)$`)

// accountLeaves returns the range partitions of pgbench_accounts and the
// rows each receives, when they tile the accounts exactly (each row to
// one ordinary partition of the aid range); otherwise nil, and the caller
// loads through the parent as pgbench does (hash partitions, a default
// partition, sub-partitions, other keys, gaps).
//
// Loading the partitions directly leaves the tables a COPY into the parent
// leaves if each partition gets its rows in the same batches; see
// newLeafSource.
func accountLeaves(ctx context.Context, conn *pgconn.PgConn, parent *relInfo, total int64) ([]*leaf, error) {
	rows, err := queryStrings(ctx, conn, leafSQL, Accounts.Name())
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var leaves []*leaf
	for _, r := range rows {
		if r[1] != "r" || r[3] != "r" || r[4] != "true" {
			return nil, nil
		}
		m := rangeBoundRE.FindStringSubmatch(r[2])
		if m == nil {
			return nil, nil
		}
		// Bounds are on aid = k+1: [from, to) in aid is [from-1, to-1) in k.
		l := &leaf{name: r[0], lo: 0, hi: total}
		if m[1] != "MINVALUE" {
			v, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil {
				return nil, nil
			}
			l.lo = clamp(v-1, 0, total)
		}
		if m[2] != "MAXVALUE" {
			v, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				return nil, nil
			}
			l.hi = clamp(v-1, 0, total)
		}
		l.hi = max(l.hi, l.lo)
		leaves = append(leaves, l)
	}
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].lo < leaves[j].lo })
	next := int64(0)
	for _, l := range leaves {
		if l.hi == l.lo {
			continue
		}
		if l.lo != next {
			return nil, nil
		}
		next = l.hi
	}
	if next != total {
		return nil, nil
	}
	for _, l := range leaves {
		info, err := lookupRel(ctx, conn, l.name)
		if err != nil {
			return nil, err
		}
		if info.columns != parent.columns {
			return nil, nil // COPY text fills columns by position
		}
	}
	return leaves, nil
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// pinSettingsSQL reads what bounds a backend's buffer pins: shared_buffers
// in pages and the process slots PostgreSQL divides them by.
const pinSettingsSQL = "SELECT coalesce(sum(setting::bigint) FILTER (WHERE name = 'shared_buffers'), 0)::text, " +
	"coalesce(sum(setting::bigint) FILTER (WHERE name IN ('max_connections', 'max_worker_processes', 'max_wal_senders')), 0)::text, " +
	"coalesce(max(setting::bigint) FILTER (WHERE name IN ('autovacuum_max_workers', 'autovacuum_worker_slots')), 0)::text " +
	"FROM pg_catalog.pg_settings WHERE name IN ('shared_buffers', 'max_connections', 'max_worker_processes', " +
	"'max_wal_senders', 'autovacuum_max_workers', 'autovacuum_worker_slots')"

// leavesGrowAlike reports whether partitions loaded directly grow as they
// grow when loaded through the parent. From PostgreSQL 16 a COPY extends a
// table by up to 64 pages at a time, but never by more pages than the
// backend may pin: shared_buffers divided among all possible processes,
// less the pins it holds beyond 8. A COPY into the parent keeps one pin
// per partition it has written to, which can lower that limit for the
// later partitions; a COPY into one partition holds none. When the limit
// stays above 64 pages even with those pins, both grow alike.
func leavesGrowAlike(ctx context.Context, conn *pgconn.PgConn, serverVersion, leaves int) (bool, error) {
	if serverVersion < 160000 {
		return true, nil // one page at a time
	}
	rows, err := queryStrings(ctx, conn, pinSettingsSQL)
	if err != nil || len(rows) != 1 {
		return false, err
	}
	var v [3]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(rows[0][i], 10, 64); err != nil {
			return false, nil
		}
	}
	// 1 autovacuum launcher, and a generous allowance for the auxiliary
	// and special processes (38 in PostgreSQL 18 with its I/O workers).
	procs := v[1] + v[2] + 1 + 50
	const privateRefCountEntries, maxExtendBy, maxPartitionBuffers = 8, 64, 32
	limit := v[0]/procs - privateRefCountEntries - int64(min(leaves, maxPartitionBuffers))
	return limit >= maxExtendBy, nil
}

// newLeafSource returns pgbench's text COPY data of the rows [lo, hi) of
// pgbench_accounts, for a COPY straight into the partition holding them.
//
// A COPY into the parent (pgbench's) routes the rows and ends a batch
// every 1000 rows of the whole stream, so a partition whose rows start
// past such a boundary gets a short first batch. A COPY into the
// partition would batch its first 1000 rows instead, grow the table in
// other steps and leave it with a different number of empty pages at the
// end. So the first batch is made to end where the routed one ends: the
// last line of that batch carries leading spaces (which the integer input
// skips) that bring the batch's input to 65535 bytes, the size at which
// the server ends a batch. The rows and the tables are the same.
func newLeafSource(lo, hi int64, prog *progress) *rowSource {
	s := newRowSource(Accounts, lo, hi, prog)
	first := int64(0)
	if r := lo % copyBatchRows; r != 0 {
		first = copyBatchRows - r
	}
	if first == 0 || first >= hi-lo {
		return s
	}
	var block []byte
	for k := lo; k < lo+first-1; k++ {
		block = Accounts.appendRow(block, k)
	}
	used := len(block) - int(first-1) // the server counts lines without newlines
	last := Accounts.appendRow(nil, lo+first-1)
	if pad := copyBatchBytes - used - (len(last) - 1); pad > 0 {
		block = append(block, make([]byte, pad)...)
		for i := len(block) - pad; i < len(block); i++ {
			block[i] = ' '
		}
	}
	s.pending = append(block, last...)
	s.pendingRows = first
	s.next = lo + first
	return s
}

// loadLeaves loads the partitions of pgbench_accounts on up to
// o.Connections connections, each partition in its own COPY (pgbench
// does not use FREEZE for partitioned tables, nor does this).
func (r *runner) loadLeaves(ctx context.Context, leaves []*leaf, prog *progress) error {
	jobs := make(chan *leaf, len(leaves))
	for _, l := range leaves {
		jobs <- l
	}
	close(jobs)
	return r.parallel(ctx, min(r.o.connections(), len(leaves)), func(ctx context.Context, conn *pgconn.PgConn) error {
		for l := range jobs {
			sql := copyStatement(l.name, false)
			if _, err := conn.CopyFrom(ctx, newLeafSource(l.lo, l.hi, prog), sql); err != nil {
				return copyError(err, sql)
			}
		}
		return nil
	})
}
