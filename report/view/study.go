package view

import (
	"math"
	"strings"

	"github.com/pglab/pglab/report/internal/words"
	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
)

// buildStudy lays out one study from the statistics of its cells (case
// key → metric → result), as its presentation says.
func buildStudy(d *runs.Dataset, sg runs.StudyGroup, res map[string]map[string]*compare.Result, o Options) (*Study, error) {
	p := d.Presentation(sg.Study)
	if p == nil {
		p = &results.Presentation{} // every metric in one table
	}
	sv := &Study{Name: sg.Study, Results: res, group: sg, separateRuns: !d.Interleaved(), present: p}
	names := sv.describe(d)
	sv.buildCases(names)
	shown := sv.buildFacts()
	sv.buildImpact()
	if d.HasOutcomes(sg.Study) {
		sv.buildMatrix(d)
	} else {
		sv.buildTables(shown, o)
	}
	sv.attachNotes(d, o)
	sv.numberFootnotes()
	sv.buildTexts(d, p)
	sv.buildNoise()
	sv.Brief = o.Brief
	return sv, nil
}

// describe fills the study's heading from its stored description (title,
// source, parameters, settings, repetitions) and its columns, and returns
// the names of its cases by key.
func (sv *Study) describe(d *runs.Dataset) map[string]string {
	info, hasInfo := d.Study(sv.Name)
	if hasInfo {
		sv.Title, sv.Source, sv.Reps = info.Title, info.Source, info.Reps
		sv.Settings = strings.Join(info.Settings, ", ")
		var ps []string
		for _, k := range words.SortedKeys(info.Params) {
			if info.Params[k] != "" {
				ps = append(ps, k+"="+info.Params[k])
			}
		}
		sv.Params = strings.Join(ps, ", ")
	}
	names := map[string]string{}
	for _, c := range info.Cases {
		names[results.CaseKey(c.Labels)] = c.Name
	}

	// The study's columns: targets with measurements or outcomes in it.
	sv.Targets = d.StudyTargets(sv.Name)
	if sv.Reps == 0 {
		for _, m := range d.Measurements {
			if m.Study == sv.Name && m.Rep > sv.Reps {
				sv.Reps = m.Rep
			}
		}
	}
	sv.autoReps = d.AutoRepsText(sv.Name)
	sv.LoadLine = d.LoadLine(sv.Name)
	return names
}

// buildCases lays out the study's cases (named by names, by key, else by
// the presentation's naming label, else by their labels; in measured
// order or the presentation's) and their label columns.
func (sv *Study) buildCases(names map[string]string) {
	p := sv.present
	for _, cg := range sv.group.Cases {
		cv := Case{Key: cg.Key, Labels: cg.Labels, Name: names[cg.Key], Impact: math.NaN()}
		if cv.Name == "" && p.NameLabel != "" {
			cv.Name = cg.Labels[p.NameLabel]
		}
		if cv.Name == "" {
			cv.Name = runs.CaseTitle(cg.Labels)
		}
		sv.Cases = append(sv.Cases, cv)
	}
	if p.SortBy != "" {
		sv.sortCases(p.SortBy)
	}
	sv.LabelCols = labelColumns(p, sv.Cases)
	if len(sv.Cases) == 1 && len(sv.Cases[0].Labels) == 0 {
		sv.LabelCols = nil
	}
	for i := range sv.Cases {
		c := &sv.Cases[i]
		for _, l := range sv.LabelCols {
			val, ok := c.Labels[l.Key]
			switch {
			case !ok:
				val = "–"
			case l.Suffix != "":
				val += l.Suffix
			}
			c.Values = append(c.Values, val)
		}
	}
}

// buildFacts adds the presentation's facts, metrics that describe a case,
// as columns beside its labels, and returns those shown.
func (sv *Study) buildFacts() map[string]bool {
	shown := map[string]bool{}
	for _, f := range sv.present.Facts {
		if !sv.hasMetric(f.Metric) {
			continue
		}
		shown[f.Metric] = true
		sv.LabelCols = append(sv.LabelCols, results.LabelColumn{Key: "", Head: f.Head})
		for i := range sv.Cases {
			c := &sv.Cases[i]
			val := "–"
			if res := sv.Results[c.Key][f.Metric]; res != nil {
				for _, s := range res.Targets {
					if s.N > 0 {
						val = "≈" + compare.FormatValue(s.Center, res.Metric.Unit)
						if res.Metric.Exact && res.Metric.Unit == compare.Count {
							val = compare.FormatExact(s.Center, res.Metric.Unit) // a count is no estimate
						}
						break
					}
				}
			}
			c.Values = append(c.Values, val)
			if val != "–" {
				c.Facts = words.JoinNonEmpty(", ", c.Facts, val)
			}
		}
	}
	return shown
}

