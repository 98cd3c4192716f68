package view

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pglab/pglab/report/internal/words"
	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// buildNoise fills the study's noise statements, one per target compared
// with the baseline, from its primary figures' paired changes and the
// machine's figures recorded with each step.
func (sv *Study) buildNoise() {
	if len(sv.Targets) < 2 || sv.separateRuns {
		return
	}
	for _, target := range sv.Targets[1:] {
		nf := sv.noiseFor(target)
		if nf.Figures == 0 && nf.ForeignMax == nil {
			continue
		}
		nf.Text = nf.text()
		sv.Noise = append(sv.Noise, nf)
	}
}

// noiseFor gathers the noise figures of one target.
func (sv *Study) noiseFor(target string) Noise {
	nf := Noise{Target: target, Baseline: sv.Targets[0], Disturbed: []string{}}
	var side, round, corr, adj []float64
	var needed []int
	for _, cg := range sv.group.Cases {
		for _, mg := range cg.Metrics {
			if !verdict.Callable(sv.present, mg.Name) {
				continue
			}
			c, ok := sv.Results[cg.Key][mg.Name].Change(target)
			if ok {
				nf.Own.add(c.Outcome)
			}
			if !ok || c.Pairs == 0 || verdict.TwinOf(sv.present, mg.Name) != "" {
				continue
			}
			if c.Adjusted != "" {
				nf.Adjusted++
				adj = append(adj, c.AdjustCorr)
			}
			nf.Rounds = max(nf.Rounds, c.Pairs)
			if c.Outcome == compare.OutcomeUnresolved {
				nf.Unresolved++
				if c.RoundsNeeded > 0 {
					needed = append(needed, c.RoundsNeeded)
				}
			}
			if math.IsNaN(c.SpreadRound) {
				continue
			}
			nf.Figures++
			side, round = append(side, c.SpreadSide), append(round, c.SpreadRound)
			if !math.IsNaN(c.SideCorrelation) {
				corr = append(corr, c.SideCorrelation)
			}
		}
	}
	nf.SpreadSide, nf.SpreadRound, nf.Correlation = medianOf(side), medianOf(round), medianOf(corr)
	nf.AdjustCorr = medianOf(adj)
	if len(needed) > 0 {
		slices.Sort(needed)
		nf.RoundsNeeded, nf.RoundsNeededMax = needed[len(needed)/2], needed[len(needed)-1]
	}
	sv.machineNoise(&nf)
	return nf
}

// machineNoise adds what the machine did during the study's steps on the
// baseline and the target: other processes' CPU and steal, and the
// rounds disturbed by foreign load (left out of the comparison).
func (sv *Study) machineNoise(nf *Noise) {
	var foreign, steal []float64
	targets := []string{nf.Baseline, nf.Target}
	for _, cg := range sv.group.Cases {
		for _, mg := range cg.Metrics {
			for _, t := range targets {
				switch mg.Name {
				case verdict.ForeignMetric:
					foreign = append(foreign, mg.Samples[t]...)
				case "steal_pct":
					steal = append(steal, mg.Samples[t]...)
				}
			}
		}
	}
	sv.fsyncNoise(nf, targets)
	disturbed := verdict.Disturbed(sv.group, targets)
	for _, cv := range sv.Cases {
		for _, r := range disturbed[cv.Key] {
			nf.Disturbed = append(nf.Disturbed, fmt.Sprintf("%s · round %d", cv.Name, r))
		}
	}
	if len(foreign) > 0 {
		nf.ForeignMedian, nf.ForeignMax = medianOf(foreign), Finite(slices.Max(foreign))
	}
	if len(steal) > 0 {
		nf.StealMax = Finite(slices.Max(steal))
	}
}

// fsyncNoise adds the time of one WAL fsync over the study's steps on the
// targets and how much it varied from step to step.
func (sv *Study) fsyncNoise(nf *Noise, targets []string) {
	var all, spreads []float64
	for _, cg := range sv.group.Cases {
		var ms, n runs.MetricGroup
		for _, mg := range cg.Metrics {
			switch mg.Name {
			case "wal_sync_ms":
				ms = mg
			case "wal_syncs":
				n = mg
			}
		}
		for _, t := range targets {
			var lat []float64
			for i, v := range ms.Samples[t] {
				if i < len(n.Samples[t]) && n.Samples[t][i] >= 10 {
					lat = append(lat, v/n.Samples[t][i])
				}
			}
			all = append(all, lat...)
			if cv, ok := relativeSD(lat); ok {
				spreads = append(spreads, cv)
			}
		}
	}
	nf.FsyncMedianMS, nf.FsyncSpread = medianOf(all), medianOf(spreads)
}

