package cli_test

// The replay journey: an application-like workload run on a managed
// PostgreSQL 17 that logs it (csvlog and jsonlog at once), captured with
// pglab capture, replayed with the replay study on data loaded from a SQL
// script.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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

// replayData is the application's data: a table of 200,000 items looked
// up by key (the index lookups of the known truth), orders without an
// index, a one-row counter.
const replayData = `-- the application's data
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, note text, price numeric(10,2));
INSERT INTO items SELECT g, 'item ' || g, NULL, (g % 1000) / 10.0 FROM generate_series(1, 200000) g;
CREATE TABLE orders (id serial PRIMARY KEY, item_id int NOT NULL, qty int NOT NULL, at timestamptz DEFAULT now());
CREATE TABLE counters (name text PRIMARY KEY, n int NOT NULL);
COPY counters (name, n) FROM stdin;
hits	0
\.
`

// appSession is one session of the application: index lookups and
// updates by key, inserts, a read of a small table, a transaction block,
// a simple-protocol query, with a pause of about 110 ms between
// statements (the application's own time), so that the workload lasts
// about 2.5 s and a server that scans the items table for every lookup
// is slower at the lookups without being overloaded. It returns how many
// statements it sent and how many of them only read.
func appSession(ctx context.Context, conn *pgx.Conn, i int) (sent, reads int, err error) {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	pause := func() { time.Sleep(time.Duration(90+rng.IntN(40)) * time.Millisecond) }
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
	for k := 0; k < 8; k++ {
		id := 1 + rng.IntN(200000)
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
	// One transaction block per session.
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
)

// appWorkload runs the application once per test binary on a managed 17
// that logs to csvlog and jsonlog, and captures both logs.
func appWorkload(t *testing.T) *appCapture {
	t.Helper()
	appOnce.Do(func() {
		appCap, appErr = runApp(t)
		if keep := os.Getenv("PGLAB_REPLAY_KEEP"); keep != "" && appErr == nil {
			// For trying the replay by hand.
			for _, f := range []string{appCap.dataPath, appCap.csv, appCap.json} {
				data, _ := os.ReadFile(f)
				os.WriteFile(filepath.Join(keep, filepath.Base(f)), data, 0o644)
			}
		}
	})
	if appErr != nil {
		t.Fatal(appErr)
	}
	return appCap
}

func runApp(t *testing.T) (*appCapture, error) {
	dir, err := os.MkdirTemp("", "pglab-replay-app-")
	if err != nil {
		return nil, err
	}
	app := &appCapture{dataPath: filepath.Join(dir, "app.sql"), csv: filepath.Join(dir, "app-csv.workload"), json: filepath.Join(dir, "app-json.workload.gz")}
	if err := os.WriteFile(app.dataPath, []byte(replayData), 0o644); err != nil {
		return nil, err
	}
	set, err := capture.SettingsFor(17, capture.CSVLog)
	if err != nil {
		return nil, err
	}
	var settings []pgserver.Setting
	for _, s := range set {
		settings = append(settings, pgserver.Setting{Name: s.Name, Value: strings.Trim(s.Value, "'")})
	}
	settings = pgserver.MergeSettings(settings, pgserver.Setting{Name: "log_destination", Value: "csvlog,jsonlog"},
		pgserver.Setting{Name: "log_directory", Value: "log"}, pgserver.Setting{Name: "log_filename", Value: "pg"})
	inst := pgtest.New(t, pgtest.Options{Version: "17", Settings: settings})
	ctx := context.Background()
	if err := loadQuietly(ctx, inst, app.dataPath); err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := make([]error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg, _ := pgx.ParseConfig(inst.DSN())
			cfg.RuntimeParams["application_name"] = fmt.Sprintf("shop-%d", i)
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close(ctx)
			sent, reads, err := appSession(ctx, conn, i)
			mu.Lock()
			app.sent, app.reads, errs[i] = app.sent+sent, app.reads+reads, err
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	time.Sleep(300 * time.Millisecond) // the collector writes the disconnections
	logDir := filepath.Join(inst.DataDir(), "log")
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

// TestReplayCapturesAll: pglab capture took every statement the
// application sent (checked in runApp), from csvlog and from jsonlog, and
// a replay on 17 runs all the reads and at least 95 % of the writes
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
		t.Log(r.stdout[:min(len(r.stdout), 3000)])
	}
}
