package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

func TestStudyBadInput(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"study"}, 64, "name one study"},
		{[]string{"study", "nosuch", "--versions", "17"}, 64, `unknown study "nosuch"`},
		{[]string{"study", "commit"}, 64, "name the servers"},
		{[]string{"study", "commit", "--versions", "12"}, 64, "PostgreSQL 12 is not supported"},
		{[]string{"study", "commit", "--versions", "17", "--param", "nosuch=1"}, 64, `study commit has no parameter "nosuch"`},
		{[]string{"study", "commit", "--versions", "17", "--param", "rows=abc"}, 64, "--param rows=abc: want an integer"},
		{[]string{"study", "commit", "--versions", "17", "--param", "rows=0"}, 64, "must be at least 1"},
		{[]string{"study", "commit", "--versions", "17", "--param", "protocols=carrier-pigeon"}, 64, `"carrier-pigeon": want one of simple, extended, prepared, pipeline`},
		{[]string{"study", "commit", "--versions", "17", "--param", "noequals"}, 64, `invalid --param "noequals"`},
		{[]string{"study", "commit", "--versions", "17", "--set", "nope"}, 64, `invalid setting "nope"`},
		{[]string{"study", "commit", "--versions", "17", "--checksums", "sometimes"}, 64, "--checksums must be on or off"},
		{[]string{"study", "commit", "--versions", "17,17"}, 64, `target name "pg17" is given twice`},
		{[]string{"study", "commit", "--target", "a=postgres://u:sekret@127.0.0.1:1/db"}, 1, "target a: connect"},
		{[]string{"study", "commit", "--target", "nosuchinstance"}, 64, `no such instance "nosuchinstance"`},
		{[]string{"study", "commit", "--versions", "17", "--reps", "-1"}, 64, "--reps: want auto, auto:N (a cap of N rounds per case) or a whole number of at least 1"},
		{[]string{"study", "commit", "--versions", "17", "--set", "no_such_param=1"}, 64, `unrecognized configuration parameter "no_such_param"`},
	}
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := run(t, append([]string{"--quiet", "--no-install"}[:1], append(c.args, "--store", store)...)...)
			assertExit(t, r, c.code, c.want)
			if strings.Contains(r.stderr, "sekret") {
				t.Errorf("password printed: %s", r.stderr)
			}
		})
	}
	// Nothing may have been written for bad input: the store holds no run.
	if _, err := os.Stat(store); err == nil {
		s, err := results.OpenReadOnly(context.Background(), store)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		runs, _ := s.Runs(context.Background(), results.RunFilter{})
		for _, r := range runs {
			if r.Status != results.StatusFailed {
				t.Errorf("bad input left a run %s with status %s", r.ID, r.Status)
			}
		}
	}
}

