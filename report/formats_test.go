package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

func TestMarkdownTwoRunsGolden(t *testing.T) {
	path := fixtureStore(t)
	d := loadFixture(t, path, fixtureRunA, "c3d4")
	var b bytes.Buffer
	if err := WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "two-runs.md", b.Bytes())
}

func TestMarkdownContents(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// The seeds' headline results, with the statistics behind them.
	for _, want := range []string{
		"| 95 % | yes | 10.4 s ± 2 % | 1.8 s ± 2 % | **5.8× faster (p=0.000 q=0.000 n=6)** |",
		"| 95 % | yes | 226 MB ± <1 % | 71 MB ± <1 % | **−69 %, better (p=0.000 q=0.000 n=6)** |",
		"| 5 % | yes | 3.4 MB ± <1 % | 3.4 MB ± <1 % | same (within ±5 %; n=6) |",
		"| 10 | 1,195 tps | 1,199 tps | same (within ±5 %; n=5) |",
		"| ON_ERROR ignore | ERROR: option \"on_error\" not recognized | **3 rows loaded, 1 skipped, 1 notice** |",
		`unique constraint "t_pkey" \| with a pipe`,
		"| checkpoint_timeout ≠ | default | 30min |",
		"- ¹ disk read throughput flat at 87 MB/s for 92 % of the scan",
		"- ² a checkpoint ran during the scan (noted in repetition 2)",
		"- pg17: the study ran on a user's server: pglab did not change its settings",
		"| fsync_us | 843 µs | 883 µs | ~ (n=4: too few rounds paired for a call on its own among 38 tests) |",
		"disk /dev/nvme0n1p2 ext4, solid-state",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	// Where each server listens is no setting worth reporting.
	for _, bad := range []string{"port", "unix_socket_directories", "DateStyle", "max_connections"} {
		if strings.Contains(md, "| "+bad) {
			t.Errorf("Markdown lists the setting %s", bad)
		}
	}
	// Every table row has as many cells as its header.
	var cols int
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("line %d has %d cells, its table %d: %s", i+1, n, cols, line)
		}
	}
}

