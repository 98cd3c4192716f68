package view

import (
	"strings"

	"github.com/pglab/pglab/report/internal/words"
	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/results"
)

// Report is a Dataset analysed for reading: the setup, and per study the
// tables, the matrix, the notes and the numbered warnings. Every format
// renders the same view, so that they agree figure for figure.
type Report struct {
	Data     *runs.Dataset
	Title    string
	Alpha    float64
	Runs     []Run
	Hosts    []string // one line per distinct host
	Targets  []Target
	Settings []runs.SettingRow
	// Headlines summarise each study's primary metrics (two or more
	// targets only), a table per set of targets.
	Headlines []HeadlineTable
	Studies   []*Study
	// Family is the report's cells analysed as one family of tests: how
	// many comparisons, how many called, how many false calls to expect.
	Family *compare.Family
	// Notes are remarks that belong to no study.
	Notes []string
	// Times split each run's wall time per study into measured steps and
	// set-up, with a row for the whole run; TimeLines say the runs'
	// totals in a sentence.
	Times     []TimeRow
	TimeLines []string
	// DataLines say how each study's data came to each server and what a
	// load (a reset) cost.
	DataLines []string
	// Reps say how many repetitions the cases ran and why.
	Reps  RepsTable
	Brief bool // Options.Brief
	// general are the warnings every study says, said once by a brief
	// report.
	general []string
}

// Run is one run's manifest, formatted.
type Run struct {
	ID, Kind, Status, Started, Duration, Version, Command, Error, Host string
}

// Target is one column's server, formatted.
type Target struct {
	Name, Server, Checksums, Conn, Run string
	// Env is the environment the server ran in (pglab --env), or nil.
	Env *env.Record
}

// Study is one study of the report.
type Study struct {
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
	Cases     []Case
	// Tables are the primary metrics' tables, rows by case.
	Tables []*Table
	// Others holds every further metric: a row per case and metric.
	Others *Table
	// Omitted counts the rows of further metrics a brief view leaves out.
	Omitted int
	// Matrix holds the outcomes of a behaviour probe, a row per case.
	Matrix []MatrixRow
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
	Noise []Noise
	// Cards are the cause cards of the study's called changes.
	Cards []CardView
	// Texts are the study's text artefacts (what the server said), by
	// kind and case.
	Texts []TextGroup

	Results map[string]map[string]*compare.Result // case key → metric → result
	group   runs.StudyGroup
	// present is how the study is shown (never nil).
	present *results.Presentation
	Brief   bool // Options.Brief: texts are left out
	// separateRuns marks a study whose targets come from different runs
	// (a report of runs side by side): their repetitions were not
	// interleaved.
	separateRuns bool
	// common holds the warnings every study says (a brief report says
	// them once).
	Common map[string]bool
}

// LeftOut says what a brief view leaves out of the study, or "".
func (sv *Study) LeftOut() string {
	var parts []string
	if n := sv.twinRows(); n > 0 {
		parts = append(parts, words.Plural(n, "row")+" of figures derived from the same step (their outcome is the step's)")
	}
	if sv.Omitted > 0 {
		parts = append(parts, words.Plural(sv.Omitted, "row")+" of further metrics")
	}
	if sv.Brief {
		for _, g := range sv.Texts {
			parts = append(parts, words.LowerFirst(g.Head))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Left out here (--details shows them): " + strings.Join(parts, ", ") + "."
}

// Case is a case of a study: its labels and how to name it.
type Case struct {
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

// Table is a table of one metric (rows by case), or of further
// metrics (rows by case and metric).
type Table struct {
	Metric string
	Head   string
	Unit   string
	Rows   []*Row
	// Twin is the primary metric this table's metric repeats (a
	// throughput of the same timed step): a brief view leaves it out.
	Twin string
}

// Row is one line of a metric table.
type Row struct {
	Case       Case
	Metric     string
	MetricHead string
	Res        *compare.Result
	// Values are the targets' summaries, Changes the comparisons of the
	// other targets with the baseline.
	Values  []Cell
	Changes []Cell
}

// Cell is one formatted figure with its footnote marks.
type Cell struct {
	Text string
	// Class is "better", "worse", "ns" (not significant), "same" or
	// "" for a change; "differs" for an outcome unlike the baseline's.
	Class    string
	Marks    []int
	warnings []string
	notes    []string
}

// MatrixRow is one case of a behaviour matrix.
type MatrixRow struct {
	Case  Case
	Cells []Cell
}

// HeadlineTable is a summary table of studies that cover the same
// targets.
type HeadlineTable struct {
	Targets []string
	Rows    []Headline
	// Metrics is true when some row is a metric (not a matrix).
	Metrics bool
}

// Headline summarises one primary metric of a study across its cases
// (see Study.headline).
type Headline struct {
	Study  string
	What   string
	Case   string
	Values []string
	// Changes has one cell per target after the first.
	Changes []Cell
}

// Options choose what a report shows.
type Options struct {
	// Brief shows the summary, the setup and each study's primary tables
	// and matrix, leaving out the tables of further metrics and the
	// studies' text outputs: what a terminal shows, while the report
	// files keep everything.
	Brief bool
}

// PrimaryByCase is the primary tables as one, for a brief report: per
// case, a row for each primary metric, named by its table's heading.
func (sv *Study) PrimaryByCase() *Table {
	out := &Table{Head: "Primary metrics"}
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
func (sv *Study) briefTables() []*Table {
	if !sv.Brief {
		return sv.Tables
	}
	var out []*Table
	for _, t := range sv.Tables {
		if t.Twin == "" {
			out = append(out, t)
		}
	}
	return out
}

// twinRows counts the rows a brief view leaves out as twins.
func (sv *Study) twinRows() int {
	n := 0
	for _, t := range sv.Tables {
		if sv.Brief && t.Twin != "" {
			n += len(t.Rows)
		}
	}
	return n
}

// hasMetric reports whether any case has one of the metrics.
func (sv *Study) hasMetric(metrics ...string) bool {
	for _, byMetric := range sv.Results {
		for _, m := range metrics {
			if byMetric[m] != nil {
				return true
			}
		}
	}
	return false
}
