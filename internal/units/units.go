// Package units formats sizes, durations, rates and counts as pglab
// prints them everywhere: sizes in binary units with PostgreSQL's names
// (1 kB = 1024 bytes, MB = 2^20, GB = 2^30, as pg_size_pretty and memory
// settings count), three significant digits, thousands separators, and a
// typographic minus (U+2212).
//
// Bytes, ByteRate and Seconds pick a unit for a value's size ("784 kB",
// "12.5 MB/s", "850 ms"); Elapsed prints a wall-clock time ("3 min 5 s");
// Exact prints a size in the largest unit that holds it whole, as
// PostgreSQL shows a setting ("256MB", "1GB"); Number and Count print
// plain numbers ("12,345").
package units

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Binary size units: pglab's kB, MB, GB, TB and PB.
const (
	KB = 1 << 10
	MB = 1 << 20
	GB = 1 << 30
	TB = 1 << 40
	PB = 1 << 50
)

// Minus is the sign of negative numbers.
const Minus = "−"

// step is one step of a unit ladder: values from min on use it.
type step struct {
	min, div float64
	label    string
}

var (
	sizeSteps = []step{{0, 1, "bytes"}, {KB, KB, "kB"}, {MB, MB, "MB"}, {GB, GB, "GB"}, {TB, TB, "TB"}, {PB, PB, "PB"}}
	rateSteps = []step{{0, 1, "B/s"}, {KB, KB, "kB/s"}, {MB, MB, "MB/s"}, {GB, GB, "GB/s"}, {TB, TB, "TB/s"}}
	// seconds are kept up to 10 minutes, so that "125 s" is not "2.08 min"
	timeSteps = []step{{0, 1e-9, "ns"}, {1e-6, 1e-6, "µs"}, {1e-3, 1e-3, "ms"}, {1, 1, "s"}, {600, 60, "min"}, {36000, 3600, "h"}}
)

// Bytes formats a size in bytes: "0 bytes", "512 bytes", "784 kB",
// "1.37 MB", "2.15 GB".
func Bytes(v float64) string { return scaled(v, sizeSteps) }

// ByteRate formats bytes per second: "512 B/s", "87 MB/s", "1.2 GB/s".
func ByteRate(v float64) string { return scaled(v, rateSteps) }

// Seconds formats a duration in seconds: "0 s", "850 µs", "10.4 s",
// "125 s", "12.5 min", "2.5 h".
func Seconds(v float64) string {
	if v == 0 {
		return "0 s"
	}
	return scaled(v, timeSteps)
}

// Duration is Seconds of d.
func Duration(d time.Duration) string { return Seconds(d.Seconds()) }

// Elapsed formats a wall-clock time to the second: "42 s", "3 min 5 s",
// "1 h 20 min"; a negative one is "0 s".
func Elapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return strconv.Itoa(h) + " h " + strconv.Itoa(m) + " min"
	case m > 0:
		return strconv.Itoa(m) + " min " + strconv.Itoa(s) + " s"
	}
	return strconv.Itoa(s) + " s"
}

// Exact formats a size in the largest unit that holds it whole, without a
// space, as PostgreSQL shows a memory setting: "1GB", "256MB", "1536kB",
// "1000B". Every size package env reads back reads it as the same number
// of bytes.
func Exact(n int64) string {
	for _, u := range []struct {
		size  int64
		label string
	}{{TB, "TB"}, {GB, "GB"}, {MB, "MB"}, {KB, "kB"}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.label
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// Number formats a number without a unit: integers with thousands
// separators from 1000 on ("12,345"), smaller numbers to three
// significant digits ("10.4", "0.00123").
func Number(v float64) string {
	a := math.Abs(v)
	if math.Round(a) >= 1000 {
		return signed(v, Group(strconv.FormatFloat(math.Round(a), 'f', 0, 64)))
	}
	return signed(v, Sig3(a))
}

// Count formats a whole number with thousands separators: "1,630".
func Count(n int64) string {
	a := strconv.FormatInt(n, 10)
	if n < 0 {
		return Minus + Group(a[1:])
	}
	return Group(a)
}

// scaled formats v with the largest step of ladder whose min is at most
// |v|. A value that rounds up to the next step ("1024 kB") moves to it.
func scaled(v float64, ladder []step) string {
	a := math.Abs(v)
	i := 0
	for j, u := range ladder {
		if a >= u.min {
			i = j
		}
	}
	if i+1 < len(ladder) {
		if r, _ := strconv.ParseFloat(Sig3(a/ladder[i].div), 64); r*ladder[i].div >= ladder[i+1].min {
			i++
		}
	}
	return signed(v, Sig3(a/ladder[i].div)) + " " + ladder[i].label
}

// Sig3 formats |a| to three significant digits in fixed notation without
// trailing zeros: 10.4, 1.8, 226, 0.00123. Digits left of the point are
// never dropped (12345).
func Sig3(a float64) string {
	a = math.Abs(a)
	if a == 0 {
		return "0"
	}
	decimals := max(2-int(math.Floor(math.Log10(a))), 0)
	s := strconv.FormatFloat(a, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// signed prefixes the digits of |v| with Minus when v < 0 and the digits
// are not all zeros.
func signed(v float64, digits string) string {
	if v < 0 && strings.Trim(digits, "0.,") != "" {
		return Minus + digits
	}
	return digits
}

// Group puts thousands separators into the integer part of a
// non-negative decimal number: "1234567.5" → "1,234,567.5".
func Group(s string) string {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(intPart) % 3
	b.WriteString(intPart[:lead])
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
