package initdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// decodeBinary parses a binary COPY stream into rows of field values
// (nil for NULL), checking the header and the trailer.
func decodeBinary(t *testing.T, data []byte) [][][]byte {
	t.Helper()
	if !bytes.HasPrefix(data, binaryHeader) {
		t.Fatalf("no binary COPY header: %q", data[:min(len(data), 19)])
	}
	data = data[len(binaryHeader):]
	var rows [][][]byte
	for {
		if len(data) < 2 {
			t.Fatal("stream ends without trailer")
		}
		n := int16(binary.BigEndian.Uint16(data))
		data = data[2:]
		if n == -1 {
			if len(data) != 0 {
				t.Fatalf("%d bytes after the trailer", len(data))
			}
			return rows
		}
		row := make([][]byte, n)
		for i := range row {
			l := int32(binary.BigEndian.Uint32(data))
			data = data[4:]
			if l < 0 {
				continue
			}
			row[i] = append([]byte{}, data[:l]...)
			data = data[l:]
		}
		rows = append(rows, row)
	}
}

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
		for k := from; k < to; k++ {
			exp.WriteString(want(tab, k))
		}
		exp.WriteString("\\.\n")
		for _, size := range []int{64, 100, 65531} {
			got := readAll(t, newRowSource(textFormat(tab), from, to, nil), size)
			if string(got) != exp.String() {
				t.Errorf("%s, reads of %d: got\n%q\nwant\n%q", tab.Name(), size, got, exp.String())
			}
		}
	}
}

func TestBinaryRows(t *testing.T) {
	int4, int8 := uint32(oidInt4), uint32(oidInt8)
	cases := []struct {
		tab   Table
		types []uint32
	}{
		{Branches, []uint32{int4, int4, oidBpchar}},
		{Tellers, []uint32{int4, int4, int4, oidBpchar}},
		{Accounts, []uint32{int4, int4, int4, oidBpchar}},
		{Accounts, []uint32{int8, int4, int4, oidBpchar}},
		{Tellers, []uint32{int8, int8, int8, oidBpchar}},
	}
	for _, c := range cases {
		f := binaryFormat(c.tab, c.types, 1000)
		if f == nil {
			t.Fatalf("%s %v: no binary format", c.tab.Name(), c.types)
		}
		from, to := int64(99995), int64(100003)
		rows := decodeBinary(t, readAll(t, newRowSource(f, from, to, nil), 100))
		if len(rows) != int(to-from) {
			t.Fatalf("%d rows", len(rows))
		}
		for i, row := range rows {
			k := from + int64(i)
			if len(row) != len(c.types) {
				t.Fatalf("row %d has %d fields", k, len(row))
			}
			var vals []string
			for j, v := range row {
				switch {
				case v == nil:
					vals = append(vals, "NULL")
				case c.types[j] == oidInt4 && len(v) == 4:
					vals = append(vals, strconv.Itoa(int(int32(binary.BigEndian.Uint32(v)))))
				case c.types[j] == oidInt8 && len(v) == 8:
					vals = append(vals, strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10))
				case c.types[j] == oidBpchar:
					vals = append(vals, "'"+string(v)+"'")
				default:
					t.Fatalf("field %d of row %d: %d bytes for type %d", j, k, len(v), c.types[j])
				}
			}
			// The text form says what each column holds.
			text := strings.TrimSuffix(string(textFormat(c.tab).appendText(nil, k)), "\n")
			text = strings.ReplaceAll(text, `\N`, "NULL")
			parts := strings.Split(text, "\t")
			if c.tab == Accounts {
				parts[3] = "''"
			}
			if strings.Join(vals, "|") != strings.Join(parts, "|") {
				t.Errorf("%s row %d: binary %v, text %v", c.tab.Name(), k, vals, parts)
			}
		}
	}
}

func TestBinaryFormatRefusals(t *testing.T) {
	int4 := uint32(oidInt4)
	for _, c := range []struct {
		tab   Table
		types []uint32
		maxID int64
	}{
		{Accounts, []uint32{int4, int4, int4}, 10},                       // a column short
		{Accounts, []uint32{int4, int4, int4, oidBpchar, int4}, 10},      // one too many
		{Accounts, []uint32{int4, int4, int4, 25}, 10},                   // text filler
		{Accounts, []uint32{21, int4, int4, oidBpchar}, 10},              // smallint aid
		{Accounts, []uint32{int4, int4, int4, oidBpchar}, 1<<31 + 5},     // aid overflows int
		{Branches, []uint32{int4, 1700, oidBpchar}, 10},                  // numeric balance
		{Tellers, []uint32{int4, int4, int4, uint32(oidInt8)}, 10},       // int8 filler
		{Branches, []uint32{uint32(oidBpchar), int4, oidBpchar}, 10},     // bpchar id
		{Tellers, []uint32{int4, uint32(oidBpchar), int4, oidBpchar}, 1}, // bpchar bid
	} {
		if f := binaryFormat(c.tab, c.types, c.maxID); f != nil {
			t.Errorf("%s %v max %d: binary format accepted", c.tab.Name(), c.types, c.maxID)
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
