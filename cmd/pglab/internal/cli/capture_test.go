package cli_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestCaptureJourney does what a user does: prints the settings and,
// apart, the lines that revert them, applies the first with ALTER SYSTEM to
// a real PostgreSQL 17 (the whole file: it leaves logging on), restarts it,
// runs a small application, captures the csvlog the server wrote where it
// writes it by default, inspects the workload, and reverts the settings
// with the lines printed.
func TestCaptureJourney(t *testing.T) {
	r := run(t, "capture", "--settings", "--versions", "17")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("capture --settings: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"ALTER SYSTEM SET log_destination = 'csvlog';", "ALTER SYSTEM SET log_min_duration_statement = 0;",
		"ALTER SYSTEM SET log_connections = on;", "ALTER SYSTEM SET compute_query_id = on;", "SELECT pg_reload_conf();", "-- Cost (measured on PostgreSQL 17)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("capture --settings lacks %q:\n%s", want, r.stdout)
		}
	}
	set := sqlLines(r.stdout)
	r = run(t, "capture", "--settings", "--revert", "--versions", "17")
	if r.code != 0 || r.stderr != "" || strings.Contains(r.stdout, "ALTER SYSTEM SET") || !strings.Contains(r.stdout, "ALTER SYSTEM RESET compute_query_id;") {
		t.Fatalf("capture --settings --revert: exit %d, stderr %q, want only resets:\n%s", r.code, r.stderr, r.stdout)
	}
	revert := sqlLines(r.stdout)
	if len(revert) != len(set) {
		t.Errorf("%d lines set, %d revert", len(set), len(revert))
	}

	inst := pgtest.New(t, pgtest.Options{Version: "17"})
	ctx := context.Background()
	admin := pgtest.Connect(t, inst.DSN())
	for _, sql := range set {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	admin.Close(ctx)
	if err := inst.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	app := pgtest.Connect(t, inst.DSN())
	statements := []string{"create table capture_t (id int primary key, v text)", "insert into capture_t values ($1, $2)",
		"select v from capture_t where id = $1", "insert into capture_t values ($1, $2)"}
	args := [][]any{nil, {1, "a'b"}, {1}, {1, nil}}
	for i, sql := range statements {
		_, err := app.Exec(ctx, sql, args[i]...)
		if err != nil && i != 3 {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	app.Close(ctx)
	logs, _ := filepath.Glob(filepath.Join(inst.DataDir(), "log", "*.csv"))
	waitSessionsLogged(t, logs...)
	out := filepath.Join(t.TempDir(), "app.workload.gz")
	r = run(t, append([]string{"capture", "--database", "pglab", "--out", out, "--log"}, logs...)...)
	if r.code != 0 {
		t.Fatalf("capture: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"(csvlog, PostgreSQL 14+)", "statements    4 (extended protocol 3, with parameters 3, failed 1)",
		"fingerprints  3", "query ids     4 of 4 statements", "wrote " + out} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("capture summary lacks %q:\n%s", want, r.stdout)
		}
	}
	if f, err := os.Open(out); err != nil {
		t.Fatal(err)
	} else if _, err := gzip.NewReader(f); err != nil {
		t.Errorf("%s is not gzip: %v", out, err)
	} else {
		f.Close()
	}
	r = run(t, "capture", "--inspect", out)
	if r.code != 0 || !strings.Contains(r.stdout, "pglab workload version 1") || !strings.Contains(r.stdout, "statements    4 (with parameters 3)") {
		t.Errorf("capture --inspect: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	admin = pgtest.Connect(t, inst.DSN())
	for _, sql := range revert {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// pg_reload_conf only signals the postmaster: each backend applies the
	// file at its next command once the postmaster has read it. So ask new
	// sessions until one sees the reverted value.
	var v string
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c := pgtest.Connect(t, inst.DSN())
		err = c.QueryRow(ctx, "show log_min_duration_statement").Scan(&v)
		c.Close(ctx)
		if (err == nil && v == "-1") || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || v != "-1" {
		t.Errorf("10 s after the revert lines log_min_duration_statement = %q (%v), want -1", v, err)
	}
}

// waitSessionsLogged waits until the server's logs in files have
// recorded the end of every session they recorded the start of (the
// logging collector writes a backend's last lines after its client has
// gone), and returns files.
func waitSessionsLogged(t *testing.T, files ...string) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ended := len(files) > 0
		var counts []string
		for _, f := range files {
			b, _ := os.ReadFile(f)
			started := bytes.Count(b, []byte("connection authorized"))
			stopped := bytes.Count(b, []byte("disconnection: session time"))
			counts = append(counts, fmt.Sprintf("%s: %d started, %d ended", filepath.Base(f), started, stopped))
			ended = ended && started > 0 && started == stopped
		}
		if ended {
			return files
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the application's sessions closed, the server's logs have not recorded their ends: %s", strings.Join(counts, "; "))
		}
	}
}

// sqlLines returns the statements of capture --settings' output.
func sqlLines(out string) (sqls []string) {
	for _, line := range strings.Split(out, "\n") {
		sql, _, _ := strings.Cut(line, " --")
		sql = strings.TrimSpace(sql)
		if sql != "" && !strings.HasPrefix(sql, "--") {
			sqls = append(sqls, sql)
		}
	}
	return sqls
}

// TestCaptureBadInput: every bad input is one line, exit 64, and leaves no
// workload file (nor a temporary one) behind.
func TestCaptureBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	row := `2026-12-02 18:24:59.769 UTC,"u","d",1,"127.0.0.1:5",6b10627b.1,1,"SELECT",2026-12-02 18:24:59 UTC,2/5,0,LOG,00000,"duration: 0.1 ms  statement: select 1",,,,,,,,,"a","client backend",,0` + "\n"
	good := write("good.csv", row)
	truncated := write("truncated.csv", row+row[:90])
	text := write("notes.txt", "this is not a server log\nat all\n")
	otherVersion := write("v2.workload", `{"format":"pglab-workload","version":2}`+"\n")
	notWorkload := write("plain.workload", "hello\n")
	stderrLog := write("pg.log", "2026-12-02 18:24:59.769 UTC [1] LOG:  duration: 0.1 ms  statement: select 1\n")
	okOut := filepath.Join(dir, "ok.workload")
	if r := run(t, "capture", "--log", good, "--out", okOut); r.code != 0 {
		t.Fatalf("a good log: exit %d, %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "w.workload")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--log", text, "--out", out}, "notes.txt: unknown log format"},
		{[]string{"--log", truncated, "--out", out}, "truncated.csv:2: the file ends in the middle of a record"},
		{[]string{"--log", filepath.Join(dir, "missing.csv"), "--out", out}, "missing.csv: cannot read: no such file or directory"},
		{[]string{"--log", dir, "--out", out}, "is a directory, not a log file"},
		{[]string{"--log", good, "--out", filepath.Join(dir, "no", "such", "dir", "w")}, "create workload file"},
		{[]string{"--log", okOut, "--out", out}, "is a pglab workload file, not a server log"},
		{[]string{"--log", good, stderrLog, "--out", out}, "give logs of one format"},
		{[]string{"--log", good, "--out", out, "--log-format", "syslog"}, `unknown log format "syslog"`},
		{[]string{"--log", good, "--out", out, "--log-format", "csvlog", "--prefix", "%m "}, "--prefix is for stderr logs"},
		{[]string{"--log", stderrLog, "--out", out, "--prefix", "%m %u"}, "cannot tell sessions apart"},
		{[]string{"--log", good}, "--out WORKLOAD is needed"},
		{[]string{"--log", good, "--out", out, "--versions", "16"}, "--versions goes with --settings"},
		{[]string{}, "give one of --settings"},
		{[]string{"--inspect", otherVersion}, "a pglab workload of format version 2; this pglab reads version 1"},
		{[]string{"--inspect", notWorkload}, "not a pglab workload file"},
		{[]string{"--inspect", good}, "not a pglab workload file"},
		{[]string{"--settings", "--versions", "13", "--log-format", "jsonlog"}, "jsonlog needs PostgreSQL 15 or later"},
		{[]string{"--settings", "--versions", "12"}, "pglab captures from PostgreSQL 13 to 18, not 12"},
		{[]string{"--revert", "--log", good, "--out", out}, "--revert goes with --settings"},
		{[]string{"--instance", "no-such-instance", "--out", out}, `--instance: no managed instance "no-such-instance"`},
		{[]string{"--instance", "x", "--log", good, "--out", out}, "give one of --settings"},
	}
	for _, tc := range cases {
		r := run(t, append([]string{"capture"}, tc.args...)...)
		assertUsageError(t, r, tc.want)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() == "w.workload" || strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestCaptureStderrPrefix reads a stderr log with the prefix given.
func TestCaptureStderrPrefix(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "pg.log")
	text := "2026-12-02 18:24:59.100 UTC [7] 00000 [unknown]@[unknown]/[unknown] LOG:  connection received: host=127.0.0.1 port=5\n" +
		"2026-12-02 18:24:59.200 UTC [7] 00000 bob@shop/[unknown] LOG:  connection authorized: user=bob database=shop application_name=web\n" +
		"2026-12-02 18:24:59.300 UTC [7] 00000 bob@shop/web LOG:  duration: 0.100 ms  statement: select 1,\n\t2\n" +
		"2026-12-02 18:24:59.400 UTC [7] 00000 bob@shop/web LOG:  duration: 0.100 ms  statement: ALTER ROLE bob PASSWORD 'hunter2'\n" +
		"2026-12-02 18:24:59.500 UTC [7] 00000 bob@shop/web LOG:  disconnection: session time: 0:00:00.400 user=bob database=shop host=127.0.0.1 port=5\n"
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w.jsonl")
	r := run(t, "capture", "--log", log, "--prefix", "%m [%p] %e %q%u@%d/%a ", "--out", out, "--system-identifier", "7312345678901234567")
	if r.code != 0 || !strings.Contains(r.stdout, "statements    2 ") || !strings.Contains(r.stdout, "passwords masked in 1 statement") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(out)
	for _, want := range []string{`"sql":"select 1,\n2"`, `"application":"web"`, `"system_identifier":"7312345678901234567"`, `PASSWORD 'xxxxx'`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("workload lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "hunter2") {
		t.Errorf("the workload holds the password:\n%s", data)
	}
}
