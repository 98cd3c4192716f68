package report

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/results"
)

// view is a Dataset analysed for reading: the setup, and per study the
// tables, the matrix, the notes and the numbered warnings. Every format
// renders the same view, so that they agree figure for figure.
type view struct {
	d        *Dataset
	Title    string
	Alpha    float64
	Runs     []runView
	Hosts    []string // one line per distinct host
	Targets  []targetView
	Settings []settingRow
	// Headlines summarise each study's primary metrics (two or more
	// targets only), a table per set of targets.
	Headlines []headlineTable
	Studies   []*studyView
	// Family is the report's cells analysed as one family of tests: how
	// many comparisons, how many called, how many false calls to expect.
	Family *compare.Family
	// Notes are remarks that belong to no study.
	Notes []string
	// Times split each run's wall time per study into measured steps and
	// set-up, with a row for the whole run; TimeLines say the runs'
	// totals in a sentence.
	Times     []timeRow
	TimeLines []string
	// DataLines say how each study's data came to each server and what a
	// load (a reset) cost.
	DataLines []string
	// Reps say how many repetitions the cases ran and why.
	Reps  repsView
	brief bool // Options.Brief
	// general are the warnings every study says, said once by a brief
	// report.
	general []string
}

// runView is one run's manifest, formatted.
type runView struct {
	ID, Kind, Status, Started, Duration, Version, Command, Error, Host string
}

// targetView is one column's server, formatted.
type targetView struct {
	Name, Server, Checksums, Conn, Run string
	// Env is the environment the server ran in (pglab --env), or nil.
	Env *env.Record
}

// studyView is one study of the report.
type studyView struct {
	Name, Title, Source string
	Params              string
	Reps                int
	// autoReps says, for a study whose repetitions were chosen by the
	// data, how many its cases ran ("8–10 repetitions per case and
	// target, chosen by the data per case (cap 10)"); "" otherwise.
	autoReps string
	// LoadLine says how the study's load runs were sized (warm-up,
	// window, precision), "" for a study without load runs.
	LoadLine string
	Settings string
	// Targets are the study's columns (targets with data in it); the
	// first is the baseline.
	Targets   []string
	LabelCols []results.LabelColumn
	Cases     []caseView
	// Tables are the primary metrics' tables, rows by case.
	Tables []*metricTable
	// Others holds every further metric: a row per case and metric.
	Others *metricTable
	// Omitted counts the rows of further metrics a brief view leaves out.
	Omitted int
	// Matrix holds the outcomes of a behaviour probe, a row per case.
	Matrix []matrixRow
	// Notes are remarks on the study as a whole or on a case and target
	// that no table shows.
	Notes []string
	// General are warnings that hold for every figure of the study, said
	// once instead of marked on every cell.
	General []string
	// Foot are the numbered footnotes (warnings and notes) that cells
	// point to with marks.
	Foot   []string
	Charts []results.Chart
	// Noise are the study's noise statements, one per target compared
	// with the baseline (noise.go).
	Noise []noiseFigures
	// Texts are the study's text artefacts (what the server said), by
	// kind and case.
	Texts []textGroup

	res   map[string]map[string]*compare.Result // case key → metric → result
	group StudyGroup
	// present is how the study is shown (never nil).
	present *results.Presentation
	brief   bool // Options.Brief: texts are left out
	// separateRuns marks a study whose targets come from different runs
	// (a report of runs side by side): their repetitions were not
	// interleaved.
	separateRuns bool
	// common holds the warnings every study says (a brief report says
	// them once).
	common map[string]bool
}

