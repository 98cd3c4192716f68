package runs

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/explain"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/verdict"
)

// analysis is the statistics of a whole report: every cell (a metric of a
// case of a study, on the study's targets) analysed as one family of
// tests, so that Benjamini-Hochberg and the practical floor decide each
// change's outcome across the report (compare.AnalyzeFamily).
type analysis struct {
	Family *compare.Family
	// Cards are the cause cards of the family's called changes
	// (explain.Build), in its order.
	Cards []explain.Card
	// results maps study → case key → metric → the cell's result.
	Results map[string]map[string]map[string]*compare.Result
}

// analysisMemo is a dataset's analysis with the key of what it was made
// from.
type analysisMemo struct {
	key    uint64
	a      *analysis
	groups []StudyGroup
}

// Analysis returns the dataset's groups and their analysis, made once for
// what the dataset holds: every format of a report, --fail-on and the
// page of a run render one family of tests. It is made again when the
// dataset's measurements, repetitions, level or floor change.
func (d *Dataset) Analysis() ([]StudyGroup, *analysis, error) {
	key := d.analysisKey()
	if m := d.memo; m != nil && m.key == key {
		return m.groups, m.a, nil
	}
	groups := d.Groups()
	a, err := d.AnalyzeAll(groups)
	if err != nil {
		return nil, nil, err
	}
	d.memo = &analysisMemo{key: key, a: a, groups: groups}
	return groups, a, nil
}

// analysisKey is a checksum of what the analysis is made from.
func (d *Dataset) analysisKey() uint64 {
	h := fnv.New64a()
	var buf [8]byte
	num := func(x float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	num(d.SignificanceLevel())
	num(d.minChange())
	for _, m := range d.Measurements {
		h.Write([]byte(m.Target + "\x00" + m.Study + "\x00" + m.CaseKey + "\x00" + m.Metric + "\x00"))
		num(float64(m.Rep))
		num(m.Value)
	}
	for _, r := range d.Reps {
		for _, c := range r.Cases {
			h.Write([]byte(r.Study + "\x00" + results.CaseKey(c.Labels)))
			num(float64(c.N))
			num(float64(c.Cap))
		}
	}
	for _, s := range d.Studies {
		if p := s.Presentation; p != nil {
			for _, m := range p.Primary {
				h.Write([]byte(s.Name + "\x00" + m.Metric + "\x00" + m.Twin))
			}
		}
	}
	return h.Sum64()
}

// AnalyzeAll runs the statistics of every group: the cells with a
// baseline and another target as one family (verdict.StudyCells, as the
// stopping rule built them), the others (a study on one target) as
// summaries alone.
func (d *Dataset) AnalyzeAll(groups []StudyGroup) (*analysis, error) {
	a := &analysis{Results: map[string]map[string]map[string]*compare.Result{}}
	var cells []compare.Cell
	for _, sg := range groups {
		targets := d.StudyTargets(sg.Study)
		byCase := map[string]map[string]*compare.Result{}
		a.Results[sg.Study] = byCase
		for _, cg := range sg.Cases {
			byCase[cg.Key] = map[string]*compare.Result{}
			for _, mg := range cg.Metrics {
				if in := verdict.Input(mg, targets, d.Interleaved()); in.Baseline == "" || len(targets) < 2 {
					res, err := compare.Analyze(in, compare.Options{Alpha: d.SignificanceLevel()})
					if err != nil {
						return nil, fmt.Errorf("%s %s: %w", sg.Study, mg.Name, err)
					}
					byCase[cg.Key][mg.Name] = res
				}
			}
		}
		cells = append(cells, verdict.StudyCells(d.Presentation(sg.Study), sg, targets, d.cellOptions(sg.Study))...)
	}
	fam, err := compare.AnalyzeFamily(cells, compare.Options{Alpha: d.SignificanceLevel(), MinChange: d.minChange(), Paired: true})
	if err != nil {
		return nil, err
	}
	a.Family = fam
	a.Cards = explain.Build(explain.Input{Family: fam, Groups: groups, Targets: d.StudyTargets, Missing: d.missingEvidence,
		Differences: d.differences, Plans: d.planOf})
	for _, cr := range fam.Cells {
		parts := strings.SplitN(cr.Key, "\x00", 3)
		a.Results[parts[0]][parts[1]][parts[2]] = cr.Result
	}
	return a, nil
}

// cellOptions returns how a study's cells are built: the run's floor, its
// rounds, and the design and caps its cases ran under.
func (d *Dataset) cellOptions(study string) verdict.Options {
	return verdict.Options{MinChange: d.minChange(), Interleaved: d.Interleaved(), Design: d.studyDesign(study), Caps: d.caseCaps(study)}
}

// StudyTargets returns the study's columns: the report's targets that
// have measurements or outcomes in it, in report order.
func (d *Dataset) StudyTargets(study string) []string {
	has := map[string]bool{}
	for _, m := range d.Measurements {
		if m.Study == study {
			has[m.Target] = true
		}
	}
	for _, n := range d.Notes {
		if n.Study == study && n.Outcome {
			has[n.Target] = true
		}
	}
	var out []string
	for _, t := range d.TargetNames() {
		if has[t] {
			out = append(out, t)
		}
	}
	return out
}

// missingEvidence returns, for a case of a study on a target, the
// evidence families its notes say it could not give, with why.
func (d *Dataset) missingEvidence(study, caseKey, target string) map[string]string {
	out := map[string]string{}
	for _, n := range d.Notes {
		if n.Study == study && n.Target == target && n.Metric != "" && results.CaseKey(n.Case) == caseKey {
			out[n.Metric] = n.Text
		}
	}
	return out
}
