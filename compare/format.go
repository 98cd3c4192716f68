package compare

import (
	"math"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/units"
)

// The human-readable texts use typographic signs, as pglab's reports do:
// "−" (U+2212) for minus, "×" for factors, "→" between values, and a space
// before "%".
const (
	minusSign = "−"
	timesSign = "×"
	arrow     = " → "
)

// factorThreshold is the factor from which a change of a speed metric reads
// "5.7× faster" instead of a percentage.
const factorThreshold = 2

// FormatValue formats v, a value in unit u, for a report: three significant
// digits in a unit picked for its size ("10.4 s", "850 ms", "226 MB",
// "12.5 MB/s"), integers with thousands separators from 1000 on
// ("12,345 tps", "1,000,000"), "?" for NaN and "∞" for infinities. Sizes
// use pg_size_pretty's units (1 kB = 1024 bytes); units the package does not
// know are printed after the number as they are. The numbers are
// internal/units', pglab's one formatter of sizes, durations and rates.
func FormatValue(v float64, u Unit) string {
	if s, ok := formatSpecial(v); ok {
		return s
	}
	inf := u.info()
	switch inf.kind {
	case kindTime:
		return units.Seconds(v * inf.factor)
	case kindSize:
		return units.Bytes(v * inf.factor)
	case kindByteRate:
		return units.ByteRate(v * inf.factor)
	case kindPercent:
		return signed(v, sig3(v)) + " %"
	}
	return withLabel(units.Number(v), inf)
}

// FormatExact formats v in unit u with all its digits and without
// rescaling ("1,000,000", "123,456,789 B"), for exact metrics whose
// smallest difference matters.
func FormatExact(v float64, u Unit) string {
	if s, ok := formatSpecial(v); ok {
		return s
	}
	num := signed(v, groupDigits(strconv.FormatFloat(math.Abs(v), 'f', -1, 64)))
	inf := u.info()
	switch inf.kind {
	case kindCount:
		return num
	case kindPercent:
		return num + " %"
	case kindRate:
		return withLabel(num, inf)
	}
	if u == "" {
		return num
	}
	return num + " " + strings.TrimSpace(string(u))
}

// FormatSummary formats a target's summary as center ± interval, e.g.
// "10.4 s ± 3 %", "10.4 s ± ∞" when there are too few samples for the
// interval, or "?" when there are no samples. An exact metric whose samples
// agree prints its exact value alone.
func FormatSummary(s Summary, m Metric) string {
	if s.N == 0 {
		return "?"
	}
	if m.Exact {
		if s.Min == s.Max {
			return FormatExact(s.Center, m.Unit)
		}
		return FormatExact(s.Center, m.Unit) + " (" + FormatExact(s.Min, m.Unit) + " … " + FormatExact(s.Max, m.Unit) + ")"
	}
	r := s.PctRange
	if strings.HasSuffix(r, "%") {
		r = strings.TrimSuffix(r, "%") + " %"
	}
	return FormatValue(s.Center, m.Unit) + " ± " + r
}

// Text returns the change in a few characters for a report's change
// column:
//
//   - "~" when it is not significant, "=" when the values are equal, "?"
//     when no comparison was possible or the baseline is 0;
//   - for a duration or a rate that changed by a factor of 2 or more,
//     the factor and the word: "5.7× faster", "2.3× slower";
//   - for a metric in percent, the difference in percentage points:
//     "+1.2 pp";
//   - otherwise the relative change: "−69 %", "+2.8 %", "+0.35 %", or
//     for an exact metric that changed by less than 0.01 % the difference
//     itself: "+1 rows".
//
// After AnalyzeFamily it is the outcome in short: the called change as
// above (from RatioEst, see OutcomeText), "same" ("=" for an exact
// metric), "~" for unresolved, "?" without samples.
func (c Change) Text() string {
	if c.Outcome != OutcomeNone {
		return c.shortOutcome()
	}
	return c.centersText()
}

