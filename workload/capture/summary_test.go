package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/workload"
)

// TestSummaryText: a capture's summary, line by line, with and without
// statements, masked passwords and skipped lines.
func TestSummaryText(t *testing.T) {
	first := time.Date(2026, 12, 2, 18, 24, 59, 299_000_000, time.UTC)
	s := &Summary{Format: Stderr, Files: 1, Bytes: 800, Entries: 6, Sessions: 1, Fingerprints: 3,
		Counts: Counts{Statements: 3, Extended: 1, WithParams: 1, Redacted: 1},
		First:  first, Last: first.Add(151 * time.Millisecond), Out: "w.jsonl", OutBytes: 1280,
		UnknownZones: []string{"XYZ"}}
	want := "read 1 file (stderr): 6 log messages, 800 bytes\n" +
		"  sessions      1\n" +
		"  statements    3 (extended protocol 1, with parameters 1, failed 0)\n" +
		"  fingerprints  3\n" +
		"  time span     2026-12-02 18:24:59.299 → 18:24:59.450 UTC (151ms)\n" +
		"  passwords masked in 1 statement\n" +
		"  not taken     nothing\n" +
		"note: time zone XYZ taken as UTC (offsets are right unless the zone changes within the log)\n" +
		"wrote w.jsonl (1.25 kB)\n"
	var b strings.Builder
	if err := s.WriteText(&b); err != nil || b.String() != want {
		t.Errorf("WriteText: %v\n got %q\nwant %q", err, b.String(), want)
	}

	empty := &Summary{Format: CSVLog, ServerVersion: "14+", Files: 2, Entries: 1234, Bytes: 5,
		Skipped: []workload.Skip{{Reason: "COPY FROM STDIN", Count: 12345}}, Out: "e.jsonl"}
	want = "read 2 files (csvlog, PostgreSQL 14+): 1,234 log messages, 5 bytes\n" +
		"  sessions      0\n" +
		"  statements    0 (extended protocol 0, with parameters 0, failed 0)\n" +
		"  fingerprints  0\n" +
		"  not taken:\n" +
		"        12,345  COPY FROM STDIN\n" +
		"wrote e.jsonl (0 bytes)\n"
	b.Reset()
	if err := empty.WriteText(&b); err != nil || b.String() != want {
		t.Errorf("WriteText without statements: %v\n got %q\nwant %q", err, b.String(), want)
	}
}

// TestInspect reads a workload file written here through and prints its
// summary; a file that is not a workload is an error naming it.
func TestInspect(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.jsonl.gz")
	origin := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	fw, err := workload.CreateFile(path, workload.Header{CreatedBy: "test", Created: origin, Origin: origin, Database: "shop",
		Source: workload.Source{Format: CSVLog, ServerVersion: "14+", SystemIdentifier: "73", Files: []workload.SourceFile{{Path: "a.csv"}, {Path: "b.csv"}}}})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fw.Session(&workload.Session{ID: 1, Key: "a.1", Database: "shop", User: "u", StartUS: 5, Connected: true}))
	must(fw.Fingerprint(workload.Fingerprint{ID: "0123456789abcdef", Text: "select $1"}))
	must(fw.Statement(&workload.Statement{Session: 1, StartUS: 1_000_000, DurationUS: 3, Fingerprint: "0123456789abcdef", Protocol: workload.Extended, SQL: "select $1", Params: []workload.Param{{Value: "1"}}}))
	must(fw.Statement(&workload.Statement{Session: 1, StartUS: 3_500_000, DurationUS: 3, Fingerprint: "0123456789abcdef", Protocol: workload.Simple, SQL: "select 1"}))
	must(fw.SessionEnd(workload.SessionEnd{Session: 1, EndUS: 4_000_000}))
	if _, err := fw.Commit([]workload.Skip{{Reason: "fast-path function call", Count: 1}}, 0); err != nil {
		t.Fatal(err)
	}

	in, err := Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	if in.Params != 1 || in.End.Statements != 2 || in.End.Sessions != 1 {
		t.Errorf("Inspect: params %d, end %+v", in.Params, in.End)
	}
	var b strings.Builder
	if err := in.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := path + ": pglab workload version 1, from 2 files (csvlog, PostgreSQL 14+), written by test at 2026-12-02T18:00:00Z\n" +
		"  sessions      1\n  statements    2 (with parameters 1)\n  fingerprints  1\n" +
		"  time span     from 2026-12-02 18:00:01.000 UTC (2.5s)\n" +
		"  database      shop\n  system identifier 73\n  not taken:\n             1  fast-path function call\n"
	if b.String() != want {
		t.Errorf("Inspection.WriteText:\n got %q\nwant %q", b.String(), want)
	}

	plain := filepath.Join(dir, "plain.workload")
	if err := os.WriteFile(plain, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, filepath.Join(dir, "missing.workload")} {
		if _, err := Inspect(p); err == nil || !strings.Contains(err.Error(), filepath.Base(p)) {
			t.Errorf("Inspect(%s): %v, want an error naming the file", p, err)
		}
	}
}
