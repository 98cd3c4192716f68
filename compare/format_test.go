package compare

import (
	"math"
	"testing"
)

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    float64
		u    Unit
		want string
	}{
		// durations: three significant digits, unit by size
		{10.4, Seconds, "10.4 s"},
		{1.8, Seconds, "1.8 s"},
		{0.85, Seconds, "850 ms"},
		{1500, Milliseconds, "1.5 s"},
		{0.25, Milliseconds, "250 µs"},
		{150, Nanoseconds, "150 ns"},
		{1234.5, Microseconds, "1.23 ms"},
		{0.000999, Seconds, "999 µs"},
		{0.0009999, Seconds, "1 ms"}, // rounds up into the next unit
		{125, Seconds, "125 s"},
		{599.9, Seconds, "10 min"},
		{1234, Seconds, "20.6 min"},
		{50000, Seconds, "13.9 h"},
		{0, Milliseconds, "0 s"},
		{-2.5, Seconds, "−2.5 s"},
		{3, "sec", "3 s"},
		// sizes: pg_size_pretty's units, 1 kB = 1024 bytes
		{512, Bytes, "512 bytes"},
		{1536, Bytes, "1.5 kB"},
		{226 * 1024 * 1024, Bytes, "226 MB"},
		{226, Megabytes, "226 MB"},
		{71, "MB", "71 MB"},
		{2048, Kilobytes, "2 MB"},
		{1.5, Gigabytes, "1.5 GB"},
		{1023.9, Bytes, "1 kB"},
		{-2048, Bytes, "−2 kB"},
		{0, Bytes, "0 bytes"},
		// rates
		{12.5 * 1024 * 1024, BytesPerSecond, "12.5 MB/s"},
		{850, MegabytesPerSecond, "850 MB/s"},
		{2048, MegabytesPerSecond, "2 GB/s"},
		{12345.6, TPS, "12,346 tps"},
		{987.65, TPS, "988 tps"},
		{12.3456, TPS, "12.3 tps"},
		{2500, PerSecond, "2,500/s"},
		{42, "qps", "42 qps"},
		// counts, percent, unknown units
		{1000000, Count, "1,000,000"},
		{999.6, Count, "1,000"},
		{0.5, Count, "0.5"},
		{-1234567, Count, "−1,234,567"},
		{99.54, Percent, "99.5 %"},
		{-1.25, Percent, "−1.25 %"},
		{1234, "rows", "1,234 rows"},
		{3.14159, "widgets", "3.14 widgets"},
		{0.000123, Count, "0.000123"},
		// no digits
		{math.NaN(), Seconds, "?"},
		{math.Inf(1), Seconds, "∞"},
		{math.Inf(-1), Bytes, "−∞"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v, tt.u); got != tt.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", tt.v, tt.u, got, tt.want)
		}
	}
}

func TestFormatExact(t *testing.T) {
	tests := []struct {
		v    float64
		u    Unit
		want string
	}{
		{1000000, Count, "1,000,000"},
		{123456789, Bytes, "123,456,789 B"},
		{1500, Milliseconds, "1,500 ms"},
		{12.25, TPS, "12.25 tps"},
		{-1001, "rows", "−1,001 rows"},
		{7, "", "7"},
		{99.5, Percent, "99.5 %"},
		{math.NaN(), Count, "?"},
	}
	for _, tt := range tests {
		if got := FormatExact(tt.v, tt.u); got != tt.want {
			t.Errorf("FormatExact(%v, %q) = %q, want %q", tt.v, tt.u, got, tt.want)
		}
	}
}

// around returns six samples spread ±1 % around v, so that each set is
// clearly apart from another one a few percent away.
func around(v float64) []float64 {
	return []float64{v, v * 1.01, v * 0.99, v * 1.005, v * 0.995, v}
}

func TestChangeTexts(t *testing.T) {
	dur := Metric{Unit: Seconds, Direction: LowerIsBetter}
	wal := Metric{Unit: Megabytes, Direction: LowerIsBetter}
	tps := Metric{Unit: TPS, Direction: HigherIsBetter}
	hit := Metric{Unit: Percent, Direction: HigherIsBetter}
	tests := []struct {
		name         string
		metric       Metric
		base, new    []float64
		text, detail string
	}{
		{"duration much faster", dur, around(10.4), around(1.8), "5.8× faster", "10.4 s → 1.8 s, 5.8× faster"},
		{"duration much slower", dur, around(1.8), around(10.4), "5.8× slower", "1.8 s → 10.4 s, 5.8× slower"},
		{"duration twice as fast", dur, around(10), around(5), "2.0× faster", "10 s → 5 s, 2.0× faster"},
		{"duration a bit faster", dur, around(10), around(7), "−30 %", "10 s → 7 s, −30 %"},
		{"bytes smaller", wal, around(226), around(71), "−69 %", "226 MB → 71 MB, −69 %"},
		{"bytes much larger", wal, around(71), around(226), "+218 %", "71 MB → 226 MB, +218 %"},
		{"tps a little faster", tps, around(1000), around(1028), "+2.8 %", "1,000 tps → 1,028 tps, +2.8 %"},
		{"tps 12× faster", tps, around(100), around(1200), "12× faster", "100 tps → 1,200 tps, 12× faster"},
		{"tps not significant", tps, []float64{1000, 1010, 990, 1005, 995, 1000}, []float64{1001, 1011, 989, 1004, 996, 1002}, "~", "1,000 tps → 1,002 tps, ~"},
		{"percent points", hit, around(90), around(95), "+5.0 pp", "90 % → 95 %, +5.0 pp"},
		{"small percent", tps, seq(10000, 10005), seq(10040, 10045), "+0.40 %", "10,003 tps → 10,043 tps, +0.40 %"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, c := analyzePair(t, tt.metric, tt.base, tt.new, Options{})
			if got := c.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q (change %s)", got, tt.text, c)
			}
			if got := c.Detail(); got != tt.detail {
				t.Errorf("Detail() = %q, want %q", got, tt.detail)
			}
		})
	}
}

func TestFormatSummary(t *testing.T) {
	m := Metric{Unit: Seconds, Direction: LowerIsBetter}
	res, err := Analyze(Input{Metric: m, Samples: map[string][]float64{
		"ten":   {13, 11, 17, 12, 19, 14, 16, 10, 15, 18},
		"three": {1, 2, 3},
	}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ten, _ := res.Target("ten")
	three, _ := res.Target("three")
	if got := FormatSummary(ten, m); got != "14.5 s ± 24 %" {
		t.Errorf("n=10: %q", got)
	}
	if got := FormatSummary(three, m); got != "2 s ± ∞" {
		t.Errorf("n=3: %q", got)
	}
}

func TestFormatHelpers(t *testing.T) {
	for in, want := range map[float64]string{69.4: "+69", -68.6: "−69", 2.8: "+2.8", -0.354: "−0.35", 0.004: "+<0.01", 0: "0", 9.96: "+10.0"} {
		if got := formatSignedNumber(in); got != want {
			t.Errorf("formatSignedNumber(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"1": "1", "123": "123", "1234": "1,234", "1234567.5": "1,234,567.5", "100000": "100,000"} {
		if got := groupDigits(in); got != want {
			t.Errorf("groupDigits(%q) = %q, want %q", in, got, want)
		}
	}
}
