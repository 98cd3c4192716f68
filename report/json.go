package report

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/explain"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/verdict"
)

// JSONVersion is the version of the document WriteJSON writes; it changes
// when a field changes meaning or goes away (new fields may appear in any
// version).
const JSONVersion = 1

// WriteJSON writes the report as one JSON document for tools: the runs'
// manifests, the targets with their settings, and per study its cases,
// and per case and metric every repetition's value, each target's summary
// (median, confidence interval, warnings), each comparison with the
// baseline (ratio, percent, p, verdict, texts), geometric means across
// cases, the outcomes of behaviour probes and the notes. Figures that have
// no value (a median without samples, an interval without bounds, a ratio
// to zero) are null.
func WriteJSON(w io.Writer, d *runs.Dataset) error {
	v, err := view.Build(d, view.Options{})
	if err != nil {
		return err
	}
	doc := jsonDocOf(v)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

type jsonDoc struct {
	DocFormat string            `json:"format"`
	Version   int               `json:"version"`
	Title     string            `json:"title"`
	Alpha     float64           `json:"alpha"`
	Runs      []jsonRun         `json:"runs"`
	Targets   []jsonTarget      `json:"targets"`
	Settings  []jsonSettingDiff `json:"settings_not_default"`
	Summary   []jsonHeadline    `json:"summary"`
	// AA marks an A/A run (two identical servers: every call is false).
	AA bool `json:"aa"`
	// Interleaved is false for runs compared after the fact.
	Interleaved bool `json:"interleaved"`
	// ExpectedFalseCalls is how many of the called changes may be false:
	// q times the calls (Benjamini-Hochberg).
	ExpectedFalseCalls float64     `json:"expected_false_calls"`
	Family             *jsonFamily `json:"family,omitempty"`
	// Repetitions say how --reps auto chose each case's repetitions
	// (absent for fixed counts).
	Repetitions *jsonReps   `json:"repetitions,omitempty"`
	Studies     []jsonStudy `json:"studies"`
	Notes       []string    `json:"notes,omitempty"`
	// RunNotes are the notes of no study (a setting left out for a
	// target), keyed by target like the studies' notes.
	RunNotes  []jsonNote `json:"run_notes,omitempty"`
	Generated string     `json:"generated_by"`
}

type jsonRun struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Status     string          `json:"status"`
	Error      string          `json:"error,omitempty"`
	StartedAt  *time.Time      `json:"started_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	Version    string          `json:"pglab_version"`
	Command    []string        `json:"command"`
	Host       results.Host    `json:"host"`
	Extra      json.RawMessage `json:"extra,omitempty"`
	// Time splits the run's wall time per study (runs that stored it).
	Time *jsonRunTime `json:"time,omitempty"`
}

// jsonRunTime is where a run's wall time went, in milliseconds.
type jsonRunTime struct {
	WallMS     float64             `json:"wall_ms"`
	MeasuredMS float64             `json:"measured_ms"`
	SetupMS    float64             `json:"setup_ms"`
	ResetMS    float64             `json:"reset_ms"`
	WaitMS     float64             `json:"wait_ms"`
	ServersMS  float64             `json:"servers_ms"`
	Studies    []results.StudyTime `json:"studies"`
}

type jsonTarget struct {
	Name             string            `json:"name"`
	Run              string            `json:"run,omitempty"`
	StoredName       string            `json:"stored_name,omitempty"`
	Kind             string            `json:"kind,omitempty"`
	Conn             string            `json:"conn,omitempty"`
	ServerVersion    string            `json:"server_version"`
	ServerVersionNum int               `json:"server_version_num"`
	DataChecksums    bool              `json:"data_checksums"`
	Settings         []results.Setting `json:"settings"`
	// Env is the environment the server ran in: the profile, each limit
	// and whether it was enforced (how) or not (why).
	Env *env.Record `json:"env,omitempty"`
}

type jsonSettingDiff struct {
	Name    string            `json:"name"`
	Values  map[string]string `json:"values"`
	Differs bool              `json:"differs_between_targets"`
}

type jsonHeadline struct {
	Study   string   `json:"study"`
	Measure string   `json:"measure"`
	Case    string   `json:"case"`
	Targets []string `json:"targets"`
	Values  []string `json:"values"`
	Changes []string `json:"changes"`
}

type jsonStudy struct {
	Name   string            `json:"name"`
	Title  string            `json:"title,omitempty"`
	Source string            `json:"source,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	Reps   int               `json:"reps"`
	// Version is the study's version its run ran (study.Info.Version);
	// omitted for runs stored before studies had versions.
	Version  int           `json:"version,omitempty"`
	Settings []string      `json:"settings,omitempty"`
	Targets  []string      `json:"targets"`
	Baseline string        `json:"baseline,omitempty"`
	Cases    []jsonCase    `json:"cases"`
	Metrics  []jsonMetric  `json:"metrics"`
	Geomeans []jsonGeomean `json:"geomeans,omitempty"`
	Outcomes []jsonOutcome `json:"outcomes,omitempty"`
	Notes    []jsonNote    `json:"notes,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
	// Outputs are the study's text artefacts, every repetition's.
	Outputs []jsonOutput `json:"outputs,omitempty"`
	// LoadRuns says how the study's load runs were sized: warm-up left
	// out, the window measured, the precision reached (the figures are
	// warmup_s, measured_s, tps_ci_pct and ended_by_precision).
	LoadRuns string `json:"load_runs,omitempty"`
	// Noise is the study's noise statement per target compared with
	// the baseline: how much of the spread came from the machine, what
	// the machine did during the steps, the rounds disturbed by foreign
	// load, and what would resolve what is unresolved.
	Noise []view.Noise `json:"noise,omitempty"`
	// Cards are the cause cards of the study's called changes: each
	// cause's figure on both sides per step, its change with its 95 %
	// interval over the rounds, its share of the change and its test;
	// what differs between the targets and what was not measured.
	Cards []jsonCard `json:"cause_cards,omitempty"`
}

// jsonCard is a cause card.
type jsonCard struct {
	Case      string          `json:"case"`
	Metric    string          `json:"metric"`
	Target    string          `json:"target"`
	Baseline  string          `json:"baseline"`
	Delta     float64         `json:"delta"`
	Unit      string          `json:"unit"`
	Explained float64         `json:"explained"`
	Tested    int             `json:"candidates_tested"`
	Causes    []explain.Cause `json:"causes"`
	Settings  []string        `json:"differences,omitempty"`
	Missing   []string        `json:"not_measured,omitempty"`
	Text      string          `json:"text"`
}

// jsonOutput is one text artefact: what the server (or a program) said
// in a case, on a target, in a repetition.
type jsonOutput struct {
	Name   string            `json:"name"`
	Title  string            `json:"title"`
	Case   string            `json:"case,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Target string            `json:"target"`
	Rep    int               `json:"rep,omitempty"`
	Text   string            `json:"text"`
}