// TestStudyCopyErrorsJSON runs the copy-errors study on two versions and
// checks the JSON document and the matrix the seed describes.
func TestStudyCopyErrorsJSON(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	vs := pgtest.Versions()
	r := run(t, "--quiet", "study", "copy-errors", "--versions", "16,17", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_ = vs
	var doc struct {
		RunID   string `json:"run_id"`
		Targets []struct {
			Name          string `json:"name"`
			ServerVersion string `json:"server_version"`
		} `json:"targets"`
		Measurements []struct {
			Target        string            `json:"target"`
			ServerVersion string            `json:"server_version"`
			Study         string            `json:"study"`
			Case          map[string]string `json:"case"`
			Rep           int               `json:"rep"`
			Metric        string            `json:"metric"`
			Value         float64           `json:"value"`
			Unit          string            `json:"unit"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if doc.RunID == "" || len(doc.Targets) != 2 {
		t.Fatalf("run_id %q, targets %v", doc.RunID, doc.Targets)
	}
	get := func(target, probe, metric string) float64 {
		for _, m := range doc.Measurements {
			if m.Target == target && m.Case["probe"] == probe && m.Metric == metric {
				if m.ServerVersion == "" || m.Study != "copy-errors" || m.Rep != 1 {
					t.Errorf("measurement lacks fields: %+v", m)
				}
				return m.Value
			}
		}
		t.Fatalf("no %s %s %s", target, probe, metric)
		return 0
	}
	want := []struct {
		target, probe, metric string
		value                 float64
	}{
		{"pg16", "plain", "rows_loaded", 0},
		{"pg17", "plain", "rows_loaded", 0},
		{"pg16", "on_error_ignore", "supported", 0},
		{"pg17", "on_error_ignore", "supported", 1},
		{"pg17", "on_error_ignore", "rows_loaded", 3},
		{"pg17", "on_error_ignore", "rows_skipped", 1},
		{"pg17", "log_verbose", "notices", 2},
		{"pg17", "pk_violation", "rows_loaded", 0},
		{"pg17", "pk_violation", "failed", 1},
		{"pg17", "reject_limit_ok", "supported", 0},
		{"pg17", "log_silent", "supported", 0},
	}
	for _, w := range want {
		if got := get(w.target, w.probe, w.metric); got != w.value {
			t.Errorf("%s %s %s = %v, want %v", w.target, w.probe, w.metric, got, w.value)
		}
	}
	// The run and its artefacts are in the store.
	s, err := results.OpenReadOnly(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Run(context.Background(), doc.RunID)
	if err != nil || rec.Status != results.StatusDone {
		t.Fatalf("stored run: %+v %v", rec, err)
	}
	arts, err := s.Artefacts(context.Background(), doc.RunID, results.ArtefactFilter{Name: "copy-output", Target: "pg17"})
	if err != nil || len(arts) == 0 {
		t.Fatalf("artefacts: %d %v", len(arts), err)
	}
	found := false
	for _, a := range arts {
		if strings.Contains(string(a.Data), "1 row was skipped due to data type incompatibility") {
			found = true
		}
	}
	if !found {
		t.Errorf("no artefact holds the skip notice")
	}
}

// TestSignalStudyRestoresSettings starts a named instance, runs the
// commit study on it in a separate pglab process, interrupts it with SIGINT
// once measurements are stored, and checks: exit 130, the instance's
// settings are back, the run is stored as interrupted with its
// measurements, and the temporary managed server of a --versions run is
// gone.
func TestSignalStudyRestoresSettings(t *testing.T) {
	bin := pglabBinary(t)
	state := pgtest.TempDir(t)
	t.Setenv("XDG_STATE_HOME", state)
	tmp := pgtest.TempDir(t)
	r := run(t, "--quiet", "pg", "start", "--versions", pgtest.DefaultVersion(), "--name", "intr")
	if r.code != 0 {
		t.Fatalf("pg start: %s", r.stderr)
	}
	dsn := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { run(t, "pg", "stop", "--remove", "intr") })
	show := func(name string) string {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer conn.Close(context.Background())
		var v string
		conn.QueryRow(context.Background(), "SELECT current_setting($1)", name).Scan(&v)
		return v
	}
	if show("track_wal_io_timing") != "off" || show("autovacuum") != "on" {
		t.Fatalf("unexpected initial settings")
	}

	store := filepath.Join(t.TempDir(), "r.db")
	for _, args := range [][]string{
		{"study", "commit", "--target", "intr", "--param", "updates=3000", "--param", "rows=3000"},
		{"study", "commit", "--versions", pgtest.DefaultVersion(), "--param", "updates=3000", "--param", "rows=3000"},
	} {
		cmd := exec.Command(bin, append(args, "--store", store)...)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "PGLAB_TMPDIR="+tmp)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runID := waitForMeasurements(t, store, 10, 90*time.Second)
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("pglab did not exit within 60 s of SIGINT; stderr:\n%s", stderr.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("%v: exit code %d, want 130; stderr:\n%s", args, code, stderr.String())
		}
		s, err := results.OpenReadOnly(context.Background(), store)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := s.Run(context.Background(), runID)
		ms, _ := s.Measurements(context.Background(), runID, results.MeasurementFilter{})
		s.Close()
		if err != nil || rec.Status != results.StatusInterrupted {
			t.Errorf("%v: stored run status %q (%v), want interrupted", args, rec.Status, err)
		}
		if len(ms) < 10 {
			t.Errorf("%v: %d measurements kept, want the ones made before SIGINT", args, len(ms))
		}
	}
	if got := show("track_wal_io_timing"); got != "off" {
		t.Errorf("track_wal_io_timing = %s after the interrupted study, want off (restored)", got)
	}
	if got := show("autovacuum"); got != "on" {
		t.Errorf("autovacuum = %s after the interrupted study, want on (restored)", got)
	}
	if left := postgresProcessesUnder(tmp); len(left) > 0 {
		t.Errorf("managed servers left running: %v", left)
	}
}

// waitForMeasurements polls the store until the newest run has at least n
// measurements and returns its ID.
func waitForMeasurements(t *testing.T, store string, n int, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		if _, err := os.Stat(store); err != nil {
			continue
		}
		s, err := results.OpenReadOnly(context.Background(), store)
		if err != nil {
			continue
		}
		runs, _ := s.Runs(context.Background(), results.RunFilter{Limit: 1})
		if len(runs) == 1 && runs[0].Status == results.StatusRunning {
			ms, _ := s.Measurements(context.Background(), runs[0].ID, results.MeasurementFilter{})
			if len(ms) >= n {
				s.Close()
				return runs[0].ID
			}
		}
		s.Close()
	}
	t.Fatalf("no run with %d measurements in %s after %v", n, store, limit)
	return ""
}

// TestStudyVacuumMatchesPsql runs the vacuum study on a reduced table, then
// the article's statements by hand with psql on the same server, and checks
// that the WAL figures VACUUM VERBOSE prints in psql equal what the study
// recorded.
func TestStudyVacuumMatchesPsql(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	r := run(t, "--quiet", "pg", "start", "--versions", "17", "--name", "vac",
		"--set", "shared_buffers=256MB", "--set", "maintenance_work_mem=512MB", "--set", "max_wal_size=1GB",
		"--set", "checkpoint_timeout=30min", "--set", "autovacuum=off", "--set", "log_checkpoints=on")
	if r.code != 0 {
		t.Fatalf("pg start: %s", r.stderr)
	}
	dsn := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { run(t, "pg", "stop", "--remove", "vac") })

	store := filepath.Join(t.TempDir(), "r.db")
	r = run(t, "--quiet", "study", "vacuum", "--target", "vac", "--reps", "2", "--param", "rows=20000",
		"--param", "cases=95:index,95:noindex", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("study vacuum: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Measurements []struct {
			Case   map[string]string `json:"case"`
			Rep    int               `json:"rep"`
			Metric string            `json:"metric"`
			Value  float64           `json:"value"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	study := map[string]float64{} // index/metric of rep 2
	metrics := map[string]bool{}
	for _, m := range doc.Measurements {
		metrics[m.Metric] = true
		if m.Rep == 2 {
			study[m.Case["index"]+"/"+m.Metric] = m.Value
		}
	}
	for _, want := range []string{"elapsed_ms", "wal_records", "wal_fpi", "wal_bytes", "index_scans", "pages_scanned", "tuples_removed", "buffer_hits", "buffer_misses", "buffer_dirtied", "cpu_user_s", "cpu_sys_s"} {
		if !metrics[want] {
			t.Errorf("study recorded no %s", want)
		}
	}
	walRE := regexp.MustCompile(`WAL usage: (\d+) records, (\d+) full page images, (\d+) bytes`)
	for _, index := range []string{"yes", "no"} {
		script := "DROP TABLE IF EXISTS t_vacuum_test;\nCREATE TABLE t_vacuum_test (id int, v text);\n"
		if index == "yes" {
			script += "CREATE INDEX ON t_vacuum_test (id);\n"
		}
		script += "INSERT INTO t_vacuum_test SELECT g, 'x' FROM generate_series(1, 20000) g;\n" +
			"UPDATE t_vacuum_test SET v = 'y' WHERE id % 20 != 1;\nVACUUM VERBOSE t_vacuum_test;\nDROP TABLE t_vacuum_test;\n"
		cmd := exec.Command("psql", dsn, "-X", "-v", "ON_ERROR_STOP=1", "-c", "SET search_path = pglab, public", "-f", "-")
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		m := walRE.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("no WAL usage line in psql's output:\n%s", out)
		}
		for i, metric := range []string{"wal_records", "wal_fpi", "wal_bytes"} {
			var byHand float64
			fmt.Sscan(m[i+1], &byHand)
			if got := study[index+"/"+metric]; got != byHand {
				t.Errorf("index=%s %s: study %v, psql by hand %v", index, metric, got, byHand)
			}
		}
	}
}

// TestStudySeqscanRecordsDiskAndColdMethod runs a small cold and warm scan
// and checks that the disk's read throughput during the scan and the way
// the cache was emptied are recorded.
func TestStudySeqscanRecordsDiskAndColdMethod(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, "--quiet", "study", "seqscan", "--versions", pgtest.DefaultVersion(), "--reps", "1",
		"--param", "scale=1", "--param", "shared_buffers=32MB", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Measurements []struct {
			Case   map[string]string `json:"case"`
			Metric string            `json:"metric"`
			Value  float64           `json:"value"`
		} `json:"measurements"`
		Notes []struct {
			Case map[string]string `json:"case"`
			Text string            `json:"text"`
		} `json:"notes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range doc.Measurements {
		got[m.Case["cache"]+"/"+m.Metric] = m.Value
	}
	for _, k := range []string{"cold/elapsed_ms", "cold/mb_per_s", "cold/disk_read_mb_s", "cold/parallel_workers", "warm/elapsed_ms", "warm/disk_read_mb_s"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %s recorded", k)
		}
	}
	if got["cold/disk_read_mb_s"] <= 0 {
		t.Errorf("cold scan: disk read %v MB/s, want > 0 (the table had to come from disk)", got["cold/disk_read_mb_s"])
	}
	if got["cold/os_cached_mb_before"] > 1 {
		t.Errorf("cold scan began with %v MB of the table in the OS cache", got["cold/os_cached_mb_before"])
	}
	method := ""
	for _, n := range doc.Notes {
		if n.Case["cache"] == "cold" && strings.HasPrefix(n.Text, "cold:") {
			method = n.Text
		}
	}
	if !strings.Contains(method, "server restarted") || !(strings.Contains(method, "drop_caches") || strings.Contains(method, "posix_fadvise")) {
		t.Errorf("cold method note = %q, want the restart and how the OS cache was emptied", method)
	}
}

// TestStudyTPSAndCopyOutQuick runs the tps and copy-out studies at their
// smallest and checks their metrics.
func TestStudyTPSAndCopyOutQuick(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"tps", "--param", "clients=2", "--param", "duration=2s", "--param", "scale=1"},
			[]string{"tps", "latency_avg_ms", "latency_p50_ms", "latency_p99_ms", "failed", "conn_ms", "wal_bytes_per_tx", "wal_syncs_per_tx", "cpu_busy_pct"}},
		{[]string{"copy-out", "--param", "tables=accounts,200", "--param", "scale=1", "--param", "rows=200", "--param", "shared_buffers=128MB"},
			[]string{"elapsed_ms", "bytes", "mb_per_s", "rows", "avg_row_bytes"}},
	} {
		args := append([]string{"--quiet", "study"}, c.args...)
		args = append(args, "--versions", pgtest.DefaultVersion(), "--reps", "1", "--json", "--store", store)
		r := run(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
		var doc struct {
			Measurements []struct {
				Metric string  `json:"metric"`
				Value  float64 `json:"value"`
			} `json:"measurements"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		have := map[string]float64{}
		for _, m := range doc.Measurements {
			have[m.Metric] = m.Value
		}
		for _, w := range c.want {
			if _, ok := have[w]; !ok {
				t.Errorf("%s: no %s", c.args[0], w)
			}
		}
		if c.args[0] == "tps" && have["tps"] <= 0 {
			t.Errorf("tps = %v", have["tps"])
		}
		if c.args[0] == "copy-out" && (have["rows"] <= 0 || have["bytes"] <= 0) {
			t.Errorf("copy-out rows %v bytes %v", have["rows"], have["bytes"])
		}
	}
}