func TestCSV(t *testing.T) {
	d := &runs.Dataset{
		Run:     results.RunRecord{RunInfo: results.RunInfo{ID: "r1"}},
		Targets: []results.Target{{Name: "pg17", ServerVersion: "17.2"}},
		Measurements: []results.Measurement{
			{Target: "pg17", Study: "s", Case: map[string]string{"label": `a, "b"`, "lines": "x\ny"}, Rep: 1, Metric: "m,1", Value: 1234567.125, Unit: "ms", Direction: results.DirectionLower},
			{Target: "pg17", Study: "s", Rep: 2, Metric: "tiny", Value: 1e-7, Unit: "s", Exact: true},
		},
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	raw := b.String()
	// RFC 4180: CRLF line ends, quotes doubled inside quoted fields.
	if !strings.HasSuffix(raw, "neutral\r\n") || strings.Count(raw, "\n") != strings.Count(raw, "\r\n") {
		t.Errorf("want CRLF line ends:\n%q", raw)
	}
	for _, want := range []string{`"a, ""b"""`, `"m,1"`, "\"x\r\ny\"", "1234567.125", "0.0000001"} {
		if !strings.Contains(raw, want) {
			t.Errorf("CSV lacks %s:\n%s", want, raw)
		}
	}
	r := csv.NewReader(strings.NewReader(raw))
	r.FieldsPerRecord = 0 // every record as long as the header
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v\n%s", err, raw)
	}
	want := [][]string{
		{"run", "target", "server_version", "study", "case", "case.label", "case.lines", "rep", "metric", "value", "unit", "exact", "direction"},
		{"r1", "pg17", "17.2", "s", "label=a, \"b\" lines=x\ny", `a, "b"`, "x\ny", "1", "m,1", "1234567.125", "ms", "false", "lower"},
		{"r1", "pg17", "17.2", "s", "", "", "", "2", "tiny", "0.0000001", "s", "true", "neutral"},
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
}

func TestCSVFixtureRoundTrip(t *testing.T) {
	path := fixtureStore(t)
	d := loadFixture(t, path, fixtureRunA, fixtureRunB)
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != len(d.Measurements) {
		t.Fatalf("%d rows for %d measurements", len(rows)-1, len(d.Measurements))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	runs := map[string]int{}
	for _, r := range rows[1:] {
		runs[r[col["run"]]+" "+r[col["target"]]]++
	}
	if runs[fixtureRunA+" a1b2/pg17"] == 0 || runs[fixtureRunB+" c3d4/pg17"] == 0 || runs[fixtureRunA+" pg16"] == 0 {
		t.Errorf("rows by run and target: %v", runs)
	}
}

func TestJSONMapsNaNToNull(t *testing.T) {
	ms := []results.Measurement{}
	for rep := 1; rep <= 3; rep++ {
		// A baseline of 0 makes the ratio undefined; 3 samples leave the
		// interval unbounded; pg18 has no samples of "m2".
		ms = append(ms,
			results.Measurement{Target: "pg16", Study: "x", Rep: rep, Metric: "m", Value: 0, Unit: "ms", Direction: results.DirectionLower},
			results.Measurement{Target: "pg17", Study: "x", Rep: rep, Metric: "m", Value: float64(rep), Unit: "ms", Direction: results.DirectionLower},
			results.Measurement{Target: "pg18", Study: "x", Rep: rep, Metric: "m", Value: float64(rep), Unit: "ms", Direction: results.DirectionLower},
			results.Measurement{Target: "pg16", Study: "x", Rep: rep, Metric: "m2", Value: 5, Unit: "ms"},
		)
	}
	d := &runs.Dataset{Targets: []results.Target{{Name: "pg16"}, {Name: "pg17"}, {Name: "pg18"}}, Measurements: ms}
	var b bytes.Buffer
	if err := WriteJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, b.String())
	}
	var got struct {
		Studies []struct {
			Metrics []struct {
				Metric    string `json:"metric"`
				Summaries []struct {
					Target string   `json:"target"`
					Median *float64 `json:"median"`
					CILow  *float64 `json:"ci_low"`
					CIHigh *float64 `json:"ci_high"`
				} `json:"summaries"`
				Changes []struct {
					Target  string   `json:"target"`
					Ratio   *float64 `json:"ratio"`
					Percent *float64 `json:"percent"`
					P       *float64 `json:"p"`
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"studies"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	ms0 := got.Studies[0].Metrics
	m := ms0[0]
	if m.Summaries[0].Median == nil || *m.Summaries[0].Median != 0 {
		t.Errorf("pg16 median: %v", m.Summaries[0].Median)
	}
	if m.Summaries[1].CILow != nil || m.Summaries[1].CIHigh != nil {
		t.Errorf("an unbounded interval must be null: %v %v", m.Summaries[1].CILow, m.Summaries[1].CIHigh)
	}
	if m.Changes[0].Ratio != nil || m.Changes[0].Percent != nil {
		t.Errorf("a ratio to 0 must be null: %v %v", m.Changes[0].Ratio, m.Changes[0].Percent)
	}
	m2 := ms0[1]
	if m2.Metric != "m2" {
		t.Fatalf("second metric %s", m2.Metric)
	}
	// m2 was measured only on pg16: the study's columns are all three
	// targets, pg17 and pg18 without samples.
	for _, s := range m2.Summaries[1:] {
		if s.Median != nil {
			t.Errorf("%s has no samples: median %v", s.Target, *s.Median)
		}
	}
	for _, c := range m2.Changes {
		if c.P != nil && math.IsNaN(*c.P) {
			t.Errorf("p is NaN")
		}
	}
}

func TestWriteDirAndFile(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	dir := filepath.Join(t.TempDir(), "a", "b")
	paths, err := WriteDir(dir, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("paths %v", paths)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		fi, _ := e.Info()
		if fi.Mode().Perm() != 0o644 || fi.Size() == 0 {
			t.Errorf("%s: mode %v, %d bytes", e.Name(), fi.Mode(), fi.Size())
		}
	}
	if strings.Join(names, " ") != "report.html report.json report.md" {
		t.Errorf("directory holds %v", names)
	}
	// A failing write leaves no file behind.
	bad := &runs.Dataset{Measurements: []results.Measurement{{Target: "x", Study: "s", Metric: "m", Value: math.NaN()}}}
	p := filepath.Join(dir, "bad.md")
	if err := WriteFile(p, bad, Markdown); err == nil {
		t.Error("a NaN measurement was rendered")
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("a failed write left a file")
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Format
	}{{"md", Markdown}, {"Markdown", Markdown}, {"HTML", HTML}, {"htm", HTML}, {"json", JSON}, {"csv", CSV}, {"txt", PlainText}, {"text", PlainText}} {
		got, err := ParseFormat(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseFormat(%q) = %q, %v", c.in, got, err)
		}
	}
	if _, err := ParseFormat("pdf"); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Errorf("ParseFormat(pdf): %v", err)
	}
	for name, want := range map[string]Format{"r.md": Markdown, "R.HTML": HTML, "x.json": JSON, "m.csv": CSV, "t.txt": PlainText} {
		if got, ok := FormatOfFile(name); !ok || got != want {
			t.Errorf("FormatOfFile(%s) = %q %v", name, got, ok)
		}
	}
	for _, name := range []string{"report", "r.pdf", "dir/", "x.text"} {
		if _, ok := FormatOfFile(name); ok {
			t.Errorf("FormatOfFile(%s) found a format", name)
		}
	}
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Write(&b, d, f); err != nil || b.Len() == 0 {
			t.Errorf("Write %s: %v, %d bytes", f, err, b.Len())
		}
	}
}

func TestLoad(t *testing.T) {
	path := fixtureStore(t)
	ctx := context.Background()
	s, err := results.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// No reference: the newest run.
	d, err := runs.Load(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if d.Run.ID != fixtureRunB || len(d.Targets) != 1 || d.Origins != nil {
		t.Errorf("Load() = run %s, %d targets, origins %v", d.Run.ID, len(d.Targets), d.Origins)
	}

	// Two runs: the clashing pg17 gets the runs' short IDs.
	d, err = runs.Load(ctx, s, "20261130-09", "c3d4")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.TargetNames(), " "); got != "pg16 a1b2/pg17 c3d4/pg17" {
		t.Errorf("targets %s", got)
	}
	if o := d.Origins["c3d4/pg17"]; o.Run != fixtureRunB || o.Target != "pg17" {
		t.Errorf("origin of c3d4/pg17: %+v", o)
	}
	for _, m := range d.Measurements {
		if m.Target == "pg17" {
			t.Fatalf("a measurement kept the clashing name: %+v", m)
		}
	}
	if len(d.Studies) != 7 {
		t.Errorf("%d studies", len(d.Studies))
	}
	var paramNote, outcomes, notes int
	for _, n := range d.Notes {
		switch {
		case n.Outcome:
			outcomes++
		case strings.Contains(n.Text, "other parameters: time=60 → 30"):
			paramNote++
		default:
			notes++
		}
	}
	if paramNote != 1 || outcomes != 6 || notes != 13 {
		t.Errorf("notes: %d about parameters, %d outcomes, %d others", paramNote, outcomes, notes)
	}

	// Bad references.
	if _, err := runs.Load(ctx, s, "nosuch"); !errors.Is(err, results.ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := runs.Load(ctx, s, "2026"); !errors.Is(err, results.ErrAmbiguous) {
		t.Errorf("ambiguous run: %v", err)
	}
	if _, err := runs.Load(ctx, s, "a1b2", fixtureRunA); !errors.Is(err, runs.ErrRunTwice) {
		t.Errorf("a run twice: %v", err)
	}
	if _, err := runs.Load(ctx, nil); err == nil {
		t.Error("Load without a store")
	}
}

// TestEmptyDataset renders a run that measured nothing (a run that failed
// at once) in every format.
func TestEmptyDataset(t *testing.T) {
	for _, d := range []*runs.Dataset{
		{},
		{Run: results.RunRecord{RunInfo: results.RunInfo{ID: "r", Kind: results.KindStudy}, Status: results.StatusFailed, Error: "connect: refused"},
			Targets: []results.Target{{Name: "pg17"}}},
	} {
		for _, f := range Formats {
			var b bytes.Buffer
			if err := Write(&b, d, f); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			if f == Markdown && d.Run.Error != "" && !strings.Contains(b.String(), "- **Error:** connect: refused") {
				t.Errorf("Markdown of a failed run does not say why:\n%s", b.String())
			}
			if f == JSON {
				var doc map[string]any
				if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
					t.Errorf("JSON: %v", err)
				}
			}
		}
	}
}
