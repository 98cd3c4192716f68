package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"

	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/verdict"
)

// noisyCommit is a commit-like study on pg16 and pg17 over two cases and 6
// rounds: the time moves with a load shared by both sides of a round,
// round 3 of case "a" had another process take 70 % of the CPUs on pg17's
// side (and its time doubled there), and the WAL sync time, which the
// load moves too, is a small part of the time.
func noisyCommit() *runs.Dataset {
	p := &results.Presentation{
		Labels: []results.LabelColumn{{Key: "tx", Head: "transactions"}},
		Primary: []results.MetricHead{
			{Metric: "elapsed_ms", Head: "Time for all updates"},
			{Metric: "wal_sync_ms", Head: "WAL sync time", PartOf: "elapsed_ms"},
		},
	}
	d := &runs.Dataset{Targets: []results.Target{{Name: "pg16"}, {Name: "pg17"}},
		Studies: []runs.StudyInfo{{Name: "commit", Version: 2, Presentation: p, Reps: 6}}}
	load := []float64{1, 1.4, 0.9, 1.2, 1.6, 1.1}
	for _, tx := range []string{"a", "b"} {
		labels := map[string]string{"tx": tx}
		for rep := 1; rep <= 6; rep++ {
			for ti, tg := range []string{"pg16", "pg17"} {
				noise := 1 + 0.004*float64((rep*3+ti*5)%5-2)
				elapsed := 1000 * load[rep-1] * noise
				foreign := 1.0
				if tx == "a" && rep == 3 && tg == "pg17" {
					elapsed *= 2
					foreign = 70
				}
				add := func(metric, unit string, v float64) {
					d.Measurements = append(d.Measurements, results.Measurement{Target: tg, Study: "commit", Case: labels, Rep: rep,
						Metric: metric, Value: v, Unit: unit, Direction: results.DirectionLower})
				}
				add("elapsed_ms", "ms", elapsed)
				add("wal_sync_ms", "ms", 2.4*load[rep-1]*(1+0.01*float64((rep+ti)%3)))
				add("wal_syncs", "count", 20)
				add("foreign_cpu_pct", "pct", foreign)
				add("steal_pct", "pct", 0)
			}
		}
	}
	return d
}

// TestDisturbedRounds: a round in which other processes took 25 points
// more of the CPUs than in the study's median round is found from the
// machine's figures, left out of the paired comparison and named in the
// noise statement; the rest of the rounds, which the shared load moved on
// both sides alike, make the case the same.
func TestDisturbedRounds(t *testing.T) {
	d := noisyCommit()
	groups := d.Groups()
	got := verdict.Disturbed(groups[0], []string{"pg16", "pg17"})
	keyA := results.CaseKey(map[string]string{"tx": "a"})
	if len(got) != 1 || len(got[keyA]) != 1 || got[keyA][0] != 3 {
		t.Fatalf("disturbed rounds %v, want round 3 of case a", got)
	}
	var b bytes.Buffer
	if err := Write(&b, d, JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Studies []struct {
			Noise   []view.Noise `json:"noise"`
			Metrics []struct {
				Case    string `json:"case"`
				Metric  string `json:"metric"`
				Changes []struct {
					Outcome   string  `json:"outcome"`
					Level     string  `json:"level"`
					Pairs     int     `json:"pairs"`
					Disturbed int     `json:"disturbed_rounds"`
					Floor     float64 `json:"floor_percent"`
					Text      string  `json:"text"`
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"studies"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	st := doc.Studies[0]
	for _, m := range st.Metrics {
		c := m.Changes[0]
		switch {
		case m.Metric == "elapsed_ms" && m.Case == "a":
			if c.Pairs != 5 || c.Disturbed != 1 || c.Outcome != "same" {
				t.Errorf("case a's time: %d pairs, %d disturbed, %s (%s); want 5, 1, same", c.Pairs, c.Disturbed, c.Outcome, c.Text)
			}
		case m.Metric == "wal_sync_ms":
			// 2-3.6 ms of sync time in a step of about 1.2 s: its floor
			// is 5 % of the step, far above 5 % of itself.
			if c.Floor < 1000 || !strings.Contains(c.Text, "5 % of time for all updates") || c.Outcome != "same" {
				t.Errorf("case %s's WAL sync time: floor %.0f %%, %s (%s)", m.Case, c.Floor, c.Outcome, c.Text)
			}
		}
	}
	if len(st.Noise) != 1 {
		t.Fatalf("noise statements: %+v", st.Noise)
	}
	nf := st.Noise[0]
	for _, want := range []string{"Noise (pg17 vs pg16", "the machine moved both sides of a round together", "a · round 3", "left out of the comparison", "A WAL fsync took"} {
		if !strings.Contains(nf.Text, want) {
			t.Errorf("noise statement lacks %q: %s", want, nf.Text)
		}
	}
	if nf.ForeignMax == nil || *nf.ForeignMax != 70 || len(nf.Disturbed) != 1 {
		t.Errorf("noise figures: foreign max %v, disturbed %v", nf.ForeignMax, nf.Disturbed)
	}
}
