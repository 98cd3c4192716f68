package capture_test

// Captures of real servers: a managed PostgreSQL logs an application-like
// workload run with pgx, the capture reads the log back, and every
// statement the clients sent must be in the workload, in order, with its
// parameters, under fingerprints that group the calls of one statement.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/workload"
	"github.com/pglab/pglab/workload/capture"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// sent is one statement as a client sent it.
type sent struct {
	sql    string
	params []*string // nil: no parameters
	simple bool      // sent with the simple protocol
	err    string    // the SQLSTATE it failed with
}

// client runs one session and records what it sent, in order.
type client struct {
	app    string
	conn   *pgx.Conn
	sent   []sent
	copies int // COPY FROM STDIN, which a capture cannot take
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// exec runs sql through e with args: pgx's extended protocol when there
// are parameters, the simple protocol when there are none or when asked.
func (c *client) exec(e execer, sql string, args ...any) error {
	return c.run(sql, sql, args, func() error {
		_, err := e.Exec(context.Background(), sql, args...)
		return err
	})
}

// query runs a query and reads its rows.
func (c *client) query(sql string, args ...any) error {
	return c.run(sql, sql, args, func() error {
		rows, err := c.conn.Query(context.Background(), sql, args...)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	})
}

// run records a statement whose text in the log is text.
func (c *client) run(text, sql string, args []any, do func() error) error {
	s := sent{sql: text, simple: len(args) == 0}
	for _, a := range args {
		switch v := a.(type) {
		case pgx.QueryExecMode:
			s.simple = v == pgx.QueryExecModeSimpleProtocol
		case nil:
			s.params = append(s.params, nil)
		default:
			s.params = append(s.params, ptr(fmt.Sprint(v)))
		}
	}
	if s.simple {
		s.params = nil
	}
	if err := do(); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return fmt.Errorf("%s: %w", sql, err)
		}
		s.err = pe.Code
	}
	c.sent = append(c.sent, s)
	return nil
}

func ptr(s string) *string { return &s }

// session is one application session: reads and writes with parameters,
// simple-protocol statements, a transaction block, a NULL, quotes, dollar
// quoting, a multi-line statement, IN lists, a named prepared statement,
// a failing insert and a COPY FROM STDIN.
func (c *client) session(i int) error {
	ctx := context.Background()
	simple := pgx.QueryExecModeSimpleProtocol
	steps := []func() error{}
	for k := 0; k < 5; k++ {
		id := i*100 + k
		var note any
		if k%2 == 1 {
			note = fmt.Sprintf("note %d", k)
		}
		steps = append(steps,
			func() error {
				return c.exec(c.conn, "insert into items (id, name, note) values ($1, $2, $3)", id, fmt.Sprintf("it's \"item\" %d \\ done", id), note)
			},
			func() error { return c.query("select name, note from items where id = $1", id) })
	}
	steps = append(steps,
		func() error { return c.transaction(i) },
		func() error {
			return c.query("select id,\n       name\n  from items\n where id = $1\n   and note is null -- a comment\n", i*100+2)
		},
		func() error { return c.query("select $q$it's $1, not a parameter$q$ || $1::text", "x'y") },
		func() error {
			return c.exec(c.conn, fmt.Sprintf("select count(*) from items where id in (%d, %d, %d)", i, i+1, i+2), simple)
		},
		func() error {
			return c.exec(c.conn, fmt.Sprintf("SELECT count(*) FROM items WHERE id IN (%d,%d)", i+3, i+4), simple)
		},
		func() error {
			return c.exec(c.conn, "insert into items (id, name) values ($1, $2)", i*100, "duplicate")
		},
		func() error { return c.prepared(i) },
		func() error { return c.copyIn(i) },
	)
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return c.conn.Close(ctx)
}

// transaction runs one transaction block through pgx.Tx.
func (c *client) transaction(i int) error {
	ctx := context.Background()
	tx, err := c.conn.Begin(ctx)
	if err != nil {
		return err
	}
	c.sent = append(c.sent, sent{sql: "begin", simple: true})
	if err := c.exec(tx, "update items set note = $1 where id = $2", "in a transaction", i*100+1); err != nil {
		return err
	}
	if err := c.exec(tx, "select 1"); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	c.sent = append(c.sent, sent{sql: "commit", simple: true})
	return nil
}

