package runs

import (
	"encoding/json"
	"time"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/verdict"
)

// Dataset is what a report is made from: one run's targets and
// measurements (as stored, or as a study just produced them), or several
// runs side by side, their targets becoming the report's columns.
type Dataset struct {
	// memo is the analysis made of what the dataset holds (Analysis).
	memo *analysisMemo
	// ev is the evidence of the cause cards the runs kept.
	ev evidence

	// Run is the (first) run; its manifest heads the report.
	Run results.RunRecord
	// Runs are all the runs of the report in the order given; empty or
	// one run for a report of a single run.
	Runs []results.RunRecord
	// Targets are the report's columns in order; the first is the
	// baseline. Loading several runs renames targets whose names clash
	// (see Load).
	Targets []results.Target
	// Origins maps a target's name in the report to the run and the
	// name it was stored under. Empty for a dataset of one run.
	Origins map[string]Origin
	// Measurements are every measured value, Target naming a target of
	// Targets.
	Measurements []results.Measurement
	// Studies describe the studies of the run (their "study-info"
	// artefacts) in the order they ran.
	Studies []StudyInfo
	// Notes are remarks per study and case (bottlenecks, skipped
	// targets) and the outcomes of behaviour probes.
	Notes []Note
	// Timings are where each run's wall time went, per study (runs that
	// stored it).
	Timings []RunTiming
	// Outputs are the studies' text artefacts (transcripts, VACUUM
	// VERBOSE output), shown under each study.
	Outputs []Output
	// Reps say how many repetitions each case of each study ran, and
	// under --reps auto why it stopped there (the runs' "study-reps"
	// artefacts).
	Reps []results.StudyReps
	// Alpha is the significance level; 0 means the one stored with the
	// run (its manifest's "alpha"), or else compare.DefaultAlpha. It is
	// also the false discovery rate q of the report's calls.
	Alpha float64
	// MinChange is the practical floor, a fraction of the baseline (0.05
	// = 5 %): smaller changes are never called. 0 means the one stored
	// with the run ("min_change"), or else compare.DefaultMinChange;
	// compare.NoFloor means no floor.
	MinChange float64
}

// Origin says where a target of a multi-run report comes from.
type Origin struct {
	// Run is the run's ID.
	Run string
	// Target is the target's name within that run.
	Target string
}

// Note is a remark attached to a study's case on a target.
type Note struct {
	Study  string
	Case   map[string]string
	Target string
	// Rep is the repetition the note was made in (0 when unknown or
	// outside repetitions).
	Rep int
	// Metric, when set, is the figure the note explains (why a version
	// has no such counter): it marks that figure's cell.
	Metric string
	Text   string
	// Outcome marks the one-cell result of a behaviour probe: studies
	// with outcomes are shown as a matrix (case × target).
	Outcome bool
}

// StudyInfo describes one study of a run as the run stored it (the
// artefact "study-info"); see results.StudyInfo.
type StudyInfo = results.StudyInfo

// CaseInfo names one case of a stored study; see results.CaseInfo.
type CaseInfo = results.CaseInfo

