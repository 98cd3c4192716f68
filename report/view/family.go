package view

import (
	"fmt"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// MetricOrder returns the metrics of a case in the order measured.
func (sv *Study) MetricOrder(caseKey string) []string {
	for _, cg := range sv.group.Cases {
		if cg.Key == caseKey {
			out := make([]string, len(cg.Metrics))
			for i, mg := range cg.Metrics {
				out[i] = mg.Name
			}
			return out
		}
	}
	return nil
}

// FamilyLines say how many comparisons the report's calls come from and
// how many of its calls may be false, and for an A/A run that every call
// is a false one.
func (v *Report) FamilyLines() []string {
	f := v.Family
	if f == nil {
		return nil
	}
	var out []string
	if v.Data.AA() {
		out = append(out, fmt.Sprintf("A/A run: the targets are identical servers, so every called change is a false one. Called: %d of %s (by chance at most a %s chance of any call); exact metrics that differ: %d.",
			f.Called, words.Plural(f.M, "comparison"), verdict.Percent(f.Alpha), f.ExactCalled))
	}
	if f.M+f.ExactCalled == 0 {
		return append(out, "Calls: none possible: no primary figure has the repetitions a call needs (see each change's n).")
	}
	out = append(out, "Calls: "+f.Text()+" ("+f.UncorrectedText()+"; auxiliary figures are shown, never called).")
	if f.Paired {
		var own OwnEvidence
		for _, cr := range f.Cells {
			if cr.Callable {
				for _, c := range cr.Result.Changes {
					own.add(c.Outcome)
				}
			}
		}
		out = append(out, "Resolved: "+own.Text()+"; a figure is called or the same only on its own rounds, never on its measure's.")
	}
	out = append(out, v.FidelityLines()...)
	if !v.Data.Interleaved() {
		out = append(out, "These runs were not interleaved: each target was measured in its own run, so a change also holds whatever differed between the runs (the machine's load, its caches, the time of day).")
	}
	return out
}

// howToReadChanges explains the change columns: the test, the family, the
// floor and the three outcomes.
func (v *Report) howToReadChanges(base, a string, exact bool) []string {
	floor := verdict.Percent(compare.DefaultMinChange)
	m := 0
	if v.Family != nil {
		floor, m = verdict.Percent(v.Family.MinChange), v.Family.M
	}
	measures := 0
	if v.Family != nil {
		measures = v.Family.MeasureTests
	}
	out := []string{
		"Each change compares a target with " + base + " round by round: in every round (repetition) the two ran next to each other, in mirrored pairs of rounds whose order was drawn at random, so whatever moved the machine between rounds moved both. The size of a change is the geometric mean of its rounds' ratios, with Student's confidence interval, and its test the paired t test of their logarithms. (Runs compared after the fact have no rounds in common: their changes use the Mann-Whitney U test and the Hodges-Lehmann ratio of two unpaired samples.)",
		fmt.Sprintf("A report runs many tests, and they are corrected together: each primary figure of each case is tested on its own rounds, and each measure — a primary figure over all the cases of its study, e.g. COPY TO time over the four row sizes — is tested as a whole by the sum of its cases' evidence (Stouffer's z), which finds a change the cases share that none shows alone; the %s and %s form one family, adjusted with Benjamini-Hochberg. A change is called (bold) when its own q ≤ %s and it is at least the floor, ±%s (--min-change; exact counts have a floor of 0). A measure is changed when its own test passes beyond the floor or one of its cases is called; that is said of the measure (the summary, the measure's line), never of a case. When nothing changed at all, the chance of any call is at most %s; of the calls, about %s are expected to be false. Under --reps auto the rounds of a case are looked at after every pair, and each look tests at the level an alpha-spending rule leaves it, so a p stays a p whatever the stopping.", words.Plural(m, "comparison"), words.Plural(measures, "measure test"), a, floor, a, a),
		"same means the case's own confidence interval of the change lies within ± the floor (90 %, two one-sided tests at α; under --reps auto the interval of the look it was found at, at that look's spending level): the targets are equal for practical purposes. ~ means unresolved: neither a call nor same; \"could not see changes under ±7 %\" gives the smallest change these rounds could have detected, \"below the floor\" a change that passed the test but is smaller than the floor, and \"measure: same within ±5 %\" that the measure as a whole is the same while this case could not tell. More rounds (--reps, --budget) or a quieter machine narrow what ~ hides.",
		"Auxiliary figures (CPU, disk, wait events, further metrics) are tested and shown but never called: they explain the primary ones.",
		"Times and rates that changed by a factor of 2 or more read \"5.7× faster\" or \"2.3× slower\"; other changes are percentages of the first target's median (\"−69 %\"), and values that are percentages change in percentage points (pp). \"better\" and \"worse\" follow each metric's direction: less time and less WAL are better, more throughput is better.",
	}
	if exact {
		out = append(out, "Counts that should not vary between repetitions (rows loaded, WAL records of a deterministic step) are compared exactly: = when equal, the difference otherwise, without a test.")
	}
	if v.Data.AA() {
		out = append(out, "This is an A/A run (pglab compare --aa): both targets are the same version with the same settings, so every call is a false one. Run one on a machine before trusting a comparison there.")
	}
	return out
}

// MetricHead names a metric of the study as its headline table does
// ("VACUUM time"), else as the further metrics do.
func (sv *Study) MetricHead(metric string) string {
	for _, t := range sv.Tables {
		if t.Metric == metric {
			return t.Head
		}
	}
	return sv.metricTitle(metric)
}
