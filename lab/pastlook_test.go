package lab

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/pglab/pglab/results"
)

// TestPastFirstLook: a study without a RoundEstimate has its first look
// estimated from the store's last finished run of it on this machine with
// the same --quick and parameters — each case's cost per repetition there
// times the first look's rounds and the targets — and from no other run.
func TestPastFirstLook(t *testing.T) {
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spec := &Spec{Studies: mustStudies(t, "vacuum"), Quick: true}
	plan, err := spec.Studies[0].Study.Plan(spec.Studies[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	// The stored run: 2 targets × 5 repetitions of each case, 100 ms each.
	split := results.StudyTime{Study: "vacuum"}
	for _, c := range plan.Cases {
		split.Cases = append(split.Cases, results.CaseTime{Case: c.Labels, Reps: 10, RunMS: 1000})
	}
	params := map[string]map[string]string{"vacuum": spec.Studies[0].Params.Text()}
	store := func(quick bool, p map[string]map[string]string, status results.Status) {
		extra, _ := json.Marshal(map[string]any{"quick": quick, "study_params": p})
		r, err := st.BeginRun(ctx, results.RunInfo{Kind: results.KindCompare, Host: results.CollectHost(""), Extra: extra})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(split)
		if err := r.AddArtefact(ctx, results.Artefact{Study: "vacuum", Name: results.StudyTimeArtefact, ContentType: "application/json", Data: data}); err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(ctx, status, nil); err != nil {
			t.Fatal(err)
		}
	}
	estimate := func() time.Duration {
		return pastFirstLook(ctx, st, spec, results.CollectHost(""), 2)("vacuum", plan, false)
	}
	if d := estimate(); d != 0 {
		t.Errorf("empty store: %v", d)
	}
	other := map[string]map[string]string{"vacuum": {"rows": "1"}}
	store(false, params, results.StatusDone)  // not --quick
	store(true, other, results.StatusDone)    // other parameters
	store(true, params, results.StatusFailed) // not finished
	if d := estimate(); d != 0 {
		t.Errorf("no run alike: %v", d)
	}
	store(true, params, results.StatusDone)
	want := time.Duration(len(plan.Cases)*pairedStart(true)*max(lookScale(plan, true), 1)*2) * 100 * time.Millisecond
	if d := estimate(); d != want {
		t.Errorf("first look from the stored run: %v, want %v", d, want)
	}
	for i := range split.Cases {
		split.Cases[i].RunMS *= 2
	}
	store(true, nil, results.StatusDone) // parameters not recorded, rounds twice as long
	if d := pastFirstLook(ctx, st, spec, results.CollectHost(""), 2)("vacuum", plan, true); d != want {
		t.Errorf("a run that recorded its parameters asked for: %v, want the earlier run's %v", d, want)
	}
	if d := estimate(); d != 2*want {
		t.Errorf("a run that did not record them, when that will do: %v, want %v", d, 2*want)
	}
	split.Cases = split.Cases[1:] // a run with other cases says nothing
	store(true, params, results.StatusDone)
	if d := estimate(); d != 2*want {
		t.Errorf("a later run with other cases: %v, want the earlier run's %v", d, 2*want)
	}
}
