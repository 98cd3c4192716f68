package apply_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/apply"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// autoConf reads what postgresql.auto.conf holds.
func autoConf(t *testing.T, dsn string) map[string]string {
	t.Helper()
	conn := pgtest.Connect(t, dsn)
	rows, err := conn.Query(context.Background(), `SELECT name, setting FROM pg_file_settings WHERE sourcefile LIKE '%/postgresql.auto.conf' ORDER BY seqno`)
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

func show(t *testing.T, dsn, name string) string {
	t.Helper()
	return pgtest.QueryString(t, pgtest.Connect(t, dsn), "SELECT current_setting($1)", name)
}

func exec(t *testing.T, dsn string, sqls ...string) {
	t.Helper()
	conn := pgtest.Connect(t, dsn)
	for _, sql := range sqls {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

func changesByName(res *apply.Result) map[string]apply.Change {
	m := map[string]apply.Change{}
	for _, c := range res.Changes {
		m[c.Name] = c
	}
	return m
}

// TestCompare: values are compared in the parameter's base unit, restarts
// come from pg_settings.context, values the server cannot take are
// marked, and nothing changes on the server.
func TestCompare(t *testing.T) {
	inst := pgtest.Shared(t, "")
	srv, err := apply.Managed(inst)
	if err != nil {
		t.Fatal(err)
	}
	params := []tune.Parameter{
		{Name: "shared_buffers", Value: "131072kB"},  // the default 128MB, i.e. 16384 pages
		{Name: "work_mem", Value: "4096kB"},          // the default 4MB
		{Name: "effective_cache_size", Value: "4GB"}, // the default, in pages
		{Name: "default_statistics_target", Value: "100.0"},
		{Name: "max_wal_size", Value: "1024MB"},        // the default 1GB, in MB
		{Name: "random_page_cost", Value: "1.1"},       // default 4
		{Name: "maintenance_work_mem", Value: "256MB"}, // default 64MB
		{Name: "max_connections", Value: "300"},        // the shared server's
		{Name: "wal_buffers", Value: "16MB"},           // default -1: 1/32 of shared_buffers, 4MB
		{Name: "huge_pages", Value: "off"},             // default try
		{Name: "work_mem", Value: "32kB"},              // below the minimum
		{Name: "no_such_parameter", Value: "1"},
		{Name: "wal_compression", Value: "nosuch"},
	}
	rows, err := srv.Compare(ctxT(t), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(params) {
		t.Fatalf("%d rows for %d parameters", len(rows), len(params))
	}
	want := []struct {
		differs, restart bool
		current          string
		unsupported      string
	}{
		{false, true, "128MB", ""},
		{false, false, "4MB", ""},
		{false, false, "4GB", ""},
		{false, false, "100", ""},
		{false, false, "1GB", ""},
		{true, false, "4", ""},
		{true, false, "64MB", ""},
		{false, true, "300", ""},
		{true, true, "4MB", ""},
		{true, true, "try", ""},
		{false, false, "4MB", `32 kB is outside the valid range for parameter "work_mem"`},
		{false, false, "", "this server has no such parameter"},
		{false, false, "off", `"wal_compression"`}, // an enum from 15, a boolean before
	}
	for i, w := range want {
		r := rows[i]
		if r.Name != params[i].Name || r.Recommended != params[i].Value || r.Differs != w.differs || r.Restart != w.restart || r.Current != w.current ||
			(w.unsupported == "") != (r.Unsupported == "") || !strings.Contains(r.Unsupported, w.unsupported) {
			t.Errorf("row %d = %+v; want differs %v, restart %v, current %q, unsupported %q", i, r, w.differs, w.restart, w.current, w.unsupported)
		}
	}
	if len(autoConf(t, inst.DSN())) != 0 {
		t.Errorf("Compare changed postgresql.auto.conf: %v", autoConf(t, inst.DSN()))
	}
}

// TestApplyRevertManaged is the round trip on a managed instance: a
// restart for shared_buffers, verification, the record file, and a revert
// that puts back postgresql.auto.conf's old value, resets the rest, and
// leaves alone a parameter changed by someone else.
func TestApplyRevertManaged(t *testing.T) {
	ctx := ctxT(t)
	inst := pgtest.New(t, pgtest.Options{})
	dsn := inst.DSN()
	// Someone's earlier ALTER SYSTEM: revert must put it back.
	exec(t, dsn, "ALTER SYSTEM SET work_mem = '2MB'", "SELECT pg_reload_conf()")
	srv, err := apply.Managed(inst)
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	srv.Progress = func(s string) { progress = append(progress, s) }
	pidBefore := inst.PID()
	params := []tune.Parameter{
		{Name: "shared_buffers", Value: "256MB"},
		{Name: "work_mem", Value: "8MB"},
		{Name: "random_page_cost", Value: "1.1"},
		{Name: "max_wal_size", Value: "2GB"},
		{Name: "default_statistics_target", Value: "100"}, // the default already
		{Name: "wal_compression", Value: "nosuch"},
	}
	res, err := srv.Apply(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reloaded || !res.Restarted || strings.Join(res.RestartedFor, ",") != "shared_buffers" || len(res.PendingRestart) != 0 || inst.PID() == pidBefore {
		t.Errorf("result = %+v (pid %d -> %d)", res, pidBefore, inst.PID())
	}
	if len(res.NotTaken()) != 0 || len(res.Changes) != 4 {
		t.Errorf("changes = %+v", res.Changes)
	}
	ch := changesByName(res)
	if c := ch["shared_buffers"]; c.Before != "128MB" || c.After != "256MB" || !c.Restart || c.Status != apply.StatusOK || c.Action != "set" {
		t.Errorf("shared_buffers change = %+v", c)
	}
	if c := ch["work_mem"]; c.Before != "2MB" || c.After != "8MB" || c.Restart || c.Status != apply.StatusOK {
		t.Errorf("work_mem change = %+v", c)
	}
	if strings.Join(res.Unchanged, ",") != "default_statistics_target" || len(res.Skipped) != 1 || res.Skipped[0].Name != "wal_compression" {
		t.Errorf("unchanged %v, skipped %+v", res.Unchanged, res.Skipped)
	}
	if !strings.Contains(strings.Join(progress, "\n"), "restarting "+inst.Name()+" for shared_buffers") {
		t.Errorf("progress = %q", progress)
	}
	if got := show(t, inst.DSN(), "shared_buffers"); got != "256MB" {
		t.Errorf("shared_buffers after apply = %s", got)
	}
	recPath := filepath.Join(inst.Dir(), apply.RecordFileName)
	if res.Record != recPath {
		t.Errorf("record = %q, want %q", res.Record, recPath)
	}
	data, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(recPath); st.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", st.Mode())
	}
	for _, want := range []string{`"name": "work_mem"`, `"before": "2MB"`, `"name": "shared_buffers"`, `"before": null`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("record lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), inst.Password()) {
		t.Error("record holds the password")
	}
	if _, ok := autoConf(t, inst.DSN())[apply.RecordParameter]; ok {
		t.Error("managed instance: record also written into the server")
	}

	// Applying again changes nothing.
	again, err := srv.Apply(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 0 || again.Restarted || len(again.Unchanged) != 5 {
		t.Errorf("second apply = %+v", again)
	}

	// Someone changes random_page_cost after pglab: revert leaves it.
	exec(t, inst.DSN(), "ALTER SYSTEM SET random_page_cost = '2'")
	rev, err := srv.Revert(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rev.Restarted || len(rev.NotTaken()) != 0 || len(rev.Changes) != 3 {
		t.Errorf("revert = %+v", rev)
	}
	rc := changesByName(rev)
	if c := rc["work_mem"]; c.Action != "set" || c.Value != "2MB" || c.After != "2MB" || c.Status != apply.StatusOK {
		t.Errorf("work_mem revert = %+v", c)
	}
	if c := rc["shared_buffers"]; c.Action != "reset" || c.Before != "256MB" || c.After != "128MB" || c.Status != apply.StatusOK {
		t.Errorf("shared_buffers revert = %+v", c)
	}
	if len(rev.Skipped) != 1 || rev.Skipped[0].Name != "random_page_cost" || !strings.Contains(rev.Skipped[0].Reason, "changed since pglab set it to 1.1") {
		t.Errorf("revert skipped = %+v", rev.Skipped)
	}
	got := autoConf(t, inst.DSN())
	if len(got) != 2 || got["work_mem"] != "2MB" || got["random_page_cost"] != "2" {
		t.Errorf("postgresql.auto.conf after revert = %v", got)
	}
	if _, err := os.Stat(recPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record still there: %v", err)
	}
	if _, err := srv.Revert(ctx); !errors.Is(err, apply.ErrNothingToRevert) {
		t.Errorf("second revert: %v, want ErrNothingToRevert", err)
	}
}

// TestApplyRevertRemote: on a server pglab does not manage, a parameter
// that needs a restart is left pending, the record lives in the server,
// and revert clears both.
func TestApplyRevertRemote(t *testing.T) {
	ctx := ctxT(t)
	inst := pgtest.New(t, pgtest.Options{})
	srv, err := apply.Remote("", inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	if !srv.Local || srv.Managed || srv.Restart != nil || strings.Contains(srv.Label, inst.Password()) {
		t.Fatalf("server = %+v", srv)
	}
	pid := inst.PID()
	// Written but not loaded: the default 4 is in effect, 3 would be after
	// the next reload. Apply must compare with 3 and set 4.
	exec(t, inst.DSN(), "ALTER SYSTEM SET random_page_cost = '3'")
	res, err := srv.Apply(ctx, []tune.Parameter{{Name: "shared_buffers", Value: "256MB"}, {Name: "work_mem", Value: "16MB"}, {Name: "max_connections", Value: "50"}, {Name: "random_page_cost", Value: "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarted || inst.PID() != pid || strings.Join(res.PendingRestart, ",") != "max_connections,shared_buffers" {
		t.Errorf("result = %+v", res)
	}
	ch := changesByName(res)
	if ch["shared_buffers"].Status != apply.StatusPending || ch["max_connections"].Status != apply.StatusPending || ch["work_mem"].Status != apply.StatusOK ||
		ch["random_page_cost"].Before != "3" || ch["random_page_cost"].After != "4" {
		t.Errorf("changes = %+v", res.Changes)
	}
	if show(t, inst.DSN(), "work_mem") != "16MB" || show(t, inst.DSN(), "shared_buffers") != "128MB" {
		t.Error("values in effect after apply are wrong")
	}
	ac := autoConf(t, inst.DSN())
	rec := ac[apply.RecordParameter]
	if !strings.Contains(rec, `"name":"shared_buffers"`) || !strings.Contains(rec, `"before":null`) || res.Record != apply.RecordParameter+" in the server's postgresql.auto.conf" {
		t.Errorf("record %q at %q", rec, res.Record)
	}
	if ac["shared_buffers"] != "256MB" || ac["work_mem"] != "16MB" || ac["random_page_cost"] != "4" {
		t.Errorf("postgresql.auto.conf = %v", ac)
	}
	// Compare shows the pending restart.
	rows, err := srv.Compare(ctx, []tune.Parameter{{Name: "shared_buffers", Value: "256MB"}})
	if err != nil {
		t.Fatal(err)
	}
	if !rows[0].PendingRestart || !rows[0].Differs {
		t.Errorf("compare after apply = %+v", rows[0])
	}

	rev, err := srv.Revert(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// shared_buffers and max_connections are in postgresql.conf (initdb
	// writes them), so their reset changes nothing and waits for nothing.
	if len(rev.PendingRestart) != 0 || len(rev.NotTaken()) != 0 || len(rev.Changes) != 4 {
		t.Errorf("revert = %+v", rev)
	}
	if ac := autoConf(t, inst.DSN()); len(ac) != 1 || ac["random_page_cost"] != "3" {
		t.Errorf("postgresql.auto.conf after revert = %v", ac)
	}
	if show(t, inst.DSN(), "work_mem") != "4MB" || show(t, inst.DSN(), "random_page_cost") != "3" {
		t.Error("work_mem or random_page_cost not back")
	}
}

// TestAlterSystemDisabled: allow_alter_system = off (17+) stops Apply and
// Revert before any change.
func TestAlterSystemDisabled(t *testing.T) {
	ctx := ctxT(t)
	inst := pgtest.New(t, pgtest.Options{Version: "17", Settings: []pgserver.Setting{{Name: "allow_alter_system", Value: "off"}}})
	srv, err := apply.Managed(inst)
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.Apply(ctx, []tune.Parameter{{Name: "work_mem", Value: "8MB"}})
	if !errors.Is(err, apply.ErrAlterSystemDisabled) || err.Error() != "ALTER SYSTEM is disabled on "+inst.Name()+" (allow_alter_system = off): pglab cannot change its settings" {
		t.Errorf("apply: %v", err)
	}
	if _, err := os.Stat(filepath.Join(inst.Dir(), apply.RecordFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record written: %v", err)
	}
	if show(t, inst.DSN(), "work_mem") != "4MB" {
		t.Error("work_mem changed")
	}
}

// TestNotSuperuser: a user without ALTER SYSTEM rights is refused before
// any change, naming the parameters.
func TestNotSuperuser(t *testing.T) {
	ctx := ctxT(t)
	inst := pgtest.Shared(t, "")
	exec(t, inst.DSN(), "DROP ROLE IF EXISTS tune_plain", "CREATE ROLE tune_plain LOGIN PASSWORD 'plainpw'")
	t.Cleanup(func() { exec(t, inst.DSN(), "DROP ROLE IF EXISTS tune_plain") })
	cfg, err := pgx.ParseConfig(inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	dsn := "host=127.0.0.1 port=" + strconv.Itoa(int(cfg.Port)) + " user=tune_plain password=plainpw dbname=" + cfg.Database + " sslmode=disable"
	srv, err := apply.Remote("plain", dsn)
	if err != nil {
		t.Fatal(err)
	}
	want := "tune_plain may not run pg_reload_conf() on plain"
	if num, _ := strconv.Atoi(pgtest.QueryString(t, pgtest.Connect(t, inst.DSN()), "SHOW server_version_num")); num < 150000 {
		want = "ALTER SYSTEM needs a superuser before PostgreSQL 15, and tune_plain is not one on plain"
	}
	_, err = srv.Apply(ctx, []tune.Parameter{{Name: "work_mem", Value: "8MB"}, {Name: "shared_buffers", Value: "256MB"}})
	if !errors.Is(err, apply.ErrPermission) || !strings.Contains(err.Error(), want) {
		t.Errorf("apply as a plain user: %v", err)
	}
	if _, err := srv.Revert(ctx); !errors.Is(err, apply.ErrPermission) {
		t.Errorf("revert as a plain user: %v", err)
	}
}

// TestGrantedUser: on 15+, a user who is no superuser but was granted
// ALTER SYSTEM on the parameters (and the record parameter) and
// pg_read_all_settings can apply and revert; the old values come from
// pg_settings since pg_file_settings is closed to it.
func TestGrantedUser(t *testing.T) {
	ctx := ctxT(t)
	inst := pgtest.New(t, pgtest.Options{Version: "17"}) // GRANT ALTER SYSTEM: 15+
	exec(t, inst.DSN(), "CREATE ROLE tuner LOGIN PASSWORD 'tunerpw'",
		"GRANT ALTER SYSTEM ON PARAMETER work_mem, random_page_cost, "+apply.RecordParameter+" TO tuner",
		"GRANT pg_read_all_settings TO tuner",
		"ALTER SYSTEM SET random_page_cost = '3'", "SELECT pg_reload_conf()")
	cfg, err := pgx.ParseConfig(inst.DSN())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := apply.Remote("", "host=127.0.0.1 port="+strconv.Itoa(int(cfg.Port))+" user=tuner password=tunerpw dbname="+cfg.Database+" sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	params := []tune.Parameter{{Name: "work_mem", Value: "8MB"}, {Name: "random_page_cost", Value: "1.1"}}
	_, err = srv.Apply(ctx, params)
	if !errors.Is(err, apply.ErrPermission) || !strings.Contains(err.Error(), "tuner may not run pg_reload_conf()") {
		t.Errorf("apply without pg_reload_conf: %v", err)
	}
	if ac := autoConf(t, inst.DSN()); len(ac) != 1 {
		t.Errorf("postgresql.auto.conf after a refused apply = %v", ac)
	}
	exec(t, inst.DSN(), "GRANT EXECUTE ON FUNCTION pg_reload_conf() TO tuner")
	res, err := srv.Apply(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 2 || len(res.NotTaken()) != 0 {
		t.Errorf("apply = %+v", res)
	}
	if ac := autoConf(t, inst.DSN()); ac["work_mem"] != "8MB" || ac["random_page_cost"] != "1.1" || ac[apply.RecordParameter] == "" {
		t.Errorf("postgresql.auto.conf = %v", ac)
	}
	// shared_buffers was not granted: refused before any change.
	_, err = srv.Apply(ctx, []tune.Parameter{{Name: "shared_buffers", Value: "256MB"}})
	if !errors.Is(err, apply.ErrPermission) || !strings.Contains(err.Error(), "tuner may not ALTER SYSTEM SET shared_buffers on tuner@127.0.0.1:") {
		t.Errorf("apply of shared_buffers: %v", err)
	}
	rev, err := srv.Revert(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rev.Changes) != 2 || len(rev.NotTaken()) != 0 {
		t.Errorf("revert = %+v", rev)
	}
	if ac := autoConf(t, inst.DSN()); len(ac) != 1 || ac["random_page_cost"] != "3" {
		t.Errorf("postgresql.auto.conf after revert = %v", ac)
	}
}

// TestInputs: what a Go caller gets for a local server with nothing given,
// and that given inputs are kept.
func TestInputs(t *testing.T) {
	ctx := ctxT(t)
	inst := pgtest.Shared(t, "")
	srv, err := apply.Managed(inst)
	if err != nil {
		t.Fatal(err)
	}
	in, detected, err := srv.Inputs(ctx, tune.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, inst.DSN())
	num, _ := strconv.Atoi(pgtest.QueryString(t, conn, "SHOW server_version_num"))
	conns, _ := strconv.Atoi(pgtest.QueryString(t, conn, "SHOW max_connections"))
	if in.Version != num/10000 || in.Connections != conns || in.Memory.IsZero() || in.CPUs < 1 || in.Storage == "" ||
		in.OS != tune.OSLinux || in.Workload != tune.WorkloadWeb || in.DBSize != tune.DBSizeUpTo3xRAM {
		t.Errorf("inputs = %+v", in)
	}
	got := map[string]bool{}
	for _, d := range detected {
		got[d.Input] = d.Server
	}
	if s, ok := got[tune.InputVersion]; !ok || !s {
		t.Errorf("detected = %+v", detected)
	}
	if s, ok := got[tune.InputMemory]; !ok || s {
		t.Errorf("detected = %+v", detected)
	}
	given := tune.Inputs{Version: 16, Memory: tune.Memory{Amount: 2, Unit: tune.UnitGB}, CPUs: 4, Connections: 50, Storage: tune.StorageHDD, Workload: tune.WorkloadOLTP}
	in, detected, err = srv.Inputs(ctx, given)
	if err != nil {
		t.Fatal(err)
	}
	if in.Version != 16 || in.Memory != given.Memory || in.CPUs != 4 || in.Connections != 50 || in.Storage != tune.StorageHDD || in.Workload != tune.WorkloadOLTP || len(detected) != 0 {
		t.Errorf("inputs = %+v, detected %+v", in, detected)
	}
	// A server elsewhere needs the memory.
	remote, err := apply.Remote("", "postgres://u@192.0.2.1/db?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := remote.Inputs(ctx, tune.Inputs{Version: 17, Connections: 100}); err == nil || !strings.Contains(err.Error(), "is not on this machine") {
		t.Errorf("remote without memory: %v", err)
	}
}
