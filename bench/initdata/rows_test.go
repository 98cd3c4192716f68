package initdata

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readAll drains a reader with reads of the given size.
func readAll(t *testing.T, r io.Reader, size int) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("Read returned nothing and no error")
		}
	}
}

func TestTextRowsAreWhatPgbenchSends(t *testing.T) {
	// pgbench's initBranch, initTeller and initAccount formats.
	want := func(tab Table, k int64) string {
		switch tab {
		case Branches:
			return fmt.Sprintf("%d\t0\t\\N\n", k+1)
		case Tellers:
			return fmt.Sprintf("%d\t%d\t0\t\\N\n", k+1, k/10+1)
		}
		return fmt.Sprintf("%d\t%d\t0\t\n", k+1, k/100000+1)
	}
	for _, tab := range []Table{Branches, Tellers, Accounts} {
		var exp strings.Builder
		from, to := int64(99990), int64(100012)
		if tab == Tellers {
			from, to = 1, 45
		}
		for k := from; k < to; k++ {
			exp.WriteString(want(tab, k))
		}
		exp.WriteString("\\.\n")
		for _, size := range []int{64, 100, 1000, 65531} {
			got := readAll(t, newRowSource(tab, from, to, nil), size)
			if string(got) != exp.String() {
				t.Errorf("%s, reads of %d: got\n%q\nwant\n%q", tab.Name(), size, got, exp.String())
			}
		}
	}
}

func TestIncrementDecimal(t *testing.T) {
	for _, n := range []int64{0, 1, 8, 9, 10, 99, 100, 999, 12999, 99999, 100000, 2147483647, 9999999999} {
		got := string(incrementDecimal([]byte(strconv.FormatInt(n, 10))))
		if want := strconv.FormatInt(n+1, 10); got != want {
			t.Errorf("%d+1: %s", n, got)
		}
	}
}

// TestLeafSource checks the COPY text for one range partition: the same
// lines as pgbench's, except that the line ending the first batch where a
// routed COPY would end it carries leading spaces bringing the batch's
// input to 65535 bytes.
func TestLeafSource(t *testing.T) {
	for _, c := range []struct{ lo, hi, first int64 }{
		{66667, 133334, 333}, // pgbench's second of three partitions at scale 2
		{0, 66667, 0},        // starts on a batch boundary
		{14286, 28572, 714},
		{5500, 5800, 0}, // ends before the boundary: one batch anyway
		{2000, 3000, 0},
	} {
		got := readAll(t, newLeafSource(c.lo, c.hi, nil), 65531)
		lines := strings.Split(strings.TrimSuffix(string(got), "\\.\n"), "\n")
		lines = lines[:len(lines)-1]
		if int64(len(lines)) != c.hi-c.lo {
			t.Fatalf("%v: %d lines", c, len(lines))
		}
		bytes := 0
		for i, l := range lines {
			k := c.lo + int64(i)
			want := strings.TrimSuffix(string(Accounts.appendRow(nil, k)), "\n")
			bytes += len(l)
			if int64(i) == c.first-1 {
				if strings.TrimLeft(l, " ") != want || bytes != copyBatchBytes {
					t.Errorf("%v: line %d (%d bytes, batch %d bytes) %.40q", c, k, len(l), bytes, l)
				}
			} else if l != want {
				t.Errorf("%v: line %d %q, want %q", c, k, l, want)
			}
		}
	}
}

// TestProgressNormal checks the lines every 100,000 rows.
func TestProgressNormal(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(newSyncWriter(&out), "pgbench_accounts", 300000, false)
	p.now = func() time.Time { return clock }
	p.start = clock
	for _, step := range []struct {
		n  int64
		at time.Duration
	}{{99999, time.Second}, {1, 2 * time.Second}, {150000, 3 * time.Second}, {50000, 4 * time.Second}} {
		clock = time.Unix(0, 0).Add(step.at)
		p.add(step.n)
	}
	want := "100000 of 300000 tuples (33%) of pgbench_accounts done (elapsed 2.00 s, remaining 4.00 s)\n" +
		"200000 of 300000 tuples (66%) of pgbench_accounts done (elapsed 3.00 s, remaining 1.50 s)\n" +
		"300000 of 300000 tuples (100%) of pgbench_accounts done (elapsed 4.00 s, remaining 0.00 s)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestProgressQuiet checks -q: a line when 5 s have passed (checked at
// multiples of 100 rows), then at the next multiple of 5 s, and at the end
// when the total is a multiple of 100.
func TestProgressQuiet(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(newSyncWriter(&out), "pgbench_tellers", 1000, true)
	p.now = func() time.Time { return clock }
	p.start = clock
	for _, step := range []struct {
		n  int64
		at time.Duration
	}{
		{150, 4 * time.Second},        // 150: before 5 s
		{40, 6 * time.Second},         // 190: no multiple of 100 reached
		{20, 6 * time.Second},         // 210: 200 at 6 s, print; next at 10 s
		{100, 9 * time.Second},        // 310: too early
		{190, 12 * time.Second},       // 500: print; next at 15 s
		{499, 14 * time.Second},       // 999: too early
		{1, 14500 * time.Millisecond}, // 1000: the end
	} {
		clock = time.Unix(0, 0).Add(step.at)
		p.add(step.n)
	}
	want := "200 of 1000 tuples (20%) of pgbench_tellers done (elapsed 6.00 s, remaining 24.00 s)\n" +
		"500 of 1000 tuples (50%) of pgbench_tellers done (elapsed 12.00 s, remaining 12.00 s)\n" +
		"1000 of 1000 tuples (100%) of pgbench_tellers done (elapsed 14.50 s, remaining 0.00 s)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	// A total that is no multiple of 100 gets no final line.
	out.Reset()
	clock = time.Unix(0, 0)
	p = newProgress(newSyncWriter(&out), "pgbench_branches", 50, true)
	p.now = func() time.Time { return clock }
	p.start = clock
	p.add(50)
	if out.Len() != 0 {
		t.Errorf("quiet progress for 50 rows: %q", out.String())
	}
}

// TestProgressPadding checks that a line shorter than the one before is
// padded with spaces, as pgbench pads it to overwrite the old one.
func TestProgressPadding(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(newSyncWriter(&out), "pgbench_accounts", 1000000, false)
	p.now = func() time.Time { return clock }
	p.start = clock
	clock = clock.Add(20 * time.Second)
	p.add(100000) // remaining 180.00 s
	clock = clock.Add(time.Second)
	p.add(100000) // remaining 84.00 s: one character shorter
	want := "100000 of 1000000 tuples (10%) of pgbench_accounts done (elapsed 20.00 s, remaining 180.00 s)\n" +
		"200000 of 1000000 tuples (20%) of pgbench_accounts done (elapsed 21.00 s, remaining 84.00 s) \n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

func TestTimingsString(t *testing.T) {
	tm := &Timings{Steps: []StepTiming{
		{Step: 'd', Name: "drop tables", Duration: 5 * time.Millisecond},
		{Step: 'g', Name: "client-side generate", Duration: 1234 * time.Millisecond},
	}, Total: 1239 * time.Millisecond}
	if got, want := tm.String(), "done in 1.24 s (drop tables 0.01 s, client-side generate 1.23 s)."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestServerVersionNum(t *testing.T) {
	for s, want := range map[string]int{
		"17.10": 170010, "16.4 (Debian 16.4-1.pgdg120+1)": 160004, "18beta1": 180000,
		"9.6.24": 90624, "13.0": 130000, "14": 140000,
	} {
		if got := serverVersionNum(s); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
}
