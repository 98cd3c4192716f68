package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/results"
)

// ErrRunTwice is wrapped by the error of Load when two references name the
// same run.
var ErrRunTwice = errors.New("run named twice")

// Load reads the runs named by refs from store into a Dataset: one run, or
// several runs compared, whose targets all become columns of the report in
// the order of the runs. A target name that occurs in more than one run is
// prefixed with its run's short ID ("8bd3/pg17") so that the columns stay
// apart. With no refs it loads the newest run ("last"). refs are what
// results.Store.Run takes — IDs, unambiguous prefixes of them, or "last" —
// or the short IDs reports show (the last part of a generated ID, "8bd3").
// An unknown run gives an error wrapping results.ErrNotFound, an ambiguous
// one results.ErrAmbiguous, a run named twice ErrRunTwice.
//
// The studies' descriptions, notes and outcomes come from the runs'
// artefacts "study-info", "note" and "outcome"; their other text
// artefacts (text/* types) become Outputs.
func Load(ctx context.Context, store *results.Store, refs ...string) (*Dataset, error) {
	if store == nil {
		return nil, fmt.Errorf("report: no results store")
	}
	if len(refs) == 0 {
		refs = []string{"last"}
	}
	var runs []loadedRun
	seen := map[string]string{}
	for _, ref := range refs {
		rec, err := lookupRun(ctx, store, ref)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[rec.ID]; dup {
			return nil, fmt.Errorf("%w: %q and %q are both run %s", ErrRunTwice, prev, ref, rec.ID)
		}
		seen[rec.ID] = ref
		l, err := readRun(ctx, store, rec)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", rec.ID, err)
		}
		runs = append(runs, l)
	}

	d := &Dataset{Run: runs[0].rec}
	renames := targetRenames(runs)
	if len(runs) > 1 {
		d.Origins = map[string]Origin{}
	}
	for i, l := range runs {
		d.addRun(l, renames[i])
	}
	return d, nil
}

// loadedRun is what Load reads of one run.
type loadedRun struct {
	rec       results.RunRecord
	targets   []results.Target
	ms        []results.Measurement
	artefacts []results.Artefact // descriptions, notes, outcomes, timings
	texts     []results.Artefact
}

// readRun reads a run's targets, measurements and the artefacts a report
// shows.
func readRun(ctx context.Context, store *results.Store, rec results.RunRecord) (loadedRun, error) {
	l := loadedRun{rec: rec}
	var err error
	if l.targets, err = store.Targets(ctx, rec.ID); err != nil {
		return l, err
	}
	if l.ms, err = store.Measurements(ctx, rec.ID, results.MeasurementFilter{}); err != nil {
		return l, err
	}
	for _, name := range []string{results.StudyInfoArtefact, "note", "outcome", results.StudyTimeArtefact, results.RunTimeArtefact, results.StudyRepsArtefact,
		configDriftArtefact, planArtefact, cpuStacksArtefact} {
		as, err := store.Artefacts(ctx, rec.ID, results.ArtefactFilter{Name: name})
		if err != nil {
			return l, err
		}
		l.artefacts = append(l.artefacts, as...)
	}
	l.texts, err = loadTexts(ctx, store, rec.ID)
	return l, err
}

// targetRenames returns, per run, how its target names become the
// report's: names that occur in more than one run get the run's short ID
// in front.
func targetRenames(runs []loadedRun) []func(string) string {
	count := map[string]int{}
	for _, l := range runs {
		names := map[string]bool{}
		for _, t := range l.targets {
			names[t.Name] = true
		}
		for _, m := range l.ms {
			if m.Target != "" {
				names[m.Target] = true
			}
		}
		for n := range names {
			count[n]++
		}
	}
	ids := make([]string, len(runs))
	for i, l := range runs {
		ids[i] = l.rec.ID
	}
	short := shortIDs(ids)
	out := make([]func(string) string, len(runs))
	for i := range runs {
		prefix := short[i] + "/"
		out[i] = func(name string) string {
			if name == "" || count[name] < 2 {
				return name
			}
			return prefix + name
		}
	}
	return out
}

// addRun adds a run's targets (renamed), measurements and artefacts.
func (d *Dataset) addRun(l loadedRun, rename func(string) string) {
	d.Runs = append(d.Runs, l.rec)
	known := map[string]bool{}
	for _, t := range l.targets {
		orig := t.Name
		t.Name = rename(orig)
		known[orig] = true
		d.Targets = append(d.Targets, t)
		if d.Origins != nil {
			d.Origins[t.Name] = Origin{Run: l.rec.ID, Target: orig}
		}
	}
	for _, m := range l.ms {
		if m.Target != "" && !known[m.Target] {
			// A measurement of a target the run did not describe
			// still gets a column.
			known[m.Target] = true
			d.Targets = append(d.Targets, results.Target{Name: rename(m.Target)})
			if d.Origins != nil {
				d.Origins[rename(m.Target)] = Origin{Run: l.rec.ID, Target: m.Target}
			}
		}
		m.Target = rename(m.Target)
		d.Measurements = append(d.Measurements, m)
	}
	d.addArtefacts(l, rename)
	for _, a := range l.texts {
		d.Outputs = append(d.Outputs, Output{Study: a.Study, Case: a.Case, Target: rename(a.Target), Rep: a.Rep, Name: a.Name, Body: string(a.Data)})
	}
}

