package runs

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pglab/pglab/report/internal/words"
)

// LoadLine says how a study's load runs were sized (tps, tune: the
// figures warmup_s, measured_s, tps_ci_pct and ended_by_precision of
// study.recordWindow): "Load runs: the first 5 s of each run left out
// (warm-up); measured 15 s (median, 12–60 s); mean throughput to ±0.8 %
// (median half-width of its 95 % interval); 14 of 16 runs ended when
// they reached ±1 %, the others at their duration." "" for a study
// without such figures.
func (d *Dataset) LoadLine(study string) string {
	vals := map[string][]float64{}
	for _, m := range d.Measurements {
		if m.Study == study {
			switch m.Metric {
			case "warmup_s", "measured_s", "tps_ci_pct", "ended_by_precision":
				vals[m.Metric] = append(vals[m.Metric], m.Value)
			}
		}
	}
	measured := vals["measured_s"]
	if len(measured) == 0 {
		return ""
	}
	s := "Load runs:"
	if w := vals["warmup_s"]; len(w) > 0 && middle(w) > 0 {
		s += fmt.Sprintf(" the first %s of each run left out of its figures (warm-up);", formatSeconds(middle(w)))
	}
	s += fmt.Sprintf(" measured %s (median, %s–%s)", formatSeconds(middle(measured)), formatSeconds(slices.Min(measured)), formatSeconds(slices.Max(measured)))
	if ci := vals["tps_ci_pct"]; len(ci) > 0 {
		s += fmt.Sprintf("; mean throughput to ±%s %% (median half-width of its 95 %% interval, batch means)", strconv.FormatFloat(middle(ci), 'g', 2, 64))
	}
	precise := 0
	for _, v := range vals["ended_by_precision"] {
		if v > 0 {
			precise++
		}
	}
	target := ""
	if info, ok := d.Study(study); ok && info.Params["precision"] != "" && info.Params["precision"] != "0" {
		target = " (±" + info.Params["precision"] + " %)"
	}
	s += fmt.Sprintf("; %d of %s ended when they reached the precision asked%s, the others at their duration or transaction count.",
		precise, words.Plural(len(measured), "run"), target)
	return s
}

// middle returns the median of v (the mean of the two middle values).
func middle(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// formatSeconds formats seconds to two significant digits: "15 s",
// "0.5 s", "60 s".
func formatSeconds(x float64) string {
	return strconv.FormatFloat(x, 'g', 2, 64) + " s"
}
