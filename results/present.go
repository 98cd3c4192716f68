package results

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Presentation says how reports show a study's figures: which case labels
// make the first columns of its tables, which metrics get a table of their
// own (primary, the headline figures whose changes a report can call),
// which charts the HTML report draws and how the study's texts are shown.
// A study declares it in its description (study.Info) and every run
// stores it with the study (StudyInfo.Presentation), so that a report of
// the run needs no study code. Every metric not named as primary or as a
// fact is shown in the study's table of further metrics.
type Presentation struct {
	// Labels are the case labels shown as columns, in order. Labels
	// not named here (nor in Hide) follow as their own columns.
	Labels []LabelColumn `json:"labels,omitempty"`
	// Facts are metrics that describe a case rather than measure a
	// target (the average row size of a table): shown as a column after
	// the labels ("≈24 kB") and in chart labels, never called.
	Facts []MetricHead `json:"facts,omitempty"`
	// Primary are the headline metrics, each with its own table, in
	// order. Only they can be called a change.
	Primary []MetricHead `json:"primary,omitempty"`
	// Charts are drawn in the HTML report when their metrics are present.
	Charts []Chart `json:"charts,omitempty"`
	// Texts name the study's text artefacts and how they are shown;
	// others are shown under their artefact names (HTML and JSON).
	Texts []TextView `json:"texts,omitempty"`
	// Hide are case labels not shown as columns: they tell cases apart
	// (and stay in the JSON) but say nothing to a reader, such as a hash.
	Hide []string `json:"hide,omitempty"`
	// NameLabel, when set, is the case label that names a case the
	// study's plan did not name (a case a run recorded into, such as a
	// replay's query fingerprint).
	NameLabel string `json:"name_label,omitempty"`
	// SortBy, when set, orders the cases by the change of this metric,
	// worst first; otherwise cases keep the order they were measured in.
	SortBy string `json:"sort_by,omitempty"`
	// Impact, when set, weighs each case's change by its share of a
	// whole (a replayed query's by its part of the workload's time): a
	// column beside the labels, and the cases ordered by it, largest
	// first (it overrides SortBy).
	Impact *Impact `json:"impact,omitempty"`
	// Titles name the study's own metrics in its tables of further
	// metrics and in chart legends, where the report's common names
	// ("elapsed_ms": "time") do not.
	Titles map[string]string `json:"titles,omitempty"`
	// SpeedCovariate says that pglab's client does the same work against
	// every target in each of the study's steps (the same statements,
	// the same results): its CPU over a step then moves with the
	// machine's speed alone, and the study's times are adjusted for it
	// (compare's covariate.go). A study whose client's work depends on
	// the target (COPY TO's message sizes, a timed load's transactions)
	// leaves it false, as does one whose client mostly waits for one
	// statement (VACUUM, a scan): its CPU is then its samplers', which
	// grows with the step's time, a proxy of the figure itself.
	SpeedCovariate bool `json:"speed_covariate,omitempty"`
}

// Impact is how a case's change counts in a whole: its Change metric's
// relative change times its Share metric's part of the Whole metric (of
// the case that records it), both on the baseline. SQL Performance
// Analyzer's "impact on workload": a query 7× slower that takes 1 % of
// the time weighs +6 %, a lookup 12 % faster that takes 60 % weighs −7 %.
type Impact struct {
	Change string `json:"change"`
	Share  string `json:"share"`
	Whole  string `json:"whole"`
	// Head is the column's heading.
	Head string `json:"head"`
}

// LabelColumn is a case label shown as a column.
type LabelColumn struct {
	// Key is the label's key in the case's labels.
	Key string `json:"key"`
	// Head is the column's heading.
	Head string `json:"head"`
	// Suffix is appended to the value, e.g. " %".
	Suffix string `json:"suffix,omitempty"`
}

// MetricHead is a metric shown under a heading of its own: a headline
// table or a fact column.
type MetricHead struct {
	// Metric is the metric's name as the study records it.
	Metric string `json:"metric"`
	// Head is the table's or column's heading.
	Head string `json:"head"`
	// Twin names a primary metric of the same step that this one is a
	// monotone function of (a throughput of a time): it repeats that
	// metric's test and is called with it, not counted as a test of its
	// own.
	Twin string `json:"twin,omitempty"`
	// PartOf names a primary metric of the same step, in the same unit,
	// of which this one is a part (the WAL sync time of the time for all
	// updates): a change of the part matters as far as it moves the
	// whole, so its practical floor is the report's floor of the whole's
	// baseline median, in this metric's unit, when that is larger than
	// its own.
	PartOf string `json:"part_of,omitempty"`
}

// ChartKind selects how a chart draws its data.
type ChartKind string

const (
	// Bars draws one group of bars per case, a bar per target.
	Bars ChartKind = "bars"
	// Lines draws a line per target over a numeric case label (Chart.X);
	// it falls back to bars when that label is not numeric.
	Lines ChartKind = "lines"
)

