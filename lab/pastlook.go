package lab

import (
	"context"
	"encoding/json"
	"maps"
	"time"

	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// pastRuns is how many of the store's latest finished runs pastFirstLook
// reads for a study's last run on this machine.
const pastRuns = 30

// pastManifest is the part of a stored run's manifest pastFirstLook
// matches on.
type pastManifest struct {
	Quick bool `json:"quick"`
	// StudyParams are a compare run's studies' parameters; Study and
	// Params a study run's (older runs have neither: their cases must
	// match).
	StudyParams map[string]map[string]string `json:"study_params"`
	Study       string                       `json:"study"`
	Params      map[string]string            `json:"params"`
}

// params returns the parameters the run gave study, if it recorded them.
func (m pastManifest) params(study string) (map[string]string, bool) {
	if m.Study == study && m.Params != nil {
		return m.Params, true
	}
	p, ok := m.StudyParams[study]
	return p, ok
}

// pastFirstLook returns an estimator of a study's first look for
// newAutoReps, from the store's latest finished run of the same study on
// this machine, here (same host name, CPUs and processor) under the same
// --quick, parameters and cases: each case's cost per repetition on one
// target there, times the first look's rounds and targets here. A run
// that did not record its studies' parameters (before they were) counts
// only when recorded is false. The estimator returns 0 when no such run
// is stored, or the store cannot be read.
func pastFirstLook(ctx context.Context, st *results.Store, spec *Spec, here results.Host, targets int) func(name string, plan study.Plan, recorded bool) time.Duration {
	if st == nil {
		return nil
	}
	runs, err := st.Runs(ctx, results.RunFilter{Status: results.StatusDone, Limit: pastRuns})
	if err != nil {
		return nil
	}
	params := map[string]map[string]string{}
	for _, sr := range spec.Studies {
		params[sr.Study.Info().Name] = sr.Params.Text()
	}
	return func(name string, plan study.Plan, recorded bool) time.Duration {
		for _, r := range runs {
			var m pastManifest
			if r.Host.Hostname != here.Hostname || r.Host.CPUs != here.CPUs || r.Host.CPUModel != here.CPUModel ||
				json.Unmarshal(r.Extra, &m) != nil || m.Quick != spec.Quick {
				continue
			}
			if p, ok := m.params(name); ok && !maps.Equal(p, params[name]) || !ok && recorded {
				continue
			}
			if d := storedFirstLook(ctx, st, r.ID, name, plan, spec.Quick, targets); d > 0 {
				return d
			}
		}
		return 0
	}
}

// storedFirstLook returns the first look of the study as run stored it,
// or 0 when that run has no time split of it with the plan's cases.
func storedFirstLook(ctx context.Context, st *results.Store, run, name string, plan study.Plan, quick bool, targets int) time.Duration {
	arts, err := st.Artefacts(ctx, run, results.ArtefactFilter{Study: name, Name: results.StudyTimeArtefact})
	if err != nil || len(arts) != 1 {
		return 0
	}
	var t results.StudyTime
	if json.Unmarshal(arts[0].Data, &t) != nil {
		return 0
	}
	return firstLookFrom(t, plan, quick, targets)
}

// firstLookFrom returns the first look of plan's cases at the costs per
// repetition of a stored time split: every case's rounds to the first
// look, in its own units, on targets servers. It returns 0 unless the
// split has exactly the plan's cases, each with repetitions.
func firstLookFrom(t results.StudyTime, plan study.Plan, quick bool, targets int) time.Duration {
	if len(t.Cases) != len(plan.Cases) {
		return 0
	}
	want := map[string]bool{}
	for _, c := range plan.Cases {
		want[results.CaseKey(c.Labels)] = true
	}
	rounds := pairedStart(quick) * max(lookScale(plan, quick), 1)
	var ms float64
	for _, c := range t.Cases {
		if !want[results.CaseKey(c.Case)] || c.Reps <= 0 {
			return 0
		}
		ms += c.RunMS / float64(c.Reps) * float64(rounds*targets)
	}
	return time.Duration(ms * float64(time.Millisecond))
}
