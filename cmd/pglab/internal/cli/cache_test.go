package cli_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

// vacuumWAL runs the vacuum study on a managed server of the default
// version (its data cloned from the dataset cache before every
// repetition) and returns the WAL figures of each case (index yes/no) and
// repetition, with the run's id.
func vacuumWAL(t *testing.T, store string, rows int) (map[string]float64, string) {
	t.Helper()
	r := run(t, "--quiet", "study", "vacuum", "--versions", pgtest.DefaultVersion(), "--reps", "2",
		"--param", fmt.Sprintf("rows=%d", rows), "--param", "cases=95:index,95:noindex", "--json", "--store", store)
	if r.code != 0 {
		t.Fatalf("study vacuum: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		RunID        string `json:"run_id"`
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
	got := map[string]float64{}
	for _, m := range doc.Measurements {
		// VACUUM VERBOSE's own figures; not the window's WAL by record
		// type, which has the background writer's records when they fall in it.
		if strings.HasPrefix(m.Metric, "wal_") && !strings.HasPrefix(m.Metric, "wal_rec_") && !strings.HasPrefix(m.Metric, "wal_fpi_bytes:") {
			got[fmt.Sprintf("%s/%d/%s", m.Case["index"], m.Rep, m.Metric)] = m.Value
		}
	}
	return got, doc.RunID
}

// studyData reads how a run's vacuum study loaded its data (the report's
// JSON: time.studies[].data).
func studyData(t *testing.T, store, runID string) []results.DataSummary {
	t.Helper()
	r := run(t, "report", runID, "--format", "json", "--store", store)
	if r.code != 0 {
		t.Fatalf("report: %s", r.stderr)
	}
	var doc struct {
		Runs []struct {
			Time struct {
				ResetMS float64             `json:"reset_ms"`
				Studies []results.StudyTime `json:"studies"`
			} `json:"time"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Time.Studies) != 1 {
		t.Fatalf("report JSON without the study's time (%v): %.500s", err, r.stdout)
	}
	st := doc.Runs[0].Time.Studies[0]
	if st.ResetMS <= 0 || doc.Runs[0].Time.ResetMS <= 0 || len(st.Cases) != 2 {
		t.Errorf("time split %+v: want resets and two cases", st)
	}
	return st.Data
}

// TestVacuumFromCacheMatchesPsql runs the vacuum study where every
// repetition starts from a clone of the cached table, twice (the second
// run finds the table in the cache), and checks that the WAL figures
// VACUUM VERBOSE prints equal those of the article's statements typed
// into psql on a server of the same version and settings.
func TestVacuumFromCacheMatchesPsql(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	const rows = 20000
	first, id1 := vacuumWAL(t, store, rows)
	second, id2 := vacuumWAL(t, store, rows)
	for k, v := range first {
		if second[k] != v {
			t.Errorf("%s: %v in the first run, %v in the second (from the cache)", k, v, second[k])
		}
	}
	for run, id := range map[string]string{"first": id1, "second": id2} {
		data := studyData(t, store, id)
		if len(data) != 2 {
			t.Fatalf("%s run: data %+v, want one line per dataset (index yes, no)", run, data)
		}
		for _, d := range data {
			if !d.PerRep || d.Loads != 2 || d.Method == results.DataInPlace || d.Method == "" || d.MedianMS <= 0 {
				t.Errorf("%s run: %+v: want a clone before each of 2 repetitions", run, d)
			}
			if d.FromCache != (run == "second") {
				t.Errorf("%s run: %s from the cache: %v", run, d.Dataset, d.FromCache)
			}
		}
	}
	byHand := psqlVacuumWAL(t, rows)
	for _, index := range []string{"yes", "no"} {
		for rep := 1; rep <= 2; rep++ {
			for _, metric := range []string{"wal_records", "wal_fpi", "wal_bytes"} {
				k := fmt.Sprintf("%s/%d/%s", index, rep, metric)
				if first[k] != byHand[index+"/"+metric] {
					t.Errorf("index=%s repetition %d %s: study %v, psql by hand %v", index, rep, metric, first[k], byHand[index+"/"+metric])
				}
			}
		}
	}
}

// psqlVacuumWAL types the article's statements into psql on a new server
// with the study's settings and returns what VACUUM VERBOSE printed of its
// WAL, per index yes/no.
func psqlVacuumWAL(t *testing.T, rows int) map[string]float64 {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	r := run(t, "--quiet", "pg", "start", "--versions", pgtest.DefaultVersion(), "--name", "vaccache",
		"--set", "shared_buffers=256MB", "--set", "maintenance_work_mem=512MB", "--set", "max_wal_size=1GB",
		"--set", "checkpoint_timeout=30min", "--set", "autovacuum=off", "--set", "log_checkpoints=on")
	if r.code != 0 {
		t.Fatalf("pg start: %s", r.stderr)
	}
	dsn := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { run(t, "pg", "stop", "--remove", "vaccache") })
	walRE := regexp.MustCompile(`WAL usage: (\d+) records, (\d+) full page images, (\d+) bytes`)
	out := map[string]float64{}
	for _, index := range []string{"yes", "no"} {
		script := "CREATE TABLE t_vacuum_test (id int, v text);\n"
		if index == "yes" {
			script += "CREATE INDEX ON t_vacuum_test (id);\n"
		}
		script += fmt.Sprintf("INSERT INTO t_vacuum_test SELECT g, 'x' FROM generate_series(1, %d) g;\n", rows) +
			"UPDATE t_vacuum_test SET v = 'y' WHERE id % 20 != 1;\nVACUUM VERBOSE t_vacuum_test;\nDROP TABLE t_vacuum_test;\n"
		cmd := exec.Command("psql", dsn, "-X", "-v", "ON_ERROR_STOP=1", "-f", "-")
		cmd.Stdin = strings.NewReader(script)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, b)
		}
		m := walRE.FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("no WAL usage line in psql's output:\n%s", b)
		}
		for i, metric := range []string{"wal_records", "wal_fpi", "wal_bytes"} {
			var v float64
			fmt.Sscan(m[i+1], &v)
			out[index+"/"+metric] = v
		}
	}
	return out
}

// TestCacheListAndClear lists a dataset a study built into the cache,
// then clears it.
func TestCacheListAndClear(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	r := run(t, "--quiet", "study", "vacuum", "--versions", pgtest.DefaultVersion(), "--reps", "1",
		"--param", "rows=1000", "--param", "cases=5:noindex", "--store", store)
	if r.code != 0 {
		t.Fatalf("study vacuum: exit %d: %s", r.code, r.stderr)
	}
	r = run(t, "cache", "list")
	if r.code != 0 {
		t.Fatalf("cache list: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"PostgreSQL builds (", "VERSION", "Datasets (", "limit 40 GB",
		"ID  ", "DATASET", "vacuum-table rows=1000 index=no", "checksums=off", "complete"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("cache list lacks %q:\n%s", want, r.stdout)
		}
	}
	r = run(t, "cache", "clear")
	if r.code != 0 || !regexp.MustCompile(`removed [1-9][0-9]* datasets \([0-9.]+ [kMG]B\) from `).MatchString(r.stdout) {
		t.Errorf("cache clear: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "cache", "list")
	if strings.Contains(r.stdout, "rows=1000") || !strings.Contains(r.stdout, "0 datasets, 0 bytes") {
		t.Errorf("after clear, cache list shows:\n%s", r.stdout)
	}
}
