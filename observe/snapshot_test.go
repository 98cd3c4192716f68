package observe

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// major returns the major version of a server_version_num.
func major(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	n, err := strconv.Atoi(pgtest.QueryString(t, conn, "SHOW server_version_num"))
	if err != nil {
		t.Fatal(err)
	}
	return n / 10000
}

func exec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// metricsOf returns a diff as a map for tests.
func metricsOf(ms []Metric) map[string]float64 {
	m := map[string]float64{}
	for _, x := range ms {
		m[x.Name] = x.Value
	}
	return m
}

// TestDiffAroundAutocommitUpdates runs 1000 single-row autocommit updates
// on one connection and reads the counters from another: every commit
// and every WAL flush must show.
func TestDiffAroundAutocommitUpdates(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			inst := pgtest.Shared(t, v)
			dsn := pgtest.CreateDB(t, inst)
			admin := pgtest.Connect(t, dsn)
			ver := major(t, admin)
			exec(t, admin, "DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET track_io_timing = on', current_database()); END$$")
			if ver >= 14 {
				exec(t, admin, "DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET track_wal_io_timing = on', current_database()); END$$")
			}
			exec(t, admin, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)")
			exec(t, admin, "INSERT INTO t SELECT g, 0 FROM generate_series(1, 1000) g")
			exec(t, admin, "VACUUM ANALYZE t")
			worker := pgtest.Connect(t, dsn)
			observer := pgtest.Connect(t, dsn)

			if err := Flush(ctx, admin); err != nil {
				t.Fatal(err)
			}
			before, err := Snapshot(ctx, observer)
			if err != nil {
				t.Fatal(err)
			}
			const n = 1000
			for i := 1; i <= n; i++ {
				exec(t, worker, "UPDATE t SET v = v + 1 WHERE id = $1", i)
			}
			if err := Flush(ctx, worker); err != nil {
				t.Fatal(err)
			}
			after, err := Snapshot(ctx, observer)
			if err != nil {
				t.Fatal(err)
			}
			diff := Diff(before, after)
			m := metricsOf(diff)
			t.Logf("PostgreSQL %d: %v", ver, diff)

			// The updates, the before-snapshot's transaction and Flush's.
			inRange(t, m, "xact_commit", n, n+3)
			inRange(t, m, "tup_updated", n, n)
			inRange(t, m, "xact_rollback", 0, 0)
			inRange(t, m, "wal_lsn_bytes", 50*n, 1000*n)
			if ver >= 14 {
				// One WAL flush per commit; the WAL writer may add a few.
				inRange(t, m, "wal_syncs", n, n+n/20)
				inRange(t, m, "wal_writes", n, n+n/10)
				inRange(t, m, "wal_records", 2*n, 10*n)
				inRange(t, m, "wal_bytes", 50*n, 1000*n)
				inRange(t, m, "wal_sync_ms", 0.001, 1e6)
				inRange(t, m, "wal_write_ms", 0.001, 1e6)
				if m["wal_bytes"] > m["wal_lsn_bytes"] {
					t.Errorf("wal_bytes %v > wal_lsn_bytes %v: the LSN counts page headers too", m["wal_bytes"], m["wal_lsn_bytes"])
				}
			} else {
				absent(t, m, "wal_syncs", "wal_records", "wal_bytes", "wal_sync_ms")
			}
			if ver >= 16 {
				present(t, m, "io_hits", "io_read_bytes", "io_write_bytes", "io_extend_bytes", "io_read_ms")
			} else {
				absent(t, m, "io_hits", "io_read_bytes")
			}
			if ver >= 17 {
				absent(t, m, "buffers_backend")
			} else {
				present(t, m, "buffers_backend")
			}
			if ver >= 18 {
				present(t, m, "wal_write_bytes")
			} else {
				absent(t, m, "wal_write_bytes")
			}
			present(t, m, "checkpoints", "checkpoint_buffers", "blks_hit", "blk_read_ms", "temp_bytes", "buffers_alloc")
			for _, x := range diff {
				if x.Unit == "" {
					t.Errorf("%s has no unit", x.Name)
				}
			}
		})
	}
}

// TestDiffTimingNeedsSetting checks that time metrics are absent, not
// zero, when their setting is off.
func TestDiffTimingNeedsSetting(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Shared(t, "17")
	conn := pgtest.Connect(t, pgtest.CreateDB(t, inst))
	exec(t, conn, "SET track_io_timing = off")
	exec(t, conn, "SET track_wal_io_timing = off")
	before, err := Snapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, conn, "CREATE TABLE t AS SELECT g FROM generate_series(1, 1000) g")
	after, err := Snapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	m := metricsOf(Diff(before, after))
	absent(t, m, "wal_sync_ms", "wal_write_ms", "blk_read_ms", "io_read_ms")
	present(t, m, "wal_syncs", "wal_bytes", "io_reads")
}

// TestDiffDropsResetViews resets pg_stat_wal between two snapshots.
func TestDiffDropsResetViews(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.New(t, pgtest.Options{Version: "17"})
	conn := pgtest.Connect(t, inst.DSN())
	before, err := Snapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // stats_reset must differ
	exec(t, conn, "SELECT pg_stat_reset_shared('wal')")
	after, err := Snapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	m := metricsOf(Diff(before, after))
	absent(t, m, "wal_records", "wal_bytes", "wal_syncs")
	present(t, m, "xact_commit", "wal_lsn_bytes", "checkpoints")
}

func inRange(t *testing.T, m map[string]float64, name string, lo, hi float64) {
	t.Helper()
	v, ok := m[name]
	if !ok {
		t.Errorf("%s: absent, want %v..%v", name, lo, hi)
		return
	}
	if v < lo || v > hi {
		t.Errorf("%s = %v, want %v..%v", name, v, lo, hi)
	}
}

func present(t *testing.T, m map[string]float64, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := m[n]; !ok {
			t.Errorf("%s absent", n)
		}
	}
}

func absent(t *testing.T, m map[string]float64, names ...string) {
	t.Helper()
	for _, n := range names {
		if v, ok := m[n]; ok {
			t.Errorf("%s = %v, want absent", n, v)
		}
	}
}

// TestDiffCheckpoint: a CHECKPOINT with dirty buffers shows on every
// version, from pg_stat_bgwriter or pg_stat_checkpointer.
func TestDiffCheckpoint(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			conn := pgtest.Connect(t, pgtest.CreateDB(t, pgtest.Shared(t, v)))
			exec(t, conn, "CREATE TABLE t AS SELECT g FROM generate_series(1, 10000) g")
			before, err := Snapshot(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			exec(t, conn, "UPDATE t SET g = g + 1")
			exec(t, conn, "CHECKPOINT")
			// The checkpointer reports its counters after the command
			// returns.
			if err := Settle(ctx); err != nil {
				t.Fatal(err)
			}
			after, err := Snapshot(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			m := metricsOf(Diff(before, after))
			inRange(t, m, "checkpoints", 1, 3)
			inRange(t, m, "checkpoints_requested", 1, 3)
			inRange(t, m, "checkpoint_buffers", 40, 1e6) // the table alone has 45 pages
		})
	}
}