// leftOut says what a brief view leaves out of the study, or "".
func (sv *studyView) leftOut() string {
	var parts []string
	if n := sv.twinRows(); n > 0 {
		parts = append(parts, plural(n, "row")+" of figures derived from the same step (their outcome is the step's)")
	}
	if sv.Omitted > 0 {
		parts = append(parts, plural(sv.Omitted, "row")+" of further metrics")
	}
	if sv.brief {
		for _, g := range sv.Texts {
			parts = append(parts, lowerFirst(g.Head))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Left out here (--details shows them): " + strings.Join(parts, ", ") + "."
}

// caseView is a case of a study: its labels and how to name it.
type caseView struct {
	Key    string
	Labels map[string]string
	// Name is the study's name for the case, or the labels joined.
	Name string
	// Values are the label columns' values (facts included).
	Values []string
	// Facts are the case's facts ("≈24 kB"), joined.
	Facts string
	// Impact is the case's impact on the whole in percent (NaN: none; see
	// buildImpact).
	Impact float64
}

// metricTable is a table of one metric (rows by case), or of further
// metrics (rows by case and metric).
type metricTable struct {
	Metric string
	Head   string
	Unit   string
	Rows   []*row
	// Twin is the primary metric this table's metric repeats (a
	// throughput of the same timed step): a brief view leaves it out.
	Twin string
}

// row is one line of a metric table.
type row struct {
	Case       caseView
	Metric     string
	MetricHead string
	Res        *compare.Result
	// Values are the targets' summaries, Changes the comparisons of the
	// other targets with the baseline.
	Values  []cell
	Changes []cell
}

// cell is one formatted figure with its footnote marks.
type cell struct {
	Text string
	// Class is "better", "worse", "ns" (not significant), "same" or
	// "" for a change; "differs" for an outcome unlike the baseline's.
	Class    string
	Marks    []int
	warnings []string
	notes    []string
}

// matrixRow is one case of a behaviour matrix.
type matrixRow struct {
	Case  caseView
	Cells []cell
}

// headlineTable is a summary table of studies that cover the same
// targets.
type headlineTable struct {
	Targets []string
	Rows    []headlineRow
	// Metrics is true when some row is a metric (not a matrix).
	Metrics bool
}

// headlineRow summarises one primary metric of a study across its cases
// (see studyView.headline).
type headlineRow struct {
	Study  string
	What   string
	Case   string
	Values []string
	// Changes has one cell per target after the first.
	Changes []cell
}

// Options choose what a report shows.
type Options struct {
	// Brief shows the summary, the setup and each study's primary tables
	// and matrix, leaving out the tables of further metrics and the
	// studies' text outputs: what a terminal shows, while the report
	// files keep everything.
	Brief bool
}

// buildView analyses a dataset.
func buildView(d *Dataset, o Options) (*view, error) {
	v := &view{d: d, Alpha: d.alpha(), brief: o.Brief}
	runs := d.runs()
	switch len(runs) {
	case 0:
		v.Title = "pglab report"
	case 1:
		v.Title = "pglab report: run " + runs[0].ID
	default:
		ids := make([]string, len(runs))
		for i, r := range runs {
			ids[i] = r.ID
		}
		v.Title = "pglab report: runs " + strings.Join(ids, " vs ")
	}
	hosts := map[string]bool{}
	for _, r := range runs {
		rv := runView{
			ID: r.ID, Kind: string(r.Kind), Status: string(r.Status), Version: r.Version,
			Command: strings.Join(r.Command, " "), Error: r.Error, Host: hostLine(r.Host),
		}
		if !r.StartedAt.IsZero() {
			rv.Started = r.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		if !r.FinishedAt.IsZero() && !r.StartedAt.IsZero() {
			rv.Duration = formatDuration(r.FinishedAt.Sub(r.StartedAt))
		}
		v.Runs = append(v.Runs, rv)
		if rv.Host != "" && !hosts[rv.Host] {
			hosts[rv.Host] = true
			v.Hosts = append(v.Hosts, rv.Host)
		}
	}
	for _, name := range d.TargetNames() {
		t, _ := d.target(name)
		tv := targetView{Name: name, Server: "?", Checksums: "?", Conn: t.Conn}
		if t.ServerVersion != "" {
			tv.Server = "PostgreSQL " + t.ServerVersion
		}
		if t.ServerVersion != "" || t.ServerVersionNum != 0 {
			tv.Checksums = onOff(t.DataChecksums)
		}
		if t.Kind == results.TargetManaged {
			tv.Conn = "managed by pglab"
		}
		if o, ok := d.Origins[name]; ok {
			tv.Run = o.Run
		}
		if r, ok := env.RecordOf(t.Extra); ok {
			tv.Env = &r
		}
		v.Targets = append(v.Targets, tv)
	}
	v.Settings = settingRows(d.Targets)
	v.buildTimes()
	v.buildReps()

	known := map[string]bool{}
	groups := d.Groups()
	a, err := d.analyzeAll(groups)
	if err != nil {
		return nil, err
	}
	v.Family = a.family
	for _, sg := range groups {
		sv, err := buildStudy(d, sg, a.results[sg.Study], o)
		if err != nil {
			return nil, err
		}
		known[sg.Study] = true
		v.Studies = append(v.Studies, sv)
		if hs := sv.headlines(); len(hs) > 0 {
			n := len(v.Headlines)
			if n == 0 || strings.Join(v.Headlines[n-1].Targets, "\x00") != strings.Join(sv.Targets, "\x00") {
				v.Headlines = append(v.Headlines, headlineTable{Targets: sv.Targets})
				n++
			}
			v.Headlines[n-1].Rows = append(v.Headlines[n-1].Rows, hs...)
			if sv.Matrix == nil {
				v.Headlines[n-1].Metrics = true
			}
		}
	}
	for _, n := range d.Notes {
		if !known[n.Study] && !n.Outcome {
			v.Notes = append(v.Notes, noteText(n, ""))
		}
	}
	if o.Brief {
		v.general = v.commonGeneral()
	}
	return v, nil
}

// buildStudy lays out one study from the statistics of its cells (case
// key → metric → result), as its presentation says.
func buildStudy(d *Dataset, sg StudyGroup, res map[string]map[string]*compare.Result, o Options) (*studyView, error) {
	p := d.presentation(sg.Study)
	if p == nil {
		p = &results.Presentation{} // every metric in one table
	}
	sv := &studyView{Name: sg.Study, res: res, group: sg, separateRuns: !d.Interleaved(), present: p}
	names := sv.describe(d)
	sv.buildCases(names)
	shown := sv.buildFacts()
	sv.buildImpact()
	if d.hasOutcomes(sg.Study) {
		sv.buildMatrix(d)
	} else {
		sv.buildTables(shown, o)
	}
	sv.attachNotes(d, o)
	sv.numberFootnotes()
	sv.buildTexts(d, p)
	sv.buildNoise()
	sv.brief = o.Brief
	return sv, nil
}

// describe fills the study's heading from its stored description (title,
// source, parameters, settings, repetitions) and its columns, and returns
// the names of its cases by key.
func (sv *studyView) describe(d *Dataset) map[string]string {
	info, hasInfo := d.study(sv.Name)
	if hasInfo {
		sv.Title, sv.Source, sv.Reps = info.Title, info.Source, info.Reps
		sv.Settings = strings.Join(info.Settings, ", ")
		var ps []string
		for _, k := range sortedKeys(info.Params) {
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
	sv.Targets = d.studyTargets(sv.Name)
	if sv.Reps == 0 {
		for _, m := range d.Measurements {
			if m.Study == sv.Name && m.Rep > sv.Reps {
				sv.Reps = m.Rep
			}
		}
	}
	sv.autoReps = d.autoRepsText(sv.Name)
	sv.LoadLine = d.loadLine(sv.Name)
	return names
}

// hasOutcomes reports whether the study is a behaviour probe: one with
// outcomes, shown as a matrix.
func (d *Dataset) hasOutcomes(study string) bool {
	for _, n := range d.Notes {
		if n.Study == study && n.Outcome {
			return true
		}
	}
	return false
}

// buildCases lays out the study's cases (named by names, by key, else by
// the presentation's naming label, else by their labels; in measured
// order or the presentation's) and their label columns.
func (sv *studyView) buildCases(names map[string]string) {
	p := sv.present
	for _, cg := range sv.group.Cases {
		cv := caseView{Key: cg.Key, Labels: cg.Labels, Name: names[cg.Key], Impact: math.NaN()}
		if cv.Name == "" && p.NameLabel != "" {
			cv.Name = cg.Labels[p.NameLabel]
		}
		if cv.Name == "" {
			cv.Name = CaseTitle(cg.Labels)
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
func (sv *studyView) buildFacts() map[string]bool {
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
			if res := sv.res[c.Key][f.Metric]; res != nil {
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
				c.Facts = joinNonEmpty(", ", c.Facts, val)
			}
		}
	}
	return shown
}

// buildTables lays out the primary metrics' tables, the table of every
// further metric (not in them nor in shown, the facts) and the charts.
func (sv *studyView) buildTables(shown map[string]bool, o Options) {
	for _, ms := range sv.present.Primary {
		t := &metricTable{Metric: ms.Metric, Head: ms.Head, Twin: ms.Twin}
		for _, c := range sv.Cases {
			res := sv.res[c.Key][ms.Metric]
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
	others := &metricTable{Head: "Further metrics"}
	if len(sv.Tables) == 0 {
		others.Head = "Metrics"
	}
	for _, c := range sv.Cases {
		for _, mg := range sv.caseGroup(c.Key).Metrics {
			if shown[mg.Name] {
				continue
			}
			others.Rows = append(others.Rows, sv.newRow(c, mg.Name, sv.res[c.Key][mg.Name]))
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

// caseGroup returns the measurements of a case by its key.
func (sv *studyView) caseGroup(key string) CaseGroup {
	for _, cg := range sv.group.Cases {
		if cg.Key == key {
			return cg
		}
	}
	return CaseGroup{}
}

// hasMetric reports whether any case has one of the metrics.
func (sv *studyView) hasMetric(metrics ...string) bool {
	for _, byMetric := range sv.res {
		for _, m := range metrics {
			if byMetric[m] != nil {
				return true
			}
		}
	}
	return false
}

// newRow formats one metric of one case.
func (sv *studyView) newRow(c caseView, metric string, res *compare.Result) *row {
	r := &row{Case: c, Metric: metric, MetricHead: sv.metricTitle(metric), Res: res}
	// A figure without samples shows "–" or "?", which says it all: its
	// warnings are left to the JSON.
	for _, t := range sv.Targets {
		s, _ := res.Target(t)
		cl := cell{Text: formatSummary(s, res.Metric)}
		if s.N > 0 {
			cl.warnings = s.Warnings
		}
		r.Values = append(r.Values, cl)
	}
	for _, t := range sv.Targets[min(1, len(sv.Targets)):] {
		c, ok := res.Change(t)
		if !ok {
			r.Changes = append(r.Changes, cell{Text: "?"})
			continue
		}
		cl := cell{Text: changeText(c), Class: changeClass(c)}
		if c.N1 > 0 && c.N2 > 0 {
			cl.warnings = c.Warnings
		} else {
			cl = cell{Text: "–"}
		}
		r.Changes = append(r.Changes, cl)
	}
	return r
}

// buildMatrix lays out the outcomes of a behaviour probe.
func (sv *studyView) buildMatrix(d *Dataset) {
	for _, c := range sv.Cases {
		mr := matrixRow{Case: c}
		var base string
		for i, t := range sv.Targets {
			text := outcomeText(d, sv.Name, c.Key, t)
			if i == 0 {
				base = text
			}
			cl := cell{Text: text}
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
func outcomeText(d *Dataset, study, caseKey, target string) string {
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

// attachNotes puts the study's notes next to the figures they explain:
// a note on a case and target marks that target's cell in the first table
// that shows the case; other notes are listed under the study. Notes that
// differ only in their numbers ("CPU saturated (99 % busy)", "(100 %
// busy)") are one footnote with the numbers' range ("99–100 %"); the exact
// texts stay in the JSON.
func (sv *studyView) attachNotes(d *Dataset, o Options) {
	type place = notePlace
	type group = noteGroup
	var groups []*group
	byTemplate := map[string]*group{}
	for _, n := range d.Notes {
		if n.Study != sv.Name || n.Outcome {
			continue
		}
		tpl := noteTemplate(n.Text)
		key := tpl
		if len(n.Case) == 0 {
			// A note on the study as a whole is listed, not placed: its
			// numbers' ranges are a target's over its repetitions, never
			// a blend of targets ("lag p99 22–1,143 ms" of two servers);
			// targets that said the same are merged again below.
			key += "\x00" + n.Target
		}
		g := byTemplate[key]
		if g == nil {
			g = &group{reps: map[place][]int{}, first: n, tpl: tpl, caseLess: len(n.Case) == 0}
			byTemplate[key] = g
			groups = append(groups, g)
		}
		if indexOf(g.texts, n.Text) < 0 {
			g.texts = append(g.texts, n.Text)
		}
		pl := place{target: n.Target, metric: n.Metric}
		if len(n.Case) > 0 {
			pl.caseKey = results.CaseKey(n.Case)
		}
		if _, ok := g.reps[pl]; !ok {
			g.places = append(g.places, pl)
			g.reps[pl] = nil
		}
		// A metric's note (a version without the counter) holds for
		// every repetition.
		if n.Rep > 0 && n.Metric == "" {
			g.reps[pl] = append(g.reps[pl], n.Rep)
		}
	}
	var tables []*metricTable
	tables = append(tables, sv.Tables...)
	if sv.Others != nil {
		tables = append(tables, sv.Others)
	}
	// cellOf finds the cell of a case and target in the first table that
	// shows the case (and the metric, for a metric's note).
	cellOf := func(pl place) *cell {
		ti := indexOf(sv.Targets, pl.target)
		if pl.caseKey == "" || ti < 0 {
			return nil
		}
		for _, t := range tables {
			for _, r := range t.Rows {
				if r.Case.Key == pl.caseKey && (pl.metric == "" || r.Metric == pl.metric) {
					return &r.Values[ti]
				}
			}
		}
		return nil
	}
	groups = mergeTargets(groups)
	ran := sv.ranReps(d)
	total := func(pl place) int {
		if n := ran[pl.caseKey]; n > 0 {
			return n
		}
		return sv.Reps
	}
	for _, g := range groups {
		text := mergeNumbers(g.texts)
		var unplaced []place
		var placed []*cell
		allReps := true
		for _, pl := range g.places {
			if repsText(g.reps[pl], total(pl)) != "" {
				allReps = false
			}
			if c := cellOf(pl); c != nil {
				placed = append(placed, c)
			} else {
				unplaced = append(unplaced, pl)
			}
		}
		when := ""
		switch {
		case len(g.places) == 1:
			when = repsText(g.reps[g.places[0]], total(g.places[0]))
		case !allReps:
			when = "noted in some repetitions"
		}
		if len(placed) > 0 {
			t := text
			if when != "" {
				t += " (" + when + ")"
			}
			for _, c := range placed {
				c.notes = append(c.notes, t)
			}
		}
		if o.Brief && g.first.Metric != "" {
			// A note on a figure the brief view does not show.
			unplaced = nil
		}
		if len(unplaced) > 0 {
			var targets, cases []string
			for _, pl := range unplaced {
				if pl.target != "" && indexOf(targets, pl.target) < 0 {
					targets = append(targets, pl.target)
				}
				if pl.caseKey != "" {
					name := ""
					for _, c := range sv.Cases {
						if c.Key == pl.caseKey {
							name = c.Name
						}
					}
					if name == "" {
						name = CaseTitle(g.first.Case)
					}
					if indexOf(cases, name) < 0 {
						cases = append(cases, name)
					}
				}
			}
			who := joinNonEmpty(", ", strings.Join(targets, ", "), strings.Join(cases, "; "), when)
			if who != "" {
				text = who + ": " + text
			}
			sv.Notes = append(sv.Notes, text)
		}
	}
}

// notePlace is where a note was made: case, target, and the figure it
// explains.
type notePlace struct{ caseKey, target, metric string }

// noteGroup is the notes of a study that share a template: their texts,
// where they were made, in which repetitions.
type noteGroup struct {
	texts  []string
	places []notePlace
	reps   map[notePlace][]int
	first  Note
	// tpl is the template; caseLess marks notes on the study as a whole,
	// grouped per target.
	tpl      string
	caseLess bool
}

// mergeTargets merges the groups of notes on the study as a whole that
// said the very same texts on several targets into the first of them.
func mergeTargets(groups []*noteGroup) []*noteGroup {
	var out []*noteGroup
	for _, g := range groups {
		var into *noteGroup
		for _, o := range out {
			if g.caseLess && o.caseLess && o.tpl == g.tpl && strings.Join(o.texts, "\x00") == strings.Join(g.texts, "\x00") {
				into = o
				break
			}
		}
		if into == nil {
			out = append(out, g)
			continue
		}
		for _, pl := range g.places {
			into.places = append(into.places, pl)
			into.reps[pl] = g.reps[pl]
		}
	}
	return out
}

// ranReps returns the repetitions each case of the study ran (its
// measurements' highest), "" for the study as a whole.
func (sv *studyView) ranReps(d *Dataset) map[string]int {
	out := map[string]int{}
	for _, m := range d.Measurements {
		if m.Study != sv.Name {
			continue
		}
		key := m.CaseKey
		if key == "" {
			key = results.CaseKey(m.Case)
		}
		out[key] = max(out[key], m.Rep)
		out[""] = max(out[""], m.Rep)
	}
	return out
}

// numberRun matches a number in a note, with thousands separators or a
// decimal point.
var numberRun = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// noteTemplate is a note's text with its numbers blanked out.
func noteTemplate(s string) string { return numberRun.ReplaceAllString(s, "#") }

// mergeNumbers writes texts that share a template as one, each number
// that differs between them as its range ("48–82").
func mergeNumbers(texts []string) string {
	if len(texts) == 1 {
		return texts[0]
	}
	first := texts[0]
	locs := numberRun.FindAllStringIndex(first, -1)
	nums := make([][]string, len(texts))
	for i, t := range texts {
		nums[i] = numberRun.FindAllString(t, -1)
		if len(nums[i]) != len(locs) {
			return first
		}
	}
	value := func(s string) float64 {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		return v
	}
	var b strings.Builder
	prev := 0
	for k, loc := range locs {
		b.WriteString(first[prev:loc[0]])
		lo, hi := nums[0][k], nums[0][k]
		for i := range texts {
			n := nums[i][k]
			if value(n) < value(lo) {
				lo = n
			}
			if value(n) > value(hi) {
				hi = n
			}
		}
		if value(lo) == value(hi) {
			b.WriteString(lo)
		} else {
			b.WriteString(lo + "–" + hi)
		}
		prev = loc[1]
	}
	b.WriteString(first[prev:])
	return b.String()
}

// noteText formats a note listed on its own.
func noteText(n Note, where string) string {
	who := joinNonEmpty(", ", n.Target, where)
	if who == "" {
		return n.Text
	}
	return who + ": " + n.Text
}

// repsText says in which repetitions a note was made: nothing when in
// all of them (or outside them).
func repsText(reps []int, total int) string {
	if len(reps) == 0 {
		return ""
	}
	sort.Ints(reps)
	uniq := reps[:0]
	for i, r := range reps {
		if i == 0 || r != reps[i-1] {
			uniq = append(uniq, r)
		}
	}
	if total > 0 && len(uniq) == total {
		return ""
	}
	parts := make([]string, len(uniq))
	for i, r := range uniq {
		parts[i] = fmt.Sprint(r)
	}
	// "noted in": a study may remark on something once, in the first
	// repetition, that holds for all of them.
	if len(uniq) == 1 {
		return "noted in repetition " + parts[0]
	}
	return "noted in repetitions " + strings.Join(parts, ", ")
}

// numberFootnotes turns the cells' warnings and notes into numbered
// marks. A warning that every summary (or every comparison) of the study
// carries is said once, in General, instead.
func (sv *studyView) numberFootnotes() {
	var all []*row
	for _, t := range sv.Tables {
		all = append(all, t.Rows...)
	}
	if sv.Others != nil {
		all = append(all, sv.Others.Rows...)
	}
	// A warning is general when every cell of its kind carries it:
	// summaries or comparisons, of exact or of statistical metrics.
	everywhere := func(exact bool, cells func(*row) []cell) map[string]bool {
		count := map[string]int{}
		n := 0
		for _, r := range all {
			if r.Res.Metric.Exact != exact {
				continue
			}
			for _, c := range cells(r) {
				if c.Text == "–" || c.Text == "?" {
					continue // no samples
				}
				n++
				seen := map[string]bool{}
				for _, w := range c.warnings {
					if !seen[w] {
						seen[w] = true
						count[w]++
					}
				}
			}
		}
		out := map[string]bool{}
		for w, k := range count {
			if k == n && n > 1 {
				out[w] = true
			}
		}
		return out
	}
	values := func(r *row) []cell { return r.Values }
	changes := func(r *row) []cell { return r.Changes }
	genValues := map[bool]map[string]bool{false: everywhere(false, values), true: everywhere(true, values)}
	genChanges := map[bool]map[string]bool{false: everywhere(false, changes), true: everywhere(true, changes)}
	addGeneral := func(w string) {
		if indexOf(sv.General, w) < 0 {
			sv.General = append(sv.General, w)
		}
	}
	mark := func(c *cell, general map[string]bool) {
		for _, w := range c.warnings {
			if general[w] {
				addGeneral(w)
				continue
			}
			c.Marks = appendMark(c.Marks, sv.footnote(w))
		}
		for _, n := range c.notes {
			c.Marks = appendMark(c.Marks, sv.footnote(n))
		}
	}
	for _, r := range all {
		for i := range r.Values {
			mark(&r.Values[i], genValues[r.Res.Metric.Exact])
		}
		for i := range r.Changes {
			mark(&r.Changes[i], genChanges[r.Res.Metric.Exact])
		}
	}
}

// footnote returns the number of a footnote text, adding it if new.
func (sv *studyView) footnote(text string) int {
	if i := indexOf(sv.Foot, text); i >= 0 {
		return i + 1
	}
	sv.Foot = append(sv.Foot, text)
	return len(sv.Foot)
}

func appendMark(marks []int, m int) []int {
	for _, x := range marks {
		if x == m {
			return marks
		}
	}
	return append(marks, m)
}

// headlines summarises the study for the report's summary table: per
// primary metric, the case where the last target differs most (significant
// changes only); per behaviour matrix, how many cases differ.
func (sv *studyView) headlines() []headlineRow {
	if len(sv.Targets) < 2 {
		return nil
	}
	var out []headlineRow
	if sv.Matrix != nil {
		h := headlineRow{Study: sv.Name, What: "outcomes", Values: make([]string, len(sv.Targets))}
		for i := range h.Values {
			h.Values[i] = "–"
		}
		for ti := 1; ti < len(sv.Targets); ti++ {
			n := 0
			for _, r := range sv.Matrix {
				if r.Cells[ti].Class == "differs" {
					n++
				}
			}
			c := cell{Text: fmt.Sprintf("%d of %d cases differ", n, len(sv.Matrix))}
			if n > 0 {
				c.Class = "differs"
			} else {
				c.Class = "same"
			}
			h.Changes = append(h.Changes, c)
		}
		return append(out, h)
	}
	for _, t := range sv.briefTables() {
		out = append(out, sv.headline(t))
	}
	return out
}

// headline summarises one primary table without cherry-picking: per
// target, how many cases changed, in which direction, how many are the
// same or unresolved, and the largest change only when it was called
// (compare.SummarizeMeasure). The values are those of the case of the
// last target's largest called change (of the largest impact on the whole,
// when the study weighs its cases), "–" when it has none; a table of one
// case shows that case's outcome itself.
func (sv *studyView) headline(t *metricTable) headlineRow {
	h := headlineRow{Study: sv.Name, What: t.Head}
	best, byImpact := -1, false
	for ti, tg := range sv.Targets[1:] {
		var changes []compare.Change
		var rows []*row
		for _, r := range t.Rows {
			if c, ok := r.Res.Change(tg); ok {
				changes = append(changes, c)
				rows = append(rows, r)
			}
		}
		ms, err := compare.SummarizeMeasure(changes)
		switch {
		case err != nil:
			h.Changes = append(h.Changes, cell{Text: "?"})
			continue
		case len(t.Rows) == 1:
			h.Changes = append(h.Changes, cell{Text: changeText(changes[0]), Class: changeClass(changes[0])})
		default:
			h.Changes = append(h.Changes, cell{Text: ms.Text(), Class: summaryClass(ms)})
		}
		if ti == len(sv.Targets)-2 && ms.Largest >= 0 {
			best = indexOfRow(t.Rows, rows[ms.Largest])
			if k := largestImpact(t.Rows, tg); k >= 0 {
				best, byImpact = k, true
			}
		}
	}
	switch {
	case len(t.Rows) == 1:
		best = 0
	case best < 0:
		h.Case = plural(len(t.Rows), "case")
	}
	for _, tg := range sv.Targets {
		if best < 0 {
			h.Values = append(h.Values, "–")
			continue
		}
		s, _ := t.Rows[best].Res.Target(tg)
		h.Values = append(h.Values, formatCenter(s, t.Rows[best].Res.Metric))
	}
	switch {
	case best >= 0 && len(t.Rows) > 1 && byImpact:
		h.Case = t.Rows[best].Case.Name + " (called change of the largest impact)"
	case best >= 0 && len(t.Rows) > 1:
		h.Case = t.Rows[best].Case.Name + " (largest called change)"
	}
	return h
}

// largestImpact returns the row whose change on target tg was called and
// weighs most in the whole (the cases' impact, see buildImpact), or -1
// when no called row has an impact.
func largestImpact(rows []*row, tg string) int {
	best, size := -1, -1.0
	for k, r := range rows {
		c, ok := r.Res.Change(tg)
		if !ok || !c.Called || math.IsNaN(r.Case.Impact) {
			continue
		}
		if a := math.Abs(r.Case.Impact); a > size {
			best, size = k, a
		}
	}
	return best
}

// summaryClass styles a summary cell: by the direction of its calls when
// they all agree, "changed" when they differ, "same" when every case is
// the same, "ns" otherwise.
func summaryClass(ms compare.MeasureSummary) string {
	switch {
	case ms.Called == 0 && ms.Same == ms.Cases:
		return "same"
	case ms.Called == 0:
		return "ns"
	case ms.Better == ms.Called:
		return "better"
	case ms.Worse == ms.Called:
		return "worse"
	}
	return "changed"
}

func indexOfRow(rows []*row, r *row) int {
	for i, x := range rows {
		if x == r {
			return i
		}
	}
	return -1
}

// formatSummary formats a target's figure: the median with the
// half-width of its confidence interval when there is one ("10.4 s ± 3 %"),
// the median alone when there are too few samples, the exact value for
// exact metrics, "–" without samples.
func formatSummary(s compare.Summary, m compare.Metric) string {
	if s.N == 0 {
		return "–"
	}
	if m.Exact {
		return compare.FormatSummary(s, m)
	}
	out := compare.FormatValue(s.Center, m.Unit)
	switch {
	case !s.HasCI() || s.PctRange == "" || s.PctRange == "∞" || s.PctRange == "?":
	case s.PctRange == "0%":
		out += " ± <1 %"
	default:
		out += " ± " + strings.Replace(s.PctRange, "%", " %", 1)
	}
	return out
}

// formatCenter formats a target's median (or exact value) alone.
func formatCenter(s compare.Summary, m compare.Metric) string {
	if s.N == 0 {
		return "–"
	}
	if m.Exact {
		return compare.FormatExact(s.Center, m.Unit)
	}
	return compare.FormatValue(s.Center, m.Unit)
}

// changeText formats a comparison for a change column: its outcome with
// the test's figures, e.g. "5.7× faster (p=0.002 q=0.031 n=6)", "same
// (within ±5 %; n=6)", "~ (could not see changes under ±7 %; n=4)"; see
// compare.Change.OutcomeText.
func changeText(c compare.Change) string {
	return c.OutcomeText()
}

// changeClass classifies a comparison for styling: a called change is
// "better", "worse" or "changed" (a neutral metric), an equivalence
// "same", anything else "ns" (not called).
func changeClass(c compare.Change) string {
	switch {
	case c.Outcome == compare.OutcomeSame:
		return "same"
	case !c.Called:
		return "ns"
	}
	switch c.Verdict {
	case compare.Better:
		return "better"
	case compare.Worse:
		return "worse"
	case compare.Higher, compare.Lower:
		return "changed"
	}
	return ""
}

// hostLine describes a host in one line.
func hostLine(h results.Host) string {
	var parts []string
	if h.Hostname != "" {
		parts = append(parts, h.Hostname)
	}
	if h.OS != "" {
		parts = append(parts, h.OS)
	}
	if h.Kernel != "" {
		parts = append(parts, "kernel "+h.Kernel)
	}
	if h.Arch != "" {
		parts = append(parts, h.Arch)
	}
	if h.CPUs > 0 {
		cpu := plural(h.CPUs, "CPU")
		if h.CPUModel != "" {
			cpu += " (" + h.CPUModel + ")"
		}
		parts = append(parts, cpu)
	}
	if h.MemoryBytes > 0 {
		parts = append(parts, compare.FormatValue(float64(h.MemoryBytes), compare.Bytes)+" memory")
	}
	if h.Disk.Device != "" || h.Disk.Filesystem != "" {
		disk := "disk " + joinNonEmpty(" ", h.Disk.Device, h.Disk.Filesystem)
		if h.Disk.Rotational != nil {
			if *h.Disk.Rotational {
				disk += ", rotational"
			} else {
				disk += ", solid-state"
			}
		}
		parts = append(parts, disk)
	}
	return strings.Join(parts, " · ")
}

// formatDuration prints a run's wall time, e.g. "1 min 40 s".
func formatDuration(d time.Duration) string {
	if d < 0 {
		return ""
	}
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case m > 0:
		return fmt.Sprintf("%d min %d s", m, s)
	}
	return fmt.Sprintf("%d s", s)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// primaryByCase is the primary tables as one, for a brief report: per
// case, a row for each primary metric, named by its table's heading.
func (sv *studyView) primaryByCase() *metricTable {
	out := &metricTable{Head: "Primary metrics"}
	for _, c := range sv.Cases {
		for _, t := range sv.briefTables() {
			for _, r := range t.Rows {
				if r.Case.Key == c.Key {
					rr := *r
					rr.MetricHead = t.Head
					out.Rows = append(out.Rows, &rr)
				}
			}
		}
	}
	return out
}

// briefTables are the primary tables a brief view shows: all but the
// twins (a throughput of the same timed step, whose outcome is its
// twin's).
func (sv *studyView) briefTables() []*metricTable {
	if !sv.brief {
		return sv.Tables
	}
	var out []*metricTable
	for _, t := range sv.Tables {
		if t.Twin == "" {
			out = append(out, t)
		}
	}
	return out
}

// twinRows counts the rows a brief view leaves out as twins.
func (sv *studyView) twinRows() int {
	n := 0
	for _, t := range sv.Tables {
		if sv.brief && t.Twin != "" {
			n += len(t.Rows)
		}
	}
	return n
}

// lowerFirst lowers a heading's first letter for use inside a sentence,
// unless the word is an acronym ("VACUUM VERBOSE output").
func lowerFirst(s string) string {
	if len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// commonGeneral returns the general warnings that every study with
// figures carries, when there are two studies or more, in the first
// study's order; each study's common set is marked too.
func (v *view) commonGeneral() []string {
	var with []*studyView
	for _, sv := range v.Studies {
		if len(sv.Tables) > 0 || sv.Others != nil {
			with = append(with, sv)
		}
	}
	if len(with) < 2 {
		return nil
	}
	var out []string
	for _, g := range with[0].General {
		all := true
		for _, sv := range with[1:] {
			all = all && indexOf(sv.General, g) >= 0
		}
		if all {
			out = append(out, g)
		}
	}
	for _, sv := range with {
		sv.common = map[string]bool{}
		for _, g := range out {
			sv.common[g] = true
		}
	}
	return out
}
