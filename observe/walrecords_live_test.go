package observe

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestWALRecordsOfVacuum: a VACUUM after an UPDATE of 95 % of a table's
// rows shows Heap2 prune records (16: PRUNE and VACUUM; 17+:
// PRUNE_VACUUM_SCAN), and the record types' bytes with their full-page
// images sum to the step's wal_bytes (pg_stat_wal) within 1 % and 4 kB:
// what other processes write in the window (the background writer's
// RUNNING_XACTS) lands in both, but their statistics may arrive late.
// The WAL position's difference is a little larger: page headers and each
// record's alignment.
func TestWALRecordsOfVacuum(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			// No autovacuum worker writes into the window, or reports
			// what it wrote before it late.
			inst := pgtest.SharedWith(t, v, pgserver.Setting{Name: "autovacuum", Value: "off"})
			conn := pgtest.Connect(t, pgtest.CreateDB(t, inst))
			for _, q := range []string{
				"CREATE EXTENSION pg_walinspect",
				"CREATE TABLE t (id int, v text) WITH (autovacuum_enabled = off)",
				"INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 50000) g",
				"VACUUM t",
				"CHECKPOINT",
				"UPDATE t SET v = v || 'x' WHERE id % 20 <> 1",
			} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			// A first snapshot's catalog lookups prune the catalog pages
			// the set-up left dead rows in (on-access pruning, with a
			// full-page image after the CHECKPOINT): WAL written before
			// its WAL position is read, and counted in pg_stat_wal when
			// its transaction ends, after its own read (14.8 kB on 17).
			if _, err := Snapshot(ctx, conn); err != nil {
				t.Fatal(err)
			}
			if err := Flush(ctx, conn); err != nil {
				t.Fatal(err)
			}
			before, err := Snapshot(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "VACUUM t"); err != nil {
				t.Fatal(err)
			}
			if err := Flush(ctx, conn); err != nil {
				t.Fatal(err)
			}
			after, err := Snapshot(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			schema, err := WALInspectSchema(ctx, conn)
			if err != nil || schema == "" {
				t.Fatalf("pg_walinspect's schema: %q, %v", schema, err)
			}
			w, err := ReadWALRecords(ctx, conn, schema, before.Values["wal_lsn_bytes"], after.Values["wal_lsn_bytes"])
			if err != nil {
				t.Fatal(err)
			}
			prune := map[string]int64{}
			for _, ty := range w.Types {
				if ty.Rmgr == "Heap2" && (strings.HasPrefix(ty.Record, "PRUNE") || ty.Record == "VACUUM") {
					prune[ty.Record] = ty.Count
				}
			}
			want := []string{"PRUNE_VACUUM_SCAN"}
			if inst.Version().Major == 16 {
				want = []string{"PRUNE", "VACUUM"}
			}
			pages := int64(0)
			for _, r := range want {
				if prune[r] == 0 {
					t.Errorf("no Heap2/%s records in %+v", r, w.Types)
				}
				pages = max(pages, prune[r])
			}
			// 50,000 rows of about 40 bytes: some 300 pages, each pruned once.
			if pages < 250 || pages > 600 {
				t.Errorf("%d Heap2 prune records, want one per page (about 300)", pages)
			}
			_, rec, fpi := w.Total()
			sum := float64(rec + fpi)
			walBytes := Diff(before, after)
			stat, _ := Find(walBytes, "wal_bytes")
			lsn, _ := Find(walBytes, "wal_lsn_bytes")
			t.Logf("PostgreSQL %d: %d record types, %.0f bytes (%d of images); pg_stat_wal %.0f, LSN %.0f; read in %.1f ms",
				inst.Version().Major, len(w.Types), sum, fpi, stat.Value, lsn.Value, w.ReadMS)
			if d := math.Abs(sum - stat.Value); d > 0.01*stat.Value+4096 {
				t.Errorf("record types sum to %.0f bytes, pg_stat_wal says %.0f (%.0f apart)", sum, stat.Value, d)
			}
			if lsn.Value < sum || lsn.Value > sum*1.02+4096 {
				t.Errorf("the WAL position moved %.0f bytes; the records hold %.0f", lsn.Value, sum)
			}
			ms := w.Metrics()
			total, ok := Find(ms, WALRecTotalBytes)
			if !ok || total.Value != sum {
				t.Errorf("%s = %v, want %.0f", WALRecTotalBytes, total, sum)
			}
			name := WALRecBytesPrefix + "Heap2/" + want[0]
			if m, ok := Find(ms, name); !ok || m.Value <= 0 || m.Unit != "bytes" {
				t.Errorf("%s = %+v", name, m)
			}
		})
	}
}

// TestWALRecordsAbsentAgreesWithServers: pg_walinspect is among a
// server's available extensions exactly when WALRecordsAbsent gives no
// reason for its version.
func TestWALRecordsAbsentAgreesWithServers(t *testing.T) {
	for _, v := range append(testVersions(), "13") {
		t.Run(v, func(t *testing.T) {
			inst := pgtest.Shared(t, v)
			conn := pgtest.Connect(t, inst.DSN())
			has := pgtest.QueryString(t, conn, "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_walinspect'") == "1"
			why := WALRecordsAbsent(inst.Version().Major * 10000)
			if has == (why != "") {
				t.Errorf("PostgreSQL %d: pg_walinspect available %v, WALRecordsAbsent %q", inst.Version().Major, has, why)
			}
		})
	}
}

// TestLSNText: positions print as PostgreSQL prints a pg_lsn.
func TestLSNText(t *testing.T) {
	for pos, want := range map[float64]string{0: "0/0", 0x19134E0: "0/19134E0", 0x1_0000_0010: "1/10"} {
		if got := LSNText(pos); got != want {
			t.Errorf("LSNText(%#x) = %q, want %q", uint64(pos), got, want)
		}
	}
}
