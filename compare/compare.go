package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"golang.org/x/perf/benchmath"
)

// DefaultAlpha is the significance level used when Options.Alpha is 0, as
// benchstat's -alpha default.
const DefaultAlpha = 0.05

// DefaultConfidence is the confidence level of the intervals when
// Options.Confidence is 0, as benchstat's -confidence default.
const DefaultConfidence = 0.95

// Options tunes the statistics. The zero value gives benchstat's defaults.
type Options struct {
	// Alpha is the significance level of the Mann-Whitney U test: a change
	// is reported when p <= Alpha (benchstat prints "~" only when
	// p > Alpha). 0 means DefaultAlpha; otherwise it must be in (0, 1).
	Alpha float64

	// Confidence is the requested confidence level of the interval of
	// the median. 0 means DefaultConfidence; otherwise it must be in
	// (0, 1).
	Confidence float64

	// MinChange is the practical floor of AnalyzeFamily as a fraction of
	// the baseline (0.05 = 5 %): smaller changes are never called, and a
	// change whose interval lies within ± MinChange is "same". 0 means
	// DefaultMinChange, a negative value (NoFloor) a floor of 0; it must
	// be below 1. Cells may set their own (Cell.Floor). Analyze ignores
	// it.
	MinChange float64

	// Design, when set, is the sequential design the repetitions were
	// chosen by (--reps auto): AnalyzeFamily then tests each change of a
	// callable cell with its sequential p over the design's looks (see
	// Design). Nil is a fixed number of repetitions. Analyze ignores it.
	Design *Design

	// Paired makes AnalyzeFamily analyse the family as paired rounds in
	// a hierarchy of measures and cases (see AnalyzeFamily and
	// paired.go, gate.go, hierarchy.go): each change whose samples carry
	// their rounds (Input.Rounds) is tested on its rounds' changes, and
	// each measure (Cell.Measure) is tested as a whole before its cases.
	// Analyze ignores it.
	Paired bool
}

// Input holds the samples of one metric for one case (one study with one
// set of parameters) on several targets.
type Input struct {
	// Metric describes the samples.
	Metric Metric

	// Baseline is the name of the target the others are compared with.
	// Empty means no comparison: Analyze then only summarises each target.
	Baseline string

	// Order is the order of the targets in the result. Targets of
	// Samples that it does not name follow in name order; a baseline it
	// does not name comes first if Order is empty, else after the named
	// targets.
	Order []string

	// Samples maps a target's name to its measurements in repetition
	// order. Values must be finite. A target with no samples (a failed
	// run), or named by Baseline or Order but absent from Samples, is
	// summarised with the warning "no samples" and its comparison has
	// the verdict Unknown.
	Samples map[string][]float64

	// Rounds, when set, maps a target's name to the round (repetition
	// number) of each of its samples, in the order of Samples: the
	// baseline's and a target's values of one round ran next to each
	// other, and a paired analysis (Options.Paired) compares them round
	// by round. A target without rounds is compared unpaired.
	Rounds map[string][]int

	// Disturbed lists rounds that a paired analysis leaves out: rounds
	// in which something outside the targets (another process's CPU)
	// disturbed a side. Which rounds is decided without looking at which
	// target ran where, so leaving them out keeps the tests valid; the
	// summaries of each target keep every value.
	Disturbed []int

	// Covariate, when set, maps a target's name to a figure measured
	// in the same steps as Samples (in their order) that moves with the
	// machine's speed and not with the target — pglab's own CPU over the
	// step: a paired change is adjusted for it (covariate.go).
	// CovariateName names it.
	Covariate     map[string][]float64
	CovariateName string
}

// Result is the analysis of one Input.
type Result struct {
	// Metric is the Input's metric.
	Metric Metric

	// Baseline is the baseline target's name, or "" if there was none.
	Baseline string

	// Alpha and Confidence are the levels used (defaults filled in).
	Alpha, Confidence float64

	// Targets holds one summary per target, in the Input's order.
	Targets []Summary

	// Changes holds one comparison with the baseline per other target,
	// in the same order as Targets. It is empty without a baseline.
	Changes []Change
}

