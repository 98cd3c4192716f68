package compare

import (
	"fmt"
	"strings"
)

// Metric describes what the samples of a comparison measure: its name, its
// unit, which way is better and whether it is exact.
type Metric struct {
	// Name is the metric's name, e.g. "tps" or "wal_bytes". It is only
	// carried along for the caller; the statistics do not use it.
	Name string

	// Unit is the unit of every sample, e.g. Seconds or Bytes. Any string
	// is accepted; the known units (see the constants of type Unit) are
	// scaled when formatted, others are printed as they are.
	Unit Unit

	// Direction says whether a higher or a lower value is better, or
	// neither. It decides the verdict of a significant change.
	Direction Direction

	// Exact marks a metric that should not vary between repetitions, such
	// as a row count or the WAL records of a deterministic step. Its
	// samples are summarised by their most frequent value and compared
	// exactly (equal or not) instead of with a statistical test, with a
	// warning when they varied.
	Exact bool
}

// Direction says which way a metric is better.
type Direction int

const (
	// Neutral marks a metric for which neither direction is better, e.g.
	// the number of checkpoints. Its significant changes are "higher" or
	// "lower".
	Neutral Direction = iota
	// HigherIsBetter marks a metric such as tps or MB/s.
	HigherIsBetter
	// LowerIsBetter marks a metric such as a duration, a latency or the
	// bytes of WAL written.
	LowerIsBetter
)

