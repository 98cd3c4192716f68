package observe

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestCounterAbsentAgreesWithServers checks the version table of
// CounterAbsent against what each server's catalog offers: a counter is
// read on a version exactly when CounterAbsent has no reason for it.
func TestCounterAbsentAgreesWithServers(t *testing.T) {
	for _, v := range append(testVersions(), "13") {
		t.Run(v, func(t *testing.T) {
			conn := pgtest.Connect(t, pgtest.Shared(t, v).DSN())
			p, err := makePlan(context.Background(), conn)
			if err != nil {
				t.Fatal(err)
			}
			for name := range units {
				g, read := p.groupOf[name]
				if read && g == "" {
					continue // a time counter whose timing is off: not the version's doing
				}
				why := CounterAbsent(name, p.version)
				if read && why != "" {
					t.Errorf("%s is read on %d, but CounterAbsent says %q", name, p.version, why)
				}
				if !read && why == "" {
					t.Errorf("%s is not read on %d, and CounterAbsent gives no reason", name, p.version)
				}
			}
		})
	}
}

func TestCounterAbsentReasons(t *testing.T) {
	for _, c := range []struct {
		name    string
		version int
		want    string
	}{
		{"wal_fpi", 130023, "PostgreSQL 13 has no pg_stat_wal (new in 14)"},
		{"wal_fpi", 140000, ""},
		{"io_hits", 150000, "PostgreSQL 15 has no pg_stat_io (new in 16)"},
		{"buffers_backend", 170000, "PostgreSQL 17 has no pg_stat_bgwriter.buffers_backend (removed in 17)"},
		{"wal_write_bytes", 170004, "PostgreSQL 17 has no WAL rows in pg_stat_io (new in 18)"},
		{"wal_syncs", 180000, ""},
		{"checkpoints", 130000, ""},
		{"no_such_counter", 130000, ""},
	} {
		if got := CounterAbsent(c.name, c.version); got != c.want {
			t.Errorf("CounterAbsent(%s, %d) = %q, want %q", c.name, c.version, got, c.want)
		}
	}
}

// TestVacuumAbsentAgreesWithOutputs checks VacuumAbsent against real
// VACUUM VERBOSE outputs of 13–18: a figure it calls absent is never
// printed, and buffer and WAL usage are printed whenever it does not.
func TestVacuumAbsentAgreesWithOutputs(t *testing.T) {
	files, err := filepath.Glob("testdata/vacuum/pg*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/vacuum outputs: %v", err)
	}
	for _, f := range files {
		major, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(filepath.Base(f), "-", 2)[0], "pg"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		reports, err := ParseVacuumVerbose(string(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r := reports[0]
		for name := range vacuumSince {
			_, printed := r.Value(name)
			why := VacuumAbsent(name, major*10000)
			if printed && why != "" {
				t.Errorf("%s: %s is printed, but VacuumAbsent says %q", f, name, why)
			}
			always := strings.HasPrefix(name, "buffer_") || name == "wal_records" || name == "wal_fpi" || name == "wal_bytes"
			if always && !printed && why == "" {
				t.Errorf("%s: %s is not printed, and VacuumAbsent gives no reason", f, name)
			}
		}
	}
	if got, want := VacuumAbsent("wal_fpi", 140013), "VACUUM VERBOSE of PostgreSQL 14 prints no WAL usage (15+)"; got != want {
		t.Errorf("VacuumAbsent = %q, want %q", got, want)
	}
}