// Summary describes the samples of one target.
//
// Its float fields may be NaN or infinite where documented, which
// encoding/json refuses to encode: a JSON writer must map them (e.g. to
// null) first. The same holds for Change.
type Summary struct {
	// Target is the target's name.
	Target string

	// Values are the samples in repetition order (a copy of the input).
	Values []float64

	// N is the number of samples.
	N int

	// Center is the median of the samples (benchmath's AssumeNothing
	// summary). For an exact metric it is the most frequent value, which
	// is simply the value when the repetitions agree. NaN when N is 0.
	Center float64

	// Lo and Hi bound the confidence interval of Center. One or both
	// are infinite (-Inf, +Inf) when there are too few samples for the
	// requested level (fewer than 6 at 0.95), and NaN when N is 0. For
	// an exact metric they are the smallest and the largest sample.
	Lo, Hi float64

	// Confidence is the actual confidence level of [Lo, Hi], which is at
	// least the requested one when the interval is bounded (1 for an
	// exact metric).
	Confidence float64

	// Min and Max are the smallest and the largest sample (NaN when N is
	// 0).
	Min, Max float64

	// PctRange is the half-width of the interval as benchstat prints it
	// after "±": the larger of Hi/Center-1 and 1-Lo/Center as a whole
	// percentage ("3%"), "∞" when the interval is unbounded, "?" when its
	// bounds and Center differ in sign. Empty when N is 0.
	PctRange string

	// Warnings are problems the reader must see, in benchstat's words,
	// e.g. "need >= 6 samples for confidence interval at level 0.95" or
	// "exact distribution expected, but values range from 100 to 101".
	Warnings []string
}

// HasCI reports whether the confidence interval is bounded on both sides.
func (s Summary) HasCI() bool {
	return s.N > 0 && !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0)
}

