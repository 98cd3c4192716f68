package results

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestRunSummaries lists runs with their targets and studies, from the
// manifest or else from the study descriptions, through a read-only open;
// the filter and its limit apply to the targets too.
func TestRunSummaries(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		mk := func(id string, i int, kind Kind, extra string, targets ...Target) {
			r, err := s.BeginRun(ctx, RunInfo{ID: id, Kind: kind, StartedAt: t0.Add(time.Duration(i) * time.Hour), Extra: json.RawMessage(extra)})
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range targets {
				if err := r.AddTarget(ctx, tg); err != nil {
					t.Fatal(err)
				}
			}
			if id == "r2" {
				for _, st := range []string{"vacuum", "tps", "vacuum"} {
					if err := r.AddArtefact(ctx, Artefact{Study: st, Name: StudyInfoArtefact, ContentType: "application/json", Data: []byte(fmt.Sprintf(`{"name":%q}`, st))}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if id != "r3" {
				if err := r.Finish(ctx, StatusDone, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		pg16 := Target{Name: "pg16", Kind: TargetManaged, ServerVersion: "16.4", Settings: []Setting{{Name: "work_mem", Value: "4096", Unit: "kB"}}}
		pg17 := Target{Name: "pg17", Kind: TargetManaged, ServerVersion: "17.2"}
		prod := Target{Name: "prod", Kind: TargetDSN, Conn: "postgres://app:secret@db/app", ServerVersion: "15.8"}
		mk("r1", 1, KindCompare, `{"studies":["tps","vacuum"]}`, pg16, pg17)
		mk("r2", 2, KindStudy, `{}`, prod)
		mk("r3", 3, KindStudy, `{"study":"copy-errors"}`, pg17)
		s.Close()

		ro, err := OpenReadOnly(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if !ro.ReadOnly() {
			t.Error("ReadOnly() is false on a store opened with OpenReadOnly")
		}
		got, err := ro.RunSummaries(ctx, RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			ID      string
			Status  Status
			Targets []TargetSummary
			Studies []string
		}
		var rows []row
		for _, r := range got {
			rows = append(rows, row{ID: r.ID, Status: r.Status, Targets: r.Targets, Studies: r.Studies})
		}
		want := []row{
			{ID: "r3", Status: StatusRunning, Targets: []TargetSummary{{"pg17", TargetManaged, "17.2"}}, Studies: []string{"copy-errors"}},
			{ID: "r2", Status: StatusDone, Targets: []TargetSummary{{"prod", TargetDSN, "15.8"}}, Studies: []string{"vacuum", "tps"}},
			{ID: "r1", Status: StatusDone, Targets: []TargetSummary{{"pg16", TargetManaged, "16.4"}, {"pg17", TargetManaged, "17.2"}}, Studies: []string{"tps", "vacuum"}},
		}
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("summaries:\n got %+v\nwant %+v", rows, want)
		}
		got, err = ro.RunSummaries(ctx, RunFilter{Status: StatusDone, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != "r2" || len(got[0].Targets) != 1 {
			t.Errorf("done, limit 1: %+v", got)
		}
		empty, err := ro.RunSummaries(ctx, RunFilter{Kind: KindBench})
		if err != nil || len(empty) != 0 {
			t.Errorf("no bench runs: %+v %v", empty, err)
		}
	})
}

// TestRunsStamp: the stamp changes when a run begins, gets a target and
// finishes, and not otherwise.
func TestRunsStamp(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		stamp := func() RunsStamp {
			st, err := s.RunsStamp(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		s0 := stamp()
		r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		if err != nil {
			t.Fatal(err)
		}
		s1 := stamp()
		if err := r.AddTarget(ctx, Target{Name: "pg17", Kind: TargetManaged}); err != nil {
			t.Fatal(err)
		}
		s2 := stamp()
		if err := r.AddMeasurements(ctx, []Measurement{{Target: "pg17", Study: "x", Metric: "m", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		s3 := stamp()
		if err := r.Finish(ctx, StatusDone, nil); err != nil {
			t.Fatal(err)
		}
		s4 := stamp()
		if s0 == s1 || s1 == s2 || s3 == s4 || s2 != s3 {
			t.Errorf("stamps %+v %+v %+v %+v %+v", s0, s1, s2, s3, s4)
		}
	})
}
