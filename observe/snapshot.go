package observe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Counters holds the server's cumulative counters at one moment, as read
// by Snapshot. Take one before and one after a measured step and subtract
// them with Diff.
type Counters struct {
	// Time is when the snapshot was read (client clock).
	Time time.Time
	// VersionNum is server_version_num.
	VersionNum int
	// Database is the database whose pg_stat_database row was read.
	Database string
	// Values are the counters by metric name; a counter the server
	// cannot give is absent.
	Values map[string]float64
	// Resets holds each view's stats_reset time as text, by view; Diff
	// drops a view's metrics when it changed between the snapshots.
	Resets map[string]string

	// from maps each metric to the group it was read from.
	from map[string]string
}

// counter is one metric and where it is read on a version.
type counter struct {
	name string
	unit string
	// group is the view (and row filter) it comes from; one query per
	// group.
	group string
	// expr is the SQL expression over the group's rows.
	expr string
	// cols are the columns of the group's view that expr needs; the
	// counter is skipped when one is missing.
	cols []string
	// minVersion is the lowest server_version_num it is read on (0: any).
	minVersion int
	// timing names the setting that must be on for the value to mean
	// anything ("track_io_timing", "track_wal_io_timing").
	timing string
}

// group is one view, possibly filtered, read with one query.
type group struct {
	view  string // catalog name, looked up with to_regclass
	from  string // FROM clause
	reset string // expression giving stats_reset as text
}

const (
	gDatabase     = "database"
	gWAL          = "wal"
	gIOWAL        = "io_wal"
	gIO           = "io"
	gBgwriter     = "bgwriter"
	gCheckpointer = "checkpointer"
	gLSN          = "lsn"
)

var groups = map[string]group{
	gDatabase:     {"pg_stat_database", "pg_catalog.pg_stat_database WHERE datname = current_database()", "max(stats_reset)::text"},
	gWAL:          {"pg_stat_wal", "pg_catalog.pg_stat_wal", "max(stats_reset)::text"},
	gIOWAL:        {"pg_stat_io", "pg_catalog.pg_stat_io WHERE object = 'wal'", "max(stats_reset)::text"},
	gIO:           {"pg_stat_io", "pg_catalog.pg_stat_io WHERE object <> 'wal'", "max(stats_reset)::text"},
	gBgwriter:     {"pg_stat_bgwriter", "pg_catalog.pg_stat_bgwriter", "max(stats_reset)::text"},
	gCheckpointer: {"pg_stat_checkpointer", "pg_catalog.pg_stat_checkpointer", "max(stats_reset)::text"},
	gLSN:          {"", "", ""},
}