// buildTables lays out the primary metrics' tables, the table of every
// further metric (not in them nor in shown, the facts) and the charts.
func (sv *Study) buildTables(shown map[string]bool, o Options) {
	for _, ms := range sv.present.Primary {
		t := &Table{Metric: ms.Metric, Head: ms.Head, Twin: ms.Twin}
		for _, c := range sv.Cases {
			res := sv.Results[c.Key][ms.Metric]
			if res == nil {
				continue
			}
			t.Unit = string(res.Metric.Unit)
			t.Rows = append(t.Rows, sv.newRow(c, ms.Metric, res))
		}
		if len(t.Rows) > 0 {
			shown[ms.Metric] = true
			sv.Tables = append(sv.Tables, t)
		}
	}
	others := &Table{Head: "Further metrics"}
	if len(sv.Tables) == 0 {
		others.Head = "Metrics"
	}
	for _, c := range sv.Cases {
		for _, mg := range sv.CaseGroup(c.Key).Metrics {
			if shown[mg.Name] || evidenceMetric(mg.Name) {
				continue
			}
			others.Rows = append(others.Rows, sv.newRow(c, mg.Name, sv.Results[c.Key][mg.Name]))
		}
	}
	switch {
	case len(others.Rows) == 0:
	case o.Brief && len(sv.Tables) > 0:
		sv.Omitted = len(others.Rows)
	default:
		sv.Others = others
	}
	for _, ch := range sv.present.Charts {
		if sv.hasMetric(ch.Metrics...) {
			sv.Charts = append(sv.Charts, ch)
		}
	}
}

// CaseGroup returns the measurements of a case by its key.
func (sv *Study) CaseGroup(key string) runs.CaseGroup {
	for _, cg := range sv.group.Cases {
		if cg.Key == key {
			return cg
		}
	}
	return runs.CaseGroup{}
}

// newRow formats one metric of one case.
func (sv *Study) newRow(c Case, metric string, res *compare.Result) *Row {
	r := &Row{Case: c, Metric: metric, MetricHead: sv.metricTitle(metric), Res: res}
	// A figure without samples shows "–" or "?", which says it all: its
	// warnings are left to the JSON.
	for _, t := range sv.Targets {
		s, _ := res.Target(t)
		cl := Cell{Text: FormatSummary(s, res.Metric)}
		if s.N > 0 {
			cl.warnings = s.Warnings
		}
		r.Values = append(r.Values, cl)
	}
	for _, t := range sv.Targets[min(1, len(sv.Targets)):] {
		c, ok := res.Change(t)
		if !ok {
			r.Changes = append(r.Changes, Cell{Text: "?"})
			continue
		}
		cl := Cell{Text: ChangeText(c), Class: ChangeClass(c)}
		if c.N1 > 0 && c.N2 > 0 {
			cl.warnings = c.Warnings
		} else {
			cl = Cell{Text: "–"}
		}
		r.Changes = append(r.Changes, cl)
	}
	return r
}

// buildMatrix lays out the outcomes of a behaviour probe.
func (sv *Study) buildMatrix(d *runs.Dataset) {
	for _, c := range sv.Cases {
		mr := MatrixRow{Case: c}
		var base string
		for i, t := range sv.Targets {
			text := outcomeText(d, sv.Name, c.Key, t)
			if i == 0 {
				base = text
			}
			cl := Cell{Text: text}
			if i > 0 && text != base {
				cl.Class = "differs"
			}
			mr.Cells = append(mr.Cells, cl)
		}
		sv.Matrix = append(sv.Matrix, mr)
	}
}

// outcomeText returns the outcome of a case on a target; outcomes that
// differ across repetitions are joined with " | ".
func outcomeText(d *runs.Dataset, study, caseKey, target string) string {
	var texts []string
	seen := map[string]bool{}
	for _, n := range d.Notes {
		if n.Outcome && n.Study == study && n.Target == target && results.CaseKey(n.Case) == caseKey && !seen[n.Text] {
			seen[n.Text] = true
			texts = append(texts, n.Text)
		}
	}
	if len(texts) == 0 {
		return "–"
	}
	return strings.Join(texts, " | ")
}

// evidencePrefixes name the figures a measured step records per WAL
// record type and per function: the cause cards read them (and
// report.json keeps each), the further metrics leave them out.
var evidencePrefixes = []string{"wal_rec_count:", "wal_rec_bytes:", "wal_fpi_bytes:", "cpu_fn_ms:"}

// evidenceMetric reports a figure of the cause cards' evidence.
func evidenceMetric(name string) bool {
	for _, p := range evidencePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
