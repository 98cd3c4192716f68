package cli_test

// The replay journey: an application-like workload run on a managed
// PostgreSQL 17 that logs it (csvlog and jsonlog at once), captured with
// pglab capture, replayed with the replay study on data loaded from a SQL
// script.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/dataset/sqlscript"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/workload/capture"
)

// replayData is the application's data: a table of 20,000 items looked
// up by key (the index lookups of the known truth), orders without an
// index, a one-row counter.
const replayData = `-- the application's data
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, note text, price numeric(10,2));
INSERT INTO items SELECT g, 'item ' || g, NULL, (g % 1000) / 10.0 FROM generate_series(1, 20000) g;
CREATE TABLE orders (id serial PRIMARY KEY, item_id int NOT NULL, qty int NOT NULL, at timestamptz DEFAULT now());
CREATE TABLE counters (name text PRIMARY KEY, n int NOT NULL);
COPY counters (name, n) FROM stdin;
hits	0
\.
`

// appSession is one session of the application: index lookups and
// updates by key, inserts, a read of a small table, a transaction block,
// a simple-protocol query, with a pause of about 30 ms between
// statements (the application's own time), so that a session lasts
// about 0.7 s and a server that scans the items table (20,000 rows: 1-3
// ms) for every lookup is slower at the lookups without being
// overloaded. It returns how many statements it sent and how many of
// them only read.
func appSession(ctx context.Context, conn *pgx.Conn, i int) (sent, reads int, err error) {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	pause := func() { time.Sleep(time.Duration(20+rng.IntN(20)) * time.Millisecond) }
	do := func(read bool, sql string, args ...any) error {
		sent++
		if read {
			reads++
		}
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
		pause()
		return nil
	}
	// One transaction block per session, first: after b's slower index
	// lookups (the known truth) the block's statements were faster on b,
	// the commit by 4-14 % and the read in the block by 5-6 % in each of
	// three runs (called in one, in CI): a real effect of b's busier
	// server on the statements that follow it, not the known truth's.
	// Before the lookups, the block measured within ±10 %, either way.
	for _, q := range []struct {
		read bool
		sql  string
		args []any
	}{
		{false, "begin", []any{pgx.QueryExecModeSimpleProtocol}},
		{false, "update counters set n = n + $1 where name = $2", []any{1, "hits"}},
		{false, "insert into orders (item_id, qty) values ($1, $2)", []any{i, 1}},
		{true, "select qty from orders where item_id = $1 order by id desc limit 1", []any{i}},
		{false, "commit", []any{pgx.QueryExecModeSimpleProtocol}},
	} {
		if err := do(q.read, q.sql, q.args...); err != nil {
			return sent, reads, err
		}
	}
	for k := 0; k < 8; k++ {
		id := 1 + rng.IntN(20000)
		steps := []error{do(true, "select name, note, price from items where id = $1", id)}
		switch k % 4 {
		case 0:
			steps = append(steps, do(false, "update items set note = $1 where id = $2", fmt.Sprintf("seen by %d", i), id))
		case 1:
			steps = append(steps, do(false, "insert into orders (item_id, qty) values ($1, $2)", id, 1+rng.IntN(5)))
		case 2:
			steps = append(steps, do(true, "select count(*), coalesce(sum(qty), 0) from orders where item_id = $1", id))
		case 3:
			steps = append(steps, do(true, "select n from counters where name = 'hits'", pgx.QueryExecModeSimpleProtocol))
		}
		for _, e := range steps {
			if e != nil {
				return sent, reads, e
			}
		}
	}
	return sent, reads, nil
}

// appCapture is the application's workload, captured.
type appCapture struct {
	dataPath  string
	csv, json string // the workload files
	sent      int    // statements the application sent
	reads     int
}

var (
	appOnce sync.Once
	appCap  *appCapture
	appErr  error
	// appFiles are the captured files' contents, kept once the first test
	// that needed them (and its temporary directory) is gone.
	appFiles map[string][]byte
)

