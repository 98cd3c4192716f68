package view

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pglab/pglab/report/internal/words"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/results"
)

// FormatSummary formats a target's figure: the median with the
// half-width of its confidence interval when there is one ("10.4 s ± 3 %"),
// the median alone when there are too few samples, the exact value for
// exact metrics, "–" without samples.
func FormatSummary(s compare.Summary, m compare.Metric) string {
	if s.N == 0 {
		return "–"
	}
	if m.Exact {
		return compare.FormatSummary(s, m)
	}
	out := compare.FormatValue(s.Center, m.Unit)
	switch {
	case !s.HasCI() || s.PctRange == "" || s.PctRange == "∞" || s.PctRange == "?":
	case s.PctRange == "0%":
		out += " ± <1 %"
	default:
		out += " ± " + strings.Replace(s.PctRange, "%", " %", 1)
	}
	return out
}

// formatCenter formats a target's median (or exact value) alone.
func formatCenter(s compare.Summary, m compare.Metric) string {
	if s.N == 0 {
		return "–"
	}
	if m.Exact {
		return compare.FormatExact(s.Center, m.Unit)
	}
	return compare.FormatValue(s.Center, m.Unit)
}

// ChangeText formats a comparison for a change column: its outcome with
// the test's figures, e.g. "5.7× faster (p=0.002 q=0.031 n=6)", "same
// (within ±5 %; n=6)", "~ (could not see changes under ±7 %; n=4)"; see
// compare.Change.OutcomeText.
func ChangeText(c compare.Change) string {
	return c.OutcomeText()
}

// ChangeClass classifies a comparison for styling: a called change is
// "better", "worse" or "changed" (a neutral metric), an equivalence
// "same", anything else "ns" (not called).
func ChangeClass(c compare.Change) string {
	switch {
	case c.Outcome == compare.OutcomeSame:
		return "same"
	case !c.Called:
		return "ns"
	}
	switch c.Verdict {
	case compare.Better:
		return "better"
	case compare.Worse:
		return "worse"
	case compare.Higher, compare.Lower:
		return "changed"
	}
	return ""
}

// hostLine describes a host in one line.
func hostLine(h results.Host) string {
	var parts []string
	if h.Hostname != "" {
		parts = append(parts, h.Hostname)
	}
	if h.OS != "" {
		parts = append(parts, h.OS)
	}
	if h.Kernel != "" {
		parts = append(parts, "kernel "+h.Kernel)
	}
	if h.Arch != "" {
		parts = append(parts, h.Arch)
	}
	if h.CPUs > 0 {
		cpu := words.Plural(h.CPUs, "CPU")
		if h.CPUModel != "" {
			cpu += " (" + h.CPUModel + ")"
		}
		parts = append(parts, cpu)
	}
	if h.MemoryBytes > 0 {
		parts = append(parts, compare.FormatValue(float64(h.MemoryBytes), compare.Bytes)+" memory")
	}
	if h.Disk.Device != "" || h.Disk.Filesystem != "" {
		disk := "disk " + words.JoinNonEmpty(" ", h.Disk.Device, h.Disk.Filesystem)
		if h.Disk.Rotational != nil {
			if *h.Disk.Rotational {
				disk += ", rotational"
			} else {
				disk += ", solid-state"
			}
		}
		parts = append(parts, disk)
	}
	return strings.Join(parts, " · ")
}

// formatDuration prints a run's wall time, e.g. "1 min 40 s"
// (units.Elapsed); nothing for a negative one.
func formatDuration(d time.Duration) string {
	if d < 0 {
		return ""
	}
	return units.Elapsed(d)
}

// Finite maps a float to JSON: null for NaN and infinities, which
// encoding/json refuses.
func Finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// MarksText formats footnote marks: "¹ ²".
func MarksText(marks []int) string {
	s := make([]string, len(marks))
	for i, m := range marks {
		s[i] = Superscript(m)
	}
	return strings.Join(s, " ")
}

var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

// Superscript writes n in superscript digits.
func Superscript(n int) string {
	var b strings.Builder
	for _, r := range fmt.Sprint(n) {
		b.WriteRune(superDigits[r-'0'])
	}
	return b.String()
}
