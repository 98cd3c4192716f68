package report

import (
	"encoding/json"
	"io"
	"sort"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/results"
)

// studyJSON is the document `pglab study --json` prints.
type studyJSON struct {
	RunID        string            `json:"run_id"`
	Study        string            `json:"study"`
	Status       string            `json:"status"`
	Error        string            `json:"error,omitempty"`
	Params       map[string]string `json:"params"`
	Reps         int               `json:"reps"`
	Targets      []targetJSON      `json:"targets"`
	Measurements []measurementJSON `json:"measurements"`
	Notes        []noteJSON        `json:"notes,omitempty"`
}

type targetJSON struct {
	Name             string `json:"name"`
	ServerVersion    string `json:"server_version"`
	ServerVersionNum int    `json:"server_version_num"`
	DataChecksums    bool   `json:"data_checksums"`
	Conn             string `json:"conn"`
	// Env is the environment the server ran in (--env): the profile and
	// what became of each limit.
	Env *env.Record `json:"env,omitempty"`
}

type measurementJSON struct {
	Target        string            `json:"target"`
	ServerVersion string            `json:"server_version"`
	Study         string            `json:"study"`
	Case          map[string]string `json:"case"`
	Rep           int               `json:"rep"`
	Metric        string            `json:"metric"`
	Value         float64           `json:"value"`
	Unit          string            `json:"unit"`
	Exact         bool              `json:"exact,omitempty"`
	Direction     string            `json:"direction,omitempty"`
}

// noteJSON is a note as reports key their footnotes: by study, case
// (its labels) and target, and the metric it explains, if one.
type noteJSON struct {
	Study   string            `json:"study"`
	Target  string            `json:"target"`
	Case    map[string]string `json:"case"`
	Rep     int               `json:"rep,omitempty"`
	Metric  string            `json:"metric,omitempty"`
	Text    string            `json:"text"`
	Outcome bool              `json:"outcome,omitempty"`
}

// WriteStudyJSON writes the document 'pglab study --json' prints of a
// dataset of one study: the run (its ID, "done" or "failed" and the
// error), the study's parameters and repetitions, the targets with their
// environments, every measurement (in the order of the repetitions) with
// its server's version, and the notes.
func WriteStudyJSON(w io.Writer, d *runs.Dataset) error {
	doc := studyJSON{RunID: d.Run.ID, Status: string(d.Run.Status), Error: d.Run.Error}
	if len(d.Studies) > 0 {
		si := d.Studies[0]
		doc.Study, doc.Params, doc.Reps = si.Name, si.Params, si.Reps
	}
	versions := map[string]string{}
	for _, t := range d.Targets {
		jt := targetJSON{Name: t.Name, ServerVersion: t.ServerVersion, ServerVersionNum: t.ServerVersionNum, DataChecksums: t.DataChecksums, Conn: t.Conn}
		if r, ok := env.RecordOf(t.Extra); ok {
			jt.Env = &r
		}
		doc.Targets = append(doc.Targets, jt)
		versions[t.Name] = t.ServerVersion
	}
	ms := append([]results.Measurement(nil), d.Measurements...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Rep < ms[j].Rep })
	for _, m := range ms {
		doc.Measurements = append(doc.Measurements, measurementJSON{
			Target: m.Target, ServerVersion: versions[m.Target], Study: m.Study, Case: m.Case, Rep: m.Rep,
			Metric: m.Metric, Value: m.Value, Unit: m.Unit, Exact: m.Exact, Direction: string(m.Direction),
		})
	}
	for _, n := range d.Notes {
		doc.Notes = append(doc.Notes, noteJSON{Study: n.Study, Target: n.Target, Case: nonNilLabels(n.Case), Rep: n.Rep, Metric: n.Metric, Text: n.Text, Outcome: n.Outcome})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNilLabels(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