// Change is the comparison of one target with the baseline.
type Change struct {
	// Metric is the compared metric (for the formatting methods).
	Metric Metric

	// Baseline and Target name the two compared targets.
	Baseline, Target string

	// BaseCenter and Center are the two summaries compared (medians, or
	// for exact metrics the most frequent values), in the metric's unit.
	BaseCenter, Center float64

	// P is the two-sided Mann-Whitney U test's p-value: exact (given the
	// ties) up to 50 values a side, 25 with ties, else the normal
	// approximation. It is 1 when all samples of both sides are equal
	// (as benchstat), 0 for an exact metric (no test is done), and NaN
	// when a side has no samples. It is never below MinP.
	P float64

	// N1 and N2 are the sample sizes of the baseline and of the target.
	N1, N2 int

	// Alpha is the significance level used.
	Alpha float64

	// Significant reports whether the change is real: p <= Alpha with
	// enough samples for the test to reach Alpha (MinP <= Alpha), or for
	// an exact metric, whether the two values differ. Analyze tests each
	// change alone; after AnalyzeFamily it is Outcome == OutcomeChanged.
	Significant bool

	// Ratio is Center/BaseCenter: 1 when both are equal (0/0 included),
	// NaN when BaseCenter is 0 and Center is not.
	Ratio float64

	// Percent is the change relative to the baseline, in percent:
	// (Center-BaseCenter)/|BaseCenter|*100. It has the sign of the
	// difference even for negative values. NaN when BaseCenter is 0 and
	// Center is not.
	Percent float64

	// Delta is benchstat's "vs base" text: "~" when not significant,
	// otherwise the change of the centers as "%+.2f%%" ("-17.20%"),
	// "0.00%" when they are equal, or "?" when the baseline is 0 or a side
	// has no samples.
	Delta string

	// Stats is benchstat's parenthesised part without the parentheses:
	// "p=0.002 n=5", "p=0.690 n=5+4", or "n=1" when P is 0 (exact
	// metrics).
	Stats string

	// Verdict classifies the change using the metric's direction.
	Verdict Verdict

	// Warnings are problems the reader must see, in benchstat's words,
	// e.g. "need >= 4 samples to detect a difference at alpha level 0.05"
	// or "all samples are equal". benchstat warns about sample sizes only
	// when both sides are too small; when they differ in size (3+4,
	// 1+10) and the smallest possible p is still above Alpha, Analyze
	// adds "need more samples to detect a difference at alpha level
	// 0.05: the smallest p-value possible with n=3+4 is 0.057".
	Warnings []string

	// MinP is the smallest p-value the U test can give for N1 and N2
	// samples (UTestMinP). A change with MinP > Alpha can never be
	// significant, and a p below MinP is impossible and never
	// significant either. NaN for an exact comparison (no test).
	MinP float64

	// RatioEst is the Hodges-Lehmann estimate of Center/BaseCenter: the
	// median of the N1·N2 pairwise ratios target/baseline (computed on
	// log values). It is what the floor and the outcome texts use; it is
	// close to, but not always equal to, Ratio, the ratio of the
	// medians. When a value is ≤ 0, logs are impossible: RelativeDiff is
	// set and RatioEst is 1 + (median of the pairwise differences) /
	// |baseline median|. NaN when that median is 0 or a side has no
	// samples. For an exact comparison it is Ratio.
	RatioEst float64

	// RatioLo and RatioHi are the exact Moses confidence limits of
	// RatioEst at level 1 − Alpha (95 % by default), valid for unequal
	// N1 and N2; RatioConfidence is their actual coverage (≥ 1 − Alpha,
	// e.g. 0.968 at n=5+5). When the samples are too small for that
	// level (MinP > Alpha) the interval is unbounded: RatioLo is 0 (−Inf
	// when RelativeDiff) and RatioHi +Inf, with RatioConfidence 1. NaN
	// when RatioEst is NaN; equal to RatioEst for an exact comparison.
	RatioLo, RatioHi float64

	// RatioConfidence is the actual coverage of [RatioLo, RatioHi].
	RatioConfidence float64

	// SameLo and SameHi are the Moses limits at level 1 − 2·Alpha (90 %
	// by default), the interval of the equivalence decision ("same":
	// two one-sided tests at level Alpha, Schuirmann's TOST).
	SameLo, SameHi float64

	// RelativeDiff reports that the ratio fields were computed from
	// differences relative to the baseline median because a value was
	// ≤ 0 (see RatioEst).
	RelativeDiff bool

	// MDEPercent is the smallest change, in percent of the baseline, that
	// these repetitions could have detected: the half-width of the Moses
	// interval of the ratio at the two-sided level MDEAlpha, (exp((log
	// hi − log lo)/2) − 1)·100. A true change of that size would be
	// significant about half of the time; smaller ones mostly go unseen.
	// +Inf when N1 and N2 are too small to reach MDEAlpha at all, NaN
	// without an estimate, 0 for an exact comparison. Analyze uses
	// MDEAlpha = Alpha; AnalyzeFamily uses the p a change of the family
	// needs to be called under Benjamini-Hochberg (see Family).
	MDEPercent float64

	// MDEAlpha is the two-sided level MDEPercent refers to.
	MDEAlpha float64

	// The fields below are set by AnalyzeFamily only. Analyze leaves Q
	// NaN and Outcome OutcomeNone.

	// InFamily reports that the change is one of the family's tests: a
	// callable cell compared with the U test whose sample sizes can
	// reach p ≤ Alpha.
	InFamily bool

	// Q is the Benjamini-Hochberg adjusted p-value within the family
	// (NaN outside it).
	Q float64

	// Twin is the key of the cell whose test this change repeats (see
	// Cell.Twin); its Q is that change's. Empty for a test of its own.
	Twin string

	// FamilySize is the number of tests in the change's family (0
	// outside it).
	FamilySize int

	// Called reports that the change is called a change: in the family
	// with Q ≤ Alpha, an attainable p and |RatioEst − 1| ≥ Floor, or a
	// callable exact comparison whose values differ. When AnalyzeFamily
	// set the outcome, Significant equals Called and Verdict and Delta
	// follow it.
	Called bool

	// Outcome is changed, same or unresolved (see Outcome).
	Outcome Outcome

	// Floor is the practical floor used, as a fraction (0.05 = 5 %).
	Floor float64

	// FloorText, when set, says the floor in a report's words (a floor
	// set from another figure, Cell.FloorText); the outcome texts use it
	// in place of "±5 %".
	FloorText string

	// Looks is the number of looks of the sequential design the change
	// was tested over (Options.Design), 0 without one. P is then the
	// sequential p, Looks × the smallest p of the looks; RawP is the p
	// of all the repetitions, and Look the repetitions per side of the
	// look whose p gave P. SameLook is the look at which the change was
	// found same (0 when it was not).
	Looks, Look, SameLook int

	// RawP is the U test's p over all the repetitions; equal to P
	// without a design.
	RawP float64

	// BelowFloor reports a change that passed the test (Q ≤ Alpha, or
	// p ≤ Alpha outside the family) but whose size is below Floor: it
	// prints as "~ (below floor)", never as a change.
	BelowFloor bool

	// The fields below are set by a paired analysis (Options.Paired).

	// Pairs is the number of rounds in which both sides ran, when the
	// change was tested on them (0: tested unpaired). P is then the
	// paired t test's p of the rounds' changes, RatioEst their geometric
	// mean and the limits Student's.
	Pairs int

	// Measure is the key of the measure the change belongs to (its
	// cell's Measure, or its key).
	Measure string

	// Adjusted names the covariate a paired change was adjusted for
	// (Input.CovariateName), empty when it was not; AdjustCorr is the
	// correlation of the rounds' changes with the covariate's.
	Adjusted   string
	AdjustCorr float64

	// MeasureOutcome is the outcome of the change's measure as a whole
	// (MeasureResult), a statement about the measure beside the case's
	// own; OutcomeNone outside a paired family. MeasureRatio is that
	// measure's change as a whole (NaN when it has none).
	MeasureOutcome Outcome
	MeasureRatio   float64

	// The noise of a paired change (NaN when not paired or under 3
	// rounds): SpreadRound is the standard deviation of its rounds'
	// changes and SpreadSide that of each side across the rounds, in
	// percent; SideCorrelation the correlation of the two sides across
	// the rounds, the share of their spread that moved both sides of a
	// round together (the machine, not the targets). RoundsNeeded
	// estimates the rounds an unresolved change would need to be called
	// or found the same at its present estimate and spread (0: resolved,
	// or not known).
	SpreadRound, SpreadSide, SideCorrelation float64
	RoundsNeeded                             int

	// Disturbed is the number of rounds left out of the paired test as
	// disturbed (Input.Disturbed).
	Disturbed int

	// Repeated reports a figure compared exactly because each side
	// repeated its value in every round (at least 3), although its
	// metric is not an exact one: it is changed when the values differ
	// by at least the floor, else the same.
	Repeated bool
}

