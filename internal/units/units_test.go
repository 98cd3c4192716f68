package units

import (
	"testing"
	"time"
)

func TestScaled(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		// sizes: 1 kB = 1024 bytes, three significant digits
		{Bytes(0), "0 bytes"},
		{Bytes(512), "512 bytes"},
		{Bytes(1536), "1.5 kB"},
		{Bytes(1023.9), "1 kB"}, // rounds up into the next unit
		{Bytes(784 * KB), "784 kB"},
		{Bytes(1.37 * MB), "1.37 MB"},
		{Bytes(226 * MB), "226 MB"},
		{Bytes(2.15 * GB), "2.15 GB"},
		{Bytes(3 * PB), "3 PB"},
		{Bytes(-2048), "−2 kB"},
		// rates
		{ByteRate(512), "512 B/s"},
		{ByteRate(12.5 * MB), "12.5 MB/s"},
		{ByteRate(2048 * MB), "2 GB/s"},
		// durations
		{Seconds(0), "0 s"},
		{Seconds(150e-9), "150 ns"},
		{Seconds(0.00025), "250 µs"},
		{Seconds(0.0009999), "1 ms"},
		{Seconds(0.85), "850 ms"},
		{Seconds(10.4), "10.4 s"},
		{Seconds(125), "125 s"},
		{Seconds(599.9), "10 min"},
		{Seconds(1234), "20.6 min"},
		{Seconds(50000), "13.9 h"},
		{Seconds(-2.5), "−2.5 s"},
		{Duration(1500 * time.Millisecond), "1.5 s"},
		// wall-clock times
		{Elapsed(-time.Second), "0 s"},
		{Elapsed(400 * time.Millisecond), "0 s"},
		{Elapsed(42 * time.Second), "42 s"},
		{Elapsed(185 * time.Second), "3 min 5 s"},
		{Elapsed(80*time.Minute + 29*time.Second), "1 h 20 min"},
		// exact sizes, as settings show them
		{Exact(GB), "1GB"},
		{Exact(256 * MB), "256MB"},
		{Exact(1536 * KB), "1536kB"},
		{Exact(8 * KB), "8kB"},
		{Exact(2 * TB), "2TB"},
		{Exact(1000), "1000B"},
		{Exact(0), "0B"},
		// plain numbers
		{Number(1000000), "1,000,000"},
		{Number(999.6), "1,000"},
		{Number(12.3456), "12.3"},
		{Number(0.000123), "0.000123"},
		{Number(-1234567), "−1,234,567"},
		{Number(-0.0001), "−0.0001"},
		{Count(0), "0"},
		{Count(999), "999"},
		{Count(1630), "1,630"},
		{Count(-1234567), "−1,234,567"},
		{Group("1234567.25"), "1,234,567.25"},
		{Group("123"), "123"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
