package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pglab/pglab/results"
)

// TestTimeSplitWithResets checks the setup's split when a study reset its
// data before each repetition: the resets and waiting columns, a row per
// case, the data lines (which clone, what a reset cost), and report.json.
func TestTimeSplitWithResets(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	for k, st := range d.Timings[0].Studies {
		if st.Study != "vacuum" {
			continue
		}
		st.ResetMS, st.WaitMS, st.BuildMS, st.ProfileMS = 40e3, 2.5e3, 30e3, 12e3
		st.Cases = []results.CaseTime{
			{Case: map[string]string{"update_pct": "95", "index": "yes"}, Name: "95 % updated, with index", Reps: 10, RunMS: 120e3, MeasuredMS: 20e3, ResetMS: 25e3, WaitMS: 2.5e3},
			{Case: map[string]string{"update_pct": "95", "index": "no"}, Name: "95 % updated, no index", Reps: 10, RunMS: 60e3, MeasuredMS: 15.5e3, ResetMS: 15e3},
		}
		st.Data = []results.DataSummary{
			{Target: "pg16", Dataset: "vacuum-table rows=3000000 index=yes", Method: "copy_file_range", Entry: "9a77b9a59d81418a5fa1", Bytes: 224 << 20,
				Loads: 5, PerRep: true, FromCache: true, WaitMS: 2.5e3, TotalMS: 6e3, MedianMS: 1.2e3, CloneMedianMS: 0.7e3},
			{Target: "pg17", Dataset: "vacuum-table rows=3000000 index=yes", Method: "copy_file_range", Bytes: 224 << 20,
				Loads: 5, PerRep: true, BuildMS: 30e3, TotalMS: 6.5e3, MedianMS: 1.3e3},
			{Target: "pg16", Dataset: "pgbench scale=100", Method: results.DataInPlace, Loads: 1, TotalMS: 50e3, MedianMS: 50e3},
		}
		d.Timings[0].Studies[k] = st
	}
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| study | took | in measured steps | in set-up | in resets | waiting |",
		"| vacuum | 4 min 20 s | 36 s (14 %) | 3 min 2 s | 40 s | 2.5 s |",
		"| vacuum · 95 % updated, with index | 2 min 0 s | 20 s (17 %) | 1 min 13 s | 25 s | 2.5 s |",
		"| vacuum · 95 % updated, no index | 1 min 0 s | 16 s (26 %) | 30 s | 15 s | 0.0 s |",
		"| whole run | 12 min 7 s | 4 min 36 s (38 %) | 6 min 49 s | 40 s | 2.5 s |",
		"- vacuum on pg16: vacuum-table rows=3000000 index=yes cloned from the dataset cache (kept from an earlier run; 224 MB, in-kernel copy (copy_file_range)); before each repetition: 5 resets, 1.2 s each (median; the copy 0.7 s, the rest stopping, starting and warming the server), 6.0 s in all; waited 2.5 s for another pglab building it",
		"- vacuum on pg17: vacuum-table rows=3000000 index=yes built into the dataset cache in 30 s, then cloned (224 MB, in-kernel copy (copy_file_range)); before each repetition: 5 resets, 1.3 s each (median), 6.5 s in all",
		"- vacuum on pg16: pgbench scale=100 built in place by the study's statements; once for every case: 50 s",
		"- **Time:** measured steps: 4 min 36 s of 12 min 7 s (38 %); set-up 6 min 49 s, of which 25 s starting the servers; the profiler 12 s of the set-up (attaching perf and reading its samples, each step; not charged to the budget); resets of the data 40 s; waiting for another pglab 2.5 s",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if err := WriteJSON(&js, d); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Time struct {
				ResetMS float64             `json:"reset_ms"`
				WaitMS  float64             `json:"wait_ms"`
				SetupMS float64             `json:"setup_ms"`
				Studies []results.StudyTime `json:"studies"`
			} `json:"time"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Runs) == 0 {
		t.Fatalf("JSON: %v", err)
	}
	tm := doc.Runs[0].Time
	if tm.ResetMS != 40e3 || tm.WaitMS != 2.5e3 {
		t.Errorf("JSON run time: reset %v, wait %v", tm.ResetMS, tm.WaitMS)
	}
	found := false
	for _, st := range tm.Studies {
		if st.Study == "vacuum" && len(st.Cases) == 2 && len(st.Data) == 3 && st.Data[0].Method == "copy_file_range" {
			found = true
		}
	}
	if !found {
		t.Errorf("JSON: the vacuum study's cases and data are missing: %+v", tm.Studies)
	}
}
