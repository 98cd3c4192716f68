package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/pglab/pglab/results"
)

// The fixture is a results store written through the results API with
// known, deterministic values (a fixed seed), shaped like the studies'
// runs, so that the pages made from it can be compared with golden files.
// No server is needed; the tests that run real studies are in
// internal/cli (serve_test.go).

var fixtureStart = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// fixtureNow is the time the pages are rendered at.
var fixtureNow = fixtureStart.Add(5 * time.Hour)

const (
	runCompare = "20261130-090000-a1b2" // compare, pg16 and pg17: tps and vacuum
	runTPS     = "20261130-100000-c3d4" // study tps on pg17 with other settings and an extra metric
	runCopy    = "20261130-110000-e5f6" // study copy-errors on pg17
	runFailed  = "20261130-120000-0a0b" // study vacuum on a DSN target, failed
	runLive    = "20261130-130000-1c1d" // study vacuum, still running
)

// fixtureSecret is a password that the fixture stores in places where the
// store must redact it; no page may show it.
const fixtureSecret = "s3cr3t-Pa55word"

func boolp(b bool) *bool { return &b }

var fixtureHost = results.Host{
	Hostname: "lab1", OS: "Debian GNU/Linux 12 (bookworm)", Arch: "amd64", Kernel: "6.1.0-26-amd64",
	CPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor", MemoryBytes: 24 << 30,
	Disk: results.Disk{Path: "/var/lib/pglab", Device: "/dev/nvme0n1p2", Filesystem: "ext4", Rotational: boolp(false)},
}

// fixtureStore writes the fixture's runs into a new SQLite store and
// returns its path.
func fixtureStore(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.db")
	writeFixture(t, path, "sqlite", path)
	return path
}

