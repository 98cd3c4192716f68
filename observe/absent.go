package observe

import "fmt"

// viewSince is the first major version that has a statistics view
// (views not listed exist in every supported version, 13+).
var viewSince = map[string]int{
	"pg_stat_wal":          14,
	"pg_stat_io":           16,
	"pg_stat_checkpointer": 17,
}

// columnSince and columnUntil bound the majors that have a column of a
// view: added in columnSince, dropped in columnUntil (the first version
// without it). Columns not listed are there whenever their view is.
var (
	columnSince = map[string]int{
		"pg_stat_io.read_bytes":         18,
		"pg_stat_io.write_bytes":        18,
		"pg_stat_io.extend_bytes":       18,
		"pg_stat_checkpointer.num_done": 18,
	}
	columnUntil = map[string]int{
		"pg_stat_wal.wal_write":                  18,
		"pg_stat_wal.wal_sync":                   18,
		"pg_stat_wal.wal_write_time":             18,
		"pg_stat_wal.wal_sync_time":              18,
		"pg_stat_io.op_bytes":                    18,
		"pg_stat_bgwriter.buffers_backend":       17,
		"pg_stat_bgwriter.buffers_backend_fsync": 17,
		"pg_stat_bgwriter.checkpoints_timed":     17,
		"pg_stat_bgwriter.checkpoints_req":       17,
		"pg_stat_bgwriter.buffers_checkpoint":    17,
		"pg_stat_bgwriter.checkpoint_write_time": 17,
		"pg_stat_bgwriter.checkpoint_sync_time":  17,
	}
)

// CounterAbsent says why Snapshot has no counter of that name on a server
// of versionNum (server_version_num): "PostgreSQL 13 has no pg_stat_wal
// (new in 14)". It is "" when the version has the counter, or when the
// name is not a counter of Snapshot. A time counter whose timing setting
// is off is absent for that reason, not the version's: "" too.
func CounterAbsent(name string, versionNum int) string {
	major := versionNum / 10000
	reason := ""
	for _, c := range counters {
		if c.name != name {
			continue
		}
		why := c.absentOn(major)
		if why == "" {
			return ""
		}
		if reason == "" {
			reason = why
		}
	}
	if reason == "" {
		return ""
	}
	return fmt.Sprintf("PostgreSQL %d has no %s", major, reason)
}

// absentOn says what a major version lacks to read c ("pg_stat_wal (new
// in 14)"), or "" when it has it all.
func (c counter) absentOn(major int) string {
	if c.minVersion/10000 > major {
		if c.group == gIOWAL {
			return fmt.Sprintf("WAL rows in pg_stat_io (new in %d)", c.minVersion/10000)
		}
		return fmt.Sprintf("%s for it (new in %d)", c.name, c.minVersion/10000)
	}
	view := groups[c.group].view
	if view == "" {
		return ""
	}
	if since := viewSince[view]; since > major {
		return fmt.Sprintf("%s (new in %d)", view, since)
	}
	for _, col := range c.cols {
		key := view + "." + col
		if since := columnSince[key]; since > major {
			return fmt.Sprintf("%s (new in %d)", key, since)
		}
		if until := columnUntil[key]; until > 0 && until <= major {
			return fmt.Sprintf("%s (removed in %d)", key, until)
		}
	}
	return ""
}

// vacuumSince is the first major whose VACUUM VERBOSE prints a figure
// (figures not listed are printed by every version, 13+, or only on some
// outputs).
var vacuumSince = map[string]int{
	"buffer_hits": 15, "buffer_misses": 15, "buffer_dirtied": 15,
	"wal_records": 15, "wal_fpi": 15, "wal_bytes": 15, "wal_buffers_full": 18,
	"read_mb_s": 15, "write_mb_s": 15, "pages_scanned_pct": 15,
	"pages_frozen": 16, "pages_frozen_pct": 16, "tuples_frozen": 16,
	"vm_all_visible": 18, "vm_all_frozen": 18, "vm_were_all_visible": 18,
	"pages_eagerly_scanned": 18,
}

// VacuumAbsent says why VACUUM VERBOSE of a server of versionNum prints no
// figure of that name ("VACUUM VERBOSE of PostgreSQL 14 prints no WAL
// usage (15+)"), or "" when it prints it.
func VacuumAbsent(name string, versionNum int) string {
	major := versionNum / 10000
	since, ok := vacuumSince[name]
	if !ok || since <= major {
		return ""
	}
	what := name
	switch name {
	case "buffer_hits", "buffer_misses", "buffer_dirtied":
		what = "buffer usage"
	case "wal_records", "wal_fpi", "wal_bytes":
		what = "WAL usage"
	case "wal_buffers_full":
		what = "WAL buffers full"
	case "read_mb_s", "write_mb_s":
		what = "read and write rates"
	}
	return fmt.Sprintf("VACUUM VERBOSE of PostgreSQL %d prints no %s (%d+)", major, what, since)
}
