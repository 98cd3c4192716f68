package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pglab/pglab/explain"
	"github.com/pglab/pglab/internal/flamegraph"
	"github.com/pglab/pglab/results"
)

// The evidence a run keeps for the cause cards beside its measurements:
// the settings that differ between its targets (lab's config-drift), the
// plan each target made of each study statement (study's plan) and the
// folded CPU stacks of profiled steps (study's cpu-stacks). The names are
// those the run stored them under.
const (
	configDriftArtefact = "config-drift"
	planArtefact        = "plan"
	cpuStacksArtefact   = "cpu-stacks"
)

// stackHz is the rate the folded stacks were sampled at (observe's
// StackHz): a sample stands for 1000/stackHz ms of CPU.
const stackHz = 49

// evidence is what a dataset holds of those artefacts.
type evidence struct {
	// drift holds the settings that differ, as the runs stored them
	// (values by the report's target names).
	drift []settingDiff
	// plans maps study → case key → target → the plans of its
	// statements.
	plans map[string]map[string]map[string][]planShape
	// stacks maps study → case key → target → the folded stacks summed
	// over its steps, with the steps counted.
	stacks map[string]map[string]map[string]*stackSum
}

// settingDiff is one setting that differs between targets (observe's
// SettingDiff as stored).
type settingDiff struct {
	Name     string            `json:"name"`
	Kind     string            `json:"kind"`
	Values   map[string]string `json:"values"`
	Defaults map[string]string `json:"defaults,omitempty"`
	Asked    bool              `json:"asked,omitempty"`
	Derived  bool              `json:"derived,omitempty"`
}

// planShape is a statement's plan as stored (study's PlanShape).
type planShape struct {
	Statement string   `json:"statement"`
	Hash      string   `json:"hash"`
	Shape     []string `json:"shape"`
}

// stackSum is folded stacks summed over steps.
type stackSum struct {
	samples flamegraph.Stacks
	steps   int
}

// addEvidence adds one evidence artefact of a run.
func (d *Dataset) addEvidence(a results.Artefact, rename func(string) string) {
	switch a.Name {
	case configDriftArtefact:
		var diffs []settingDiff
		if json.Unmarshal(a.Data, &diffs) != nil {
			return
		}
		for _, df := range diffs {
			df.Values = renamed(df.Values, rename)
			df.Defaults = renamed(df.Defaults, rename)
			d.ev.drift = append(d.ev.drift, df)
		}
	case planArtefact:
		var p planShape
		if json.Unmarshal(a.Data, &p) != nil || p.Hash == "" {
			return
		}
		byCase := nested(&d.ev.plans, a.Study, results.CaseKey(a.Case))
		t := rename(a.Target)
		byCase[t] = append(byCase[t], p)
	case cpuStacksArtefact:
		byCase := nested(&d.ev.stacks, a.Study, results.CaseKey(a.Case))
		t := rename(a.Target)
		if byCase[t] == nil {
			byCase[t] = &stackSum{samples: flamegraph.Stacks{}}
		}
		byCase[t].add(a.Data)
	}
}

// nested returns m[study][caseKey], made when missing.
func nested[V any](m *map[string]map[string]map[string]V, study, caseKey string) map[string]V {
	if *m == nil {
		*m = map[string]map[string]map[string]V{}
	}
	if (*m)[study] == nil {
		(*m)[study] = map[string]map[string]V{}
	}
	if (*m)[study][caseKey] == nil {
		(*m)[study][caseKey] = map[string]V{}
	}
	return (*m)[study][caseKey]
}

// renamed returns m with its keys renamed.
func renamed(m map[string]string, rename func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		out[rename(k)] = v
	}
	return out
}

// add adds one step's folded stacks ("a;b;c count" lines).
func (s *stackSum) add(data []byte) {
	s.steps++
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			continue
		}
		n, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		s.samples[line[:i]] += n
	}
}

// perStep returns the stacks in milliseconds of CPU per step.
func (s *stackSum) perStep() flamegraph.Stacks {
	out := flamegraph.Stacks{}
	for k, v := range s.samples {
		out[k] = v * 1000 / stackHz / float64(max(s.steps, 1))
	}
	return out
}

// differences returns what differs between two targets' settings and
// builds, for the cause cards.
func (d *Dataset) differences(baseline, target string) []explain.Difference {
	var out []explain.Difference
	for _, df := range d.ev.drift {
		b, okB := df.Values[baseline]
		t, okT := df.Values[target]
		var text string
		switch {
		case okB && okT && b != t:
			text = fmt.Sprintf("%s: %s → %s", df.Name, orDefault(b), orDefault(t))
		case okB && !okT:
			text = fmt.Sprintf("%s: %s only, %s", df.Name, baseline, orDefault(b))
		case okT && !okB:
			text = fmt.Sprintf("%s: %s only, %s", df.Name, target, orDefault(t))
		default:
			continue
		}
		if df.Kind == "default" {
			text += " (built-in defaults)"
		}
		out = append(out, explain.Difference{Name: strings.TrimPrefix(df.Name, "build:"), Text: text, Asked: df.Asked})
	}
	return out
}

// orDefault shows an empty value as such.
func orDefault(v string) string {
	if v == "" {
		return "''"
	}
	return v
}

// planOf returns the shape hash of a case's plans on a target (all its
// statements' hashes together) and the shape of its first statement, ""
// when none was recorded.
func (d *Dataset) planOf(study, caseKey, target string) (hash, tree string) {
	ps := d.ev.plans[study][caseKey][target]
	if len(ps) == 0 {
		return "", ""
	}
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b planShape) int { return strings.Compare(a.Statement, b.Statement) })
	var hs []string
	for _, p := range ps {
		hs = append(hs, p.Statement+"="+p.Hash)
	}
	return strings.Join(hs, ","), strings.Join(ps[0].Shape, "\n")
}

// Flame returns the differential flame graph of a case's CPU on two
// targets (per step), "" when either has no stacks.
func (d *Dataset) Flame(study, caseKey, baseline, target, title string) string {
	b, t := d.ev.stacks[study][caseKey][baseline], d.ev.stacks[study][caseKey][target]
	if b == nil || t == nil {
		return ""
	}
	return flamegraph.Diff(b.perStep(), t.perStep(), flamegraph.Options{Title: title, Unit: "ms of CPU a step"})
}