// centersText is Text computed from the verdict and the two centers.
func (c Change) centersText() string {
	switch c.Verdict {
	case Unknown:
		return "?"
	case NotSignificant:
		return "~"
	case Same:
		return "="
	}
	if c.Metric.Unit.info().kind == kindPercent {
		return formatSignedNumber(c.Center-c.BaseCenter) + " pp"
	}
	if speedWords(c.Metric) && c.BaseCenter > 0 && c.Center > 0 {
		f := c.Center / c.BaseCenter
		if f < 1 {
			f = 1 / f
		}
		if f >= factorThreshold {
			return formatFactor(f) + timesSign + " " + c.Word()
		}
	}
	if math.IsNaN(c.Percent) {
		return "?"
	}
	if c.Metric.Exact && math.Abs(c.Percent) < 0.01 {
		// "+<0.01 %" would hide the size of an exact difference.
		d := c.Center - c.BaseCenter
		if d > 0 {
			return "+" + FormatExact(d, c.Metric.Unit)
		}
		return FormatExact(d, c.Metric.Unit)
	}
	return formatSignedNumber(c.Percent) + " %"
}

// Detail returns the change with both values for a report, e.g.
// "10.4 s → 1.8 s, 5.7× faster", "226 MB → 71 MB, −69 %" or
// "1,204 tps → 1,190 tps, ~". Exact metrics print their values exactly.
// When a side has no samples it prints "?" for it, and when the baseline is
// 0 the values alone ("0 bytes → 12 MB").
//
// After AnalyzeFamily the values are followed by OutcomeText: "10.4 s →
// 1.8 s, 5.7× faster (p=0.002 q=0.031 n=6)", "1,204 tps → 1,190 tps,
// same (within ±5 %; n=6)", "… , ~ (could not see changes under ±7.2 %;
// n=4)".
func (c Change) Detail() string {
	format := FormatValue
	if c.Metric.Exact {
		format = FormatExact
	}
	s := format(c.BaseCenter, c.Metric.Unit) + arrow + format(c.Center, c.Metric.Unit)
	t := c.Text()
	if c.Outcome != OutcomeNone {
		t = c.OutcomeText()
	}
	if t != "?" {
		s += ", " + t
	}
	return s
}

// formatSpecial formats the values that have no digits.
func formatSpecial(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "?", true
	case math.IsInf(v, 1):
		return "∞", true
	case math.IsInf(v, -1):
		return minusSign + "∞", true
	}
	return "", false
}

// withLabel appends the label of a count, rate or other unit.
func withLabel(num string, inf unitInfo) string {
	switch {
	case inf.kind == kindCount || inf.label == "":
		return num
	case strings.HasPrefix(inf.label, "/"):
		return num + inf.label
	}
	return num + " " + inf.label
}

// sig3 formats a ≥ 0 to three significant digits (units.Sig3).
func sig3(a float64) string { return units.Sig3(a) }

// trimZeros removes trailing zeros after a decimal point, and the point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// signed prefixes the digits of |v| with a minus sign when v < 0.
func signed(v float64, digits string) string {
	if v < 0 && strings.Trim(digits, "0.,") != "" {
		return minusSign + digits
	}
	return digits
}

// groupDigits puts thousands separators into the integer part of a
// non-negative decimal number (units.Group).
func groupDigits(s string) string { return units.Group(s) }

// formatSignedNumber formats a change with its sign: "−69" (no decimals
// from 10 on), "+2.8" (one from 1 on), "+0.35" (two below 1), "+<0.01".
func formatSignedNumber(p float64) string {
	sign := "+"
	if p < 0 {
		sign = minusSign
	}
	a := math.Abs(p)
	var num string
	switch {
	case a == 0:
		return "0"
	case a >= 10:
		num = strconv.FormatFloat(a, 'f', 0, 64)
	case a >= 1:
		num = strconv.FormatFloat(a, 'f', 1, 64)
	case a >= 0.01:
		num = strconv.FormatFloat(a, 'f', 2, 64)
	default:
		num = "<0.01"
	}
	return sign + num
}

// formatFactor formats a factor ≥ 1: "5.7", "12".
func formatFactor(f float64) string {
	if f < 10 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', 0, 64)
}