// String returns "neutral", "higher" or "lower" (the names ParseDirection
// accepts).
func (d Direction) String() string {
	switch d {
	case Neutral:
		return "neutral"
	case HigherIsBetter:
		return "higher"
	case LowerIsBetter:
		return "lower"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// MarshalText encodes d as its name (see String), so that JSON and YAML
// show "lower" rather than a number.
func (d Direction) MarshalText() ([]byte, error) {
	switch d {
	case Neutral, HigherIsBetter, LowerIsBetter:
		return []byte(d.String()), nil
	}
	return nil, fmt.Errorf("compare: invalid direction %d", int(d))
}

// UnmarshalText decodes any name ParseDirection accepts.
func (d *Direction) UnmarshalText(text []byte) error {
	v, err := ParseDirection(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDirection parses the name of a direction: "higher" (also
// "higher-is-better", "up"), "lower" (also "lower-is-better", "down") or
// "neutral" (also ""). Case is ignored.
func ParseDirection(s string) (Direction, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "neutral", "none":
		return Neutral, nil
	case "higher", "higher-is-better", "higher_is_better", "up":
		return HigherIsBetter, nil
	case "lower", "lower-is-better", "lower_is_better", "down":
		return LowerIsBetter, nil
	}
	return Neutral, fmt.Errorf("unknown metric direction %q (want higher, lower or neutral)", s)
}

// Unit is the unit of a metric's samples. The constants below are the units
// the formatting layer knows how to scale; other strings are allowed and
// printed after the number as they are.
//
// Sizes and byte rates follow PostgreSQL's pg_size_pretty: 1 kB is 1024
// bytes, 1 MB is 1024 kB.
type Unit string

// Units known to the formatting layer. The samples are in the unit given;
// formatting rescales them, e.g. 1500 in Milliseconds prints as "1.5 s".
const (
	Nanoseconds  Unit = "ns"
	Microseconds Unit = "us"
	Milliseconds Unit = "ms"
	Seconds      Unit = "s"

	Bytes     Unit = "B"
	Kilobytes Unit = "kB"
	Megabytes Unit = "MB"
	Gigabytes Unit = "GB"

	BytesPerSecond     Unit = "B/s"
	MegabytesPerSecond Unit = "MB/s"

	// TPS is transactions per second. It is printed as "tps".
	TPS Unit = "tps"
	// PerSecond is a generic rate of events, e.g. rows or queries per
	// second. It is printed as "/s".
	PerSecond Unit = "/s"
	// Count is a plain number of things (rows, records, fsyncs, buffers).
	// It is printed without a unit.
	Count Unit = "count"
	// Percent is a value already in percent, e.g. a cache hit ratio of
	// 99.5. Changes of it are printed in percentage points ("pp").
	Percent Unit = "%"
)

// unitKind classifies units for scaling and for the verdict words.
type unitKind int

const (
	kindOther unitKind = iota
	kindTime
	kindSize
	kindByteRate
	kindRate
	kindCount
	kindPercent
)

// unitInfo is what the formatting layer knows about a unit: its kind and the
// factor that converts a sample into the kind's base unit (seconds, bytes,
// bytes per second).
type unitInfo struct {
	kind   unitKind
	factor float64
	label  string // for kindRate and kindOther: printed after the number
}

const kib = 1024.0

// unitInfos maps the accepted spellings of the known units.
var unitInfos = map[string]unitInfo{
	"ns": {kindTime, 1e-9, ""}, "nsec": {kindTime, 1e-9, ""},
	"us": {kindTime, 1e-6, ""}, "µs": {kindTime, 1e-6, ""}, "usec": {kindTime, 1e-6, ""},
	"ms": {kindTime, 1e-3, ""}, "msec": {kindTime, 1e-3, ""},
	"s": {kindTime, 1, ""}, "sec": {kindTime, 1, ""}, "secs": {kindTime, 1, ""}, "seconds": {kindTime, 1, ""},
	"min": {kindTime, 60, ""}, "h": {kindTime, 3600, ""},

	"b": {kindSize, 1, ""}, "byte": {kindSize, 1, ""}, "bytes": {kindSize, 1, ""},
	"kb": {kindSize, kib, ""}, "kib": {kindSize, kib, ""},
	"mb": {kindSize, kib * kib, ""}, "mib": {kindSize, kib * kib, ""},
	"gb": {kindSize, kib * kib * kib, ""}, "gib": {kindSize, kib * kib * kib, ""},
	"tb": {kindSize, kib * kib * kib * kib, ""}, "tib": {kindSize, kib * kib * kib * kib, ""},

	"b/s": {kindByteRate, 1, ""}, "bytes/s": {kindByteRate, 1, ""},
	"kb/s": {kindByteRate, kib, ""}, "kib/s": {kindByteRate, kib, ""},
	"mb/s": {kindByteRate, kib * kib, ""}, "mib/s": {kindByteRate, kib * kib, ""},
	"gb/s": {kindByteRate, kib * kib * kib, ""}, "gib/s": {kindByteRate, kib * kib * kib, ""},

	"tps": {kindRate, 1, "tps"}, "qps": {kindRate, 1, "qps"},
	"/s": {kindRate, 1, "/s"}, "ops/s": {kindRate, 1, "ops/s"}, "rows/s": {kindRate, 1, "rows/s"},

	"count": {kindCount, 1, ""}, "": {kindCount, 1, ""},

	"%": {kindPercent, 1, ""}, "percent": {kindPercent, 1, ""},
}

// info returns what the formatting layer knows about u. Spellings are
// matched without regard to case, except that the SI prefixes of the known
// units are unambiguous anyway ("MB" and "mb" both mean megabytes).
func (u Unit) info() unitInfo {
	key := strings.TrimSpace(string(u))
	if inf, ok := unitInfos[key]; ok {
		return inf
	}
	if inf, ok := unitInfos[strings.ToLower(key)]; ok {
		return inf
	}
	return unitInfo{kind: kindOther, factor: 1, label: key}
}

// speedWords reports whether a metric's verdicts read "faster"/"slower":
// durations where lower is better, and rates where higher is better.
func speedWords(m Metric) bool {
	switch m.Unit.info().kind {
	case kindTime:
		return m.Direction == LowerIsBetter
	case kindRate, kindByteRate:
		return m.Direction == HigherIsBetter
	}
	return false
}
