package explain

import (
	"strings"

	"github.com/pglab/pglab/compare"
)

// pointers name, per kind of cause, the settings and build choices that
// drive it: a cause points to those of them that differ between the two
// targets. A name ending in "*" is a prefix.
var pointers = map[Kind][]string{
	KindFPI:       {"full_page_writes", "wal_compression", "data_checksums", "wal_log_hints", "checkpoint_timeout", "max_wal_size", "block_size", "vacuum_freeze_*"},
	KindWALRecord: {"wal_level", "data_checksums", "wal_log_hints", "block_size", "vacuum_freeze_*"},
	KindWALSync:   {"synchronous_commit", "fsync", "wal_sync_method", "commit_delay", "commit_siblings", "synchronous_standby_names"},
	KindWALWrite:  {"wal_buffers", "wal_writer_delay", "wal_writer_flush_after", "synchronous_commit", "wal_compression"},
	KindCPU:       {"jit*", "data_checksums", "wal_compression", "huge_pages", "vacuum_freeze_*"},
	KindFunction:  {"jit*", "data_checksums", "wal_compression"},
	KindCPUWait:   {"max_parallel_*", "max_worker_processes"},
	KindPlan: {"enable_*", "random_page_cost", "seq_page_cost", "cpu_*_cost", "effective_cache_size", "work_mem",
		"hash_mem_multiplier", "max_parallel_workers_per_gather", "parallel_*", "jit*", "default_statistics_target", "join_collapse_limit", "from_collapse_limit"},
	KindClient: {},
}

// waitPointers are the settings that drive a wait event, by the event's
// type and name in lower case, as the studies store them.
var waitPointers = map[string][]string{
	"io:datafileread":      {"shared_buffers", "effective_io_concurrency", "io_combine_limit", "io_method", "maintenance_io_concurrency"},
	"io:datafileprefetch":  {"effective_io_concurrency", "io_combine_limit", "io_method"},
	"io:datafileextend":    {"shared_buffers"},
	"io:datafilewrite":     {"shared_buffers", "bgwriter_*", "backend_flush_after"},
	"io:buffileread":       {"work_mem", "hash_mem_multiplier", "maintenance_work_mem"},
	"io:buffilewrite":      {"work_mem", "hash_mem_multiplier", "maintenance_work_mem"},
	"io:walsync":           {"synchronous_commit", "fsync", "wal_sync_method", "commit_delay"},
	"io:walwrite":          {"wal_buffers", "synchronous_commit"},
	"ipc:syncrep":          {"synchronous_commit", "synchronous_standby_names"},
	"lwlock:walinsert":     {"wal_buffers"},
	"lwlock:walwrite":      {"wal_buffers", "synchronous_commit"},
	"lwlock:buffermapping": {"shared_buffers"},
	"timeout:vacuumdelay":  {"vacuum_cost_*", "autovacuum_vacuum_cost_*"},
	"timeout:commitdelay":  {"commit_delay", "commit_siblings"},
}

// functionPointers are the settings a function's name points to, by the
// name's prefix.
var functionPointers = map[string][]string{
	"pg_checksum":             {"data_checksums"},
	"pglz_":                   {"wal_compression"},
	"LZ4_":                    {"wal_compression"},
	"ZSTD_":                   {"wal_compression"},
	"llvm":                    {"jit*"},
	"jit_":                    {"jit*"},
	"XLogCompressBackupBlock": {"wal_compression"},
}

// attachSettings names, on each cause, the differences between the
// card's two targets that drive it, and lists on the card those the user
// asked for and those a cause points to; the rest (a version's own
// settings and defaults) it only counts.
func attachSettings(card *Card, in Input) {
	if in.Differences == nil {
		return
	}
	diffs := in.Differences(card.Baseline, card.Target)
	pointed := map[string]bool{}
	for i := range card.Causes {
		c := &card.Causes[i]
		names := pointers[c.Kind]
		if c.Kind == KindWait {
			names = waitPointers[strings.ToLower(c.Name)]
		}
		if c.Kind == KindFunction {
			for prefix, ns := range functionPointers {
				if strings.HasPrefix(c.Name, prefix) {
					names = append(names, ns...)
				}
			}
		}
		for _, d := range diffs {
			if matchesAny(d.Name, names) {
				c.Points = append(c.Points, d.Text)
				pointed[d.Text] = true
			}
		}
	}
	var asked, shown []string
	others := 0
	for _, d := range diffs {
		switch {
		case d.Asked:
			asked = append(asked, d.Text)
		case pointed[d.Text]:
			shown = append(shown, d.Text)
		default:
			others++
		}
	}
	card.Settings = append(asked, shown...)
	card.OtherDifferences = others
}

// matchesAny reports whether name is one of names or has the prefix of
// one ending in "*".
func matchesAny(name string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(name, p) || n == name {
			return true
		}
	}
	return false
}

// planCause returns a cause for a plan whose shape differs between the
// change's two targets, nil when both have the same shape or either has
// none recorded.
func planCause(in Input, study, caseKey string, c compare.Change) *Cause {
	if in.Plans == nil {
		return nil
	}
	hb, tb := in.Plans(study, caseKey, c.Baseline)
	ht, tt := in.Plans(study, caseKey, c.Target)
	if hb == "" || ht == "" || hb == ht {
		return nil
	}
	return &Cause{Kind: KindPlan, Metric: planChangeText(tb, tt), Share: 1}
}

// planChangeText says how a plan changed from its first node: "Index Scan
// using items_pkey → Seq Scan on items".
func planChangeText(base, target string) string {
	first := func(tree string) string {
		for _, line := range strings.Split(tree, "\n") {
			if l := strings.TrimSpace(strings.TrimLeft(line, " ->")); l != "" {
				return l
			}
		}
		return "?"
	}
	return "another shape: " + first(base) + " → " + first(target)
}

// missingOf returns what evidence the change's targets could not give:
// the WAL by record type, the CPU by function (and that the profile was
// off when neither said why).
func missingOf(in Input, study, caseKey string, c compare.Change) []string {
	var out []string
	seen := map[string]bool{}
	families := map[string]string{"wal_rec_bytes": "WAL by record type", "cpu_fn_ms": "CPU by function"}
	if in.Missing != nil {
		for _, target := range []string{c.Baseline, c.Target} {
			for fam, why := range in.Missing(study, caseKey, target) {
				name, ok := families[fam]
				if !ok || seen[fam+why] {
					continue
				}
				seen[fam+why] = true
				out = append(out, name+" on "+target+": "+why)
			}
		}
	}
	return out
}

// lagMetric is a replayed workload's schedule lag (its median).
const lagMetric = "lag_p50_ms"

// concurrencyCause returns a cause for a replayed workload whose sessions
// ran further behind the captured schedule on the change's target than
// on its baseline (its paired test passing at level), nil otherwise: a
// statement whose plan did not change meets other overlaps there.
func concurrencyCause(in Input, study string, c compare.Change, level float64) *Cause {
	for _, sg := range in.Groups {
		if sg.Study != study {
			continue
		}
		for _, cg := range sg.Cases {
			mg, ok := metricOf(cg, lagMetric)
			if !ok {
				continue
			}
			cd := candidate{kind: KindConcurrency, metric: lagMetric, pair: pairOf(mg, c.Baseline, c.Target, 1)}
			cd.p = cd.test()
			cd.q = cd.p
			if len(cd.pair.d) < 2 || cd.p > level || cd.pair.mean() <= 0 {
				return nil
			}
			cause := cd.cause(1, 1, "ms")
			cause.Share, cause.Unmeasured = 0, true
			return &cause
		}
	}
	return nil
}
