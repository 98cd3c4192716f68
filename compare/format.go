package compare

import (
	"math"
	"strconv"
	"strings"
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
// know are printed after the number as they are.
func FormatValue(v float64, u Unit) string {
	if s, ok := formatSpecial(v); ok {
		return s
	}
	inf := u.info()
	switch inf.kind {
	case kindTime:
		return formatTime(v * inf.factor)
	case kindSize:
		return formatScaled(v*inf.factor, sizeUnits)
	case kindByteRate:
		return formatScaled(v*inf.factor, byteRateUnits)
	case kindPercent:
		return signed(v, sig3(v)) + " %"
	}
	return withLabel(plain(v), inf)
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

// scaledUnit is one step of a unit ladder: values from min on use it.
type scaledUnit struct {
	min   float64
	div   float64
	label string
}

var sizeUnits = []scaledUnit{
	{0, 1, "bytes"},
	{kib, kib, "kB"},
	{kib * kib, kib * kib, "MB"},
	{kib * kib * kib, kib * kib * kib, "GB"},
	{kib * kib * kib * kib, kib * kib * kib * kib, "TB"},
	{kib * kib * kib * kib * kib, kib * kib * kib * kib * kib, "PB"},
}

var byteRateUnits = []scaledUnit{
	{0, 1, "B/s"},
	{kib, kib, "kB/s"},
	{kib * kib, kib * kib, "MB/s"},
	{kib * kib * kib, kib * kib * kib, "GB/s"},
	{kib * kib * kib * kib, kib * kib * kib * kib, "TB/s"},
}

// timeUnits lists the time units; seconds are kept up to 10 minutes, so
// that "125 s" is not "2.08 min".
var timeUnits = []scaledUnit{
	{0, 1e-9, "ns"},
	{1e-6, 1e-6, "µs"},
	{1e-3, 1e-3, "ms"},
	{1, 1, "s"},
	{600, 60, "min"},
	{36000, 3600, "h"},
}

// formatTime formats a duration in seconds.
func formatTime(sec float64) string {
	if sec == 0 {
		return "0 s"
	}
	return formatScaled(sec, timeUnits)
}

// formatScaled formats v with the largest unit of ladder whose min is at
// most |v|. A value that rounds up to the next unit ("1024 kB") moves to it.
func formatScaled(v float64, ladder []scaledUnit) string {
	a := math.Abs(v)
	i := 0
	for j, u := range ladder {
		if a >= u.min {
			i = j
		}
	}
	if i+1 < len(ladder) {
		if r, _ := strconv.ParseFloat(sig3(a/ladder[i].div), 64); r*ladder[i].div >= ladder[i+1].min {
			i++
		}
	}
	return signed(v, sig3(a/ladder[i].div)) + " " + ladder[i].label
}

// plain formats a number without a unit: integers with thousands
// separators from 1000 on, smaller numbers to three significant digits.
func plain(v float64) string {
	a := math.Abs(v)
	if math.Round(a) >= 1000 {
		return signed(v, groupDigits(strconv.FormatFloat(math.Round(a), 'f', 0, 64)))
	}
	return signed(v, sig3(a))
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

// sig3 formats a ≥ 0 to three significant digits in fixed notation
// without trailing zeros: 10.4, 1.8, 226, 0.00123. Digits left of the
// point are never dropped (12345).
func sig3(a float64) string {
	a = math.Abs(a)
	if a == 0 {
		return "0"
	}
	decimals := 2 - int(math.Floor(math.Log10(a)))
	if decimals < 0 {
		decimals = 0
	}
	return trimZeros(strconv.FormatFloat(a, 'f', decimals, 64))
}

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
// non-negative decimal number.
func groupDigits(s string) string {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(intPart) % 3
	if lead > 0 {
		b.WriteString(intPart[:lead])
	}
	for i := lead; i < len(intPart); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String()
}

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