// counters lists every metric a snapshot may hold. Where several rows
// give the same name, the first whose view, columns and version exist
// wins.
var counters = []counter{
	// pg_stat_database, current database, 13+.
	{name: "xact_commit", unit: "count", group: gDatabase, expr: "sum(xact_commit)", cols: []string{"xact_commit"}},
	{name: "xact_rollback", unit: "count", group: gDatabase, expr: "sum(xact_rollback)", cols: []string{"xact_rollback"}},
	{name: "blks_read", unit: "count", group: gDatabase, expr: "sum(blks_read)", cols: []string{"blks_read"}},
	{name: "blks_hit", unit: "count", group: gDatabase, expr: "sum(blks_hit)", cols: []string{"blks_hit"}},
	{name: "tup_returned", unit: "count", group: gDatabase, expr: "sum(tup_returned)", cols: []string{"tup_returned"}},
	{name: "tup_fetched", unit: "count", group: gDatabase, expr: "sum(tup_fetched)", cols: []string{"tup_fetched"}},
	{name: "tup_inserted", unit: "count", group: gDatabase, expr: "sum(tup_inserted)", cols: []string{"tup_inserted"}},
	{name: "tup_updated", unit: "count", group: gDatabase, expr: "sum(tup_updated)", cols: []string{"tup_updated"}},
	{name: "tup_deleted", unit: "count", group: gDatabase, expr: "sum(tup_deleted)", cols: []string{"tup_deleted"}},
	{name: "temp_files", unit: "count", group: gDatabase, expr: "sum(temp_files)", cols: []string{"temp_files"}},
	{name: "temp_bytes", unit: "bytes", group: gDatabase, expr: "sum(temp_bytes)", cols: []string{"temp_bytes"}},
	{name: "deadlocks", unit: "count", group: gDatabase, expr: "sum(deadlocks)", cols: []string{"deadlocks"}},
	{name: "blk_read_ms", unit: "ms", group: gDatabase, expr: "sum(blk_read_time)", cols: []string{"blk_read_time"}, timing: "track_io_timing"},
	{name: "blk_write_ms", unit: "ms", group: gDatabase, expr: "sum(blk_write_time)", cols: []string{"blk_write_time"}, timing: "track_io_timing"},

	// WAL position, every version: bytes of WAL inserted, cluster-wide.
	{name: "wal_lsn_bytes", unit: "bytes", group: gLSN},

	// pg_stat_wal, 14+.
	{name: "wal_records", unit: "count", group: gWAL, expr: "sum(wal_records)", cols: []string{"wal_records"}},
	{name: "wal_fpi", unit: "count", group: gWAL, expr: "sum(wal_fpi)", cols: []string{"wal_fpi"}},
	{name: "wal_bytes", unit: "bytes", group: gWAL, expr: "sum(wal_bytes)", cols: []string{"wal_bytes"}},
	{name: "wal_buffers_full", unit: "count", group: gWAL, expr: "sum(wal_buffers_full)", cols: []string{"wal_buffers_full"}},
	// WAL writes and syncs: pg_stat_wal on 14–17, pg_stat_io's wal rows on 18.
	{name: "wal_writes", unit: "count", group: gWAL, expr: "sum(wal_write)", cols: []string{"wal_write"}},
	{name: "wal_writes", unit: "count", group: gIOWAL, expr: "coalesce(sum(writes), 0)", cols: []string{"writes"}, minVersion: 180000},
	{name: "wal_syncs", unit: "count", group: gWAL, expr: "sum(wal_sync)", cols: []string{"wal_sync"}},
	{name: "wal_syncs", unit: "count", group: gIOWAL, expr: "coalesce(sum(fsyncs), 0)", cols: []string{"fsyncs"}, minVersion: 180000},
	{name: "wal_write_ms", unit: "ms", group: gWAL, expr: "sum(wal_write_time)", cols: []string{"wal_write_time"}, timing: "track_wal_io_timing"},
	{name: "wal_write_ms", unit: "ms", group: gIOWAL, expr: "coalesce(sum(write_time), 0)", cols: []string{"write_time"}, minVersion: 180000, timing: "track_wal_io_timing"},
	{name: "wal_sync_ms", unit: "ms", group: gWAL, expr: "sum(wal_sync_time)", cols: []string{"wal_sync_time"}, timing: "track_wal_io_timing"},
	{name: "wal_sync_ms", unit: "ms", group: gIOWAL, expr: "coalesce(sum(fsync_time), 0)", cols: []string{"fsync_time"}, minVersion: 180000, timing: "track_wal_io_timing"},
	{name: "wal_write_bytes", unit: "bytes", group: gIOWAL, expr: "coalesce(sum(write_bytes), 0)", cols: []string{"write_bytes"}, minVersion: 180000},

	// Checkpoints: pg_stat_checkpointer on 17+, pg_stat_bgwriter before.
	{name: "checkpoints", unit: "count", group: gCheckpointer, expr: "sum(num_done)", cols: []string{"num_done"}},
	{name: "checkpoints", unit: "count", group: gCheckpointer, expr: "sum(num_timed + num_requested)", cols: []string{"num_timed", "num_requested"}},
	{name: "checkpoints", unit: "count", group: gBgwriter, expr: "sum(checkpoints_timed + checkpoints_req)", cols: []string{"checkpoints_timed", "checkpoints_req"}},
	{name: "checkpoints_timed", unit: "count", group: gCheckpointer, expr: "sum(num_timed)", cols: []string{"num_timed"}},
	{name: "checkpoints_timed", unit: "count", group: gBgwriter, expr: "sum(checkpoints_timed)", cols: []string{"checkpoints_timed"}},
	{name: "checkpoints_requested", unit: "count", group: gCheckpointer, expr: "sum(num_requested)", cols: []string{"num_requested"}},
	{name: "checkpoints_requested", unit: "count", group: gBgwriter, expr: "sum(checkpoints_req)", cols: []string{"checkpoints_req"}},
	{name: "checkpoint_buffers", unit: "count", group: gCheckpointer, expr: "sum(buffers_written)", cols: []string{"buffers_written"}},
	{name: "checkpoint_buffers", unit: "count", group: gBgwriter, expr: "sum(buffers_checkpoint)", cols: []string{"buffers_checkpoint"}},
	{name: "checkpoint_write_ms", unit: "ms", group: gCheckpointer, expr: "sum(write_time)", cols: []string{"write_time"}},
	{name: "checkpoint_write_ms", unit: "ms", group: gBgwriter, expr: "sum(checkpoint_write_time)", cols: []string{"checkpoint_write_time"}},
	{name: "checkpoint_sync_ms", unit: "ms", group: gCheckpointer, expr: "sum(sync_time)", cols: []string{"sync_time"}},
	{name: "checkpoint_sync_ms", unit: "ms", group: gBgwriter, expr: "sum(checkpoint_sync_time)", cols: []string{"checkpoint_sync_time"}},
	{name: "bgwriter_buffers", unit: "count", group: gBgwriter, expr: "sum(buffers_clean)", cols: []string{"buffers_clean"}},
	{name: "bgwriter_maxwritten", unit: "count", group: gBgwriter, expr: "sum(maxwritten_clean)", cols: []string{"maxwritten_clean"}},
	{name: "buffers_alloc", unit: "count", group: gBgwriter, expr: "sum(buffers_alloc)", cols: []string{"buffers_alloc"}},
	{name: "buffers_backend", unit: "count", group: gBgwriter, expr: "sum(buffers_backend)", cols: []string{"buffers_backend"}},
	{name: "buffers_backend_fsync", unit: "count", group: gBgwriter, expr: "sum(buffers_backend_fsync)", cols: []string{"buffers_backend_fsync"}},

	// pg_stat_io, 16+, relation and temp relation rows (18's wal rows
	// feed wal_* above), all backend types summed.
	{name: "io_reads", unit: "count", group: gIO, expr: "coalesce(sum(reads), 0)", cols: []string{"reads"}},
	{name: "io_writes", unit: "count", group: gIO, expr: "coalesce(sum(writes), 0)", cols: []string{"writes"}},
	{name: "io_writebacks", unit: "count", group: gIO, expr: "coalesce(sum(writebacks), 0)", cols: []string{"writebacks"}},
	{name: "io_extends", unit: "count", group: gIO, expr: "coalesce(sum(extends), 0)", cols: []string{"extends"}},
	{name: "io_hits", unit: "count", group: gIO, expr: "coalesce(sum(hits), 0)", cols: []string{"hits"}},
	{name: "io_evictions", unit: "count", group: gIO, expr: "coalesce(sum(evictions), 0)", cols: []string{"evictions"}},
	{name: "io_reuses", unit: "count", group: gIO, expr: "coalesce(sum(reuses), 0)", cols: []string{"reuses"}},
	{name: "io_fsyncs", unit: "count", group: gIO, expr: "coalesce(sum(fsyncs), 0)", cols: []string{"fsyncs"}},
	{name: "io_read_bytes", unit: "bytes", group: gIO, expr: "coalesce(sum(read_bytes), 0)", cols: []string{"read_bytes"}},
	{name: "io_read_bytes", unit: "bytes", group: gIO, expr: "coalesce(sum(reads * op_bytes), 0)", cols: []string{"reads", "op_bytes"}},
	{name: "io_write_bytes", unit: "bytes", group: gIO, expr: "coalesce(sum(write_bytes), 0)", cols: []string{"write_bytes"}},
	{name: "io_write_bytes", unit: "bytes", group: gIO, expr: "coalesce(sum(writes * op_bytes), 0)", cols: []string{"writes", "op_bytes"}},
	{name: "io_extend_bytes", unit: "bytes", group: gIO, expr: "coalesce(sum(extend_bytes), 0)", cols: []string{"extend_bytes"}},
	{name: "io_extend_bytes", unit: "bytes", group: gIO, expr: "coalesce(sum(extends * op_bytes), 0)", cols: []string{"extends", "op_bytes"}},
	{name: "io_read_ms", unit: "ms", group: gIO, expr: "coalesce(sum(read_time), 0)", cols: []string{"read_time"}, timing: "track_io_timing"},
	{name: "io_write_ms", unit: "ms", group: gIO, expr: "coalesce(sum(write_time), 0)", cols: []string{"write_time"}, timing: "track_io_timing"},
	{name: "io_fsync_ms", unit: "ms", group: gIO, expr: "coalesce(sum(fsync_time), 0)", cols: []string{"fsync_time"}, timing: "track_io_timing"},
}

