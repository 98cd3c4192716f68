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
