package view

import (
	"fmt"
	"strings"

	"github.com/pglab/pglab/explain"
	"github.com/pglab/pglab/report/runs"
)

// buildCards lays out the cause cards of the study's called changes, in
// the order of its cases.
func (sv *Study) buildCards(d *runs.Dataset, cards []explain.Card) {
	names := map[string]string{}
	for _, c := range sv.Cases {
		names[c.Key] = c.Name
	}
	for _, card := range cards {
		if card.Study != sv.Name {
			continue
		}
		cv := CardView{Card: card, Case: names[card.Case], Missing: card.Missing}
		change := ""
		if res := sv.Results[card.Case][card.Metric]; res != nil {
			if c, ok := res.Change(card.Target); ok {
				change = ", " + c.IntervalText()
			}
		}
		cv.Title = fmt.Sprintf("%s · %s: %s vs %s%s", names[card.Case], sv.MetricHead(card.Metric), card.Target, card.Baseline, change)
		for _, c := range card.Causes {
			cv.Causes = append(cv.Causes, c.Text())
		}
		cv.Explained = explainedText(card)
		cv.Settings = settingsText(card)
		cv.Flame = d.Flame(sv.Name, card.Case, card.Baseline, card.Target,
			fmt.Sprintf("%s · CPU by stack, %s vs %s (ms of CPU a step)", names[card.Case], card.Target, card.Baseline))
		sv.Cards = append(sv.Cards, cv)
	}
}

// explainedText says how much of the change the causes account for.
func explainedText(card explain.Card) string {
	pct := fmt.Sprintf("%.0f %%", 100*card.Explained)
	switch {
	case len(card.Causes) == 0 && card.Candidates == 0:
		return "Unexplained: no figure that could split it was measured with it."
	case len(card.Causes) == 0:
		return fmt.Sprintf("Unexplained: none of the %d figures measured with it moved with the change (each tested, corrected with the report's calls).", card.Candidates)
	case card.Unexplained():
		return "Unexplained for the most part: the causes above account for " + pct + " of the change."
	}
	return "The causes above account for " + pct + " of the change."
}

// settingsText says what differs between the card's targets: what the
// user asked for and what a cause points to, and how many other settings
// differ.
func settingsText(card explain.Card) string {
	s := ""
	if len(card.Settings) > 0 {
		s = "Differs between " + card.Baseline + " and " + card.Target + ": " + strings.Join(card.Settings, "; ") + "."
	}
	if n := card.OtherDifferences; n > 0 {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("%d other settings differ, that no cause points to (the run's config-drift lists them).", n)
	}
	return s
}

// fidelityLimit is how far behind its captured schedule a replay's
// sessions may run (median) before the summary names it: a second, or a
// twentieth of the workload's time.
const (
	fidelityLagMS    = 1000
	fidelityLagShare = 0.05
)

// FidelityLines name, for the summary, each target whose replayed
// sessions ran so far behind the captured schedule that its statements
// met other overlaps than at capture: a limit of the replay's fidelity.
func (v *Report) FidelityLines() []string {
	var out []string
	for _, sv := range v.Studies {
		for _, cg := range sv.group.Cases {
			lag, ok1 := metricSamples(cg, "lag_p50_ms")
			round, ok2 := metricSamples(cg, "round_ms")
			if !ok1 || !ok2 {
				continue
			}
			for _, t := range sv.Targets {
				l, r := medianOfSlice(lag[t]), medianOfSlice(round[t])
				if l >= fidelityLagMS || r > 0 && l >= fidelityLagShare*r {
					out = append(out, fmt.Sprintf("Replay fidelity: on %s the sessions of %s ran %s behind the captured schedule (median of the rounds' medians) in a workload of %s: its statements met other overlaps than at capture, and their timings compare less well there.",
						t, sv.Name, formatSeconds(l), formatSeconds(r)))
				}
			}
		}
	}
	return out
}

// metricSamples returns a case's samples of a metric by target.
func metricSamples(cg runs.CaseGroup, name string) (map[string][]float64, bool) {
	for _, mg := range cg.Metrics {
		if mg.Name == name {
			return mg.Samples, true
		}
	}
	return nil, false
}

// medianOfSlice returns the median of x, 0 when empty.
func medianOfSlice(x []float64) float64 {
	if m := medianOf(x); m != nil {
		return *m
	}
	return 0
}

// formatSeconds formats milliseconds as seconds: "2.3 s", "450 ms".
func formatSeconds(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f s", ms/1000)
}