// TargetNames returns the targets in run order; the first is the
// baseline.
func (d *Dataset) TargetNames() []string {
	if len(d.Targets) > 0 {
		out := make([]string, len(d.Targets))
		for i, t := range d.Targets {
			out[i] = t.Name
		}
		return out
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range d.Measurements {
		if !seen[m.Target] {
			seen[m.Target] = true
			out = append(out, m.Target)
		}
	}
	return out
}

// Target returns the stored description of a target by its report name.
func (d *Dataset) Target(name string) (results.Target, bool) {
	for _, t := range d.Targets {
		if t.Name == name {
			return t, true
		}
	}
	return results.Target{}, false
}

// RunRecords returns the runs of the report: Runs, or Run alone.
func (d *Dataset) RunRecords() []results.RunRecord {
	if len(d.Runs) > 0 {
		return d.Runs
	}
	if d.Run.ID == "" && d.Run.StartedAt.IsZero() {
		return nil
	}
	return []results.RunRecord{d.Run}
}

// Study returns the stored description of a study, if the run kept one.
func (d *Dataset) Study(name string) (StudyInfo, bool) {
	for _, s := range d.Studies {
		if s.Name == name {
			return s, true
		}
	}
	return StudyInfo{}, false
}

// SignificanceLevel returns the significance level of the report.
func (d *Dataset) SignificanceLevel() float64 {
	if d.Alpha > 0 {
		return d.Alpha
	}
	for _, r := range d.RunRecords() {
		var extra struct {
			Alpha float64 `json:"alpha"`
		}
		if json.Unmarshal(r.Extra, &extra) == nil && extra.Alpha > 0 && extra.Alpha < 1 {
			return extra.Alpha
		}
	}
	return compare.DefaultAlpha
}

// StudyGroup is the measurements of one study, by case (see package
// verdict).
type StudyGroup = verdict.StudyGroup

// CaseGroup is the measurements of one case, by metric.
type CaseGroup = verdict.CaseGroup

// MetricGroup is one metric of one case: its samples per target.
type MetricGroup = verdict.MetricGroup

// Groups organises the measurements by study, case and metric, each in the
// order first measured (studies and cases that the run's study-info
// artefacts list come in their order, before any they do not list), with
// the cases of behaviour probes' outcomes.
func (d *Dataset) Groups() []StudyGroup {
	hasNote := map[string]map[string]bool{}
	for _, n := range d.Notes {
		if hasNote[n.Study] == nil {
			hasNote[n.Study] = map[string]bool{}
		}
		hasNote[n.Study][results.CaseKey(n.Case)] = true
	}
	return verdict.Group(d.Studies, d.Measurements, func(study, key string) bool { return hasNote[study][key] })
}

// Analyze runs the statistics of one metric across targets, the first
// target being the baseline, as a cell on its own (no family: see
// compare.Analyze).
func (d *Dataset) Analyze(mg MetricGroup) (*compare.Result, error) {
	return compare.Analyze(verdict.Input(mg, d.TargetNames(), d.Interleaved()), compare.Options{Alpha: d.SignificanceLevel()})
}

// RunTiming is where a run's wall time went: starting its servers, then
// each study's measured steps and set-up.
type RunTiming struct {
	Run string
	// Servers is the time before the run's start was stored: binaries,
	// initdb, starting the servers.
	Servers time.Duration
	Studies []results.StudyTime
}

// HasOutcomes reports whether the study is a behaviour probe: one with
// outcomes, shown as a matrix.
func (d *Dataset) HasOutcomes(study string) bool {
	for _, n := range d.Notes {
		if n.Study == study && n.Outcome {
			return true
		}
	}
	return false
}

// runExtra is what a run's manifest keeps of its statistics.
type runExtra struct {
	Alpha     float64 `json:"alpha"`
	MinChange float64 `json:"min_change"`
	AA        bool    `json:"aa"`
}

// extras returns the statistics settings of each run of the report.
func (d *Dataset) extras() []runExtra {
	var out []runExtra
	for _, r := range d.RunRecords() {
		var e runExtra
		if json.Unmarshal(r.Extra, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// minChange returns the report's practical floor as a fraction: the
// Dataset's, else the one the (first) run stored, else compare's default.
func (d *Dataset) minChange() float64 {
	if d.MinChange != 0 {
		return d.MinChange
	}
	for _, e := range d.extras() {
		if e.MinChange != 0 && e.MinChange < 1 {
			return e.MinChange // compare.NoFloor (negative) for a floor of 0
		}
	}
	return compare.DefaultMinChange
}

// AA reports whether the report is of an A/A run: two identical servers,
// where every call is a false one.
func (d *Dataset) AA() bool {
	for _, e := range d.extras() {
		if e.AA {
			return true
		}
	}
	return false
}

// Interleaved reports whether the report's targets were measured in one
// run, their repetitions interleaved; runs compared after the fact were
// not, and their differences include whatever changed between the runs.
func (d *Dataset) Interleaved() bool { return len(d.RunRecords()) <= 1 }

// Output is a text artefact of a study: what the server or a program said
// in one case, on one target, in one repetition (a COPY's transcript,
// VACUUM VERBOSE's output, pgbench's summary).
type Output struct {
	Study  string
	Case   map[string]string
	Target string
	Rep    int
	// Name is the artefact's name, e.g. "vacuum-verbose".
	Name string
	Body string
}
