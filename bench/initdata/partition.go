package initdata

import (
	"context"
	"io"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// leaf is one partition of pgbench_accounts and the rows it receives.
type leaf struct {
	name string // as regclass prints it: quoted and qualified as needed
	// Range partitions: rows (0-based k) [lo, hi).
	lo, hi int64
	// Hash partitions: rows whose partitionHash % modulus == remainder.
	hash               bool
	modulus, remainder uint64
	info               *relInfo
}

// leafSQL lists the partitions of pgbench_accounts with their bounds, and
// the partition key: strategy, whether it is the first column with its
// type's default operator class.
const leafSQL = "SELECT c.oid::pg_catalog.regclass::pg_catalog.text, c.relkind, pg_catalog.pg_get_expr(c.relpartbound, c.oid), " +
	"p.partstrat, (p.partnatts = 1 AND p.partattrs[0] = 1 AND p.partexprs IS NULL AND o.opcdefault)::pg_catalog.text " +
	"FROM pg_catalog.pg_partitioned_table p " +
	"JOIN pg_catalog.pg_opclass o ON o.oid = p.partclass[0] " +
	"JOIN pg_catalog.pg_inherits i ON i.inhparent = p.partrelid " +
	"JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid " +
	"WHERE p.partrelid = $1::pg_catalog.regclass"

var (
	rangeBoundRE = regexp.MustCompile(`^FOR VALUES FROM \((MINVALUE|-?[0-9]+)\) TO \((MAXVALUE|-?[0-9]+)\)$`)
	hashBoundRE  = regexp.MustCompile(`^FOR VALUES WITH \(modulus ([0-9]+), remainder ([0-9]+)\)$`)
)

// accountLeaves returns the partitions of pgbench_accounts and the rows
// each receives, when loading them directly gives each the rows, in the
// order, that a COPY into the parent would route to it; otherwise nil
// (sub-partitions, a default partition, other keys, gaps: the caller then
// loads through the parent as pgbench does).
func accountLeaves(ctx context.Context, conn *pgconn.PgConn, parent *relInfo, total int64) ([]*leaf, error) {
	rows, err := queryStrings(ctx, conn, leafSQL, Accounts.Name())
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	if len(parent.types) == 0 || (parent.types[0] != oidInt4 && parent.types[0] != oidInt8) {
		return nil, nil
	}
	var leaves []*leaf
	for _, r := range rows {
		if r[1] != "r" || r[4] != "true" {
			return nil, nil
		}
		l := &leaf{name: r[0]}
		switch r[3] {
		case "r":
			m := rangeBoundRE.FindStringSubmatch(r[2])
			if m == nil {
				return nil, nil
			}
			// Bounds are on aid = k+1: [from, to) in aid is [from-1, to-1) in k.
			l.lo, l.hi = 0, total
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
			if l.hi < l.lo {
				l.hi = l.lo
			}
		case "h":
			m := hashBoundRE.FindStringSubmatch(r[2])
			if m == nil {
				return nil, nil
			}
			l.hash = true
			l.modulus, _ = strconv.ParseUint(m[1], 10, 64)
			l.remainder, _ = strconv.ParseUint(m[2], 10, 64)
			if l.modulus == 0 {
				return nil, nil
			}
		default:
			return nil, nil
		}
		leaves = append(leaves, l)
	}
	if !coversAll(leaves, total) {
		return nil, nil
	}
	for _, l := range leaves {
		info, err := lookupRel(ctx, conn, l.name)
		if err != nil {
			return nil, err
		}
		if len(info.types) != len(parent.types) {
			return nil, nil
		}
		l.info = info
	}
	return leaves, nil
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// coversAll reports whether every row goes to exactly one leaf: range
// leaves tile [0, total), hash leaves share one modulus and cover every
// remainder.
func coversAll(leaves []*leaf, total int64) bool {
	if leaves[0].hash {
		mod := leaves[0].modulus
		seen := map[uint64]bool{}
		for _, l := range leaves {
			if !l.hash || l.modulus != mod || l.remainder >= mod || seen[l.remainder] {
				return false
			}
			seen[l.remainder] = true
		}
		return uint64(len(seen)) == mod
	}
	sorted := append([]*leaf(nil), leaves...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].lo < sorted[j].lo })
	next := int64(0)
	for _, l := range sorted {
		if l.hash {
			return false
		}
		if l.hi == l.lo {
			continue
		}
		if l.lo != next {
			return false
		}
		next = l.hi
	}
	return next == total
}

// hashRowSource is an io.Reader of the rows of one hash partition: it
// walks all rows in order and keeps those of its remainder.
type hashRowSource struct {
	f         *rowFormat
	bigint    bool
	modulus   uint64
	remainder uint64
	k, total  int64
	prog      *progress
	started   bool
	done      bool
}

func (s *hashRowSource) Read(p []byte) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	n := 0
	if !s.started && s.f.binary {
		n = copy(p, binaryHeader)
	}
	s.started = true
	emitted := int64(0)
	for s.k < s.total && len(p)-n >= maxTextLine {
		k := s.k
		s.k++
		if partitionHash(k+1, s.bigint)%s.modulus != s.remainder {
			continue
		}
		n += s.f.encode(p[n:], k)
		emitted++
	}
	if s.k == s.total {
		tail := s.f.tail()
		if len(p)-n >= len(tail) {
			n += copy(p[n:], tail)
			s.done = true
		}
	}
	if s.prog != nil && emitted > 0 {
		s.prog.add(emitted)
	}
	return n, nil
}

// loadLeaves loads the partitions of pgbench_accounts on up to
// o.Connections connections, each partition in its own COPY (pgbench
// does not use FREEZE for partitioned tables, nor does this).
func (r *runner) loadLeaves(ctx context.Context, leaves []*leaf, total int64, prog *progress) error {
	workers := min(r.o.connections(), len(leaves))
	conns, err := r.extraConns(ctx, workers)
	if err != nil {
		return err
	}
	defer r.release(conns)
	jobs := make(chan *leaf, len(leaves))
	for _, l := range leaves {
		jobs <- l
	}
	close(jobs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	bigint := leaves[0].info.types[0] == oidInt8
	for _, conn := range conns {
		wg.Go(func() {
			for l := range jobs {
				if ctx.Err() != nil {
					return
				}
				if err := r.loadLeaf(ctx, conn, l, total, bigint, prog); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

func (r *runner) loadLeaf(ctx context.Context, conn *pgconn.PgConn, l *leaf, total int64, bigint bool, prog *progress) error {
	f := binaryFormat(Accounts, l.info.types, total)
	if f == nil {
		f = textFormat(Accounts)
	}
	sql := copyStatement(l.name, false, f.binary)
	var src io.Reader
	if l.hash {
		src = &hashRowSource{
			f: f, bigint: bigint,
			modulus: l.modulus, remainder: l.remainder, total: total, prog: prog,
		}
	} else {
		src = newRowSource(f, l.lo, l.hi, prog)
	}
	if _, err := conn.CopyFrom(ctx, src, sql); err != nil {
		return copyError(err, sql)
	}
	return nil
}