// relativeSD returns the standard deviation of x over its mean, in
// percent; false for fewer than 3 values or a mean of 0.
func relativeSD(x []float64) (float64, bool) {
	if len(x) < 3 {
		return 0, false
	}
	mean := 0.0
	for _, v := range x {
		mean += v / float64(len(x))
	}
	if mean == 0 {
		return 0, false
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss/float64(len(x)-1)) / mean * 100, true
}

// medianOf returns the median of x, nil when empty.
func medianOf(x []float64) *float64 {
	if len(x) == 0 {
		return nil
	}
	s := slices.Clone(x)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &m
}

// text says the noise figures in a paragraph.
func (nf Noise) text() string {
	var parts []string
	if nf.Own.Figures > 0 {
		parts = append(parts, fmt.Sprintf("Own evidence (%s vs %s): %s.", nf.Target, nf.Baseline, nf.Own.Text()))
	}
	if nf.Adjusted > 0 && nf.AdjustCorr != nil {
		parts = append(parts, fmt.Sprintf("%s adjusted for the machine's speed: pglab's own CPU over each step, the same work against both targets, whose change between the two sides of a round correlated %.2f (median) with theirs.",
			words.Plural(nf.Adjusted, "time"), *nf.AdjustCorr))
	}
	if nf.Figures > 0 && nf.SpreadSide != nil && nf.SpreadRound != nil {
		s := fmt.Sprintf("Noise (%s vs %s, %s): across rounds each side varied by ±%s %%, the two sides of a round by ±%s %% (medians)",
			nf.Target, nf.Baseline, words.Plural(nf.Figures, "primary figure"), formatPctValue(*nf.SpreadSide), formatPctValue(*nf.SpreadRound))
		if nf.Correlation != nil && *nf.Correlation >= 0.5 {
			s += fmt.Sprintf("; the machine moved both sides of a round together (correlation %.2f), which comparing round by round takes out", *nf.Correlation)
		} else if nf.Correlation != nil {
			s += fmt.Sprintf("; the sides moved together little (correlation %.2f): the noise is each run's own", *nf.Correlation)
		}
		parts = append(parts, s+".")
	}
	if nf.ForeignMax != nil {
		s := fmt.Sprintf("Other processes' CPU during the measured steps: median %s %%, at most %s %% of all CPUs",
			formatPctValue(*nf.ForeignMedian), formatPctValue(*nf.ForeignMax))
		if nf.StealMax != nil {
			s += fmt.Sprintf("; steal at most %s %%", formatPctValue(*nf.StealMax))
		}
		margin := formatPctValue(verdict.DisturbedMargin)
		switch n := len(nf.Disturbed); {
		case n == 0:
			s += fmt.Sprintf("; no round disturbed (%s points above the median round)", margin)
		case n <= 4:
			s += fmt.Sprintf("; disturbed (%s points above the median round), left out of the comparison: %s", margin, strings.Join(nf.Disturbed, ", "))
		default:
			s += fmt.Sprintf("; %d rounds disturbed (%s points above the median round), left out of the comparison, e.g. %s", n, margin, strings.Join(nf.Disturbed[:3], ", "))
		}
		parts = append(parts, s+".")
	}
	if nf.FsyncMedianMS != nil && nf.FsyncSpread != nil {
		parts = append(parts, fmt.Sprintf("A WAL fsync took %s ms (median) and varied by ±%s %% from step to step: the disk's share of the spread.",
			formatPctValue(*nf.FsyncMedianMS), formatPctValue(*nf.FsyncSpread)))
	}
	switch {
	case nf.Unresolved == 0:
	case nf.RoundsNeeded == 0:
		parts = append(parts, fmt.Sprintf("%s unresolved.", words.Plural(nf.Unresolved, "primary figure")))
	case nf.Unresolved == 1:
		s := fmt.Sprintf("1 primary figure unresolved after %d rounds: at its present estimate and spread it would need about %d rounds",
			nf.Rounds, nf.RoundsNeeded)
		if nf.RoundsNeeded > 4*max(nf.Rounds, 1) {
			s += " — more than rounds can buy here: a quieter machine (less spread within a round) or a larger floor"
		}
		parts = append(parts, s+".")
	default:
		s := fmt.Sprintf("%s unresolved after %d rounds: at their present estimates and spread they would need about %d rounds (median; up to %d)",
			words.Plural(nf.Unresolved, "primary figure"), nf.Rounds, nf.RoundsNeeded, nf.RoundsNeededMax)
		if nf.RoundsNeeded > 4*max(nf.Rounds, 1) {
			s += " — more than rounds can buy here: a quieter machine (less spread within a round) or a larger floor"
		}
		parts = append(parts, s+".")
	}
	return strings.Join(parts, " ")
}

// formatPctValue formats a percentage to two significant digits ("12",
// "3.4", "0.21").
func formatPctValue(x float64) string {
	switch a := math.Abs(x); {
	case a >= 10:
		return fmt.Sprintf("%.0f", x)
	case a >= 1:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