// appWorkload runs the application once per test binary on a managed 17
// that logs to csvlog and jsonlog, captures both logs, and gives each test
// the files in a directory of its own.
func appWorkload(t *testing.T) *appCapture {
	t.Helper()
	appOnce.Do(func() {
		appCap, appErr = runApp(t, t.TempDir())
		if appErr != nil {
			return
		}
		appFiles = map[string][]byte{}
		for _, f := range []string{appCap.dataPath, appCap.csv, appCap.json} {
			appFiles[filepath.Base(f)], appErr = os.ReadFile(f)
			if keep := os.Getenv("PGLAB_REPLAY_KEEP"); keep != "" {
				os.WriteFile(filepath.Join(keep, filepath.Base(f)), appFiles[filepath.Base(f)], 0o644) // to try by hand
			}
		}
	})
	if appErr != nil {
		t.Fatal(appErr)
	}
	app := *appCap
	copyInto(t, appFiles, &app.dataPath, &app.csv, &app.json)
	return &app
}

// copyInto writes files (by base name) into a new directory of the test
// and points each path at its copy there.
func copyInto(t *testing.T, files map[string][]byte, paths ...*string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range paths {
		*f = filepath.Join(dir, filepath.Base(*f))
		if err := os.WriteFile(*f, files[filepath.Base(*f)], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loggingServer starts a managed 17 that logs every statement as pglab
// capture --settings says (csvlog into log/pg.csv), with extra settings.
func loggingServer(t *testing.T, extra ...pgserver.Setting) (*pgserver.Instance, error) {
	set, err := capture.SettingsFor(17, capture.CSVLog)
	if err != nil {
		return nil, err
	}
	var settings []pgserver.Setting
	for _, s := range set {
		settings = append(settings, pgserver.Setting{Name: s.Name, Value: strings.Trim(s.Value, "'")})
	}
	extra = append([]pgserver.Setting{{Name: "log_directory", Value: "log"}, {Name: "log_filename", Value: "pg"}}, extra...)
	return pgtest.New(t, pgtest.Options{Version: "17", Settings: pgserver.MergeSettings(settings, extra...)}), nil
}

func runApp(t *testing.T, dir string) (*appCapture, error) {
	app := &appCapture{dataPath: filepath.Join(dir, "app.sql"), csv: filepath.Join(dir, "app-csv.workload"), json: filepath.Join(dir, "app-json.workload.gz")}
	if err := os.WriteFile(app.dataPath, []byte(replayData), 0o644); err != nil {
		return nil, err
	}
	inst, err := loggingServer(t, pgserver.Setting{Name: "log_destination", Value: "csvlog,jsonlog"})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := loadQuietly(ctx, inst, app.dataPath); err != nil {
		return nil, err
	}
	// The sessions run one after another, 300 ms apart: a statement of
	// one never waits for the CPU that another's scan takes, nor for its
	// row lock, so that on b only the statements whose plans change are
	// slower (overlapping sessions made b's other statements slower too on
	// a loaded 2-core machine: a real effect of the settings, not the
	// known truth's).
	for i := 0; i < 4; i++ {
		if i > 0 {
			time.Sleep(300 * time.Millisecond)
		}
		cfg, _ := pgx.ParseConfig(inst.DSN())
		cfg.RuntimeParams["application_name"] = fmt.Sprintf("shop-%d", i)
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		sent, reads, err := appSession(ctx, conn, i)
		conn.Close(ctx)
		app.sent, app.reads = app.sent+sent, app.reads+reads
		if err != nil {
			return nil, err
		}
	}
	logDir := filepath.Join(inst.DataDir(), "log")
	waitSessionsLogged(t, filepath.Join(logDir, "pg.csv"), filepath.Join(logDir, "pg.json"))
	for _, c := range []struct{ log, out string }{{"pg.csv", app.csv}, {"pg.json", app.json}} {
		r := run(t, "capture", "--database", "pglab", "--log", filepath.Join(logDir, c.log), "--out", c.out)
		if r.code != 0 {
			return nil, fmt.Errorf("capture %s: exit %d: %s", c.log, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, fmt.Sprintf("statements    %d ", app.sent)) {
			return nil, fmt.Errorf("capture %s took other than the %d statements sent:\n%s", c.log, app.sent, r.stdout)
		}
	}
	return app, nil
}

// loadQuietly loads the data script with statement logging off for its
// session (log_min_duration_statement = -1 in the startup packet): the
// capture sees its connection, not its statements.
func loadQuietly(ctx context.Context, inst *pgserver.Instance, path string) error {
	cfg, err := pgconn.ParseConfig(inst.DSN())
	if err != nil {
		return err
	}
	cfg.RuntimeParams["log_min_duration_statement"] = "-1"
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = sqlscript.Exec(ctx, sqlscript.NewReader(f, path), sqlscript.Options{
		Connect: func(ctx context.Context) (*pgconn.PgConn, error) { return pgconn.ConnectConfig(ctx, cfg) },
	})
	return err
}

// replayDoc is what the replay tests read of report.json and of pglab
// study --json.
type replayDoc struct {
	Runs []struct {
		ID string `json:"id"`
	} `json:"runs"`
	AA     bool `json:"aa"`
	Family *struct {
		Comparisons int `json:"comparisons"`
		Called      int `json:"called"`
	} `json:"family"`
	Studies []struct {
		Name  string `json:"name"`
		Cases []struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
			Impact *float64          `json:"impact_percent"`
		} `json:"cases"`
		Metrics []struct {
			Case    string `json:"case"`
			Metric  string `json:"metric"`
			Primary bool   `json:"primary"`
			Changes []struct {
				Target  string `json:"target"`
				Called  bool   `json:"called"`
				Outcome string `json:"outcome"`
				Verdict string `json:"verdict"`
			} `json:"changes"`
		} `json:"metrics"`
		Notes []struct {
			Labels map[string]string `json:"labels"`
			Target string            `json:"target"`
			Metric string            `json:"metric"`
			Text   string            `json:"text"`
		} `json:"notes"`
	} `json:"studies"`
	// pglab study --json
	Measurements []struct {
		Target string            `json:"target"`
		Case   map[string]string `json:"case"`
		Rep    int               `json:"rep"`
		Metric string            `json:"metric"`
		Value  float64           `json:"value"`
	} `json:"measurements"`
}

func readReplayDoc(t *testing.T, data []byte) *replayDoc {
	t.Helper()
	var d replayDoc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("report: %v", err)
	}
	return &d
}

// replayArgs are the study's parameters for the application's workload.
func replayArgs(w, data string) []string {
	return []string{"--param", "replay.workload=" + w, "--param", "replay.data=" + data}
}

// The application's index lookups: the known truth's slower queries.
var indexLookups = map[string]bool{
	"select name, note, price from items where id = $1": true,
	"update items set note = $1 where id = $2":          true,
}

// TestReplayCapturesAll: pglab capture took every statement the
// application sent (checked in appWorkload), from csvlog and from
// jsonlog; a replay on 17 runs every read and at least 95 % of the writes
// without an error they did not have at capture.
func TestReplayCapturesAll(t *testing.T) {
	app := appWorkload(t)
	for _, w := range []string{app.csv, app.json} {
		dir := t.TempDir()
		r := run(t, "--quiet", "study", "replay", "--versions", "17", "--reps", "2", "--json",
			"--param", "workload="+w, "--param", "data="+app.dataPath, "--store", filepath.Join(dir, "r.db"))
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", filepath.Base(w), r.code, r.stderr)
		}
		d := readReplayDoc(t, []byte(r.stdout))
		calls, errs := map[string]float64{}, map[string]float64{}
		for _, m := range d.Measurements {
			q := m.Case["query"]
			switch m.Metric {
			case "calls":
				calls[q] += m.Value
			case "errors":
				errs[q] += m.Value
			case "statements":
				if int(m.Value) != app.sent {
					t.Errorf("%s: round %d executed %v statements, want %d", filepath.Base(w), m.Rep, m.Value, app.sent)
				}
			}
		}
		var reads, writes, readErrs, writeErrs float64
		for q, n := range calls {
			if strings.HasPrefix(q, "select") {
				reads, readErrs = reads+n, readErrs+errs[q]
			} else {
				writes, writeErrs = writes+n, writeErrs+errs[q]
			}
		}
		if int(reads) != 2*app.reads || readErrs != 0 || writeErrs > 0.05*writes || reads+writes != float64(2*app.sent) {
			t.Errorf("%s: %v reads (%v failed), %v writes (%v failed) in 2 rounds; the application sent %d statements, %d reads",
				filepath.Base(w), reads, readErrs, writes, writeErrs, app.sent, app.reads)
		}
	}
}

// calledQueries returns the queries whose latency was called changed on
// target, and the plan notes by query.
func calledQueries(t *testing.T, d *replayDoc, target string) (called map[string]string, plans map[string]string) {
	t.Helper()
	called, plans = map[string]string{}, map[string]string{}
	for _, s := range d.Studies {
		if s.Name != "replay" {
			continue
		}
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				if c.Called && c.Target == target {
					if !m.Primary {
						t.Errorf("auxiliary %s of %q called", m.Metric, m.Case)
					}
					called[m.Case] = c.Verdict
				}
			}
		}
		for _, n := range s.Notes {
			if strings.HasPrefix(n.Text, "plan differs") && n.Target == target {
				plans[n.Labels["query"]] = n.Text
			}
		}
	}
	return called, plans
}

