package observe

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver/pgtest"
)

var update = flag.Bool("update", false, "rewrite testdata/vacuum from real servers")

// vacuumCase is a VACUUM VERBOSE run whose outcome is known by
// construction.
type vacuumCase struct {
	name  string
	setup []string
	// vacuum is the VACUUM statement whose notices are kept.
	vacuum string
	// rows is the table's row count before the change, deleted how many
	// rows the setup removed or updated (dead tuples), toastDeleted
	// how many TOAST chunks of deleted rows there are.
	deleted       int
	remain        int
	indexes       []string
	toastDeleted  int
	truncates     bool
	multiPassUpTo int // on this major version and below: ≥ 2 index scans
	// pin runs on a second connection and keeps the table's first page
	// pinned during the VACUUM.
	pin []string
	// pinnedDead is how many dead tuples sit on the pinned page.
	pinnedDead int
	// bypass: few dead tuples, index vacuuming skipped (14+).
	bypass bool
	// timing: track_io_timing (and 18's track_cost_delay_timing) on.
	timing bool
	// noToast: the table has no TOAST table.
	noToast bool
}

const toastRow = "(SELECT string_agg(md5(g::text || ':' || i::text), '') FROM generate_series(1, 125) i)"

var vacuumCases = []vacuumCase{
	{
		name: "delete-half",
		setup: []string{
			"CREATE TABLE t (id int, v text) WITH (autovacuum_enabled = off)",
			"ALTER TABLE t ALTER v SET STORAGE EXTERNAL",
			"CREATE INDEX t_id ON t (id)",
			"INSERT INTO t SELECT g, CASE WHEN g % 100 = 0 THEN " + toastRow + " ELSE repeat('x', 100) END FROM generate_series(1, 10000) g",
			"DELETE FROM t WHERE id % 2 = 0",
		},
		vacuum:  "VACUUM (VERBOSE) t",
		deleted: 5000, remain: 5000, indexes: []string{"t_id"},
		toastDeleted: 100 * 3, // 100 deleted rows of 4000 bytes: 3 chunks each
	},
	{
		name: "update-95-noindex",
		setup: []string{
			"CREATE TABLE t (id int, v text) WITH (autovacuum_enabled = off)",
			"INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 10000) g",
			"UPDATE t SET v = v || 'x' WHERE id % 20 != 1",
		},
		vacuum:  "VACUUM VERBOSE t",
		deleted: 9500, remain: 10000,
	},
	{
		name: "truncate",
		setup: []string{
			"SET track_io_timing = on",
			"SELECT set_config('track_cost_delay_timing', 'on', false) WHERE current_setting('server_version_num')::int >= 180000",
			"CREATE TABLE t (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off)",
			"INSERT INTO t SELECT g, repeat('y', 200) FROM generate_series(1, 10000) g",
			"DELETE FROM t WHERE id > 2000",
		},
		vacuum:  "VACUUM (VERBOSE) t",
		deleted: 8000, remain: 2000, indexes: []string{"t_pkey"}, truncates: true, timing: true,
	},
	{
		name: "bypass",
		setup: []string{
			"CREATE TABLE t (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off)",
			"INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 20000) g",
			"DELETE FROM t WHERE id <= 10",
		},
		vacuum:  "VACUUM (VERBOSE) t",
		deleted: 10, remain: 19990, indexes: []string{"t_pkey"}, bypass: true,
	},
	{
		name: "pinned",
		setup: []string{
			"CREATE TABLE t (id int, v text) WITH (autovacuum_enabled = off)",
			"INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 2000) g",
			"DELETE FROM t WHERE id % 2 = 0",
		},
		pin:     []string{"BEGIN", "DECLARE c CURSOR FOR SELECT * FROM t", "FETCH 1 FROM c"},
		vacuum:  "VACUUM (VERBOSE) t",
		deleted: 1000, remain: 1000, pinnedDead: 60,
	},
	{
		name: "parallel-analyze",
		setup: []string{
			"CREATE TABLE t (id int, k int, v text) WITH (autovacuum_enabled = off)",
			"CREATE INDEX t_id ON t (id)",
			"CREATE INDEX t_k ON t (k)",
			"INSERT INTO t SELECT g, g % 97, md5(g::text) FROM generate_series(1, 20000) g",
			"DELETE FROM t WHERE id % 4 = 0",
			"SET min_parallel_index_scan_size = 0",
		},
		vacuum:  "VACUUM (VERBOSE, ANALYZE, PARALLEL 2) t",
		deleted: 5000, remain: 15000, indexes: []string{"t_id", "t_k"},
	},
	{
		name: "multipass",
		setup: []string{
			"CREATE TABLE t (id int) WITH (autovacuum_enabled = off, fillfactor = 100)",
			"CREATE INDEX t_id ON t (id)",
			"INSERT INTO t SELECT g FROM generate_series(1, 400000) g",
			"DELETE FROM t WHERE id > 1000",
			"SET maintenance_work_mem = '1MB'",
		},
		vacuum:  "VACUUM (VERBOSE) t",
		deleted: 399000, remain: 1000, indexes: []string{"t_id"}, truncates: true,
		multiPassUpTo: 16, noToast: true,
	},
}

// runVacuumCase runs c on a fresh database of inst and returns the
// VACUUM's notices.
func runVacuumCase(t *testing.T, dsn string, c vacuumCase) string {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	notices := CaptureNotices(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range c.setup {
		exec(t, conn, s)
	}
	if len(c.pin) > 0 {
		pinner := pgtest.Connect(t, dsn)
		for _, s := range c.pin {
			exec(t, pinner, s)
		}
		defer pinner.Exec(ctx, "ROLLBACK")
	}
	notices.Take()
	exec(t, conn, c.vacuum)
	return notices.Take()
}

func vacuumFile(major int, c vacuumCase) string {
	return filepath.Join("testdata", "vacuum", fmt.Sprintf("pg%d-%s.txt", major, c.name))
}

// TestVacuumVerboseLive runs every case on every version and checks what
// the parser reads from the server's own text; with -update it also
// stores the text under testdata/vacuum.
func TestVacuumVerboseLive(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			inst := pgtest.Shared(t, v)
			for _, c := range vacuumCases {
				t.Run(c.name, func(t *testing.T) {
					dsn := pgtest.CreateDB(t, inst)
					text := runVacuumCase(t, dsn, c)
					major := inst.Version().Major
					if *update {
						if err := os.WriteFile(vacuumFile(major, c), []byte(text), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					checkVacuumCase(t, major, c, text)
				})
			}
		})
	}
}