// String returns the change as benchstat prints it in its "vs base" column:
// Delta followed by Stats in parentheses, e.g. "~ (p=0.690 n=5)" or
// "-31.48% (p=0.008 n=5)".
func (c Change) String() string {
	return c.Delta + " (" + c.Stats + ")"
}

// Verdict classifies a change.
type Verdict int

const (
	// Unknown means no comparison was possible (a side had no samples).
	Unknown Verdict = iota
	// NotSignificant means the test found no significant difference
	// (benchstat's "~").
	NotSignificant
	// Same means the values are equal: an exact metric that did not
	// change, or a significant test whose medians are equal.
	Same
	// Better is a significant change in the good direction.
	Better
	// Worse is a significant change in the bad direction.
	Worse
	// Higher is a significant increase of a Neutral metric.
	Higher
	// Lower is a significant decrease of a Neutral metric.
	Lower
)

// String returns the verdict's name: "unknown", "~", "same", "better",
// "worse", "higher" or "lower". Change.Word gives the metric-specific word.
func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return fmt.Sprintf("Verdict(%d)", int(v))
	}
	return verdictNames[v]
}

// verdictNames lists the names Verdict.String returns, by value.
var verdictNames = []string{"unknown", "~", "same", "better", "worse", "higher", "lower"}

