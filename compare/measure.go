package compare

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/aclements/go-moremath/stats"
)

// MeasureSummary summarises one metric of one target across the cases of
// a report (the report's summary row), without cherry-picking: counts of
// the outcomes, the direction of the called changes, their geometric
// mean, and the largest change only when it was called.
type MeasureSummary struct {
	// Metric and Target are the changes' metric and target; Baseline
	// their baseline.
	Metric           Metric
	Target, Baseline string

	// Cases is the number of changes summarised.
	Cases int

	// Changed, Same and Unresolved count the outcomes. Changed counts
	// called changes and the changed exact comparisons of auxiliary
	// cells; Called counts the calls alone.
	Changed, Same, Unresolved, Called int

	// Better, Worse, Higher and Lower count the called changes by
	// verdict (Higher and Lower for neutral metrics).
	Better, Worse, Higher, Lower int

	// BelowFloor counts changes that passed the test below the floor.
	BelowFloor int

	// Geomean is the geometric mean of RatioEst over the called changes
	// (target/baseline); HasGeomean is false when nothing was called or a
	// ratio is not > 0.
	Geomean    float64
	HasGeomean bool

	// Largest is the index (in the input) of the called change with the
	// largest |log RatioEst|, or -1 when nothing was called.
	Largest int

	// largest is the change at Largest.
	largest Change
}

// SummarizeMeasure summarises changes, the changes of one metric of one
// target against one baseline across cases, as decided by AnalyzeFamily.
// It returns an error when changes is empty, mixes metrics, targets or
// baselines, or holds a change without an outcome.
func SummarizeMeasure(changes []Change) (MeasureSummary, error) {
	if len(changes) == 0 {
		return MeasureSummary{}, errors.New("compare: summary of no changes")
	}
	first := changes[0]
	s := MeasureSummary{Metric: first.Metric, Target: first.Target, Baseline: first.Baseline, Cases: len(changes), Largest: -1}
	var ratios []float64
	best := -1.0
	for i, c := range changes {
		if c.Metric != first.Metric || c.Target != first.Target || c.Baseline != first.Baseline {
			return MeasureSummary{}, fmt.Errorf("compare: summary: change %d is %s %s/%s, change 1 is %s %s/%s",
				i+1, metricLabel(c.Metric), c.Target, c.Baseline, metricLabel(first.Metric), first.Target, first.Baseline)
		}
		switch c.Outcome {
		case OutcomeNone:
			return MeasureSummary{}, fmt.Errorf("compare: summary: change %d has no outcome (not from AnalyzeFamily)", i+1)
		case OutcomeChanged:
			s.Changed++
		case OutcomeSame:
			s.Same++
		case OutcomeUnresolved:
			s.Unresolved++
		}
		if c.BelowFloor {
			s.BelowFloor++
		}
		if !c.Called {
			continue
		}
		s.Called++
		s.countVerdict(c.Verdict)
		r := c.RatioEst
		ratios = append(ratios, r)
		size := math.Abs(math.Log(r))
		if !(r > 0) || math.IsInf(size, 0) {
			size = math.Inf(1)
		}
		if size > best {
			best, s.Largest, s.largest = size, i, c
		}
	}
	if g := stats.GeoMean(ratios); len(ratios) > 0 && g > 0 && !math.IsInf(g, 0) {
		s.Geomean, s.HasGeomean = g, true
	}
	return s, nil
}

// LargestChange returns the called change with the largest |log
// RatioEst|, and false when nothing was called.
func (s MeasureSummary) LargestChange() (Change, bool) {
	return s.largest, s.Largest >= 0
}

// countVerdict counts a called change's verdict.
func (s *MeasureSummary) countVerdict(v Verdict) {
	switch v {
	case Better:
		s.Better++
	case Worse:
		s.Worse++
	case Higher:
		s.Higher++
	case Lower:
		s.Lower++
	}
}

// Text returns the summary in one line, the parts that are not zero:
// "2 faster, 1 slower of 7 (geomean −29 %), 3 same, 1 unresolved; largest
// 2.7× faster", "4 of 4 faster (geomean 2.0× faster); largest 5.8×
// faster", "all 4 same", "3 same, 1 unresolved". The largest change
// is named only when called, and the geometric mean only over called
// changes (from two on). Changes of auxiliary cells that are exact and
// differ count with the called ones' directions only when called.
func (s MeasureSummary) Text() string {
	if s.Called == 0 && s.Same == s.Cases {
		if s.Cases == 1 {
			return "same"
		}
		return fmt.Sprintf("all %d same", s.Cases)
	}
	var parts []string
	var dirs []string
	for _, d := range []struct {
		n    int
		word Verdict
	}{{s.Better, Better}, {s.Worse, Worse}, {s.Higher, Higher}, {s.Lower, Lower}} {
		if d.n > 0 {
			dirs = append(dirs, fmt.Sprintf("%d %s", d.n, Change{Metric: s.Metric, Verdict: d.word}.Word()))
		}
	}
	if len(dirs) > 0 {
		called := strings.Join(dirs, ", ") + fmt.Sprintf(" of %d", s.Cases)
		if len(dirs) == 1 { // "4 of 4 faster"
			n, word, _ := strings.Cut(dirs[0], " ")
			called = fmt.Sprintf("%s of %d %s", n, s.Cases, word)
		}
		if s.HasGeomean && s.Called > 1 {
			called += " (geomean " + s.ratioText(s.Geomean) + ")"
		}
		parts = append(parts, called)
	}
	if n := s.Changed - s.Called; n > 0 {
		parts = append(parts, fmt.Sprintf("%d changed, not called", n))
	}
	if s.Same > 0 {
		parts = append(parts, fmt.Sprintf("%d same", s.Same))
	}
	if s.Unresolved > 0 {
		parts = append(parts, fmt.Sprintf("%d unresolved", s.Unresolved))
	}
	text := strings.Join(parts, ", ")
	if s.Largest >= 0 && s.Cases > 1 {
		text += "; largest " + s.largest.effectText()
	}
	return text
}

// ratioText formats a ratio of the summary's metric: "2.7× faster" for a
// speed metric's factor of 2 or more, else "+12 %".
func (s MeasureSummary) ratioText(r float64) string {
	c := Change{Metric: s.Metric, RatioEst: r, BaseCenter: 1, Center: r, MinP: 0}
	c.Verdict = verdict(Metric{Direction: s.Metric.Direction}, true, 1, r)
	if speedWords(s.Metric) {
		f := r
		if f < 1 {
			f = 1 / f
		}
		if f >= factorThreshold {
			return formatFactor(f) + timesSign + " " + c.Word()
		}
	}
	return formatSignedNumber((r-1)*100) + " %"
}