type jsonCase struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	Key    string            `json:"key"`
	// Impact is the case's change weighed by its share of the whole, in
	// percent of the whole (a presentation's Impact).
	Impact *float64 `json:"impact_percent,omitempty"`
}

type jsonMetric struct {
	Case      string        `json:"case"`
	Metric    string        `json:"metric"`
	Unit      string        `json:"unit"`
	Direction string        `json:"direction"`
	Exact     bool          `json:"exact"`
	Primary   bool          `json:"primary"`
	Summaries []jsonSummary `json:"summaries"`
	Changes   []jsonChange  `json:"changes,omitempty"`
}

type jsonSummary struct {
	Target     string    `json:"target"`
	N          int       `json:"n"`
	Values     []float64 `json:"values"`
	Median     *float64  `json:"median"`
	CILow      *float64  `json:"ci_low"`
	CIHigh     *float64  `json:"ci_high"`
	Confidence *float64  `json:"confidence"`
	Min        *float64  `json:"min"`
	Max        *float64  `json:"max"`
	Text       string    `json:"text"`
	Warnings   []string  `json:"warnings,omitempty"`
}

type jsonChange struct {
	Target      string   `json:"target"`
	Baseline    string   `json:"baseline"`
	BaseMedian  *float64 `json:"baseline_median"`
	Median      *float64 `json:"median"`
	Ratio       *float64 `json:"ratio"`
	Percent     *float64 `json:"percent"`
	P           *float64 `json:"p"`
	NBaseline   int      `json:"n_baseline"`
	N           int      `json:"n"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	Verdict     string   `json:"verdict"`
	Text        string   `json:"text"`
	Detail      string   `json:"detail"`
	Stats       string   `json:"stats"`
	Warnings    []string `json:"warnings,omitempty"`

	// The report's verdict (compare.AnalyzeFamily): the adjusted p of the
	// family (null outside it), whether the change is called, its outcome
	// (changed, same, unresolved), the smallest change the repetitions
	// could have seen, the floor, and the Hodges-Lehmann ratio with its
	// interval.
	Q          *float64 `json:"q"`
	InFamily   bool     `json:"in_family"`
	Called     bool     `json:"called"`
	Outcome    string   `json:"outcome"`
	MDEPercent *float64 `json:"mde_percent"`
	Floor      float64  `json:"floor_percent"`
	BelowFloor bool     `json:"below_floor,omitempty"`
	RatioEst   *float64 `json:"ratio_estimate"`
	RatioLow   *float64 `json:"ratio_ci_low"`
	RatioHigh  *float64 `json:"ratio_ci_high"`
	RatioConf  *float64 `json:"ratio_ci_confidence"`

	// Under --reps auto: the looks the change was tested over; p is
	// then looks × the smallest p of the looks, raw_p the p of all the
	// repetitions, look_n the repetitions of the look that gave p and
	// same_look_n the look at which it was found same.
	Looks     int      `json:"looks,omitempty"`
	LookN     int      `json:"look_n,omitempty"`
	RawP      *float64 `json:"raw_p,omitempty"`
	SameLookN int      `json:"same_look_n,omitempty"`

	// A paired change (the rounds of one run): the rounds compared (its
	// outcome is always its own, from these rounds), its measure and that
	// measure's outcome as a whole (a statement about the measure, not
	// this case), and its noise: the spread of its rounds' changes and of
	// each side across the rounds (percent), the correlation of the two
	// sides across the rounds (what the machine moved together), and the
	// rounds an unresolved change would need.
	Pairs int `json:"pairs,omitempty"`
	// AdjustedFor names the covariate a paired change was adjusted for
	// (the machine's speed: pglab's own CPU over the step), with the
	// correlation of the rounds' changes with it.
	AdjustedFor     string   `json:"adjusted_for,omitempty"`
	AdjustCorr      *float64 `json:"adjust_correlation,omitempty"`
	Measure         string   `json:"measure,omitempty"`
	MeasureOutcome  string   `json:"measure_outcome,omitempty"`
	SpreadRound     *float64 `json:"spread_round_percent,omitempty"`
	SpreadSide      *float64 `json:"spread_side_percent,omitempty"`
	SideCorrelation *float64 `json:"side_correlation,omitempty"`
	RoundsNeeded    int      `json:"rounds_needed,omitempty"`
	// DisturbedRounds counts the rounds left out as disturbed by other
	// processes' CPU (the study's noise statement names them).
	DisturbedRounds int `json:"disturbed_rounds,omitempty"`
}

// jsonMeasure is one measure (a primary metric of a study over its
// cases) for one target: its own test when it has two or more paired
// cases (Stouffer's sum of its cases' z, in the report's family), its
// change as a whole (the precision-weighted mean of its cases' changes)
// and its outcome, a statement about the measure that no case takes as
// its own.
type jsonMeasure struct {
	Study     string   `json:"study"`
	Metric    string   `json:"metric"`
	Target    string   `json:"target"`
	Baseline  string   `json:"baseline"`
	Cases     int      `json:"cases"`
	Tested    bool     `json:"tested"`
	P         *float64 `json:"p"`
	RawP      *float64 `json:"raw_p"`
	Q         *float64 `json:"q"`
	LookN     int      `json:"look_n,omitempty"`
	RatioEst  *float64 `json:"ratio_estimate"`
	RatioLow  *float64 `json:"ratio_ci_low"`
	RatioHigh *float64 `json:"ratio_ci_high"`
	SameLow   *float64 `json:"same_ci_low"`
	SameHigh  *float64 `json:"same_ci_high"`
	Floor     float64  `json:"floor_percent"`
	Outcome   string   `json:"outcome"`
	Verdict   string   `json:"verdict"`
	CaseCalls int      `json:"case_calls"`
	CaseSame  int      `json:"case_same"`
}

// jsonRepsOf is --reps auto: the rule, its looks and family, the budget,
// and each case's repetitions with why it stopped there.
type jsonReps struct {
	Rule    string              `json:"rule"`
	Looks   []int               `json:"looks"`
	Family  int                 `json:"family"`
	Budget  string              `json:"budget,omitempty"`
	Studies []results.StudyReps `json:"studies"`
	// UnresolvedByBudget names the cases ("study · case") the budget
	// stopped with a primary figure unresolved.
	UnresolvedByBudget []string `json:"unresolved_by_budget,omitempty"`
}

// jsonFamily is the report's calls as one family of tests.
type jsonFamily struct {
	// Comparisons is the number of tests in the family (changes of
	// primary figures whose sizes can reach α).
	Comparisons int `json:"comparisons"`
	// RawSignificant is how many had p ≤ α before the correction, and
	// ExpectedRaw how many would by chance alone (α·comparisons).
	RawSignificant int     `json:"raw_significant"`
	ExpectedRaw    float64 `json:"expected_raw_significant"`
	// Called is the number of called changes of the family; ExactCalled
	// the primary exact figures that differ.
	Called      int `json:"called"`
	ExactCalled int `json:"exact_called"`
	// Q is the false discovery rate of the calls, MinChangePercent the
	// default floor.
	Q                float64 `json:"q"`
	MinChangePercent float64 `json:"min_change_percent"`
	// Text is the same in a sentence.
	Text string `json:"text"`
	// A paired family: its size (the cases' tests and MeasureTests
	// measures' own), its discoveries, the measures whose outcome is
	// changed, and each measure.
	Tests          int           `json:"tests,omitempty"`
	Discoveries    int           `json:"discoveries,omitempty"`
	MeasureTests   int           `json:"measure_tests,omitempty"`
	MeasuresCalled int           `json:"measures_changed,omitempty"`
	Measures       []jsonMeasure `json:"measures,omitempty"`
}

type jsonGeomean struct {
	Metric  string              `json:"metric"`
	Unit    string              `json:"unit"`
	Targets []jsonGeomeanTarget `json:"targets"`
}

type jsonGeomeanTarget struct {
	Target   string   `json:"target"`
	Cases    int      `json:"cases"`
	Value    *float64 `json:"value"`
	Ratio    *float64 `json:"ratio"`
	Percent  *float64 `json:"percent"`
	Delta    string   `json:"delta,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

type jsonOutcome struct {
	Case   string `json:"case"`
	Target string `json:"target"`
	Text   string `json:"text"`
	// DiffersFromBaseline is true when the baseline's outcome differs.
	DiffersFromBaseline bool `json:"differs_from_baseline"`
}

type jsonNote struct {
	Case   string            `json:"case,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Target string            `json:"target,omitempty"`
	Rep    int               `json:"rep,omitempty"`
	Metric string            `json:"metric,omitempty"`
	Text   string            `json:"text"`
}

func jtime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func jsonDocOf(v *view.Report) jsonDoc {
	d := v.Data
	doc := jsonDoc{DocFormat: "pglab-report", Version: JSONVersion, Title: v.Title, Alpha: v.Alpha, Generated: "pglab report", Notes: v.Notes}
	known := map[string]bool{}
	for _, sv := range v.Studies {
		known[sv.Name] = true
	}
	for _, n := range d.Notes {
		if !known[n.Study] && !n.Outcome {
			doc.RunNotes = append(doc.RunNotes, jsonNote{Labels: n.Case, Target: n.Target, Rep: n.Rep, Metric: n.Metric, Text: n.Text})
		}
	}
	doc.Runs = []jsonRun{}
	for _, r := range d.RunRecords() {
		jr := jsonRun{ID: r.ID, Kind: string(r.Kind), Status: string(r.Status), Error: r.Error,
			StartedAt: jtime(r.StartedAt), FinishedAt: jtime(r.FinishedAt), Version: r.Version,
			Command: r.Command, Host: r.Host}
		if len(r.Extra) > 0 && json.Valid(r.Extra) {
			jr.Extra = r.Extra
		}
		jr.Time = jsonTime(v, r.ID)
		doc.Runs = append(doc.Runs, jr)
	}
	doc.Targets = []jsonTarget{}
	for _, name := range d.TargetNames() {
		t, _ := d.Target(name)
		jt := jsonTarget{Name: name, Kind: string(t.Kind), Conn: t.Conn, ServerVersion: t.ServerVersion,
			ServerVersionNum: t.ServerVersionNum, DataChecksums: t.DataChecksums, Settings: t.Settings}
		if jt.Settings == nil {
			jt.Settings = []results.Setting{}
		}
		if o, ok := d.Origins[name]; ok {
			jt.Run, jt.StoredName = o.Run, o.Target
		}
		if r, ok := env.RecordOf(t.Extra); ok {
			jt.Env = &r
		}
		doc.Targets = append(doc.Targets, jt)
	}
	doc.Settings = []jsonSettingDiff{}
	for _, s := range v.Settings {
		js := jsonSettingDiff{Name: s.Name, Values: map[string]string{}, Differs: s.Differs}
		for i, t := range v.Targets {
			js.Values[t.Name] = s.Values[i]
		}
		doc.Settings = append(doc.Settings, js)
	}
	doc.AA, doc.Interleaved = d.AA(), d.Interleaved()
	if f := v.Family; f != nil {
		doc.ExpectedFalseCalls = f.ExpectedFalseCalls
		doc.Family = &jsonFamily{Comparisons: f.M, RawSignificant: f.RawSignificant, ExpectedRaw: f.ExpectedFalseRaw,
			Called: f.Called, ExactCalled: f.ExactCalled, Q: f.Alpha, MinChangePercent: f.MinChange * 100, Text: f.Text(),
			Tests: f.Tests, Discoveries: f.Discoveries, MeasureTests: f.MeasureTests, MeasuresCalled: f.MeasuresCalled}
		for _, m := range f.Measures {
			study, metric, _ := strings.Cut(m.Key, "\x00")
			doc.Family.Measures = append(doc.Family.Measures, jsonMeasure{Study: study, Metric: metric, Target: m.Target, Baseline: m.Baseline,
				Cases: m.Cases, Tested: m.Tested, P: view.Finite(m.P), RawP: view.Finite(m.RawP), Q: view.Finite(m.Q), LookN: m.Look,
				RatioEst: view.Finite(m.RatioEst), RatioLow: view.Finite(m.RatioLo), RatioHigh: view.Finite(m.RatioHi),
				SameLow: view.Finite(m.SameLo), SameHigh: view.Finite(m.SameHi), Floor: m.Floor * 100,
				Outcome: m.Outcome.String(), Verdict: m.Verdict.String(), CaseCalls: m.CaseCalls, CaseSame: m.CaseSame})
		}
	}
	doc.Repetitions = jsonRepsOf(v)
	doc.Summary = []jsonHeadline{}
	for _, ht := range v.Headlines {
		for _, h := range ht.Rows {
			jh := jsonHeadline{Study: h.Study, Measure: h.What, Case: h.Case, Targets: ht.Targets, Values: h.Values}
			for _, c := range h.Changes {
				jh.Changes = append(jh.Changes, c.Text)
			}
			doc.Summary = append(doc.Summary, jh)
		}
	}
	doc.Studies = []jsonStudy{}
	for _, sv := range v.Studies {
		doc.Studies = append(doc.Studies, jsonStudyOf(sv, d))
	}
	return doc
}

func jsonStudyOf(sv *view.Study, d *runs.Dataset) jsonStudy {
	js := jsonStudy{Name: sv.Name, Title: sv.Title, Source: sv.Source, Reps: sv.Reps, Targets: sv.Targets,
		Cases: []jsonCase{}, Metrics: []jsonMetric{}, Warnings: sv.General, LoadRuns: sv.LoadLine, Noise: sv.Noise}
	for _, cv := range sv.Cards {
		c := cv.Card
		causes := c.Causes
		if causes == nil {
			causes = []explain.Cause{}
		}
		js.Cards = append(js.Cards, jsonCard{Case: cv.Case, Metric: c.Metric, Target: c.Target, Baseline: c.Baseline,
			Delta: c.Delta, Unit: c.Unit, Explained: c.Explained, Tested: c.Candidates, Causes: causes, Settings: c.Settings, Missing: c.Missing, Text: cv.Explained})
	}
	if js.Targets == nil {
		js.Targets = []string{}
	}
	if info, ok := d.Study(sv.Name); ok {
		js.Params, js.Settings, js.Version = info.Params, info.Settings, info.Version
	}
	if len(sv.Targets) > 1 {
		js.Baseline = sv.Targets[0]
	}
	primary := map[string]bool{}
	for _, t := range sv.Tables {
		primary[t.Metric] = true
	}
	// Metrics in the order of the study's groups: case by case.
	byMetric := map[string][]*compare.Result{}
	var metricOrder []string
	for _, c := range sv.Cases {
		js.Cases = append(js.Cases, jsonCase{Name: c.Name, Labels: nonNil(c.Labels), Key: c.Key, Impact: view.Finite(c.Impact)})
	}
	for _, c := range sv.Cases {
		for _, mg := range sv.CaseGroup(c.Key).Metrics {
			res := sv.Results[c.Key][mg.Name]
			if res == nil {
				continue
			}
			js.Metrics = append(js.Metrics, jsonMetricOf(c.Name, res, primary[mg.Name]))
			if _, ok := byMetric[mg.Name]; !ok {
				metricOrder = append(metricOrder, mg.Name)
			}
			byMetric[mg.Name] = append(byMetric[mg.Name], res)
		}
	}
	for _, m := range metricOrder {
		rs := byMetric[m]
		if len(rs) < 2 || len(sv.Targets) < 2 {
			continue
		}
		g, err := compare.Geomean(rs)
		if err != nil {
			continue
		}
		jg := jsonGeomean{Metric: m, Unit: string(g.Metric.Unit)}
		for _, t := range g.Targets {
			gt := jsonGeomeanTarget{Target: t.Target, Cases: t.Cases, Delta: t.Delta, Warnings: t.Warnings}
			if t.HasValue {
				gt.Value = view.Finite(t.Value)
			}
			if t.HasRatio {
				gt.Ratio, gt.Percent = view.Finite(t.Ratio), view.Finite(t.Percent)
			}
			jg.Targets = append(jg.Targets, gt)
		}
		js.Geomeans = append(js.Geomeans, jg)
	}
	for _, r := range sv.Matrix {
		for i, c := range r.Cells {
			js.Outcomes = append(js.Outcomes, jsonOutcome{Case: r.Case.Name, Target: sv.Targets[i], Text: c.Text, DiffersFromBaseline: c.Class == "differs"})
		}
	}
	for _, n := range d.Notes {
		if n.Study != sv.Name || n.Outcome {
			continue
		}
		jn := jsonNote{Labels: n.Case, Target: n.Target, Rep: n.Rep, Metric: n.Metric, Text: n.Text}
		if len(n.Case) > 0 {
			jn.Case = caseName(sv, n.Case)
		}
		js.Notes = append(js.Notes, jn)
	}
	for _, g := range sv.Texts {
		for _, o := range d.Outputs {
			if o.Study != sv.Name || o.Name != g.Name {
				continue
			}
			jo := jsonOutput{Name: o.Name, Title: g.Head, Labels: o.Case, Target: o.Target, Rep: o.Rep, Text: o.Body}
			if len(o.Case) > 0 {
				jo.Case = caseName(sv, o.Case)
			}
			js.Outputs = append(js.Outputs, jo)
		}
	}
	return js
}

func jsonMetricOf(caseName string, res *compare.Result, primary bool) jsonMetric {
	jm := jsonMetric{Case: caseName, Metric: res.Metric.Name, Unit: string(res.Metric.Unit),
		Direction: res.Metric.Direction.String(), Exact: res.Metric.Exact, Primary: primary}
	for _, s := range res.Targets {
		vals := s.Values
		if vals == nil {
			vals = []float64{}
		}
		jm.Summaries = append(jm.Summaries, jsonSummary{
			Target: s.Target, N: s.N, Values: vals, Median: view.Finite(s.Center), CILow: view.Finite(s.Lo), CIHigh: view.Finite(s.Hi),
			Confidence: view.Finite(s.Confidence), Min: view.Finite(s.Min), Max: view.Finite(s.Max),
			Text: view.FormatSummary(s, res.Metric), Warnings: s.Warnings,
		})
	}
	for _, c := range res.Changes {
		jc := jsonChange{Target: c.Target, Baseline: c.Baseline, BaseMedian: view.Finite(c.BaseCenter), Median: view.Finite(c.Center),
			Ratio: view.Finite(c.Ratio), Percent: view.Finite(c.Percent), NBaseline: c.N1, N: c.N2, Alpha: c.Alpha,
			Significant: c.Significant, Verdict: c.Verdict.String(), Text: view.ChangeText(c), Detail: c.Detail(),
			Stats: c.Stats, Warnings: c.Warnings}
		if !res.Metric.Exact {
			jc.P = view.Finite(c.P)
		}
		jc.Q, jc.InFamily, jc.Called, jc.Outcome = view.Finite(c.Q), c.InFamily, c.Called, c.Outcome.String()
		jc.MDEPercent, jc.Floor, jc.BelowFloor = view.Finite(c.MDEPercent), c.Floor*100, c.BelowFloor
		jc.RatioEst, jc.RatioLow, jc.RatioHigh, jc.RatioConf = view.Finite(c.RatioEst), view.Finite(c.RatioLo), view.Finite(c.RatioHi), view.Finite(c.RatioConfidence)
		if c.Looks > 0 {
			jc.Looks, jc.LookN, jc.RawP, jc.SameLookN = c.Looks, c.Look, view.Finite(c.RawP), c.SameLook
		}
		jc.Pairs, jc.MeasureOutcome, jc.RoundsNeeded, jc.DisturbedRounds = c.Pairs, c.MeasureOutcome.String(), c.RoundsNeeded, c.Disturbed
		if c.Adjusted != "" {
			jc.AdjustedFor, jc.AdjustCorr = c.Adjusted, view.Finite(c.AdjustCorr)
		}
		if c.Pairs > 0 {
			jc.Measure = verdict.MeasureMetric(c.Measure)
			jc.SpreadRound, jc.SpreadSide, jc.SideCorrelation = view.Finite(c.SpreadRound), view.Finite(c.SpreadSide), view.Finite(c.SideCorrelation)
		}
		jm.Changes = append(jm.Changes, jc)
	}
	return jm
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// caseName is the study's name for a case.
func caseName(sv *view.Study, labels map[string]string) string {
	key := results.CaseKey(labels)
	for _, c := range sv.Cases {
		if c.Key == key {
			return c.Name
		}
	}
	return runs.CaseTitle(labels)
}

// jsonTime is the split of a run's wall time, nil when it stored none.
func jsonTime(v *view.Report, runID string) *jsonRunTime {
	for _, rt := range v.Data.Timings {
		if rt.Run != runID {
			continue
		}
		jt := &jsonRunTime{ServersMS: millis(rt.Servers), Studies: rt.Studies}
		for _, r := range v.Times {
			if r.Study == "whole run" && (r.Run == "" || r.Run == runID) {
				jt.WallMS, jt.MeasuredMS, jt.ResetMS, jt.WaitMS = millis(r.TookDur), millis(r.MeasuredDur), millis(r.ResetDur), millis(r.WaitDur)
				jt.SetupMS = millis(max(0, r.TookDur-r.MeasuredDur-r.ResetDur-r.WaitDur))
			}
		}
		return jt
	}
	return nil
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// jsonRepsOf is the repetitions for report.json, nil for fixed counts.
func jsonRepsOf(v *view.Report) *jsonReps {
	e := v.Data.RepsExtra()
	if v.Reps.Rule == "" || e.Design == nil {
		return nil
	}
	j := &jsonReps{Rule: v.Reps.Rule, Looks: e.Design.Looks, Family: e.Design.Family, Budget: e.Budget, Studies: v.Data.Reps}
	for _, sr := range v.Data.Reps {
		for _, c := range sr.Cases {
			if c.Reason == compare.StopBudget {
				j.UnresolvedByBudget = append(j.UnresolvedByBudget, sr.Study+" · "+c.Name)
			}
		}
	}
	return j
}