// prepared runs a statement prepared under a name twice.
func (c *client) prepared(i int) error {
	const sql = "select id from items where name = $1 or id = $2"
	if _, err := c.conn.Prepare(context.Background(), "by_name", sql); err != nil {
		return err
	}
	for k := 0; k < 2; k++ {
		args := []any{fmt.Sprintf("name %d", k), i*100 + k}
		err := c.run(sql, sql, args, func() error {
			_, err := c.conn.Exec(context.Background(), "by_name", args...)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// copyIn loads two rows with COPY FROM STDIN.
func (c *client) copyIn(i int) error {
	rows := [][]any{{int32(i*100 + 50), "copied"}, {int32(i*100 + 51), "copied"}}
	_, err := c.conn.CopyFrom(context.Background(), pgx.Identifier{"items"}, []string{"id", "name"}, pgx.CopyFromRows(rows))
	c.copies++
	return err
}

// loggingSettings make a server log a workload: settings.go's table, with
// the log files in the data directory under fixed names.
func loggingSettings(t *testing.T, version int, destinations string, statementLog bool) []pgserver.Setting {
	t.Helper()
	set, err := capture.SettingsFor(version, capture.CSVLog)
	if err != nil {
		t.Fatal(err)
	}
	var out []pgserver.Setting
	for _, s := range set {
		out = append(out, pgserver.Setting{Name: s.Name, Value: strings.Trim(s.Value, "'")})
	}
	out = pgserver.MergeSettings(out,
		pgserver.Setting{Name: "log_destination", Value: destinations},
		pgserver.Setting{Name: "log_directory", Value: "log"},
		pgserver.Setting{Name: "log_filename", Value: "pg"},
		pgserver.Setting{Name: "log_line_prefix", Value: capture.RecommendedPrefix})
	if statementLog {
		out = pgserver.MergeSettings(out,
			pgserver.Setting{Name: "log_min_duration_statement", Value: "-1"},
			pgserver.Setting{Name: "log_statement", Value: "all"},
			pgserver.Setting{Name: "log_duration", Value: "on"})
	}
	return out
}

// workloadRun is what the clients of one server sent.
type workloadRun struct {
	clients   []*client
	otherDB   int // statements sent in another database
	logDir    string
	passwords []string
}

// runWorkload starts a server with logging settings, runs the setup and
// four concurrent sessions in database pglab and one in another database,
// stops the server (its logs complete) and returns what was sent.
func runWorkload(t *testing.T, version string, settings []pgserver.Setting) *workloadRun {
	t.Helper()
	inst := pgtest.New(t, pgtest.Options{Version: version, Settings: settings})
	ctx := context.Background()
	connect := func(app, db string) *pgx.Conn {
		cfg, err := pgx.ParseConfig(inst.DSNFor(db))
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = app
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	run := &workloadRun{logDir: filepath.Join(inst.DataDir(), "log"), passwords: []string{"sekret-pw-0", "sekret-pw-1", "sekret-pw-2"}}
	setup := &client{app: "capture-setup", conn: connect("capture-setup", "pglab")}
	for _, sql := range []string{
		"create table items (id int primary key, name text not null, note text)",
		"create database other",
		"create role capture_pw login password 'sekret-pw-0'",
		"alter role capture_pw password 'sekret-pw-1'",
		"select 'postgres://capture_pw:sekret-pw-2@db.example/app' as dsn",
	} {
		if err := setup.exec(setup.conn, sql); err != nil {
			t.Fatal(err)
		}
	}
	setup.conn.Close(ctx)
	run.clients = append(run.clients, setup)

	other := connect("capture-other", "other")
	for _, sql := range []string{"create table t (a int)", "insert into t values (1)", "select * from t"} {
		if _, err := other.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
		run.otherDB++
	}
	other.Close(ctx)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := 0; i < 4; i++ {
		c := &client{app: fmt.Sprintf("capture-s%d", i+1), conn: connect(fmt.Sprintf("capture-s%d", i+1), "pglab")}
		run.clients = append(run.clients, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.session(i + 1)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	stopCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := inst.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	return run
}

// captured is a workload file read back.
type captured struct {
	header     workload.Header
	end        workload.End
	sessions   map[int64]*workload.Session
	byApp      map[string][]*workload.Statement
	ends       map[int64]bool
	fpText     map[string]string
	raw        string
	statements int
}

func readWorkload(t *testing.T, path string) *captured {
	t.Helper()
	r, err := workload.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := &captured{header: r.Header(), sessions: map[int64]*workload.Session{}, byApp: map[string][]*workload.Statement{},
		ends: map[int64]bool{}, fpText: map[string]string{}}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch v := rec.(type) {
		case *workload.Session:
			c.sessions[v.ID] = v
		case *workload.Fingerprint:
			c.fpText[v.ID] = v.Text
		case *workload.SessionEnd:
			c.ends[v.Session] = true
		case *workload.Statement:
			s := c.sessions[v.Session]
			if s == nil {
				t.Fatalf("statement of session %d before its session record", v.Session)
			}
			if _, ok := c.fpText[v.Fingerprint]; !ok {
				t.Fatalf("statement with fingerprint %s before its fingerprint record", v.Fingerprint)
			}
			c.byApp[s.Application] = append(c.byApp[s.Application], v)
			c.statements++
		}
	}
	c.end, _ = r.End()
	raw, _ := os.ReadFile(path)
	c.raw = string(raw)
	return c
}

// masked is what the capture makes of the test's passwords.
var masked = strings.NewReplacer("'sekret-pw-0'", "'xxxxx'", "'sekret-pw-1'", "'xxxxx'", ":sekret-pw-2@", ":xxxxx@")

// checkCapture compares a capture with what the clients sent: every
// statement, in order, with its parameters, protocol and error; calls of
// one statement under one fingerprint; sessions with their database,
// application, connection and end; what was skipped; no password.
func checkCapture(t *testing.T, run *workloadRun, sum *capture.Summary, c *captured, timed, codes bool) {
	t.Helper()
	total, copies := 0, 0
	for _, cl := range run.clients {
		got := c.byApp[cl.app]
		total += len(cl.sent)
		copies += cl.copies
		if len(got) != len(cl.sent) {
			t.Errorf("%s: %d statements captured, %d sent", cl.app, len(got), len(cl.sent))
		}
		for i := 0; i < min(len(got), len(cl.sent)); i++ {
			checkStatement(t, cl.app, i, got[i], cl.sent[i], timed, codes)
		}
		checkOrder(t, cl.app, got)
	}
	if c.statements != total || sum.Statements != int64(total) {
		t.Errorf("workload holds %d statements (summary %d), the clients sent %d", c.statements, sum.Statements, total)
	}
	checkSessions(t, run, c)
	checkFingerprints(t, c)
	skipped := map[string]int64{}
	for _, s := range sum.Skipped {
		skipped[s.Reason] = s.Count
	}
	if skipped[capture.SkipCopyFromStdin] != int64(copies) {
		t.Errorf("COPY FROM STDIN skipped %d times, the clients ran %d: %v", skipped[capture.SkipCopyFromStdin], copies, sum.Skipped)
	}
	if skipped[capture.SkipOtherDatabase] < int64(run.otherDB) {
		t.Errorf("statements of other databases skipped: %d, want at least %d", skipped[capture.SkipOtherDatabase], run.otherDB)
	}
	if skipped[capture.SkipUnknownShape] != 0 {
		t.Errorf("lines of unknown shape: %d", skipped[capture.SkipUnknownShape])
	}
	if sum.Redacted != 3 {
		t.Errorf("%d statements had a password masked, want 3", sum.Redacted)
	}
	for _, pw := range run.passwords {
		if strings.Contains(c.raw, pw) {
			t.Errorf("the workload file holds the password %q", pw)
		}
	}
}

func checkStatement(t *testing.T, app string, i int, got *workload.Statement, want sent, timed, codes bool) {
	t.Helper()
	if !codes && want.err != "" {
		want.err = "error" // a stderr log without %e does not say which
	}
	where := fmt.Sprintf("%s statement %d (%q)", app, i+1, clipped(want.sql))
	if got.SQL != masked.Replace(want.sql) {
		t.Errorf("%s: captured as %q", where, got.SQL)
		return
	}
	if got.Error != want.err {
		t.Errorf("%s: error %q, want %q", where, got.Error, want.err)
	}
	wantProto := workload.Extended
	if want.simple {
		wantProto = workload.Simple
	}
	if got.Protocol != wantProto && !(want.err != "" && got.Protocol == workload.Simple) {
		t.Errorf("%s: protocol %s, want %s", where, got.Protocol, wantProto)
	}
	if want.err == "" && !paramsEqual(got.Params, want.params) {
		t.Errorf("%s: parameters %s, want %s", where, showParams(got.Params), showPtrs(want.params))
	}
	if timed && want.err == "" && got.DurationUS < 0 {
		t.Errorf("%s: no duration", where)
	}
}

func checkOrder(t *testing.T, app string, got []*workload.Statement) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if got[i].StartUS < got[i-1].StartUS+max(got[i-1].DurationUS, 0) {
			t.Errorf("%s: statement %d starts at %d µs, before the end of the one before (%d + %d)", app, i+1,
				got[i].StartUS, got[i-1].StartUS, got[i-1].DurationUS)
		}
	}
}

func checkSessions(t *testing.T, run *workloadRun, c *captured) {
	t.Helper()
	apps := map[string]bool{}
	for _, cl := range run.clients {
		apps[cl.app] = true
	}
	for id, s := range c.sessions {
		if !apps[s.Application] {
			t.Errorf("session %d of application %q in database %q: not one of the test's clients", id, s.Application, s.Database)
			continue
		}
		if s.Database != "pglab" || s.User == "" || !s.Connected || !c.ends[id] {
			t.Errorf("session %+v: want database pglab, a user, its connection and its end (end seen: %v)", *s, c.ends[id])
		}
		delete(apps, s.Application)
	}
	for app := range apps {
		t.Errorf("no session of %s", app)
	}
}

// checkFingerprints: the calls of one statement share a fingerprint, the
// IN lists of different lengths and spellings too, different statements
// do not.
func checkFingerprints(t *testing.T, c *captured) {
	t.Helper()
	fpOf := map[string]string{} // statement text → fingerprint
	textsOf := map[string]int{} // fingerprint → distinct texts
	var inLists []string
	for _, sts := range c.byApp {
		for _, st := range sts {
			if fp, ok := fpOf[st.SQL]; ok && fp != st.Fingerprint {
				t.Errorf("%q has fingerprints %s and %s", st.SQL, fp, st.Fingerprint)
			}
			if _, ok := fpOf[st.SQL]; !ok {
				textsOf[st.Fingerprint]++
			}
			fpOf[st.SQL] = st.Fingerprint
			if strings.Contains(strings.ToLower(st.SQL), " in (") {
				inLists = append(inLists, st.Fingerprint)
			}
		}
	}
	for i := 1; i < len(inLists); i++ {
		if inLists[i] != inLists[0] {
			t.Errorf("IN lists of other lengths have other fingerprints: %q and %q", c.fpText[inLists[0]], c.fpText[inLists[i]])
		}
	}
	if len(inLists) != 8 {
		t.Errorf("%d IN-list statements, want 8", len(inLists))
	}
	insert := fpOf["insert into items (id, name, note) values ($1, $2, $3)"]
	sel := fpOf["select name, note from items where id = $1"]
	if insert == "" || sel == "" || insert == sel {
		t.Errorf("insert and select fingerprints %q and %q: want two different ones", insert, sel)
	}
	if text := c.fpText[sel]; text != "select name, note from items where id = $1" {
		t.Errorf("normalised select: %q", text)
	}
}

func paramsEqual(got []workload.Param, want []*string) bool {
	if len(got) != len(want) || (got == nil) != (want == nil) {
		return false
	}
	for i, p := range got {
		if p.Null != (want[i] == nil) || (!p.Null && p.Value != *want[i]) {
			return false
		}
	}
	return true
}

func showParams(ps []workload.Param) string {
	var b []string
	for _, p := range ps {
		if p.Null {
			b = append(b, "NULL")
		} else {
			b = append(b, fmt.Sprintf("%q", p.Value))
		}
	}
	return "[" + strings.Join(b, " ") + "]"
}

func showPtrs(ps []*string) string {
	var b []string
	for _, p := range ps {
		if p == nil {
			b = append(b, "NULL")
		} else {
			b = append(b, fmt.Sprintf("%q", *p))
		}
	}
	return "[" + strings.Join(b, " ") + "]"
}

func clipped(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// captureFile runs a capture of files into a workload in a temporary
// directory and reads it back.
func captureFile(t *testing.T, opts capture.Options) (*capture.Summary, *captured) {
	t.Helper()
	opts.Out = filepath.Join(t.TempDir(), "w.jsonl")
	opts.Database = "pglab"
	sum, err := capture.Capture(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum, readWorkload(t, opts.Out)
}

// TestCapture17 captures one workload on PostgreSQL 17 from its csvlog,
// its jsonlog and its stderr log (written at once), each detected.
func TestCapture17(t *testing.T) {
	run := runWorkload(t, "17", loggingSettings(t, 17, "csvlog,jsonlog,stderr", false))
	for _, tc := range []struct{ file, format, prefix, version string }{
		{"pg.csv", capture.CSVLog, "", "14+"},
		{"pg.json", capture.JSONLog, "", "15+"},
		{"pg", capture.Stderr, capture.RecommendedPrefix, ""},
	} {
		t.Run(tc.format, func(t *testing.T) {
			sum, c := captureFile(t, capture.Options{Files: []string{filepath.Join(run.logDir, tc.file)}, Prefix: tc.prefix})
			if sum.Format != tc.format || sum.ServerVersion != tc.version {
				t.Errorf("format %s (server %q), want %s (%q)", sum.Format, sum.ServerVersion, tc.format, tc.version)
			}
			checkCapture(t, run, sum, c, true, true)
		})
	}
}

// TestCaptureOtherVersions captures from PostgreSQL 13 (csvlog of 24
// columns, "parameters:" in lower case; stderr with the default prefix:
// sessions known from their connection lines only) and 18 (log_statement
// = all with log_duration: statements logged when they arrive, durations
// apart).
func TestCaptureOtherVersions(t *testing.T) {
	t.Run("13 csvlog and stderr with the default prefix", func(t *testing.T) {
		settings := pgserver.MergeSettings(loggingSettings(t, 13, "csvlog,stderr", false),
			pgserver.Setting{Name: "log_line_prefix", Value: capture.DefaultPrefix})
		run := runWorkload(t, "13", settings)
		sum, c := captureFile(t, capture.Options{Files: []string{filepath.Join(run.logDir, "pg.csv")}})
		if sum.ServerVersion != "13" {
			t.Errorf("server version from the csvlog's shape: %q, want 13", sum.ServerVersion)
		}
		checkCapture(t, run, sum, c, true, true)
		sum, c = captureFile(t, capture.Options{Files: []string{filepath.Join(run.logDir, "pg")}})
		if sum.Format != capture.Stderr {
			t.Errorf("format %s, want stderr", sum.Format)
		}
		checkCapture(t, run, sum, c, true, false)
	})
	t.Run("18 log_statement", func(t *testing.T) {
		run := runWorkload(t, "18", loggingSettings(t, 18, "csvlog,jsonlog", true))
		for _, file := range []string{"pg.csv", "pg.json"} {
			sum, c := captureFile(t, capture.Options{Files: []string{filepath.Join(run.logDir, file)}})
			checkCapture(t, run, sum, c, true, true)
		}
	})
}
