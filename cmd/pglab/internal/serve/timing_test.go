package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/results"
)

// TestRunPageShowsResets: a run whose vacuum study reset its data before
// each repetition shows, on its page, the resets and waiting columns, a
// row per case and how the data came.
func TestRunPageShowsResets(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := results.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.BeginRun(ctx, results.RunInfo{Kind: results.KindCompare, Version: "test", Command: []string{"pglab", "compare"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.AddTarget(ctx, managed("pg17", "17.10", 170010)); err != nil {
		t.Fatal(err)
	}
	st := results.StudyTime{Study: "vacuum", WallMS: 100e3, MeasuredMS: 20e3, ResetMS: 30e3, WaitMS: 1e3,
		Cases: []results.CaseTime{{Case: map[string]string{"index": "yes"}, Name: "95 % updated, with index", Reps: 5, RunMS: 80e3, MeasuredMS: 20e3, ResetMS: 30e3, WaitMS: 1e3}},
		Data: []results.DataSummary{{Target: "pg17", Dataset: "vacuum-table rows=3000000 index=yes", Method: "copy_file_range", Bytes: 224 << 20,
			Loads: 5, PerRep: true, FromCache: true, TotalMS: 30e3, MedianMS: 6e3}}}
	data, _ := json.Marshal(st)
	if err := run.AddArtefact(ctx, results.Artefact{Study: "vacuum", Name: results.StudyTimeArtefact, ContentType: "application/json", Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(ctx, results.StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	h := newTestHandler(t, path, Options{Hosts: loopbackHosts})
	res, body := get(t, h, "/runs/"+run.ID())
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	for _, want := range []string{"<th>in resets</th>", "<th>waiting</th>", "vacuum · 95 % updated, with index",
		"vacuum on pg17: vacuum-table rows=3000000 index=yes cloned from the dataset cache", "5 resets, 6.0 s each (median)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page lacks %q", want)
		}
	}
}