// MarshalText encodes v as its name (see String), so that JSON shows
// "better" rather than a number.
func (v Verdict) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("compare: invalid verdict %d", int(v))
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText decodes a name written by MarshalText.
func (v *Verdict) UnmarshalText(text []byte) error {
	for i, name := range verdictNames {
		if name == string(text) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("compare: unknown verdict %q", text)
}

// Word returns the verdict in the metric's terms: "faster" and "slower" for
// durations (lower is better) and rates (higher is better), otherwise
// "better" and "worse"; "higher" and "lower" for neutral metrics; "~" and
// "same" as they are; "?" for Unknown.
func (c Change) Word() string {
	switch c.Verdict {
	case Better:
		if speedWords(c.Metric) {
			return "faster"
		}
		return "better"
	case Worse:
		if speedWords(c.Metric) {
			return "slower"
		}
		return "worse"
	case Unknown:
		return "?"
	}
	return c.Verdict.String()
}

// Target returns the summary of the named target.
func (r *Result) Target(name string) (Summary, bool) {
	for _, s := range r.Targets {
		if s.Target == name {
			return s, true
		}
	}
	return Summary{}, false
}

// Change returns the comparison of the named target with the baseline.
func (r *Result) Change(name string) (Change, bool) {
	for _, c := range r.Changes {
		if c.Target == name {
			return c, true
		}
	}
	return Change{}, false
}

// Analyze summarises each target of in and compares each with the baseline.
// It returns an error for input it cannot analyse: no targets, a target
// with an empty name, a repeated Order entry, a value that is NaN or
// infinite, or options out of range.
//
// Analyze looks at one cell alone: its Significant is the raw test at
// Alpha. A report of many cells should use AnalyzeFamily, which corrects
// for the number of tests and applies the practical floor.
func Analyze(in Input, opts Options) (*Result, error) {
	res, _, err := analyze(in, opts, false)
	return res, err
}

// analyze is Analyze, also returning the pairwise differences behind each
// change (nil for exact comparisons and missing sides). With testVaried,
// an exact metric whose values vary within a side is compared with the U
// test instead of benchstat's comparison of the most frequent values.
func analyze(in Input, opts Options, testVaried bool) (*Result, []*effect, error) {
	alpha, confidence, err := opts.levels()
	if err != nil {
		return nil, nil, err
	}
	order, err := in.order()
	if err != nil {
		return nil, nil, err
	}
	for _, name := range order {
		for i, v := range in.Samples[name] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("compare %s: target %q, repetition %d: value %v is not a finite number", metricLabel(in.Metric), name, i+1, v)
			}
		}
	}

	res := &Result{
		Metric:     in.Metric,
		Baseline:   in.Baseline,
		Alpha:      alpha,
		Confidence: confidence,
	}
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = alpha
	for _, name := range order {
		values := in.Samples[name]
		var sample *benchmath.Sample
		if len(values) > 0 {
			// NewSample sorts in place: give it a copy.
			sample = benchmath.NewSample(slices.Clone(values), &thresholds)
		}
		res.Targets = append(res.Targets, summarize(name, values, sample, in.Metric, confidence))
	}
	if in.Baseline == "" {
		return res, nil, nil
	}
	base, _ := res.Target(in.Baseline)
	var effects []*effect
	for _, sum := range res.Targets {
		if sum.Target == in.Baseline {
			continue
		}
		c, e := compareTargets(in.Metric, alpha, base, sum, testVaried)
		c.RawP = c.P
		res.Changes = append(res.Changes, c)
		effects = append(effects, e)
	}
	return res, effects, nil
}

// levels returns the options with the defaults filled in.
func (o Options) levels() (alpha, confidence float64, err error) {
	alpha, confidence = o.Alpha, o.Confidence
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if confidence == 0 {
		confidence = DefaultConfidence
	}
	if !(alpha > 0 && alpha < 1) {
		return 0, 0, fmt.Errorf("compare: alpha %v must be in (0, 1)", o.Alpha)
	}
	if !(confidence > 0 && confidence < 1) {
		return 0, 0, fmt.Errorf("compare: confidence %v must be in (0, 1)", o.Confidence)
	}
	return alpha, confidence, nil
}