// units maps each metric name to its unit.
var units = func() map[string]string {
	m := map[string]string{}
	for _, c := range counters {
		m[c.name] = c.unit
	}
	return m
}()

// plan is what one server offers: the counters to read, by group.
type plan struct {
	version int
	byGroup map[string][]counter
	groupOf map[string]string
	timing  map[string]bool
}

// Snapshot reads the server's counters. It runs its queries in one
// transaction of its own (a savepoint when q is a pgx.Tx) after
// pg_stat_clear_snapshot(), so that every value is read fresh. The
// transaction is itself counted in pg_stat_database (one commit, made
// visible at once on 15+).
//
// Work done on other connections shows only once those sessions have
// flushed their statistics: call Flush on each of them first, or Settle
// when they cannot be reached.
func Snapshot(ctx context.Context, q Querier) (*Counters, error) {
	s, err := snapshotIn(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read server counters: %w", err)
	}
	return s, nil
}

func snapshotIn(ctx context.Context, q Querier) (snap *Counters, err error) {
	if b, ok := q.(beginner); ok {
		tx, err := b.Begin(ctx)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				tx.Rollback(context.WithoutCancel(ctx))
				return
			}
			err = tx.Commit(ctx)
		}()
		q = tx
	}
	if _, err := q.Exec(ctx, "SELECT pg_catalog.pg_stat_clear_snapshot()"); err != nil {
		return nil, err
	}
	p, err := makePlan(ctx, q)
	if err != nil {
		return nil, err
	}
	snap = &Counters{VersionNum: p.version, Values: map[string]float64{}, Resets: map[string]string{}, from: map[string]string{}}
	if err := q.QueryRow(ctx, "SELECT current_database()").Scan(&snap.Database); err != nil {
		return nil, err
	}
	for gname, cs := range p.byGroup {
		if err := readGroup(ctx, q, gname, cs, snap); err != nil {
			return nil, err
		}
	}
	if p.version >= 150000 {
		// Make this transaction's own pg_stat_database counts visible
		// right away, so that they always land in the next snapshot.
		if _, err := q.Exec(ctx, "SELECT pg_catalog.pg_stat_force_next_flush()"); err != nil {
			return nil, err
		}
	}
	snap.Time = time.Now()
	return snap, nil
}

