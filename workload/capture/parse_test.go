package capture

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/pglab/pglab/workload"
)

func TestParseMessage(t *testing.T) {
	tests := []struct {
		msg  string
		want message
	}{
		{"duration: 0.045 ms  statement: select 1", message{kind: mStatement, durUS: 45, sql: "select 1", rest: "select 1"}},
		{"duration: 1234.5 ms  execute stmtcache_1: select $1", message{kind: mExecute, durUS: 1234500, name: "stmtcache_1", sql: "select $1"}},
		{"duration: 2 ms  execute <unnamed>/C_1: select 2", message{kind: mExecute, durUS: 2000, sql: "select 2"}},
		{"duration: 0.1 ms  parse <unnamed>: select: 3", message{kind: mParse, durUS: 100, sql: "select: 3"}},
		{"duration: 0.100 ms  bind s/p: x", message{kind: mBind, durUS: 100, name: "s", sql: "x"}},
		{"duration: 7.250 ms", message{kind: mDuration, durUS: 7250}},
		{"execute fetch from s/p: select 4", message{kind: mFetch, durUS: -1, name: "s", sql: "select 4"}},
		{"statement: select\n  5", message{kind: mStatement, durUS: -1, sql: "select\n  5", rest: "select\n  5"}},
		{`fastpath function call: "lo_open" (OID 952)`, message{kind: mFastpath, durUS: -1, sql: `"lo_open" (OID 952)`, rest: `"lo_open" (OID 952)`}},
		{`duration: 0.2 ms  fastpath function call: "lo_open" (OID 952)`, message{kind: mFastpath, durUS: 200, sql: `"lo_open" (OID 952)`, rest: `"lo_open" (OID 952)`}},
		{"checkpoint starting: time", message{durUS: -1}},
		{"duration: x ms  statement: y", message{durUS: -1}},
		{"duration: 1 ms statement: one space", message{durUS: -1}},
	}
	for _, tt := range tests {
		if got := parseMessage(tt.msg); got != tt.want {
			t.Errorf("parseMessage(%q) = %+v, want %+v", tt.msg, got, tt.want)
		}
	}
}

func TestParseParams(t *testing.T) {
	p := func(v string) workload.Param { return workload.Param{Value: v} }
	null := workload.Param{Null: true}
	tests := []struct {
		detail string
		want   []workload.Param
		ok     bool
	}{
		{"Parameters: $1 = '42'", []workload.Param{p("42")}, true},
		{"parameters: $1 = 'it''s', $2 = NULL, $3 = ''", []workload.Param{p("it's"), null, p("")}, true},
		{"Parameters: $1 = 'a, $2 = ''b''', $2 = 'multi\nline'", []workload.Param{p("a, $2 = 'b'"), p("multi\nline")}, true},
		{"Parameters: $1 = 'NULL'", []workload.Param{p("NULL")}, true},
		{"Parameters: $1 = 'x', $3 = 'y'", nil, false},
		{"Parameters: $1 = 'unterminated", nil, false},
		{"prepare: PREPARE x AS SELECT 1", nil, false},
		{"", nil, false},
	}
	for _, tt := range tests {
		got, ok := parseParams(tt.detail)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseParams(%q) = %v %v, want %v %v", tt.detail, got, ok, tt.want, tt.ok)
		}
	}
}