// order returns the targets of in in result order, checking the names.
func (in Input) order() ([]string, error) {
	label := metricLabel(in.Metric)
	if len(in.Samples) == 0 && len(in.Order) == 0 && in.Baseline == "" {
		return nil, fmt.Errorf("compare %s: no targets", label)
	}
	if _, ok := in.Samples[""]; ok {
		return nil, fmt.Errorf("compare %s: a target has an empty name", label)
	}
	var order []string
	seen := make(map[string]bool, len(in.Samples))
	for _, name := range in.Order {
		if name == "" {
			return nil, fmt.Errorf("compare %s: the order names a target with an empty name", label)
		}
		if seen[name] {
			return nil, fmt.Errorf("compare %s: target %q appears twice in the order", label, name)
		}
		seen[name] = true
		order = append(order, name)
	}
	if in.Baseline != "" && !seen[in.Baseline] {
		seen[in.Baseline] = true
		if len(in.Order) == 0 {
			order = append([]string{in.Baseline}, order...)
		} else {
			order = append(order, in.Baseline)
		}
	}
	rest := make([]string, 0, len(in.Samples))
	for name := range in.Samples {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(order, rest...), nil
}

// metricLabel names a metric in error messages.
func metricLabel(m Metric) string {
	if m.Name != "" {
		return fmt.Sprintf("%q", m.Name)
	}
	return "metric"
}

// assumption returns the benchmath assumption for a metric.
func assumption(m Metric) benchmath.Assumption {
	if m.Exact {
		return benchmath.AssumeExact
	}
	return benchmath.AssumeNothing
}

// summarize describes the samples of one target: values in repetition
// order, and sample, their benchmath sample (nil when there are none).
func summarize(name string, values []float64, sample *benchmath.Sample, m Metric, confidence float64) Summary {
	sum := Summary{Target: name, Values: slices.Clone(values), N: len(values)}
	if sample == nil {
		nan := math.NaN()
		sum.Center, sum.Lo, sum.Hi, sum.Min, sum.Max = nan, nan, nan, nan, nan
		sum.Warnings = []string{"no samples"}
		return sum
	}
	s := assumption(m).Summary(sample, confidence)
	sum.Center, sum.Lo, sum.Hi, sum.Confidence = s.Center, s.Lo, s.Hi, s.Confidence
	sum.Min, sum.Max = sample.Values[0], sample.Values[len(sample.Values)-1]
	sum.PctRange = s.PctRangeString()
	sum.Warnings = appendWarnings(sum.Warnings, sample.Warnings)
	sum.Warnings = appendWarnings(sum.Warnings, s.Warnings)
	return sum
}

// compareTargets compares the target summarised by t with the baseline
// summarised by b. It returns the change and, for a U-test comparison, the
// pairwise differences of the two samples. An exact metric is compared
// exactly unless testVaried is set and its values vary within a side.
func compareTargets(m Metric, alpha float64, b, t Summary, testVaried bool) (Change, *effect) {
	nan := math.NaN()
	c := Change{
		Metric:     m,
		Baseline:   b.Target,
		Target:     t.Target,
		BaseCenter: b.Center,
		Center:     t.Center,
		N1:         b.N,
		N2:         t.N,
		Alpha:      alpha,
		MinP:       nan,
		RatioEst:   nan, RatioLo: nan, RatioHi: nan, RatioConfidence: nan,
		SameLo: nan, SameHi: nan,
		MDEPercent: nan, MDEAlpha: alpha,
		Q:           nan,
		SpreadRound: nan, SpreadSide: nan, SideCorrelation: nan,
	}
	if b.N == 0 || t.N == 0 {
		c.P, c.Ratio, c.Percent = nan, nan, nan
		c.Delta = "?"
		c.Stats = benchmath.Comparison{N1: c.N1, N2: c.N2}.String()
		c.Verdict = Unknown
		for _, s := range []Summary{b, t} {
			if s.N == 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("no samples for %s", s.Target))
			}
		}
		return c, nil
	}
	c.Ratio, c.Percent = ratio(b.Center, t.Center)
	if m.Exact && (!testVaried || constant(b.Values) && constant(t.Values)) {
		c.compareExactly(b, t)
		return c, nil
	}
	e := c.uTest(b, t)
	c.Verdict = verdict(Metric{Direction: m.Direction}, c.Significant, b.Center, t.Center)
	return c, e
}

// compareExactly compares b and t as an exact metric: no test, the values
// are what they are.
func (c *Change) compareExactly(b, t Summary) {
	// Comparison's zero Alpha keeps FormatDelta from printing "~", as
	// benchmath's AssumeExact.
	cmp := benchmath.Comparison{N1: c.N1, N2: c.N2}
	c.Delta = cmp.FormatDelta(b.Center, t.Center)
	c.Stats = cmp.String()
	c.Significant = b.Center != t.Center
	c.P, c.MinP, c.RawP = 0, math.NaN(), 0
	c.RatioEst, c.RatioLo, c.RatioHi, c.RatioConfidence = c.Ratio, c.Ratio, c.Ratio, 1
	c.SameLo, c.SameHi = c.Ratio, c.Ratio
	c.MDEPercent = 0
	c.Warnings = nil
	c.Verdict = verdict(c.Metric, c.Significant, b.Center, t.Center)
}