// makePlan finds which counters this server has.
func makePlan(ctx context.Context, q Querier) (*plan, error) {
	p := &plan{byGroup: map[string][]counter{}, groupOf: map[string]string{}, timing: map[string]bool{}}
	var err error
	if p.version, err = versionNum(ctx, q); err != nil {
		return nil, err
	}
	views := []string{}
	seen := map[string]bool{}
	for _, g := range groups {
		if g.view != "" && !seen[g.view] {
			seen[g.view] = true
			views = append(views, g.view)
		}
	}
	rows, err := q.Query(ctx, `SELECT c.relname::text, a.attname::text
		FROM unnest($1::text[]) AS v(name)
		JOIN pg_catalog.pg_class c ON c.oid = to_regclass('pg_catalog.' || v.name)
		JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped`, views)
	if err != nil {
		return nil, fmt.Errorf("look up statistics views: %w", err)
	}
	cols := map[string]map[string]bool{}
	for rows.Next() {
		var view, col string
		if err := rows.Scan(&view, &col); err != nil {
			rows.Close()
			return nil, fmt.Errorf("look up statistics views: %w", err)
		}
		if cols[view] == nil {
			cols[view] = map[string]bool{}
		}
		cols[view][col] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up statistics views: %w", err)
	}
	for _, setting := range []string{"track_io_timing", "track_wal_io_timing"} {
		var v *string
		if err := q.QueryRow(ctx, "SELECT current_setting($1, true)", setting).Scan(&v); err != nil {
			return nil, fmt.Errorf("read %s: %w", setting, err)
		}
		p.timing[setting] = v != nil && *v == "on"
	}
	for _, c := range counters {
		if _, done := p.groupOf[c.name]; done || c.minVersion > p.version {
			continue
		}
		if c.timing != "" && !p.timing[c.timing] {
			p.groupOf[c.name] = "" // known but not measured: absent
			continue
		}
		if g := groups[c.group]; g.view != "" {
			ok := cols[g.view] != nil
			for _, col := range c.cols {
				ok = ok && cols[g.view][col]
			}
			if !ok {
				continue
			}
		}
		p.groupOf[c.name] = c.group
		p.byGroup[c.group] = append(p.byGroup[c.group], c)
	}
	return p, nil
}