// writeFixture writes the fixture's runs into the store at loc; driver
// and dsn open the same store with database/sql to set the runs' end
// times.
func writeFixture(t testing.TB, loc, driver, dsn string) {
	t.Helper()
	s, err := results.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := &fixture{t: t, s: s, rng: rand.New(rand.NewPCG(14, 2026)), took: map[string]time.Duration{}}
	f.compareRun()
	f.tpsRun()
	f.copyRun()
	f.failedRun()
	f.liveRun()
	s.Close()
	// Finish stamps the time of the call; put each run's end where the
	// fixture says, so that the pages do not depend on today's date.
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, d := range f.took {
		var err error
		if driver == "sqlite" {
			var started string
			if err := db.QueryRow(`SELECT started_at FROM runs WHERE id = ?`, id).Scan(&started); err != nil {
				t.Fatal(err)
			}
			st, err := time.Parse(time.RFC3339Nano, started)
			if err != nil {
				t.Fatal(err)
			}
			_, err = db.Exec(`UPDATE runs SET finished_at = ? WHERE id = ?`, st.Add(d).UTC().Format("2006-01-02T15:04:05.000000Z"), id)
			if err != nil {
				t.Fatal(err)
			}
		} else {
			_, err = db.Exec(`UPDATE pglab_results.runs SET finished_at = started_at + $1::interval WHERE id = $2`, fmt.Sprintf("%d seconds", int(d.Seconds())), id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if driver == "sqlite" {
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
	}
}

type fixture struct {
	t    testing.TB
	s    *results.Store
	rng  *rand.Rand
	took map[string]time.Duration // run ID → how long it took
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) begin(id string, at time.Duration, kind results.Kind, extra string, cmd ...string) *results.Run {
	r, err := f.s.BeginRun(context.Background(), results.RunInfo{
		ID: id, Kind: kind, StartedAt: fixtureStart.Add(at), Version: "0.1.0-dev (fixture)",
		Command: append([]string{"pglab"}, cmd...), Host: fixtureHost, Extra: json.RawMessage(extra),
	})
	f.must(err)
	return r
}

// finish ends a run that took d.
func (f *fixture) finish(r *results.Run, d time.Duration, status results.Status, runErr error) {
	f.must(r.Finish(context.Background(), status, runErr))
	f.took[r.ID()] = d
}

func managed(name, version string, num int, settings ...results.Setting) results.Target {
	base := []results.Setting{
		{Name: "port", Value: fmt.Sprint(40000 + num%100), Source: "command line"},
		{Name: "autovacuum", Value: "off", Source: "configuration file"},
		{Name: "max_connections", Value: "100", Source: "configuration file"},
	}
	return results.Target{Name: name, Kind: results.TargetManaged, ServerVersion: version, ServerVersionNum: num,
		Settings: append(base, settings...), Extra: json.RawMessage(`{"env":{"name":"local","origin":"built-in","spec":"local","limits":[]}}`)}
}

func (f *fixture) info(r *results.Run, si results.StudyInfo) {
	data, err := json.Marshal(si)
	f.must(err)
	f.must(r.AddArtefact(context.Background(), results.Artefact{Study: si.Name, Name: results.StudyInfoArtefact, ContentType: "application/json", Data: data}))
}

func (f *fixture) text(r *results.Run, target, study string, c map[string]string, rep int, name, text string) {
	f.must(r.AddArtefact(context.Background(), results.Artefact{Target: target, Study: study, Case: c, Rep: rep, Name: name, ContentType: "text/plain", Data: []byte(text)}))
}

// noisy returns reps values around center, ±spread relative.
func (f *fixture) noisy(center, spread float64, reps int) []float64 {
	out := make([]float64, reps)
	for i := range out {
		out[i] = center * (1 + spread*(2*f.rng.Float64()-1))
	}
	return out
}

func (f *fixture) measure(r *results.Run, target, study string, c map[string]string, metric, unit string, dir results.Direction, exact bool, vals []float64) {
	var ms []results.Measurement
	for i, v := range vals {
		ms = append(ms, results.Measurement{Target: target, Study: study, Case: c, Rep: i + 1, Metric: metric, Value: v, Unit: unit, Direction: dir, Exact: exact,
			At: fixtureStart.Add(time.Duration(i) * time.Minute)})
	}
	f.must(r.AddMeasurements(context.Background(), ms))
}

// load stores a tps-like case: tps and latencies per repetition, with the
// progress series and the HDR histogram of each repetition.
func (f *fixture) load(r *results.Run, target string, c map[string]string, tps, latMs float64, reps int) {
	ctx := context.Background()
	tpsVals := f.noisy(tps, 0.03, reps)
	f.measure(r, target, "tps", c, "tps", "tps", results.DirectionHigher, false, tpsVals)
	f.measure(r, target, "tps", c, "latency_avg_ms", "ms", results.DirectionLower, false, f.noisy(latMs, 0.03, reps))
	f.measure(r, target, "tps", c, "latency_p99_ms", "ms", results.DirectionLower, false, f.noisy(latMs*3, 0.05, reps))
	for rep := 1; rep <= reps; rep++ {
		type tick struct {
			ElapsedS     float64 `json:"elapsed_s"`
			TPS          float64 `json:"tps"`
			LatencyAvgMs float64 `json:"latency_avg_ms"`
			LatencyP99Ms float64 `json:"latency_p99_ms"`
		}
		var ticks []tick
		for s := 1; s <= 10; s++ {
			ticks = append(ticks, tick{float64(s), tpsVals[rep-1] * (1 + 0.05*(2*f.rng.Float64()-1)), latMs * (1 + 0.1*f.rng.Float64()), latMs * 3 * (1 + 0.2*f.rng.Float64())})
		}
		data, err := json.Marshal(ticks)
		f.must(err)
		f.must(r.AddArtefact(ctx, results.Artefact{Target: target, Study: "tps", Case: c, Rep: rep, Name: results.ProgressArtefact, ContentType: "application/json", Data: data}))
		h := hdrhistogram.New(1, 60_000_000, 3)
		for i := 0; i < 2000; i++ {
			// A log-normal-ish spread around the mean, in µs.
			v := latMs * 1000 * (0.5 + f.rng.ExpFloat64()*0.5)
			f.must(h.RecordValue(int64(v)))
		}
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		f.must(err)
		f.must(r.AddArtefact(ctx, results.Artefact{Target: target, Study: "tps", Case: c, Rep: rep, Name: results.LatencyHistogramArtefact, ContentType: results.HDRHistogramType, Data: enc}))
		f.text(r, target, "tps", c, rep, "pgbench-summary", fmt.Sprintf("transaction type: <builtin: TPC-B (sort of)>\nnumber of clients: %s\ntps = %.2f (without initial connection time)\n", c["clients"], tpsVals[rep-1]))
	}
}

func (f *fixture) vacuum(r *results.Run, target string, reps int, secs float64) {
	cases := []map[string]string{{"update_pct": "95", "index": "yes"}, {"update_pct": "5", "index": "yes"}}
	for i, c := range cases {
		f.measure(r, target, "vacuum", c, "elapsed_ms", "ms", results.DirectionLower, false, f.noisy(secs*1000/float64(i+1), 0.04, reps))
		f.measure(r, target, "vacuum", c, "wal_bytes", "bytes", results.DirectionLower, false, f.noisy(2.4e8/float64(i+1), 0.01, reps))
		for rep := 1; rep <= reps; rep++ {
			f.text(r, target, "vacuum", c, rep, "vacuum-verbose",
				"INFO:  vacuuming \"pglab.public.t_vacuum_test\"\nINFO:  finished vacuuming \"pglab.public.t_vacuum_test\": index scans: 1\npages: 0 removed, 44248 remain, 44248 scanned (100.00% of total)\nWAL usage: 132745 records, 44250 full page images, 240112233 bytes\n")
		}
	}
	f.info(r, results.StudyInfo{Name: "vacuum", Title: "VACUUM VERBOSE after updating a share of a table's rows", Source: "seed 000 §4",
		Params: map[string]string{"rows": "300000"}, Reps: reps, Cases: []results.CaseInfo{
			{Name: "95 % updated, with index", Labels: cases[0]}, {Name: "5 % updated, with index", Labels: cases[1]}}})
}

func (f *fixture) tpsInfo(r *results.Run, reps int) {
	f.info(r, results.StudyInfo{Name: "tps", Title: "pgbench workload (TPC-B by default) over a list of client counts", Source: "seed 000 §3",
		Params: map[string]string{"clients": "5,20", "duration": "10s"}, Reps: reps, Cases: []results.CaseInfo{
			{Name: "5 clients", Labels: map[string]string{"clients": "5"}}, {Name: "20 clients", Labels: map[string]string{"clients": "20"}}}})
}

func (f *fixture) compareRun() {
	r := f.begin(runCompare, 0, results.KindCompare, `{"studies":["tps","vacuum"],"reps":5,"alpha":0.05,"checksums":false}`,
		"compare", "--versions", "16,17", "--studies", "tps,vacuum", "--reps", "5")
	f.must(r.AddTarget(context.Background(), managed("pg16", "16.4", 160004, results.Setting{Name: "shared_buffers", Value: "32768", Unit: "8kB", Source: "configuration file"})))
	f.must(r.AddTarget(context.Background(), managed("pg17", "17.2", 170002, results.Setting{Name: "shared_buffers", Value: "32768", Unit: "8kB", Source: "configuration file"})))
	f.tpsInfo(r, 5)
	for _, c := range []string{"5", "20"} {
		f.load(r, "pg16", map[string]string{"clients": c}, 1200, 4.1, 5)
		f.load(r, "pg17", map[string]string{"clients": c}, 1205, 4.1, 5)
	}
	f.vacuum(r, "pg16", 5, 10.4)
	f.vacuum(r, "pg17", 5, 1.8)
	f.finish(r, 41*time.Minute+7*time.Second, results.StatusDone, nil)
}

func (f *fixture) tpsRun() {
	r := f.begin(runTPS, time.Hour, results.KindStudy, `{"study":"tps","reps":5,"quick":true}`,
		"study", "tps", "--versions", "17", "--set", "shared_buffers=1GB", "--reps", "5")
	f.must(r.AddTarget(context.Background(), managed("pg17", "17.2", 170002,
		results.Setting{Name: "shared_buffers", Value: "131072", Unit: "8kB", Source: "configuration file"},
		results.Setting{Name: "wal_compression", Value: "lz4", Source: "configuration file"})))
	f.tpsInfo(r, 5)
	for _, c := range []string{"5", "20"} {
		f.load(r, "pg17", map[string]string{"clients": c}, 1500, 3.3, 5)
		f.measure(r, "pg17", "tps", map[string]string{"clients": c}, "wal_fpi_per_tx", "count", results.DirectionLower, false, f.noisy(0.4, 0.05, 5))
	}
	f.finish(r, 12*time.Minute+30*time.Second, results.StatusDone, nil)
}

func (f *fixture) copyRun() {
	r := f.begin(runCopy, 2*time.Hour, results.KindStudy, `{"study":"copy-errors","reps":1}`, "study", "copy-errors", "--versions", "17")
	f.must(r.AddTarget(context.Background(), managed("pg17", "17.2", 170002)))
	probes := []struct{ name, outcome, transcript string }{
		{"plain", "error: invalid input syntax for type integer", "COPY pglab.copy_errors (aid, bid, abalance, filler) FROM STDIN WITH (FORMAT text)\nERROR:  invalid input syntax for type integer: \"x\"\nCONTEXT:  COPY copy_errors, line 2, column bid: \"x\"\n"},
		{"log_verbose", "3 rows loaded, 1 skipped", "COPY pglab.copy_errors (aid, bid, abalance, filler) FROM STDIN WITH (FORMAT text, ON_ERROR ignore, LOG_VERBOSITY verbose)\nNOTICE:  skipping row due to data type incompatibility at line 2 for column \"bid\": \"x\"\nNOTICE:  1 row was skipped due to data type incompatibility\nCOPY 3\n"},
	}
	var infos []results.CaseInfo
	for _, p := range probes {
		c := map[string]string{"probe": p.name}
		infos = append(infos, results.CaseInfo{Name: p.name, Labels: c})
		f.measure(r, "pg17", "copy-errors", c, "rows_loaded", "rows", results.DirectionNeutral, true, []float64{map[string]float64{"plain": 0, "log_verbose": 3}[p.name]})
		f.text(r, "pg17", "copy-errors", c, 1, "outcome", p.outcome)
		f.text(r, "pg17", "copy-errors", c, 1, "copy-output", p.transcript)
	}
	f.info(r, results.StudyInfo{Name: "copy-errors", Title: "What COPY FROM does with bad rows", Source: "seed 002", Reps: 1, Cases: infos})
	f.finish(r, 48*time.Second, results.StatusDone, nil)
}

func (f *fixture) failedRun() {
	dsn := "postgres://lab:" + fixtureSecret + "@db.example:5432/lab?sslmode=require"
	r := f.begin(runFailed, 3*time.Hour, results.KindStudy, `{"study":"vacuum","reps":2,"target":"`+dsn+`"}`,
		"study", "vacuum", "--target", "prod="+dsn, "--reps", "2")
	f.must(r.AddTarget(context.Background(), results.Target{Name: "prod", Kind: results.TargetDSN, Conn: dsn, ServerVersion: "15.8", ServerVersionNum: 150008,
		Settings: []results.Setting{{Name: "primary_conninfo", Value: "host=primary user=rep password=" + fixtureSecret, Source: "configuration file"}}}))
	f.measure(r, "prod", "vacuum", map[string]string{"update_pct": "95", "index": "yes"}, "elapsed_ms", "ms", results.DirectionLower, false, []float64{9800})
	f.finish(r, 3*time.Minute+2*time.Second, results.StatusFailed, fmt.Errorf("vacuum on prod: connect to %s: server closed the connection unexpectedly", dsn))
}

func (f *fixture) liveRun() {
	r := f.begin(runLive, 4*time.Hour, results.KindStudy, `{"study":"vacuum","reps":5}`, "study", "vacuum", "--versions", "17", "--reps", "5")
	f.must(r.AddTarget(context.Background(), managed("pg17", "17.2", 170002)))
	f.info(r, results.StudyInfo{Name: "vacuum", Title: "VACUUM VERBOSE after updating a share of a table's rows", Source: "seed 000 §4", Reps: 5,
		Cases: []results.CaseInfo{{Name: "95 % updated, with index", Labels: map[string]string{"update_pct": "95", "index": "yes"}}}})
	f.measure(r, "pg17", "vacuum", map[string]string{"update_pct": "95", "index": "yes"}, "elapsed_ms", "ms", results.DirectionLower, false, []float64{1810, 1795})
	// Not finished: the run is still running.
}

// newTestHandler serves a store read-only, with the fixture's clock.
func newTestHandler(t testing.TB, path string, opts Options) *Handler {
	t.Helper()
	st, err := results.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts.Store = st
	if opts.Now == nil {
		opts.Now = func() time.Time { return fixtureNow }
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