// Chart is one chart of a study in the HTML report.
type Chart struct {
	Kind  ChartKind `json:"kind"`
	Title string    `json:"title"`
	// Metrics are drawn together; more than one only for metrics of the
	// same unit (latency percentiles), told apart by line style.
	Metrics []string `json:"metrics"`
	// X is the numeric case label of a line chart, e.g. "clients", and
	// XHead its axis title.
	X     string `json:"x,omitempty"`
	XHead string `json:"x_head,omitempty"`
	// Ceiling names metrics whose highest median is drawn as a dashed
	// reference line (the disk's observed read throughput), the first
	// measured one, with CeilingText as its legend.
	Ceiling     []string `json:"ceiling,omitempty"`
	CeilingText string   `json:"ceiling_text,omitempty"`
}

// TextView says how a study's text artefact is shown.
type TextView struct {
	// Name is the artefact's name, e.g. "vacuum-verbose".
	Name string `json:"name"`
	// Head is the heading it is shown under.
	Head string `json:"head"`
	// Markdown shows it in the Markdown report too (the HTML and JSON
	// reports show every text artefact).
	Markdown bool `json:"markdown,omitempty"`
	// Open shows it unfolded in the HTML report.
	Open bool `json:"open,omitempty"`
}

// Metrics returns every metric the presentation names (facts, primary,
// charts and their ceilings, the sort key, the impact's, titles), without repeats, in
// that order.
func (p *Presentation) Metrics() []string {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(ms ...string) {
		for _, m := range ms {
			if m != "" && !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	for _, f := range p.Facts {
		add(f.Metric)
	}
	for _, m := range p.Primary {
		add(m.Metric)
	}
	for _, c := range p.Charts {
		add(c.Metrics...)
		add(c.Ceiling...)
	}
	add(p.SortBy)
	if p.Impact != nil {
		add(p.Impact.Change, p.Impact.Share, p.Impact.Whole)
	}
	for _, m := range slices.Sorted(maps.Keys(p.Titles)) {
		add(m)
	}
	return out
}

// ErrPresentation is wrapped by the errors of Presentation.Check.
var ErrPresentation = errors.New("invalid presentation")

// Check reports the first thing that makes p unusable: a metric or label
// without a name or heading, a metric or label named twice, a twin that is
// not another primary metric with a test of its own, a fact that is also
// primary, a hidden label shown as a column, a chart of no kind, title or
// metric, a line chart without its numeric label. A nil presentation is
// valid (every metric in one table).
func (p *Presentation) Check() error {
	if p == nil {
		return nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrPresentation, fmt.Sprintf(format, args...))
	}
	hidden := map[string]bool{}
	for _, h := range p.Hide {
		hidden[h] = true
	}
	labels := map[string]bool{}
	for _, l := range p.Labels {
		switch {
		case l.Key == "" || l.Head == "":
			return bad("a label column needs a key and a heading (%q, %q)", l.Key, l.Head)
		case labels[l.Key]:
			return bad("label %q is shown twice", l.Key)
		case hidden[l.Key]:
			return bad("label %q is both shown and hidden", l.Key)
		}
		labels[l.Key] = true
	}
	primary := map[string]MetricHead{}
	for _, m := range p.Primary {
		if m.Metric == "" || m.Head == "" {
			return bad("a primary metric needs a name and a heading (%q, %q)", m.Metric, m.Head)
		}
		if _, dup := primary[m.Metric]; dup {
			return bad("primary metric %q is named twice", m.Metric)
		}
		primary[m.Metric] = m
	}
	for _, m := range p.Primary {
		if m.Twin == "" {
			continue
		}
		if t, ok := primary[m.Twin]; !ok || m.Twin == m.Metric || t.Twin != "" {
			return bad("%s's twin %q is not another primary metric with a test of its own", m.Metric, m.Twin)
		}
	}
	facts := map[string]bool{}
	for _, f := range p.Facts {
		_, isPrimary := primary[f.Metric]
		switch {
		case f.Metric == "" || f.Head == "":
			return bad("a fact needs a metric and a heading (%q, %q)", f.Metric, f.Head)
		case isPrimary || facts[f.Metric]:
			return bad("fact %q is named twice or is also primary", f.Metric)
		case f.Twin != "":
			return bad("fact %q has a twin: only primary metrics have", f.Metric)
		}
		facts[f.Metric] = true
	}
	if i := p.Impact; i != nil && (i.Change == "" || i.Share == "" || i.Whole == "" || i.Head == "") {
		return bad("an impact needs its change, share and whole metrics and a heading (%+v)", *i)
	}
	for _, c := range p.Charts {
		if err := c.check(); err != nil {
			return bad("%v", err)
		}
	}
	texts := map[string]bool{}
	for _, t := range p.Texts {
		if t.Name == "" || t.Head == "" || texts[t.Name] {
			return bad("text %q needs a name and a heading, once", t.Name)
		}
		texts[t.Name] = true
	}
	return nil
}

// check reports what makes a chart unusable.
func (c Chart) check() error {
	switch {
	case c.Kind != Bars && c.Kind != Lines:
		return fmt.Errorf("chart %q: kind %q (want %q or %q)", c.Title, c.Kind, Bars, Lines)
	case c.Title == "" || len(c.Metrics) == 0:
		return fmt.Errorf("chart %q needs a title and a metric", c.Title)
	case c.Kind == Lines && c.X == "":
		return fmt.Errorf("line chart %q needs its numeric case label (X)", c.Title)
	case len(c.Ceiling) > 0 && c.CeilingText == "":
		return fmt.Errorf("chart %q: a ceiling needs its legend", c.Title)
	}
	return nil
}