// TestReplayKnownTruth: with index scans and bitmap scans off on b, the
// replay calls the index lookups slower on b, with the plan change beside
// them, and at most one other fingerprint (a false discovery, which the
// rate the cases are tested at allows); an A/A replay calls nothing.
func TestReplayKnownTruth(t *testing.T) {
	app := appWorkload(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	args := append([]string{"--quiet", "compare", "--versions", "17", "--reps", "6", "--config", "a:enable_indexscan=on",
		"--config", "b:enable_indexscan=off,enable_bitmapscan=off", "--set", "max_parallel_workers_per_gather=0",
		"--studies", "replay", "--store", filepath.Join(dir, "r.db"), "--out", out}, replayArgs(app.csv, app.dataPath)...)
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	kt := readReplayDoc(t, data)
	called, plans := calledQueries(t, kt, "b")
	for q := range indexLookups {
		if called[q] != "worse" {
			t.Errorf("%q: called %q on b, want worse", q, called[q])
		}
		if !strings.Contains(plans[q], "Index Scan using items_pkey on items → Seq Scan on items") {
			t.Errorf("%q: plan note %q", q, plans[q])
		}
	}
	// The workload's time may be called with them (its slower lookups).
	// Under the gate of the statements' latency, which the lookups pass,
	// the other 7 fingerprints are tested at the false discovery rate
	// (Benjamini-Hochberg at 0.05 with the lookups' two calls: each at
	// about 0.05·3/9, divided among 3 looks): one of them is called by
	// chance in a few percent of runs (it failed CI once), two in well
	// under 1 %. One is tolerated, and named; two fail.
	var others []string
	for q, v := range called {
		if !indexLookups[q] && !(strings.HasPrefix(q, "replay of ") && v == "worse") {
			others = append(others, fmt.Sprintf("%q called %s", q, v))
		}
	}
	switch {
	case len(others) > 1:
		t.Errorf("%s on b: only the index lookups (and the workload's time, worse) should be\n%s", strings.Join(others, ", "), r.stdout)
	case len(others) == 1:
		t.Logf("one false discovery among the unchanged fingerprints, which the false discovery rate allows: %s", others[0])
	}
	// The cases by their impact on the workload's time: the lookups that
	// got slower first (the whole workload's own change apart).
	for _, s := range kt.Studies {
		var order []string
		for _, c := range s.Cases {
			if c.Impact != nil && !strings.HasPrefix(c.Name, "replay of ") {
				order = append(order, c.Name)
			}
		}
		if s.Name == "replay" && (len(order) < 2 || !indexLookups[order[0]] || !indexLookups[order[1]]) {
			t.Errorf("cases by impact: %v; want the index lookups first", order)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"### Plans that differ", "| query | query_id | calls per round | impact on the workload's time (b vs a) | a | b | b vs a |", "b: fidelity: 84 of 84 captured statements executed"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if !regexp.MustCompile(`\| select name, note, price from items where id = \$1 \| -?[0-9]+ \| 32 \|`).MatchString(r.stdout) {
		t.Errorf("the terminal's table lacks the lookups' row:\n%s", r.stdout)
	}
	// pglab serve shows the run as the HTML report does.
	if len(kt.Runs) == 1 {
		code, body := startServe(t, filepath.Join(dir, "r.db")).get(t, "/runs/"+kt.Runs[0].ID)
		for _, want := range []string{"Plans that differ", "Index Scan using items_pkey on items", "select name, note, price from items where id = $1", "fidelity: 84 of 84"} {
			if code != 200 || !strings.Contains(body, want) {
				t.Errorf("serve's page of the run (%d) lacks %q", code, want)
			}
		}
	}

	aa := append([]string{"--quiet", "compare", "--aa", "--versions", "17", "--reps", "6", "--set", "max_parallel_workers_per_gather=0",
		"--studies", "replay", "--store", filepath.Join(dir, "r.db"), "--out", filepath.Join(dir, "aa")}, replayArgs(app.csv, app.dataPath)...)
	r = run(t, aa...)
	if r.code != 0 {
		t.Fatalf("A/A: exit %d: %s", r.code, r.stderr)
	}
	data, err = os.ReadFile(filepath.Join(dir, "aa", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := readReplayDoc(t, data)
	called, plans = calledQueries(t, d, "b")
	if len(called) > 0 || len(plans) > 0 || !d.AA || d.Family == nil || d.Family.Called != 0 {
		t.Errorf("A/A: called %v, plans %v (aa %v, family %+v)", called, plans, d.AA, d.Family)
	}
}

// TestReplayVersions replays the workload on 16 and 17: a verdict per
// fingerprint, and the plans compared.
func TestReplayVersions(t *testing.T) {
	app := appWorkload(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	args := append([]string{"--quiet", "compare", "--versions", "16,17", "--reps", "6", "--studies", "replay",
		"--store", filepath.Join(dir, "r.db"), "--out", out}, replayArgs(app.json, app.dataPath)...)
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := readReplayDoc(t, data)
	outcomes, compared := 0, false
	for _, s := range d.Studies {
		for _, m := range s.Metrics {
			if m.Primary && len(m.Changes) == 1 && m.Changes[0].Outcome != "" {
				outcomes++
			}
		}
		for _, n := range s.Notes {
			compared = compared || strings.HasPrefix(n.Text, "compared with pg16: plans differ for ")
		}
	}
	if outcomes != 10 || !compared {
		t.Errorf("%d primary figures with an outcome (want 10: 9 fingerprints and the workload's time); plans compared: %v\n%s", outcomes, compared, r.stdout)
	}
}

// TestReplayBadInput: a workload of another format version, a truncated
// one, a file that is no workload, a missing parameter, a dump with a
// meta-command pglab does not run: one line, exit 64, before anything is
// written; a dump that fails halfway on the server: one line with its
// file and line, exit 1, no dataset left in the cache, no measurement.
func TestReplayBadInput(t *testing.T) {
	app := appWorkload(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole, err := os.ReadFile(app.csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	truncated := write("truncated.workload", strings.Join(lines[:len(lines)/2], ""))
	v2 := write("v2.workload", `{"format":"pglab-workload","version":2}`+"\n")
	meta := write("meta.sql", "create table t (a int);\n\\set x 1\n")
	store := filepath.Join(dir, "r.db")
	cases := []struct {
		params []string
		want   string
	}{
		{replayArgs(v2, app.dataPath), "a pglab workload of format version 2; this pglab reads version 1"},
		{replayArgs(truncated, app.dataPath), "truncated.workload: line " + fmt.Sprint(len(lines)/2+1) + ": the file ends without its end record (truncated)"},
		{replayArgs(app.dataPath, app.dataPath), "not a pglab workload file"},
		{replayArgs(filepath.Join(dir, "missing.workload"), app.dataPath), "missing.workload: no such file or directory"},
		{[]string{"--param", "replay.data=" + app.dataPath}, "replay.workload is needed"},
		{replayArgs(app.csv, meta), "replay.data: " + meta + ":2: psql meta-command \\set"},
		{replayArgs(app.csv, dir), "is a directory, not a SQL file"},
		{append(replayArgs(app.csv, app.dataPath), "--param", "replay.mode=slow"), "want one of timed, fast"},
	}
	for _, tc := range cases {
		args := append([]string{"--quiet", "compare", "--versions", "17", "--studies", "replay", "--store", store}, tc.params...)
		assertUsageError(t, run(t, args...), tc.want)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("bad input wrote the store %s (%v)", store, err)
	}

	// A dump that fails halfway.
	bad := write("bad.sql", "create table items (id int primary key);\ninsert into items values (1);\n\nselect * from missing_table;\ncreate table after_it (a int);\n")
	args := append([]string{"--quiet", "compare", "--versions", "17", "--studies", "replay", "--store", store, "--out", filepath.Join(dir, "report")}, replayArgs(app.csv, bad)...)
	r := run(t, args...)
	assertOneLineError(t, r, `replay.data: `+bad+`:4: ERROR: relation "missing_table" does not exist (SQLSTATE 42P01)`)
	r = run(t, "cache", "list")
	if strings.Contains(r.stdout, "file=bad.sql") {
		t.Errorf("the failed load left a dataset in the cache:\n%s", r.stdout)
	}
	if cache := os.Getenv("PGLAB_DATASET_CACHE"); cache != "" {
		locks, _ := filepath.Glob(filepath.Join(cache, "*.lock"))
		for _, l := range locks {
			if _, err := os.Stat(strings.TrimSuffix(l, ".lock")); err != nil {
				t.Errorf("the failed load left the lock file %s without its entry", l)
			}
		}
	}
	// Bad input found when the server loaded it: the run is not kept.
	r = run(t, "runs", "--store", store)
	if r.code != 0 || strings.Contains(r.stdout, "failed") || strings.Contains(r.stdout, "replay") {
		t.Errorf("the run refused on its data is in the store (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestReplaySafety: the replay writes, so a server pglab does not manage
// needs --force; the server the workload came from (its system
// identifier) is refused even then; a server whose data pglab's marker
// says is other than replay.data is refused.
func TestReplaySafety(t *testing.T) {
	app := appWorkload(t)
	dir := t.TempDir()
	inst := pgtest.Shared(t, "17")
	dsn := pgtest.CreateDB(t, inst)
	store := filepath.Join(dir, "r.db")
	study := func(extra ...string) result {
		return run(t, append([]string{"--quiet", "study", "replay", "--target", "mine=" + dsn, "--reps", "1", "--store", store}, extra...)...)
	}
	params := func(w, data string) []string {
		return []string{"--param", "workload=" + w, "--param", "data=" + data}
	}
	assertOneLineError(t, study(params(app.csv, app.dataPath)...), "target mine is not a server pglab manages: the replay writes to it (pass --force")

	// The workload says it came from this very server.
	conn := pgtest.Connect(t, dsn)
	id := pgtest.QueryString(t, conn, "select system_identifier::text from pg_control_system()")
	whole, err := os.ReadFile(app.csv)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(whole), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		t.Fatal(err)
	}
	h["source"].(map[string]any)["system_identifier"] = id
	b, _ := json.Marshal(h)
	fromHere := filepath.Join(dir, "here.workload")
	if err := os.WriteFile(fromHere, append(append(b, '\n'), rest...), 0o644); err != nil {
		t.Fatal(err)
	}
	assertOneLineError(t, study(append(params(fromHere, app.dataPath), "--force")...), "target mine is the server the workload was captured from (system identifier "+id+")")

	// Loaded in place once, replayed; then other data is refused.
	if r := study(append(params(app.csv, app.dataPath), "--force")...); r.code != 0 {
		t.Fatalf("replay on a user's server with --force: exit %d: %s", r.code, r.stderr)
	}
	if n := pgtest.QueryString(t, conn, "select count(*) from items"); n != "20000" {
		t.Errorf("items on the user's server: %s rows", n)
	}
	other := filepath.Join(dir, "other.sql")
	if err := os.WriteFile(other, []byte(replayData+"-- another version of the data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertOneLineError(t, study(append(params(app.csv, other), "--force")...), "target mine: its data is not what replay.data loaded")
}