func TestConnField(t *testing.T) {
	msg := "user=alice database=shop application_name=my app SSL enabled (protocol=TLSv1.3)"
	for key, want := range map[string]string{"user": "alice", "database": "shop", "application_name": "my app", "host": ""} {
		if got := connField(msg, key); got != want {
			t.Errorf("connField(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestTimeParser(t *testing.T) {
	var tp timeParser
	base, _ := tp.parse("2026-12-02 18:24:58.419 UTC")
	if base != 1796235898419000 {
		t.Errorf("2026-12-02 18:24:58.419 UTC = %d µs", base)
	}
	tests := map[string]int64{
		"2026-12-02 18:24:58.419 GMT":    0,
		"2026-12-02 19:24:58.419 CET":    0,
		"2026-12-02 21:24:58.419 +03":    0,
		"2026-12-02 13:24:58.419 EST":    0,
		"2026-12-02 23:54:58.419 +0530":  0,
		"2026-12-02 18:24:58 UTC":        -419000,
		"2026-12-02 18:24:58.419123 UTC": 123,
	}
	for s, delta := range tests {
		got, err := tp.parse(s)
		if err != nil || got-base != delta {
			t.Errorf("parse(%q) = base%+d (%v), want base%+d", s, got-base, err, delta)
		}
	}
	if _, err := tp.parse("02/12/2026 18:24"); err == nil {
		t.Error("a non-log time stamp parsed")
	}
	tp.parse("2026-12-02 18:24:58.419 XYZT")
	if !tp.unknown["XYZT"] {
		t.Error("an unknown zone is not reported")
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct {
		prefix, line string
		want         entry
		rest         string
	}{
		{DefaultPrefix, "2026-12-02 18:24:58.419 UTC [21703] LOG:  x", entry{pid: "21703"}, "LOG:  x"},
		{RecommendedPrefix, "2026-12-02 18:24:58.419 UTC [7] 00000 bob@shop/my app: 1 LOG:  x",
			entry{pid: "7", user: "bob", db: "shop", app: "my app: 1", sqlstate: "00000"}, "LOG:  x"},
		{RecommendedPrefix, "2026-12-02 18:24:58.419 UTC [7] 00000 LOG:  checkpoint", entry{pid: "7", sqlstate: "00000"}, "LOG:  checkpoint"},
		{RecommendedPrefix, "2026-12-02 18:24:58.419 UTC [7] 00000 [unknown]@[unknown]/[unknown] LOG:  x", entry{pid: "7", sqlstate: "00000"}, "LOG:  x"},
		{"%t|%-8u|%d|%c|", "2026-12-02 18:24:58 UTC|bob     |shop|6b10627b.54f2|ERROR:  y",
			entry{user: "bob", db: "shop", session: "6b10627b.54f2"}, "ERROR:  y"},
		{"%n [%p] %i ", "1796235898.419 [9] SELECT LOG:  z", entry{pid: "9", tag: "SELECT"}, "LOG:  z"},
		{RecommendedPrefixQueryID, "2026-12-02 18:24:58.419 UTC [7] 00000 -7633180780175882470 bob@shop/app LOG:  x",
			entry{pid: "7", user: "bob", db: "shop", app: "app", sqlstate: "00000", queryID: -7633180780175882470}, "LOG:  x"},
	}
	for _, tt := range tests {
		pfx, err := compilePrefix(tt.prefix)
		if err != nil {
			t.Fatalf("%q: %v", tt.prefix, err)
		}
		var tp timeParser
		var e entry
		rest, ok := pfx.match(tt.line, &tp, &e)
		e.time = 0
		if !ok || rest != tt.rest || e != tt.want {
			t.Errorf("%q on %q: %+v rest %q (%v), want %+v rest %q", tt.prefix, tt.line, e, rest, ok, tt.want, tt.rest)
		}
	}
	for prefix, want := range map[string]string{
		"%u %d":      "no time stamp",
		"%m %u":      "cannot tell sessions apart",
		"%m [%p] %u": "must be followed by literal text",
		"%m [%p] %Z": "escape %Z is not one pglab reads",
	} {
		if _, err := compilePrefix(prefix); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("compilePrefix(%q) = %v, want %q", prefix, err, want)
		}
	}
}

// readEntries reads every entry of a log text with r's reader.
func readEntries(t *testing.T, rd logReader) ([]entry, error) {
	t.Helper()
	var out []entry
	for {
		var e entry
		err := rd.next(&e)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

const csvRow = `2026-12-02 18:24:59.769 UTC,"postgres","pglab",21746,"127.0.0.1:53518",6b10627b.54f2,7,"INSERT",2026-12-02 18:24:59 UTC,2/5,0,LOG,00000,`

func TestCSVReader(t *testing.T) {
	tail := `,,,,,,,,"my app","client backend",,0`
	log := csvRow + `"duration: 0.613 ms  execute s: insert into t values ($1, ""q"")","Parameters: $1 = 'multi` + "\n" + `line, with comma'"` + strings.TrimSuffix(tail, "0") + "-8899349068197897227\r\n" +
		"not,a,csvlog,line\n" +
		csvRow + `"statement: select 1",` + tail + "\n"
	rd := newCSVReader(bufio.NewReader(strings.NewReader(log)), "x.csv", &timeParser{})
	got, err := readEntries(t, rd)
	if err != nil || len(got) != 2 {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	if got[0].message != `duration: 0.613 ms  execute s: insert into t values ($1, "q")` ||
		got[0].detail != "Parameters: $1 = 'multi\nline, with comma'" || got[0].app != "my app" || got[0].backend != "client backend" ||
		got[0].queryID != -8899349068197897227 || got[1].queryID != 0 {
		t.Errorf("first entry %+v", got[0])
	}
	if got[1].line != 4 || got[1].message != "statement: select 1" {
		t.Errorf("second entry at line %d: %+v", got[1].line, got[1])
	}
	if rd.stats().unknown != 1 {
		t.Errorf("unknown lines %d, want 1", rd.stats().unknown)
	}
	// Truncated inside a quoted field.
	rd = newCSVReader(bufio.NewReader(strings.NewReader(csvRow+`"statement: sel`)), "t.csv", &timeParser{})
	if _, err := readEntries(t, rd); err == nil || !strings.Contains(err.Error(), "t.csv:1: the file ends in the middle of a record") {
		t.Errorf("truncated record: %v", err)
	}
	rd = newCSVReader(bufio.NewReader(strings.NewReader(csvRow+`"statement: sel`)), "t.csv", &timeParser{})
	rd.allowTruncated = true
	if _, err := readEntries(t, rd); err != nil || rd.stats().truncated != 1 {
		t.Errorf("--allow-truncated: %v, %d truncated", err, rd.stats().truncated)
	}
}

func TestStderrReader(t *testing.T) {
	log := "2026-12-02 18:24:59.779 UTC [21746] 00000 postgres@pglab/app LOG:  duration: 0.103 ms  statement: select 1;\n" +
		"\t\tselect 'x'\n" +
		"a stray line\n" +
		"2026-12-02 18:24:59.779 UTC [21746] 00000 postgres@pglab/app LOG:  duration: 0.010 ms  execute s: select $1::text\n" +
		"2026-12-02 18:24:59.779 UTC [21746] 00000 postgres@pglab/app DETAIL:  Parameters: $1 = 'multi\n" +
		"\tline'\n" +
		"2026-12-02 18:24:59.791 UTC [21746] 42P01 postgres@pglab/app ERROR:  relation \"nonexist\" does not exist at character 15\n" +
		"2026-12-02 18:24:59.791 UTC [21746] 42P01 postgres@pglab/app STATEMENT:  select * from nonexist\n" +
		"\twhere a = 1\n"
	pfx, _ := compilePrefix(RecommendedPrefix)
	rd := newStderrReader(bufio.NewReader(strings.NewReader(log)), "pg", pfx, &timeParser{})
	got, err := readEntries(t, rd)
	if err != nil || len(got) != 3 {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	want := []struct{ msg, detail, query, severity string }{
		{"duration: 0.103 ms  statement: select 1;\n\tselect 'x'", "", "", "LOG"},
		{"duration: 0.010 ms  execute s: select $1::text", "Parameters: $1 = 'multi\nline'", "", "LOG"},
		{`relation "nonexist" does not exist at character 15`, "", "select * from nonexist\nwhere a = 1", "ERROR"},
	}
	for i, w := range want {
		g := got[i]
		if g.message != w.msg || g.detail != w.detail || g.query != w.query || g.severity != w.severity {
			t.Errorf("entry %d: %q / %q / %q / %s, want %q / %q / %q / %s", i, g.message, g.detail, g.query, g.severity, w.msg, w.detail, w.query, w.severity)
		}
	}
	if got[2].sqlstate != "42P01" || rd.stats().unknown != 1 {
		t.Errorf("sqlstate %q, unknown lines %d", got[2].sqlstate, rd.stats().unknown)
	}
}

// recorder keeps what an assembler writes.
type recorder struct {
	sessions   []workload.Session
	statements []workload.Statement
	ends       []workload.SessionEnd
}

func (r *recorder) Session(s *workload.Session) error {
	r.sessions = append(r.sessions, *s)
	return nil
}
func (r *recorder) Fingerprint(workload.Fingerprint) error {
	return nil
}
func (r *recorder) Statement(s *workload.Statement) error {
	r.statements = append(r.statements, *s)
	return nil
}
func (r *recorder) SessionEnd(e workload.SessionEnd) error { r.ends = append(r.ends, e); return nil }

// TestAssembler feeds messages that a test server cannot be made to write
// through pgx (fast-path calls, portal fetches, background workers, a pid
// reused without a disconnection line) and checks what is taken.
func TestAssembler(t *testing.T) {
	rec := &recorder{}
	a := newAssembler(rec, 0, "", true)
	ms := int64(1000)
	feed := []entry{
		{time: 1 * ms, pid: "1", message: "connection received: host=127.0.0.1 port=1"},
		{time: 2 * ms, pid: "1", message: "connection authorized: user=u database=d application_name=a"},
		{time: 3 * ms, pid: "1", message: `fastpath function call: "lo_open" (OID 952)`},
		{time: 4 * ms, pid: "1", message: "duration: 0.500 ms"},
		{time: 5 * ms, pid: "1", message: "duration: 1.000 ms  parse <unnamed>: select $1"},
		{time: 8 * ms, pid: "1", message: "duration: 0.300 ms  execute <unnamed>/c1: select $1", detail: "Parameters: $1 = '5'"},
		{time: 9 * ms, pid: "1", message: "duration: 0.200 ms  execute fetch from <unnamed>/c1: select $1", detail: "Parameters: $1 = '5'"},
		{time: 10 * ms, pid: "2", backend: "autovacuum worker", message: "duration: 3.000 ms  statement: vacuum t"},
		{time: 11 * ms, pid: "1", message: "statement: COPY t FROM STDIN"},
		{time: 12 * ms, pid: "1", message: "duration: 1.000 ms"},
		{time: 13 * ms, pid: "1", message: "connection received: host=127.0.0.1 port=2"}, // pid 1 reused
		{time: 14 * ms, pid: "1", message: "duration: 0.100 ms  statement: select 2"},
		{time: 15 * ms, pid: "1", severity: "ERROR", sqlstate: "XX000"},
		{time: 16 * ms, pid: "1", message: "duration: 0.010 ms  statement: ;"}, // pgx's ping
		{time: 20 * ms, pid: "3", message: "connection received: host=127.0.0.1 port=3"},
		{time: 21 * ms, pid: "3", message: "connection authorized: user=u database=d application_name=pglab replay explain"},
		{time: 22 * ms, pid: "3", message: "duration: 0.100 ms  statement: EXPLAIN (FORMAT JSON) select 3"},
	}
	for i := range feed {
		if feed[i].severity == "" {
			feed[i].severity = "LOG"
		}
		if err := a.handle(&feed[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.finish(); err != nil {
		t.Fatal(err)
	}
	if len(rec.statements) != 2 {
		t.Fatalf("statements %+v", rec.statements)
	}
	st := rec.statements[0]
	if st.SQL != "select $1" || st.StartUS != 4*ms || st.DurationUS != 300 || st.Protocol != workload.Extended || len(st.Params) != 1 {
		t.Errorf("extended statement %+v: want its start at the parse (4 ms), duration 300 µs, one parameter", st)
	}
	if rec.statements[1].SQL != "select 2" || rec.statements[1].Session != 2 {
		t.Errorf("statement after pid reuse: %+v", rec.statements[1])
	}
	if len(rec.sessions) != 2 || rec.sessions[0].Application != "a" || !rec.sessions[0].Connected {
		t.Errorf("sessions %+v", rec.sessions)
	}
	want := map[string]int64{SkipFastpath: 1, SkipFetch: 1, SkipBackground: 1, SkipCopyFromStdin: 1, SkipErrorNoText: 1, SkipEmpty: 1, SkipPglab: 1}
	if !reflect.DeepEqual(a.skips, want) {
		t.Errorf("skips %v, want %v", a.skips, want)
	}
}

// FuzzLogReaders feeds any bytes to the three readers and the assembler:
// they may refuse them, never panic, and never take a statement that is
// not valid UTF-8.
func FuzzLogReaders(f *testing.F) {
	tail := `,,,,,,,,"my app","client backend",,0`
	f.Add(csvRow + `"duration: 0.6 ms  execute s: insert into t values ($1)","Parameters: $1 = 'a''b'"` + tail + "\n")
	f.Add(csvRow + `"statement: select 1",` + tail + "\n" + csvRow + `"duration: 1 ms",` + tail + "\n")
	f.Add(`{"timestamp":"2026-12-02 18:25:05.616 UTC","user":"u","dbname":"d","pid":1,"session_id":"a.1","error_severity":"LOG","message":"duration: 1 ms  statement: select 1"}` + "\n")
	f.Add("2026-12-02 18:24:59.779 UTC [1] 00000 u@d/a LOG:  statement: select 1;\n\tselect 2\n2026-12-02 18:24:59.779 UTC [1] 00000 u@d/a LOG:  duration: 1 ms\n")
	f.Add("2026-12-02 18:24:59.791 UTC [1] 42P01 u@d/a ERROR:  x\n2026-12-02 18:24:59.791 UTC [1] 42P01 u@d/a STATEMENT:  select * from nonexist\n")
	pfx, err := compilePrefix(RecommendedPrefix)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, log string) {
		for _, kind := range []string{CSVLog, JSONLog, Stderr} {
			br := bufio.NewReader(strings.NewReader(log))
			tp := &timeParser{}
			var rd logReader
			switch kind {
			case CSVLog:
				rd = newCSVReader(br, "f", tp)
			case JSONLog:
				rd = newJSONReader(br, "f", tp)
			default:
				rd = newStderrReader(br, "f", pfx, tp)
			}
			rec := &recorder{}
			a := newAssembler(rec, 0, "", kind == Stderr)
			for {
				var e entry
				if err := rd.next(&e); err != nil {
					break
				}
				if err := a.handle(&e); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.finish(); err != nil {
				t.Fatal(err)
			}
			for _, st := range rec.statements {
				if !validUTF8(&st) || st.Session == 0 || st.Fingerprint == "" {
					t.Fatalf("%s: statement %+v", kind, st)
				}
			}
		}
	})
}
