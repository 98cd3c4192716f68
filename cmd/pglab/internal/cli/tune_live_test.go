package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/apply"
)

// tuneInputs are the inputs the live tests give; version and connections
// come from the server.
var tuneInputs = []string{"--memory", "1GB", "--cpus", "2", "--storage", "ssd"}

// startNamed starts a managed instance of a major version ("" for the
// default) under a fresh state directory and returns its DSN; it is
// removed at the end.
func startNamed(t *testing.T, name, version string, sets ...string) string {
	t.Helper()
	if version == "" {
		version = pgtest.DefaultVersion()
	}
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	pgtest.Binaries(t, version)
	args := []string{"--quiet", "pg", "start", "--versions", version, "--name", name}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("pg start: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { run(t, "--quiet", "pg", "stop", "--remove", name) })
	return strings.TrimSpace(r.stdout)
}

// expected is tune's recommendation for tuneInputs on a server of the
// default version with max_connections 100.
func expected(t *testing.T) tune.Recommendation {
	t.Helper()
	v, err := tune.ParseVersion(pgtest.DefaultVersion())
	if err != nil {
		t.Fatal(err)
	}
	in := tune.DefaultInputs()
	in.Version, in.Memory, in.CPUs, in.Connections, in.Storage = v, tune.Memory{Amount: 1, Unit: tune.UnitGB}, 2, 100, tune.StorageSSD
	rec, err := tune.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// autoConfOf reads what postgresql.auto.conf holds.
func autoConfOf(t *testing.T, dsn string) map[string]string {
	t.Helper()
	conn := pgtest.Connect(t, dsn)
	rows, err := conn.Query(context.Background(), `SELECT name, setting FROM pg_file_settings WHERE sourcefile LIKE '%/postgresql.auto.conf'`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func showSetting(t *testing.T, dsn, name string) string {
	t.Helper()
	return pgtest.QueryString(t, pgtest.Connect(t, dsn), "SELECT current_setting($1)", name)
}

// noSecret fails when the password of dsn shows up in r.
func noSecret(t *testing.T, r result, dsn string) {
	t.Helper()
	pw := dsn[strings.Index(dsn, "://")+3 : strings.Index(dsn, "@")]
	_, pw, _ = strings.Cut(pw, ":")
	if pw != "" && (strings.Contains(r.stdout, pw) || strings.Contains(r.stderr, pw)) {
		t.Errorf("the password shows in the output:\n%s\n%s", r.stdout, r.stderr)
	}
}

// liveDoc is the JSON output of --diff, --apply and --revert.
type liveDoc struct {
	Server struct {
		Label   string `json:"label"`
		Version string `json:"version"`
		Managed bool   `json:"managed"`
		Local   bool   `json:"local"`
	} `json:"server"`
	Recommendation tuneDoc       `json:"recommendation"`
	Parameters     []apply.Row   `json:"parameters"`
	Result         *apply.Result `json:"result"`
}

// TestTuneTargetDiff reads version and max_connections from a managed
// instance, measures storage on its data directory's disk, and compares
// values in their units.
func TestTuneTargetDiff(t *testing.T) {
	dsn := startNamed(t, "tdiff", "")
	major := expected(t).Inputs.Version
	r := run(t, append([]string{"tune", "--target", "tdiff", "--diff", "--format", "json"}, tuneInputs...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc liveDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if doc.Server.Label != "tdiff" || !doc.Server.Managed || !doc.Server.Local || !strings.HasPrefix(doc.Server.Version, pgtest.DefaultVersion()+".") {
		t.Errorf("server = %+v", doc.Server)
	}
	in := doc.Recommendation.Inputs
	if in.PGVersion != major || in.Connections == nil || *in.Connections != 100 {
		t.Errorf("inputs = %+v", in)
	}
	want := expected(t)
	if len(doc.Parameters) != len(want.Parameters) {
		t.Fatalf("%d rows, want %d", len(doc.Parameters), len(want.Parameters))
	}
	for i, p := range want.Parameters {
		row := doc.Parameters[i]
		if row.Name != p.Name || row.Recommended != p.Value {
			t.Errorf("row %d = %+v, want %s = %s", i, row, p.Name, p.Value)
		}
		if row.Unsupported == "" && row.Current != showSetting(t, dsn, p.Name) {
			t.Errorf("%s: current %q, server shows %q", p.Name, row.Current, showSetting(t, dsn, p.Name))
		}
	}
	byName := map[string]apply.Row{}
	for _, row := range doc.Parameters {
		byName[row.Name] = row
	}
	// 256MB against the default 128MB (16384 pages of 8kB); 100 against
	// 100.
	if r := byName["shared_buffers"]; r.Current != "128MB" || r.Recommended != "256MB" || !r.Differs || !r.Restart {
		t.Errorf("shared_buffers = %+v", r)
	}
	if r := byName["max_connections"]; r.Differs || !r.Restart {
		t.Errorf("max_connections = %+v", r)
	}
	if r := byName["default_statistics_target"]; r.Differs || r.Restart {
		t.Errorf("default_statistics_target = %+v", r)
	}
	if r := byName["work_mem"]; r.Restart {
		t.Errorf("work_mem = %+v", r)
	}

	// The text table, with the server's inputs named in the header.
	r = run(t, "tune", "--target", "tdiff", "--diff", "--memory", "1GB", "--cpus", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, line := range []string{
		"\n# Read from the server: DB Version from server_version_num, Connections num from max_connections\n",
		"\n# Server: tdiff (PostgreSQL " + doc.Server.Version + ", managed instance)\n",
		"\nparameter ", "\nshared_buffers  ",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("diff output lacks %q:\n%s", line, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "# Detected on this machine: CPUs num") && !strings.Contains(r.stdout, "Data Storage from /sys/") && !strings.Contains(r.stderr, "cannot tell the kind of storage") {
		t.Errorf("storage neither detected nor reported:\n%s\n%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, " need a restart (shared_buffers") || !strings.HasSuffix(r.stdout, ".\n") {
		t.Errorf("diff summary:\n%s", r.stdout)
	}
	// The table has no trailing spaces (PGTune's own warning block has "# ").
	for _, l := range strings.Split(r.stdout[strings.Index(r.stdout, "\n# Server: "):], "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
	}
	if len(autoConfOf(t, dsn)) != 0 {
		t.Errorf("--diff changed postgresql.auto.conf: %v", autoConfOf(t, dsn))
	}
	// A version other than the server's is refused for --diff.
	other := "16"
	if major == 16 {
		other = "17"
	}
	r = run(t, append([]string{"tune", "--target", "tdiff", "--diff", "--versions", other}, tuneInputs...)...)
	assertUsageError(t, r, fmt.Sprintf("--versions %s: tdiff runs PostgreSQL %d; leave --versions out with --diff", other, major))
}

// TestTuneApplyRevertManaged is the round trip on a managed instance:
// apply restarts it for shared_buffers, verifies, records; revert puts it
// all back.
func TestTuneApplyRevertManaged(t *testing.T) {
	dsn := startNamed(t, "tapply", "")
	// An ALTER SYSTEM of someone's before pglab: revert must keep it.
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(context.Background(), "ALTER SYSTEM SET work_mem = '3MB'"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	inst, err := pgserver.OpenNamed("tapply")
	if err != nil {
		t.Fatal(err)
	}
	pid := inst.PID()

	r := run(t, append([]string{"tune", "--target", "tapply", "--apply"}, tuneInputs...)...)
	if r.code != 0 {
		t.Fatalf("apply: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	noSecret(t, r, dsn)
	want := expected(t)
	sb, _ := want.Get("shared_buffers")
	wm, _ := want.Get("work_mem")
	for _, s := range []string{
		"\nApplied to tapply with ALTER SYSTEM:\n",
		"\nReloaded the configuration (pg_reload_conf).\n",
		"\nRestarted tapply for ",
		"Recorded in " + filepath.Join(inst.Dir(), apply.RecordFileName) + "; undo with: pglab tune --revert --target tapply\n",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("apply output lacks %q:\n%s", s, r.stdout)
		}
	}
	if i := strings.Index(r.stdout, "\nRestarted tapply for "); i < 0 || !strings.Contains(strings.SplitN(r.stdout[i+1:], "\n", 2)[0], "shared_buffers") {
		t.Errorf("restart line does not name shared_buffers:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "\nVerified: ") || strings.Contains(r.stdout, "did not take") {
		t.Errorf("apply verification:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "pglab: restarting tapply for ") {
		t.Errorf("no progress line for the restart: %q", r.stderr)
	}
	if got := showSetting(t, dsn, "shared_buffers"); got != sb.Value {
		t.Errorf("shared_buffers = %s after apply, want %s", got, sb.Value)
	}
	if got := showSetting(t, dsn, "work_mem"); got != wm.Value {
		t.Errorf("work_mem = %s after apply, want %s", got, wm.Value)
	}
	if inst2, _ := pgserver.OpenNamed("tapply"); inst2.PID() == pid {
		t.Error("the instance was not restarted")
	}
	// Everything now matches.
	d := run(t, append([]string{"tune", "--target", "tapply", "--diff"}, tuneInputs...)...)
	if d.code != 0 || !strings.Contains(d.stdout, "\n0 of ") {
		t.Errorf("diff after apply: %d\n%s", d.code, d.stdout)
	}

	rv := run(t, "tune", "--target", "tapply", "--revert")
	if rv.code != 0 {
		t.Fatalf("revert: exit %d: %s\n%s", rv.code, rv.stderr, rv.stdout)
	}
	if !strings.Contains(rv.stdout, "\nshared_buffers  ") || !strings.Contains(rv.stdout, "RESET") || !strings.Contains(rv.stdout, "SET 3MB") ||
		!strings.Contains(rv.stdout, "\nRestarted tapply for ") || !strings.Contains(rv.stdout, "are back as they were.\n") {
		t.Errorf("revert output:\n%s", rv.stdout)
	}
	if got := showSetting(t, dsn, "shared_buffers"); got != "128MB" {
		t.Errorf("shared_buffers = %s after revert", got)
	}
	if ac := autoConfOf(t, dsn); len(ac) != 1 || ac["work_mem"] != "3MB" {
		t.Errorf("postgresql.auto.conf after revert = %v", ac)
	}
	if _, err := os.Stat(filepath.Join(inst.Dir(), apply.RecordFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record left: %v", err)
	}
	again := run(t, "tune", "--target", "tapply", "--revert")
	assertOneLineError(t, again, "nothing to revert on tapply: pglab has applied no settings there")

	// A stopped instance is refused in one line.
	if r := run(t, "--quiet", "pg", "stop", "tapply"); r.code != 0 {
		t.Fatalf("pg stop: %s", r.stderr)
	}
	assertOneLineError(t, run(t, append([]string{"tune", "--target", "tapply", "--diff"}, tuneInputs...)...),
		fmt.Sprintf("--target tapply: the instance is not running (start it with 'pglab pg start --name tapply --versions %d')", expected(t).Inputs.Version))
}

// TestTuneApplyDSN: a server pglab does not manage needs --yes; restart
// parameters are left pending and listed; the record lives in the server;
// revert clears both.
func TestTuneApplyDSN(t *testing.T) {
	inst := pgtest.New(t, pgtest.Options{Version: "17"})
	dsn := inst.DSN()
	args := append([]string{"tune", "--target", dsn, "--apply"}, tuneInputs...)
	r := run(t, args...)
	assertUsageError(t, r, "--apply on postgres@127.0.0.1:")
	if !strings.Contains(r.stderr, ", a server pglab does not manage, changes its configuration: add --yes to go ahead") {
		t.Errorf("refusal: %s", r.stderr)
	}
	noSecret(t, r, dsn)
	if len(autoConfOf(t, dsn)) != 0 {
		t.Fatal("refused apply changed the server")
	}

	r = run(t, append(args, "--yes")...)
	if r.code != 0 {
		t.Fatalf("apply --yes: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	noSecret(t, r, dsn)
	want := expected(t)
	wm, _ := want.Get("work_mem")
	if !strings.Contains(r.stdout, "\nA restart is needed: ") || !strings.Contains(r.stdout, "shared_buffers") ||
		!strings.Contains(r.stdout, "wait for it (pending_restart)") || strings.Contains(r.stdout, "Restarted") ||
		!strings.Contains(r.stdout, "pending restart") || !strings.Contains(r.stdout, "Recorded in pglab.tune_applied in the server's postgresql.auto.conf") {
		t.Errorf("apply output:\n%s", r.stdout)
	}
	if showSetting(t, dsn, "work_mem") != wm.Value || showSetting(t, dsn, "shared_buffers") != "128MB" {
		t.Error("values in effect after apply are wrong")
	}
	ac := autoConfOf(t, dsn)
	if ac["shared_buffers"] != "256MB" || !strings.Contains(ac[apply.RecordParameter], `"name":"shared_buffers"`) {
		t.Errorf("postgresql.auto.conf = %v", ac)
	}
	d := run(t, append([]string{"tune", "--target", dsn, "--diff"}, tuneInputs...)...)
	if d.code != 0 || !strings.Contains(d.stdout, "a new value waits for a restart") {
		t.Errorf("diff after apply:\n%s", d.stdout)
	}

	assertUsageError(t, run(t, "tune", "--target", dsn, "--revert"), "add --yes to go ahead")
	rv := run(t, "tune", "--target", dsn, "--revert", "--yes", "--format", "json")
	if rv.code != 0 {
		t.Fatalf("revert: exit %d: %s", rv.code, rv.stderr)
	}
	var doc liveDoc
	if err := json.Unmarshal([]byte(rv.stdout), &doc); err != nil || doc.Result == nil {
		t.Fatalf("%v: %s", err, rv.stdout)
	}
	// A postmaster parameter that leaves the configuration files (wal_buffers,
	// huge_pages: not in initdb's postgresql.conf) is marked pending restart
	// by PostgreSQL even when its value would not change; pglab reports it.
	if len(doc.Result.Changes) == 0 || len(doc.Result.NotTaken()) != 0 || doc.Server.Managed {
		t.Errorf("revert result = %+v", doc.Result)
	}
	for _, c := range doc.Result.Changes {
		if c.Action != "reset" || (c.Status == apply.StatusPending) != slices.Contains(doc.Result.PendingRestart, c.Name) {
			t.Errorf("revert change %+v (pending %v)", c, doc.Result.PendingRestart)
		}
	}
	if ac := autoConfOf(t, dsn); len(ac) != 0 {
		t.Errorf("postgresql.auto.conf after revert = %v", ac)
	}
	if showSetting(t, dsn, "work_mem") != "4MB" {
		t.Error("work_mem not back")
	}
}

// TestTuneAlterSystemOff: allow_alter_system = off (17+) is one clear line.
func TestTuneAlterSystemOff(t *testing.T) {
	startNamed(t, "toff", "17", "allow_alter_system=off") // 17+
	r := run(t, append([]string{"tune", "--target", "toff", "--apply"}, tuneInputs...)...)
	assertOneLineError(t, r, "ALTER SYSTEM is disabled on toff (allow_alter_system = off): pglab cannot change its settings")
	if strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr = %q", r.stderr)
	}
	assertOneLineError(t, run(t, "tune", "--target", "toff", "--revert"), "ALTER SYSTEM is disabled on toff (allow_alter_system = off)")
	// --diff only reads, so it works.
	if r := run(t, append([]string{"tune", "--target", "toff", "--diff"}, tuneInputs...)...); r.code != 0 || !strings.Contains(r.stdout, "\nshared_buffers  ") {
		t.Errorf("diff: %d %s", r.code, r.stderr)
	}
}

// TestTuneLiveBadInput: flag mistakes and unusable targets give one line,
// exit 64, before any server is touched; a server that does not answer is
// a failure (exit 1).
func TestTuneLiveBadInput(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--diff"}, 64, "--diff needs --target: the name of an instance from 'pglab pg start' or a DSN"},
		{[]string{"--apply"}, 64, "--apply needs --target"},
		{[]string{"--revert"}, 64, "--revert needs --target"},
		{[]string{"--target", "x", "--apply", "--revert"}, 64, "--revert cannot be combined with --apply or --diff"},
		{[]string{"--target", "x", "--diff", "--format", "alter"}, 64, "--format alter does not go with --diff: it prints a table (the default) or json"},
		{[]string{"--target", "x", "--diff", "--yes"}, 64, "--yes only goes with --apply or --revert"},
		{[]string{"--target", "x", "--revert", "--type", "oltp"}, 64, "--revert undoes what pglab applied and takes no tuning inputs (--type)"},
		{[]string{"--target", "nosuch", "--diff"}, 64, `--target nosuch: no managed instance of that name (started ones: none): no such instance "nosuch" (see 'pglab pg status')`},
		{[]string{"--target", "", "--diff"}, 64, "--target is empty"},
		{[]string{"--target", "postgres://me:s3cret@db.example.com:notaport/app", "--diff"}, 64, "--target postgres://me:"},
		{[]string{"--target", "postgres://me:s3cret@192.0.2.1/app", "--apply"}, 64, "--apply on me@192.0.2.1:5432/app, a server pglab does not manage, changes its configuration: add --yes to go ahead"},
		{[]string{"--target", "host=127.0.0.1 port=1 user=me password=s3cret dbname=app connect_timeout=5", "--diff"}, 1, "connect to me@127.0.0.1:1/app: "},
		{[]string{"--target", "x", "--diff", "--memory", "12XB"}, 64, ""}, // the target fails first
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := run(t, append([]string{"tune"}, c.args...)...)
			if c.want == "" {
				if r.code != c.code || strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("code %d, stderr %q", r.code, r.stderr)
				}
				return
			}
			assertExit(t, r, c.code, c.want)
			if strings.Contains(r.stderr, "s3cret") {
				t.Errorf("password in stderr: %s", r.stderr)
			}
		})
	}
}