// readGroup reads one group's counters into snap.
func readGroup(ctx context.Context, q Querier, gname string, cs []counter, snap *Counters) error {
	if gname == gLSN {
		var v float64
		err := q.QueryRow(ctx, `SELECT pg_catalog.pg_wal_lsn_diff(CASE WHEN pg_catalog.pg_is_in_recovery()
			THEN pg_catalog.pg_last_wal_replay_lsn() ELSE pg_catalog.pg_current_wal_insert_lsn() END, '0/0')::float8`).Scan(&v)
		if err != nil {
			return fmt.Errorf("read WAL position: %w", err)
		}
		snap.Values["wal_lsn_bytes"] = v
		snap.from["wal_lsn_bytes"] = gLSN
		return nil
	}
	g := groups[gname]
	exprs := make([]string, 0, len(cs)+1)
	exprs = append(exprs, g.reset)
	for _, c := range cs {
		exprs = append(exprs, "("+c.expr+")::float8")
	}
	sql := "SELECT " + strings.Join(exprs, ", ") + " FROM " + g.from
	rows, err := q.Query(ctx, sql)
	if err != nil {
		return fmt.Errorf("read %s: %w", g.view, err)
	}
	vals, err := pgx.CollectExactlyOneRow(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		return fmt.Errorf("read %s: %w", g.view, err)
	}
	if len(vals) != len(exprs) {
		return fmt.Errorf("read %s: %d columns, want %d", g.view, len(vals), len(exprs))
	}
	if r, ok := vals[0].(string); ok {
		snap.Resets[gname] = r
	}
	for i, c := range cs {
		switch v := vals[i+1].(type) {
		case float64:
			snap.Values[c.name] = v
			snap.from[c.name] = gname
		case nil:
			// No row (e.g. no pg_stat_database row yet): absent.
		default:
			return fmt.Errorf("read %s: %s is %T", g.view, c.name, v)
		}
	}
	return nil
}

// Diff returns after − before for every counter present in both, sorted
// by name. Counters of a view whose statistics were reset in between, and
// counters that went backwards (a crash discards statistics), are left
// out rather than reported wrong.
func Diff(before, after *Counters) []Metric {
	if before == nil || after == nil {
		return nil
	}
	var out []Metric
	for name, a := range after.Values {
		b, ok := before.Values[name]
		if !ok {
			continue
		}
		if g := after.from[name]; g != before.from[name] || before.Resets[g] != after.Resets[g] {
			continue
		}
		d := a - b
		if d < 0 {
			continue
		}
		out = append(out, Metric{Name: name, Value: d, Unit: units[name]})
	}
	sortMetrics(out)
	return out
}
