package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

// The fixture is a results store written with the results API, with
// known measurements shaped like the studies' (values near the seeds'),
// deterministic so that the reports made from it can be compared with
// golden files. No server is needed.

var (
	fixtureStart  = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	fixtureFinish = fixtureStart.Add(11*time.Minute + 42*time.Second)
)

const (
	fixtureRunA = "20261130-090000-a1b2"
	fixtureRunB = "20261130-100000-c3d4"
)

func boolp(b bool) *bool { return &b }

// fixtureStore writes the fixture's two runs into a new SQLite store and
// returns its path: run A is a compare run of pg16 and pg17 with every
// kind of study; run B is a study run of tps on one pg17 with other
// settings, for comparisons of stored runs.
func fixtureStore(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := results.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host := results.Host{
		Hostname: "lab1", OS: "Debian GNU/Linux 13 (trixie)", Arch: "amd64", Kernel: "6.12.48+deb13-amd64",
		CPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor", MemoryBytes: 4 << 30,
		Disk: results.Disk{Path: "/var/lib/pglab", Device: "/dev/nvme0n1p2", Filesystem: "ext4", Rotational: boolp(false)},
	}
	rng := rand.New(rand.NewPCG(6, 2026))
	// noisy returns reps values around center, spread ±spread (relative).
	noisy := func(center, spread float64, reps int) []float64 {
		out := make([]float64, reps)
		for i := range out {
			out[i] = center * (1 + spread*(2*rng.Float64()-1))
		}
		return out
	}

	// Run A: pglab compare --versions 16,17.
	run, err := s.BeginRun(ctx, results.RunInfo{
		ID: fixtureRunA, Kind: results.KindCompare, StartedAt: fixtureStart, Version: "0.1.0-dev (fixture)",
		Command: []string{"pglab", "compare", "--versions", "16,17", "--studies", "all", "--set", "shared_buffers=256MB"},
		Host:    host,
		Extra:   json.RawMessage(`{"alpha":0.05,"checksums":false}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	common := []results.Setting{
		{Name: "DateStyle", Value: "ISO, MDY", Source: "configuration file"},
		{Name: "autovacuum", Value: "off", Source: "configuration file"},
		{Name: "max_connections", Value: "100", Source: "configuration file"},
		{Name: "max_wal_size", Value: "1024", Unit: "MB", Source: "configuration file"},
		{Name: "shared_buffers", Value: "32768", Unit: "8kB", Source: "configuration file"},
		{Name: "unix_socket_directories", Value: "/tmp/pglab-x/sock", Source: "configuration file"},
	}
	pg16 := results.Target{Name: "pg16", Kind: results.TargetManaged, ServerVersion: "16.4", ServerVersionNum: 160004,
		Settings: append([]results.Setting{{Name: "port", Value: "40001", Source: "configuration file"}}, common...)}
	pg17 := results.Target{Name: "pg17", Kind: results.TargetManaged, ServerVersion: "17.2", ServerVersionNum: 170002,
		Settings: append([]results.Setting{{Name: "port", Value: "40002", Source: "configuration file"},
			{Name: "checkpoint_timeout", Value: "1800", Unit: "s", Source: "configuration file"}}, common...)}
	for _, tg := range []results.Target{pg16, pg17} {
		if err := run.AddTarget(ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	var ms []results.Measurement
	add := func(target, study string, c map[string]string, metric, unit string, dir results.Direction, exact bool, vals []float64) {
		for i, v := range vals {
			ms = append(ms, results.Measurement{Target: target, Study: study, Case: c, Rep: i + 1, Metric: metric, Value: v, Unit: unit, Direction: dir, Exact: exact})
		}
	}
	info := func(si runs.StudyInfo) {
		data, err := json.Marshal(si)
		if err != nil {
			t.Fatal(err)
		}
		if err := run.AddArtefact(ctx, results.Artefact{Study: si.Name, Name: "study-info", ContentType: "application/json", Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	note := func(r *results.Run, name, target, study string, c map[string]string, rep int, text string) {
		if err := r.AddArtefact(ctx, results.Artefact{Target: target, Study: study, Case: c, Rep: rep, Name: name, ContentType: "text/plain", Data: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	lower, higher, neutral := results.DirectionLower, results.DirectionHigher, results.DirectionNeutral

	// tps (seed 000 §3): no real difference, 5 repetitions.
	tpsCases := []runs.CaseInfo{}
	for _, c := range []string{"5", "10", "20", "50"} {
		tpsCases = append(tpsCases, runs.CaseInfo{Name: c + " clients", Labels: map[string]string{"clients": c}})
	}
	info(runs.StudyInfo{Name: "tps", Title: "pgbench TPC-B (sort of) over client counts", Source: "seed 000 §3, seed 003",
		Params: map[string]string{"clients": "5,10,20,50", "jobs": "2", "time": "60", "scale": "100"}, Reps: 5, Cases: tpsCases})
	for i, c := range tpsCases {
		base := []float64{1194.43, 1199.26, 1229.02, 1260.66}[i]
		for _, tg := range []string{"pg16", "pg17"} {
			f := 1.0
			if tg == "pg17" {
				f = []float64{1.028, 1.002, 1.006, 0.991}[i]
			}
			clients := float64(int(5) << i)
			add(tg, "tps", c.Labels, "tps", "tps", higher, false, noisy(base*f, 0.015, 5))
			add(tg, "tps", c.Labels, "latency_avg_ms", "ms", lower, false, noisy(1000*clients/(base*f), 0.015, 5))
			add(tg, "tps", c.Labels, "latency_p50_ms", "ms", lower, false, noisy(900*clients/(base*f), 0.02, 5))
			add(tg, "tps", c.Labels, "latency_p99_ms", "ms", lower, false, noisy(3100*clients/(base*f), 0.05, 5))
			add(tg, "tps", c.Labels, "failed", "count", lower, true, []float64{0, 0, 0, 0, 0})
		}
	}

	// vacuum (seed 000 §4): a large, real difference, 6 repetitions.
	type vc struct {
		pct, index, name string
		t16, t17         float64 // ms
		w16, w17         float64 // MB
	}
	vcs := []vc{
		{"95", "yes", "95 % updated, with index", 10431, 1815, 226, 71},
		{"95", "no", "95 % updated, no index", 511, 392, 53, 7.6},
		{"50", "yes", "50 % updated, with index", 1913, 1096, 168, 34},
		{"5", "yes", "5 % updated, with index", 413, 333, 3.4, 3.4},
	}
	var vacCases []runs.CaseInfo
	for _, c := range vcs {
		vacCases = append(vacCases, runs.CaseInfo{Name: c.name, Labels: map[string]string{"update_pct": c.pct, "index": c.index}})
	}
	info(runs.StudyInfo{Name: "vacuum", Title: "VACUUM after updating a share of 3,000,000 rows", Source: "seed 000 §4",
		Params: map[string]string{"rows": "3000000", "checkpoint_before": "false"}, Reps: 6,
		Settings: []string{"maintenance_work_mem=512MB", "max_wal_size=1GB", "autovacuum=off"}, Cases: vacCases})
	for i, c := range vcs {
		labels := vacCases[i].Labels
		add("pg16", "vacuum", labels, "elapsed_ms", "ms", lower, false, noisy(c.t16, 0.03, 6))
		add("pg17", "vacuum", labels, "elapsed_ms", "ms", lower, false, noisy(c.t17, 0.03, 6))
		add("pg16", "vacuum", labels, "wal_bytes", "bytes", lower, false, noisy(c.w16*(1<<20), 0.001, 6))
		add("pg17", "vacuum", labels, "wal_bytes", "bytes", lower, false, noisy(c.w17*(1<<20), 0.001, 6))
		recs := map[string]float64{"pg16": c.w16 * 300, "pg17": c.w17 * 300}
		for _, tg := range []string{"pg16", "pg17"} {
			r := float64(int(recs[tg]))
			add(tg, "vacuum", labels, "wal_records", "count", lower, true, []float64{r, r, r, r, r, r})
		}
		add("pg16", "vacuum", labels, "index_scans", "count", neutral, true, []float64{1, 1, 1, 1, 1, 1})
		add("pg17", "vacuum", labels, "index_scans", "count", neutral, true, []float64{1, 1, 1, 1, 1, 1})
		// A figure only pg17 gives, with pg16's reason as a metric note.
		add("pg17", "vacuum", labels, "dead_tuple_bytes", "bytes", neutral, false, []float64{1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20})
		mn, _ := json.Marshal(results.MetricNote{Metric: "dead_tuple_bytes", Text: "PostgreSQL 16 has no pg_stat_progress_vacuum.dead_tuple_bytes (new in 17)"})
		if err := run.AddArtefact(ctx, results.Artefact{Target: "pg16", Study: "vacuum", Case: labels, Rep: 1, Name: "note", ContentType: "application/json", Data: mn}); err != nil {
			t.Fatal(err)
		}
		for _, tg := range []string{"pg16", "pg17"} {
			for rep := 1; rep <= 2; rep++ {
				text := fmt.Sprintf("INFO:  vacuuming \"lab.pglab.t_vacuum_test\"\nINFO:  finished vacuuming \"lab.pglab.t_vacuum_test\": index scans: 1\n(%s, %s, repetition %d)\n", c.name, tg, rep)
				note(run, "vacuum-verbose", tg, "vacuum", labels, rep, text)
			}
		}
	}

	// copy-out (seed 002 §3): 3 repetitions, too few to decide.
	type cc struct {
		table, name string
		row         float64 // bytes
		s16, s17    float64 // s
	}
	ccs := []cc{
		{"accounts", "pgbench_accounts_large (about 1 kB rows)", 660, 57.8, 57.1},
		{"200", "t_copy_large, repeat × 200", 6 << 10, 6.5, 5.4},
		{"800", "t_copy_large, repeat × 800", 24 << 10, 26.0, 18.5},
		{"1600", "t_copy_large, repeat × 1600", 48 << 10, 59.4, 43.1},
	}
	var copyCases []runs.CaseInfo
	for _, c := range ccs {
		copyCases = append(copyCases, runs.CaseInfo{Name: c.name, Labels: map[string]string{"table": c.table}})
	}
	info(runs.StudyInfo{Name: "copy-out", Title: "COPY TO STDOUT of prewarmed tables with rows of 1 kB to 48 kB", Source: "seed 002 §3", Reps: 3, Cases: copyCases})
	for i, c := range ccs {
		labels := copyCases[i].Labels
		add("pg16", "copy-out", labels, "elapsed_ms", "ms", lower, false, noisy(c.s16*1000, 0.01, 3))
		add("pg17", "copy-out", labels, "elapsed_ms", "ms", lower, false, noisy(c.s17*1000, 0.01, 3))
		add("pg16", "copy-out", labels, "mb_per_s", "MB/s", higher, false, noisy(2400/c.s16, 0.01, 3))
		add("pg17", "copy-out", labels, "mb_per_s", "MB/s", higher, false, noisy(2400/c.s17, 0.01, 3))
		for _, tg := range []string{"pg16", "pg17"} {
			add(tg, "copy-out", labels, "avg_row_bytes", "bytes", neutral, false, []float64{c.row, c.row, c.row})
		}
	}

	// seqscan (seed 002 §4): the disk is the ceiling, cold and warm.
	scanCases := []runs.CaseInfo{
		{Name: "cold scan", Labels: map[string]string{"cache": "cold"}},
		{Name: "warm scan", Labels: map[string]string{"cache": "warm"}},
	}
	info(runs.StudyInfo{Name: "seqscan", Title: "SELECT count(1) over a table larger than shared_buffers, cold and warm", Source: "seed 002 §4", Reps: 3, Cases: scanCases})
	for _, tg := range []string{"pg16", "pg17"} {
		for _, c := range scanCases {
			add(tg, "seqscan", c.Labels, "table_mb", "MB", neutral, true, []float64{3200, 3200, 3200})
		}
		add(tg, "seqscan", scanCases[0].Labels, "elapsed_ms", "ms", lower, false, noisy(38060, 0.001, 3))
		add(tg, "seqscan", scanCases[0].Labels, "mb_per_s", "MB/s", higher, false, noisy(86.5, 0.002, 3))
		add(tg, "seqscan", scanCases[0].Labels, "disk_read_mb_s", "MB/s", neutral, false, noisy(85, 0.002, 3))
		add(tg, "seqscan", scanCases[0].Labels, "disk_read_mb_s_max", "MB/s", neutral, false, noisy(87, 0.002, 3))
		add(tg, "seqscan", scanCases[1].Labels, "elapsed_ms", "ms", lower, false, noisy(2100, 0.02, 3))
		add(tg, "seqscan", scanCases[1].Labels, "mb_per_s", "MB/s", higher, false, noisy(1560, 0.02, 3))
		add(tg, "seqscan", scanCases[1].Labels, "disk_read_mb_s", "MB/s", neutral, false, noisy(0.2, 0.5, 3))
		for rep := 1; rep <= 3; rep++ {
			note(run, "note", tg, "seqscan", scanCases[0].Labels, rep, "disk read throughput flat at 87 MB/s for 92 % of the scan")
		}
	}
	note(run, "note", "pg16", "seqscan", scanCases[1].Labels, 2, "a checkpoint ran during the scan")

	// copy-errors (seed 002 §5): a behaviour matrix.
	probes := []struct{ probe, name, o16, o17 string }{
		{"plain", "plain COPY, a bad value in row 3", `ERROR: invalid input syntax for type integer: " invalid_balance"`, `ERROR: invalid input syntax for type integer: " invalid_balance"`},
		{"on_error_ignore", "ON_ERROR ignore", `ERROR: option "on_error" not recognized`, "3 rows loaded, 1 skipped, 1 notice"},
		{"pk_violation", "ON_ERROR ignore with a duplicate key", `ERROR: option "on_error" not recognized`, `ERROR: duplicate key value violates unique constraint "t_pkey" | with a pipe`},
	}
	var probeCases []runs.CaseInfo
	for _, p := range probes {
		probeCases = append(probeCases, runs.CaseInfo{Name: p.name, Labels: map[string]string{"probe": p.probe}})
	}
	info(runs.StudyInfo{Name: "copy-errors", Title: "COPY FROM with bad rows", Source: "seed 002 §5", Reps: 1, Cases: probeCases})
	for i, p := range probes {
		labels := probeCases[i].Labels
		note(run, "outcome", "pg16", "copy-errors", labels, 1, p.o16)
		note(run, "outcome", "pg17", "copy-errors", labels, 1, p.o17)
		loaded := map[string]float64{"pg16": 0, "pg17": 0}
		if p.probe == "on_error_ignore" {
			loaded["pg17"] = 3
		}
		for _, tg := range []string{"pg16", "pg17"} {
			add(tg, "copy-errors", labels, "rows_loaded", "rows", neutral, true, []float64{loaded[tg]})
		}
		said := map[string]string{"pg16": "COPY t FROM STDIN;\n1,x\n\\.\n" + strings.Replace(p.o16, "ERROR: ", "ERROR:  ", 1), "pg17": "COPY t FROM STDIN;\n1,x\n\\.\n" + strings.Replace(p.o17, "ERROR: ", "ERROR:  ", 1)}
		if p.probe == "on_error_ignore" {
			said["pg17"] = "COPY t FROM STDIN;\n1,x\n\\.\nNOTICE:  skipping row due to data type incompatibility at line 3 for column \"abalance\": \" invalid_balance\"\nNOTICE:  1 row was skipped due to data type incompatibility\nCOPY 3"
		}
		for _, tg := range []string{"pg16", "pg17"} {
			note(run, "copy-output", tg, "copy-errors", labels, 1, said[tg]+"\n")
		}
	}

	// commit (seed 004): transactions, 3 repetitions.
	commitCases := []runs.CaseInfo{
		{Name: "autocommit, prepared", Labels: map[string]string{"tx": "autocommit", "protocol": "prepared"}},
		{Name: "transaction, prepared", Labels: map[string]string{"tx": "transaction", "protocol": "prepared"}},
	}
	info(runs.StudyInfo{Name: "commit", Title: "single-row UPDATEs: commit per statement or per transaction", Source: "seed 004", Reps: 3,
		Settings: []string{"track_wal_io_timing=on"}, Cases: commitCases})
	for i, c := range commitCases {
		for _, tg := range []string{"pg16", "pg17"} {
			el := []float64{10280, 9420}[i]
			syncs := []float64{10000, 47}[i]
			add(tg, "commit", c.Labels, "elapsed_ms", "ms", lower, false, noisy(el, 0.03, 3))
			add(tg, "commit", c.Labels, "wal_sync_ms", "ms", lower, false, noisy([]float64{1990, 50}[i], 0.05, 3))
			add(tg, "commit", c.Labels, "wal_syncs", "count", lower, false, []float64{syncs, syncs + 1, syncs})
			add(tg, "commit", c.Labels, "round_trips", "count", lower, true, []float64{10000, 10000, 10000})
		}
	}

	// A study this pglab does not know: every metric in one table.
	info(runs.StudyInfo{Name: "fsync-probe", Title: "fsync latency of the data directory's disk", Source: "custom", Reps: 4,
		Cases: []runs.CaseInfo{{Name: "8 kB writes", Labels: nil}}})
	add("pg16", "fsync-probe", nil, "fsync_us", "us", lower, false, noisy(850, 0.05, 4))
	add("pg17", "fsync-probe", nil, "fsync_us", "us", lower, false, noisy(860, 0.05, 4))
	add("pg16", "fsync-probe", nil, "writes", "count", neutral, true, []float64{1000, 1000, 1000, 1000})
	add("pg17", "fsync-probe", nil, "writes", "count", neutral, true, []float64{1000, 1000, 1000, 1000})
	note(run, "note", "pg17", "fsync-probe", nil, 0, "the study ran on a user's server: pglab did not change its settings")
	// A note of the run's set-up, of no study.
	note(run, "note", "pg16", "", nil, 0, "io_method=worker left out: PostgreSQL 16.4 has no such setting (pg17 has)")

	if err := run.AddMeasurements(ctx, ms); err != nil {
		t.Fatal(err)
	}
	// Where run A's time went: 25 s starting servers, then the studies.
	for _, st := range []results.StudyTime{
		{Study: "tps", WallMS: 290e3, MeasuredMS: 240e3, Steps: 40},
		{Study: "vacuum", WallMS: 260e3, MeasuredMS: 35.5e3, Steps: 48},
		{Study: "copy-errors", WallMS: 3.2e3, MeasuredMS: 41, Steps: 6},
	} {
		data, _ := json.Marshal(st)
		if err := run.AddArtefact(ctx, results.Artefact{Study: st.Study, Name: results.StudyTimeArtefact, ContentType: "application/json", Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	rt, _ := json.Marshal(results.RunTime{ServersMS: 25e3})
	if err := run.AddArtefact(ctx, results.Artefact{Name: results.RunTimeArtefact, ContentType: "application/json", Data: rt}); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(ctx, results.StatusDone, nil); err != nil {
		t.Fatal(err)
	}

	// Run B: the tps study again on pg17, with other settings.
	runB, err := s.BeginRun(ctx, results.RunInfo{
		ID: fixtureRunB, Kind: results.KindStudy, StartedAt: fixtureStart.Add(time.Hour), Version: "0.1.0-dev (fixture)",
		Command: []string{"pglab", "study", "tps", "--versions", "17", "--set", "shared_buffers=1GB"},
		Host:    host,
	})
	if err != nil {
		t.Fatal(err)
	}
	pg17b := pg17
	pg17b.Settings = append([]results.Setting{{Name: "port", Value: "40003", Source: "configuration file"},
		{Name: "shared_buffers", Value: "131072", Unit: "8kB", Source: "configuration file"}}, common[:4]...)
	if err := runB.AddTarget(ctx, pg17b); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(runs.StudyInfo{Name: "tps", Title: "pgbench TPC-B (sort of) over client counts", Source: "seed 000 §3, seed 003",
		Params: map[string]string{"clients": "5,10,20,50", "jobs": "2", "time": "30", "scale": "100"}, Reps: 5, Cases: tpsCases})
	if err := runB.AddArtefact(ctx, results.Artefact{Study: "tps", Name: "study-info", ContentType: "application/json", Data: data}); err != nil {
		t.Fatal(err)
	}
	ms = nil
	for i, c := range tpsCases {
		base := []float64{1194.43, 1199.26, 1229.02, 1260.66}[i] * 1.12
		add("pg17", "tps", c.Labels, "tps", "tps", higher, false, noisy(base, 0.015, 5))
		add("pg17", "tps", c.Labels, "latency_avg_ms", "ms", lower, false, noisy(1000*float64(int(5)<<i)/base, 0.015, 5))
	}
	if err := runB.AddMeasurements(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if err := runB.Finish(ctx, results.StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadFixture loads runs of a fixture store, with the finishing times
// (which the store takes from the clock) set to fixed ones.
func loadFixture(t testing.TB, path string, refs ...string) *runs.Dataset {
	t.Helper()
	ctx := context.Background()
	s, err := results.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := runs.Load(ctx, s, refs...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Runs {
		d.Runs[i].FinishedAt = d.Runs[i].StartedAt.Add(fixtureFinish.Sub(fixtureStart))
	}
	d.Run = d.Runs[0]
	return d
}