// uTest fills in the U test and the effect estimates of c.
func (c *Change) uTest(b, t Summary) *effect {
	_, p, err := uTest(b.Values, t.Values)
	cmp := benchmath.Comparison{P: p, N1: c.N1, N2: c.N2, Alpha: c.Alpha}
	c.MinP = uTestMinP(c.N1, c.N2)
	if err != nil {
		cmp.Warnings = []error{err}
	} else if p > c.Alpha {
		if w := needSamplesWarning(c.N1, c.N2, c.Alpha); w != "" {
			cmp.Warnings = []error{errors.New(w)}
		}
	}
	c.P = p
	c.Significant = attainable(p, c.MinP, c.Alpha)
	c.Delta = cmp.FormatDelta(b.Center, t.Center)
	if !c.Significant {
		c.Delta = "~"
	}
	c.Stats = cmp.String()
	c.Warnings = appendWarnings(c.Warnings, cmp.Warnings)
	if c.Metric.Exact {
		c.Warnings = append(c.Warnings, "exact metric varied between repetitions: compared with the U test")
	}
	if !c.Significant && len(cmp.Warnings) == 0 && c.MinP > c.Alpha {
		// benchmath warns about too few samples only when both sides
		// are below the size needed; with unequal sizes (say 3+4 or
		// 1+10) a difference may still be out of reach.
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"need more samples to detect a difference at alpha level %v: the smallest p-value possible with n=%d+%d is %.3f",
			c.Alpha, c.N1, c.N2, c.MinP))
	}
	e := newEffect(b.Values, t.Values)
	c.RelativeDiff = e.scale == scaleDiff
	c.RatioEst = e.estimate()
	c.RatioLo, c.RatioHi, c.RatioConfidence = e.interval(c.Alpha)
	c.SameLo, c.SameHi, _ = e.interval(math.Min(2*c.Alpha, 1))
	c.MDEPercent = e.halfWidthPercent(c.Alpha)
	return e
}

// attainable reports whether p is significant at alpha and could have come
// out of the U test at all: a p below minP, the smallest p the sample
// sizes allow, is an error somewhere and never significant, nor is any p
// when minP > alpha.
func attainable(p, minP, alpha float64) bool {
	const slack = 1e-9 // rounding in p and minP
	return p <= alpha*(1+slack) && minP <= alpha*(1+slack) && p >= minP*(1-slack)
}

// constant reports whether all values of x are equal.
func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// ratio returns new/old and the relative change in percent, with 0/0 taken
// as no change and x/0 as undefined (NaN).
func ratio(old, new float64) (r, pct float64) {
	switch {
	case old == new:
		return 1, 0
	case old == 0:
		return math.NaN(), math.NaN()
	}
	return new / old, (new - old) / math.Abs(old) * 100
}

// verdict classifies a change of a metric from old to new.
func verdict(m Metric, significant bool, old, new float64) Verdict {
	switch {
	case old == new:
		if significant || m.Exact {
			return Same
		}
		return NotSignificant
	case !significant:
		return NotSignificant
	}
	up := new > old
	switch m.Direction {
	case HigherIsBetter:
		if up {
			return Better
		}
		return Worse
	case LowerIsBetter:
		if up {
			return Worse
		}
		return Better
	}
	if up {
		return Higher
	}
	return Lower
}

// uTestMinP returns the smallest two-sided p-value the exact Mann-Whitney U
// test can give for samples of sizes n1 and n2: both samples completely
// apart, 2/C(n1+n2, n1), at most 1.
func uTestMinP(n1, n2 int) float64 {
	k, n := min(n1, n2), n1+n2
	if k <= 0 {
		return 1
	}
	c := 1.0 // C(n, k), built up as C(n-k+i, i)
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// appendWarnings appends the messages of errs to ws.
func appendWarnings(ws []string, errs []error) []string {
	for _, err := range errs {
		if err != nil {
			ws = append(ws, err.Error())
		}
	}
	return ws
}
