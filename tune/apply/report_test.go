package apply

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/pglab/pglab/tune"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// reports are what --diff, --apply and --revert print in the cases that
// differ: a managed instance and a server elsewhere, changes that took,
// wait for a restart or did not take, values left alone, nothing to do.
func reports(t *testing.T) map[string]Report {
	in := tune.Inputs{Version: 17, OS: tune.OSLinux, Workload: tune.WorkloadOLTP, Memory: tune.Memory{Amount: 4, Unit: tune.UnitGB}, CPUs: 2, Connections: 100, Storage: tune.StorageSSD, DBSize: tune.DBSizeUpTo3xRAM}
	rec, err := tune.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	detected := []tune.Detection{{Input: tune.InputVersion, Source: "server_version_num", Server: true}, {Input: tune.InputMemory, Source: "/proc/meminfo"}}
	managed := &Server{Label: "pg17", Managed: true, Local: true}
	remote := &Server{Label: "me@db.example.com:5432/app"}
	rows := []Row{
		{Name: "max_connections", Current: "100", Recommended: "100"},
		{Name: "shared_buffers", Current: "128MB", Recommended: "1GB", Differs: true, Restart: true},
		{Name: "work_mem", Current: "4MB", Recommended: "5242kB", Differs: true, PendingRestart: true},
		{Name: "wal_compression", Current: "off", Recommended: "lz4", Differs: true, Unsupported: `invalid value for parameter "wal_compression": "lz4"`},
		{Name: "io_method", Recommended: "io_uring", Differs: true, Unsupported: "unknown parameter (PostgreSQL 18 has it)"},
	}
	applied := &Result{Server: "pg17",
		Changes: []Change{
			{Name: "shared_buffers", Action: "set", Value: "1GB", Before: "128MB", After: "1GB", Restart: true, Status: StatusOK},
			{Name: "work_mem", Action: "set", Value: "5242kB", Before: "4MB", After: "4MB", Status: StatusNotTaken, Detail: "set on the command line"},
		},
		Unchanged: []string{"max_connections"},
		Skipped:   []Skip{{Name: "wal_compression", Value: "lz4", Reason: "this server cannot take it"}},
		Reloaded:  true, Restarted: true, RestartedFor: []string{"shared_buffers"},
		Record: "/var/lib/pglab/instances/pg17/tune-applied.json"}
	pending := &Result{Server: remote.Label,
		Changes:        []Change{{Name: "shared_buffers", Action: "set", Value: "1GB", Before: "128MB", After: "128MB", Restart: true, Status: StatusPending}},
		Reloaded:       true,
		PendingRestart: []string{"shared_buffers"},
		Record:         "the server (pglab.tune_applied in postgresql.auto.conf)"}
	reverted := &Result{Server: "pg17",
		Changes:  []Change{{Name: "shared_buffers", Action: "reset", Before: "1GB", After: "128MB", Restart: true, Status: StatusOK}},
		Skipped:  []Skip{{Name: "work_mem", Reason: "changed since pglab set it"}},
		Reloaded: true, Restarted: true, RestartedFor: []string{"shared_buffers"},
		Record: "/var/lib/pglab/instances/pg17/tune-applied.json"}
	return map[string]Report{
		"diff-managed":   {Action: ActionDiff, Server: managed, Version: "17.2", VersionNum: 170002, Recommendation: rec, Detected: detected, Rows: rows},
		"apply-managed":  {Action: ActionApply, Server: managed, Version: "17.2", VersionNum: 170002, Recommendation: rec, Detected: detected, Result: applied},
		"apply-remote":   {Action: ActionApply, Server: remote, Version: "16.4", VersionNum: 160004, Recommendation: rec, Result: pending},
		"apply-nothing":  {Action: ActionApply, Server: managed, Version: "17.2", VersionNum: 170002, Recommendation: rec, Result: &Result{Server: "pg17", Unchanged: []string{"max_connections", "shared_buffers"}, Reloaded: true}},
		"revert-managed": {Action: ActionRevert, Server: managed, Result: reverted},
		"revert-nothing": {Action: ActionRevert, Server: remote, Result: &Result{Server: remote.Label, Record: "the server"}},
	}
}

// TestReportGolden compares what each report writes, as a table and as
// JSON, with testdata/NAME.FORMAT.golden; go test -update rewrites them.
func TestReportGolden(t *testing.T) {
	for name, r := range reports(t) {
		for _, f := range []tune.Format{tune.FormatConf, tune.FormatJSON} {
			var b bytes.Buffer
			if err := r.Write(&b, f); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			path := filepath.Join("testdata", name+"."+string(f)+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s differs (go test -update rewrites it):\n got:\n%s\nwant:\n%s", path, b.Bytes(), want)
			}
		}
	}
}

func TestNotTakenError(t *testing.T) {
	ok := &Result{Changes: []Change{{Name: "a", Status: StatusOK}}}
	if err := ok.NotTakenError(); err != nil {
		t.Errorf("all took: %v", err)
	}
	bad := &Result{Changes: []Change{{Name: "a", Status: StatusNotTaken, Detail: "set on the command line"}, {Name: "b", Status: StatusPending}}}
	if err := bad.NotTakenError(); err == nil || err.Error() != "1 parameters did not take: a (set on the command line)" {
		t.Errorf("err = %v", err)
	}
}
