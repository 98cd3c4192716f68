package workload

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleHeader() Header {
	return Header{CreatedBy: "test", Fingerprint: "pglab-fp-1", Origin: time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC),
		Source: Source{Format: "csvlog", ServerVersion: "14+", Files: []SourceFile{{Path: "/x.csv", Bytes: 10}}}}
}

func writeSample(t *testing.T, path string) []any {
	t.Helper()
	w, err := CreateFile(path, sampleHeader())
	if err != nil {
		t.Fatal(err)
	}
	recs := []any{
		&Session{ID: 1, Key: "a.1", Database: "app", User: "u", Application: "web", StartUS: 5, Connected: true},
		&Fingerprint{ID: "0123456789abcdef", Text: "select $1"},
		&Statement{Session: 1, StartUS: 10, DurationUS: 3, Fingerprint: "0123456789abcdef", Protocol: Extended, Name: "s1",
			SQL: "select $1 -- \"q\" \\ \n\t\x01 é", Params: []Param{{Value: "it's"}, {Null: true}, {Value: ""}}},
		&Statement{Session: 1, StartUS: 20, DurationUS: -1, Fingerprint: "0123456789abcdef", Protocol: Simple, SQL: "select 1", Error: "42P01"},
		&SessionEnd{Session: 1, EndUS: 30},
	}
	for _, r := range recs {
		switch v := r.(type) {
		case *Session:
			err = w.Session(v)
		case *Fingerprint:
			err = w.Fingerprint(*v)
		case *Statement:
			err = w.Statement(v)
		case *SessionEnd:
			err = w.SessionEnd(*v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit([]Skip{{Reason: "COPY FROM STDIN", Count: 2}}, 1); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"w.jsonl", "w.jsonl.gz"} {
		path := filepath.Join(t.TempDir(), name)
		want := writeSample(t, path)
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if h := r.Header(); h.Version != 1 || h.Format != Format || h.Source.ServerVersion != "14+" || !h.Origin.Equal(sampleHeader().Origin) {
			t.Errorf("%s: header %+v", name, h)
		}
		var got []any
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, rec)
		}
		r.Close()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: records\n got %#v\nwant %#v", name, got, want)
		}
		end, ok := r.End()
		wantEnd := End{Sessions: 1, Statements: 2, Fingerprints: 1, FirstUS: 10, LastUS: 20, Skipped: []Skip{{"COPY FROM STDIN", 2}}, Redacted: 1}
		if !ok || !reflect.DeepEqual(end, wantEnd) {
			t.Errorf("%s: end %+v, want %+v", name, end, wantEnd)
		}
		if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
			t.Errorf("%s: temporary files left: %v", name, ents)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	writeSample(t, good)
	data, _ := os.ReadFile(good)
	lines := strings.SplitAfter(string(data), "\n")
	other := strings.Replace(lines[0], `"version":1`, `"version":2`, 1)
	tests := []struct {
		name, content, want string
	}{
		{"other version", other + strings.Join(lines[1:], ""), "format version 2; this pglab reads version 1"},
		{"not a workload", "2026-12-02 18:24:58.419 UTC,,,1,,x,1,,,,0,LOG,00000,\"hi\",,,,,,,,,,\"\"\n", "not a pglab workload file"},
		{"empty", "", "not a pglab workload file"},
		{"no end record", strings.Join(lines[:len(lines)-2], ""), "without its end record (truncated)"},
		{"cut mid-line", strings.Join(lines[:3], "") + lines[3][:10], "ends inside a record (truncated)"},
		{"garbage record", lines[0] + "[1,2]\n" + strings.Join(lines[1:], ""), "line 2: not a workload record"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		os.WriteFile(path, []byte(tt.content), 0o644)
		err := readAll(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
		var ve *VersionError
		if tt.name == "other version" && !errors.As(err, &ve) {
			t.Errorf("%s: not a *VersionError: %T", tt.name, err)
		}
	}
	// A record type this version does not know is skipped.
	path := filepath.Join(dir, "future")
	os.WriteFile(path, []byte(lines[0]+`{"type":"hint","x":1}`+"\n"+strings.Join(lines[1:], "")), 0o644)
	if err := readAll(path); err != nil {
		t.Errorf("unknown record type: %v", err)
	}
}

func readAll(path string) error {
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\", "\n\r\t\x00\x1f\x7f", "é漢字🙂", "bad\xffutf8\xc3", "\u2028"} {
		got := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q → %s: not JSON: %v", s, got, err)
			continue
		}
		want, _ := json.Marshal(s)
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("%q → %s decodes to %q, encoding/json's to %q", s, got, back, wantBack)
		}
	}
}