// addArtefacts adds a run's descriptions of its studies, its notes and
// outcomes, its timings and its repetitions.
func (d *Dataset) addArtefacts(l loadedRun, rename func(string) string) {
	timing := RunTiming{Run: l.rec.ID}
	for _, a := range l.artefacts {
		switch a.Name {
		case results.StudyTimeArtefact:
			var st results.StudyTime
			if json.Unmarshal(a.Data, &st) == nil && st.Study != "" {
				timing.Studies = append(timing.Studies, st)
			}
		case results.StudyRepsArtefact:
			var sr results.StudyReps
			if json.Unmarshal(a.Data, &sr) == nil && sr.Study != "" {
				d.Reps = append(d.Reps, sr)
			}
		case results.RunTimeArtefact:
			var rt results.RunTime
			if json.Unmarshal(a.Data, &rt) == nil {
				timing.Servers = time.Duration(rt.ServersMS * float64(time.Millisecond))
			}
		case results.StudyInfoArtefact:
			var si StudyInfo
			if err := json.Unmarshal(a.Data, &si); err != nil || si.Name == "" {
				// A description that cannot be read costs the
				// report its case names, not the report.
				continue
			}
			d.addStudy(si, l.rec.ID)
		case configDriftArtefact, planArtefact, cpuStacksArtefact:
			d.addEvidence(a, rename)
		case "note", "outcome":
			n := Note{
				Study:   a.Study,
				Case:    a.Case,
				Target:  rename(a.Target),
				Rep:     a.Rep,
				Text:    strings.TrimSpace(string(a.Data)),
				Outcome: a.Name == "outcome",
			}
			var mn results.MetricNote
			if a.ContentType == "application/json" && json.Unmarshal(a.Data, &mn) == nil {
				n.Metric, n.Text = mn.Metric, strings.TrimSpace(mn.Text)
			}
			d.Notes = append(d.Notes, n)
		}
	}
	if len(timing.Studies) > 0 {
		d.Timings = append(d.Timings, timing)
	}
}

// lookupRun finds a run by what results.Store.Run takes, or else by the
// short ID reports show ("c3d4" for "20261130-100000-c3d4").
func lookupRun(ctx context.Context, store *results.Store, ref string) (results.RunRecord, error) {
	rec, err := store.Run(ctx, ref)
	if err == nil || !errors.Is(err, results.ErrNotFound) || ref == "" || strings.Contains(ref, "-") {
		return rec, err
	}
	runs, lerr := store.Runs(ctx, results.RunFilter{})
	if lerr != nil {
		return rec, err
	}
	var found []results.RunRecord
	for _, r := range runs {
		if strings.HasSuffix(r.ID, "-"+ref) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return rec, err
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, r := range found {
		ids[i] = r.ID
	}
	return rec, fmt.Errorf("%w: %q ends %s", results.ErrAmbiguous, ref, strings.Join(ids, ", "))
}

// addStudy adds a study's description; a study already described by an
// earlier run keeps that description (and its presentation), with the
// cases it lacked added and a note when the parameters, the repetitions or
// the study's versions differ.
func (d *Dataset) addStudy(si StudyInfo, runID string) {
	for i := range d.Studies {
		s := &d.Studies[i]
		if s.Name != si.Name {
			continue
		}
		have := map[string]bool{}
		for _, c := range s.Cases {
			have[results.CaseKey(c.Labels)] = true
		}
		for _, c := range si.Cases {
			if !have[results.CaseKey(c.Labels)] {
				s.Cases = append(s.Cases, c)
			}
		}
		if diff := paramsDiff(s.Params, si.Params); diff != "" {
			d.Notes = append(d.Notes, Note{Study: si.Name, Text: fmt.Sprintf("run %s ran this study with other parameters: %s", runID, diff)})
		}
		if si.Version != s.Version && si.Version > 0 && s.Version > 0 {
			d.Notes = append(d.Notes, Note{Study: si.Name, Text: fmt.Sprintf("run %s ran version %d of this study, the first run version %d: what it records changed between them", runID, si.Version, s.Version)})
		}
		if si.Reps != s.Reps {
			d.Notes = append(d.Notes, Note{Study: si.Name, Text: fmt.Sprintf("run %s ran this study with %d repetitions, the first run with %d", runID, si.Reps, s.Reps)})
		}
		return
	}
	d.Studies = append(d.Studies, si)
}

// paramsDiff lists the parameters whose values differ, as "name=a→b".
func paramsDiff(a, b map[string]string) string {
	var out []string
	for _, k := range words.SortedKeys(a, b) {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s=%s → %s", k, words.OrDash(a[k]), words.OrDash(b[k])))
		}
	}
	return strings.Join(out, ", ")
}

// shortIDs returns short names of runs for column prefixes: the random
// tail of a generated ID ("20261130-103245-ab12" → "ab12") when those
// tails tell the runs apart, else the whole IDs.
func shortIDs(ids []string) []string {
	out := make([]string, len(ids))
	seen := map[string]bool{}
	for i, id := range ids {
		tail := id
		if k := strings.LastIndexByte(id, '-'); k >= 0 && k < len(id)-1 {
			tail = id[k+1:]
		}
		if seen[tail] {
			return append([]string(nil), ids...)
		}
		seen[tail] = true
		out[i] = tail
	}
	return out
}
