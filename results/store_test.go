package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each store-agnostic test runs once per kind of store: an SQLite file in
// a temporary directory, and a fresh database on a real PostgreSQL server
// (postgres_store_test.go), via suiteLocations.
type locationFunc func(t *testing.T) string

func sqliteLocation(t *testing.T) string {
	return filepath.Join(t.TempDir(), "results.db")
}

// suiteLocations are the stores the store-agnostic tests run on.
var suiteLocations = map[string]locationFunc{"sqlite": sqliteLocation}

// forEachStore runs fn once per kind of store.
func forEachStore(t *testing.T, fn func(t *testing.T, loc string)) {
	for name, lf := range suiteLocations {
		t.Run(name, func(t *testing.T) { fn(t, lf(t)) })
	}
}

func mustOpen(t *testing.T, loc string) *Store {
	t.Helper()
	s, err := Open(context.Background(), loc)
	if err != nil {
		t.Fatalf("Open(%q): %v", loc, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func boolp(b bool) *bool { return &b }

// fullRun is a RunInfo with every field set.
func fullRun(id string, started time.Time) RunInfo {
	return RunInfo{
		ID:        id,
		Kind:      KindCompare,
		StartedAt: started,
		Version:   "0.1.0-dev (abc123)",
		Command:   []string{"pglab", "compare", "--versions", "16,17", "--reps", "5"},
		Host: Host{
			Hostname: "lab1", OS: "Debian GNU/Linux 13 (trixie)", Arch: "amd64", Kernel: "6.12.1",
			CPUs: 8, CPUModel: "AMD EPYC 7B13", MemoryBytes: 32 << 30,
			Disk: Disk{Path: "/var/lib/pglab", Device: "/dev/nvme0n1p2", Filesystem: "ext4", Rotational: boolp(false)},
		},
		Extra: json.RawMessage(`{"alpha":0.05,"reps":5,"studies":["tps","vacuum"]}`),
	}
}

func TestRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		started := time.Date(2026, 11, 30, 10, 32, 45, 123456789, time.FixedZone("JST", 9*3600))
		info := fullRun("", started)
		run, err := s.BeginRun(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		if want := "20261130-013245-"; !strings.HasPrefix(run.ID(), want) || len(run.ID()) != len(want)+4 {
			t.Errorf("run ID %q, want %s + 4 hex digits", run.ID(), want)
		}
		targets := []Target{
			{
				Name: "pg16", Kind: TargetManaged, Conn: "host=/tmp/pglab port=54016 dbname=pglab",
				ServerVersion: "16.4", ServerVersionNum: 160004, DataChecksums: false,
				Settings: []Setting{
					{Name: "shared_buffers", Value: "16384", Unit: "8kB", Source: "configuration file"},
					{Name: "autovacuum", Value: "off", Source: "command line"},
				},
				Extra: json.RawMessage(`{"data_dir":"/var/lib/pglab/16"}`),
			},
			{
				Name: "prod", Kind: TargetDSN, Conn: "postgres://app@db.example/app",
				ServerVersion: "17.2 (Debian 17.2-1.pgdg120+1)", ServerVersionNum: 170002, DataChecksums: true,
			},
		}
		for _, tg := range targets {
			if err := run.AddTarget(ctx, tg); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Date(2026, 11, 30, 1, 33, 0, 5000, time.UTC)
		ms := []Measurement{
			{Target: "pg16", Study: "tps", Case: map[string]string{"clients": "10", "mode": "prepared"}, Rep: 1,
				Metric: "tps", Value: 23456.78, Unit: "1/s", Direction: DirectionHigher, At: at},
			{Target: "prod", Study: "tps", Case: map[string]string{"mode": "prepared", "clients": "10"}, Rep: 1,
				Metric: "latency_p99", Value: 1.25e-3, Unit: "s", Direction: DirectionLower, At: at},
			{Target: "pg16", Study: "vacuum", Case: map[string]string{"share": "95"}, Rep: 2,
				Metric: "wal_records", Value: 3000000, Unit: "records", Exact: true, Direction: DirectionNeutral, At: at},
			{Study: "host", Metric: "load", Value: -0.5, At: at}, // no target, no case, zero rep
		}
		if err := run.AddMeasurements(ctx, ms); err != nil {
			t.Fatal(err)
		}
		arts := []Artefact{
			{Target: "pg16", Study: "vacuum", Case: map[string]string{"share": "95"}, Rep: 2, Name: "vacuum-verbose",
				ContentType: "text/plain", Data: []byte("INFO:  vacuuming \"pglab.t\"\n"), At: at},
			{Name: "hdr", ContentType: "application/octet-stream", Data: []byte{0, 1, 2, 255}, At: at},
			{Target: "prod", Name: "empty", ContentType: "text/plain", At: at},
		}
		for _, a := range arts {
			if err := run.AddArtefact(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		before := time.Now().Add(-time.Second)
		if err := run.Finish(ctx, StatusFailed, errors.New("server died")); err != nil {
			t.Fatal(err)
		}
		s.Close()

		// Read everything back from a fresh handle.
		s = mustOpen(t, loc)
		got, err := s.Run(ctx, run.ID())
		if err != nil {
			t.Fatal(err)
		}
		if got.FinishedAt.Before(before) || got.FinishedAt.After(time.Now()) {
			t.Errorf("FinishedAt %v not about now", got.FinishedAt)
		}
		want := RunRecord{RunInfo: info, Status: StatusFailed, Error: "server died", FinishedAt: got.FinishedAt}
		want.ID = run.ID()
		want.StartedAt = time.Date(2026, 11, 30, 1, 32, 45, 123456000, time.UTC)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Run:\n got %+v\nwant %+v", got, want)
		}
		list, err := s.Runs(ctx, RunFilter{})
		if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], want) {
			t.Errorf("Runs = %+v, %v", list, err)
		}

		gotT, err := s.Targets(ctx, run.ID())
		if err != nil {
			t.Fatal(err)
		}
		wantT := append([]Target(nil), targets...)
		wantT[0].Settings = []Setting{targets[0].Settings[1], targets[0].Settings[0]} // sorted by name
		wantT[1].Extra = json.RawMessage(`{}`)
		if !reflect.DeepEqual(gotT, wantT) {
			t.Errorf("Targets:\n got %+v\nwant %+v", gotT, wantT)
		}

		gotM, err := s.Measurements(ctx, run.ID(), MeasurementFilter{})
		if err != nil {
			t.Fatal(err)
		}
		wantM := append([]Measurement(nil), ms...)
		for i := range wantM {
			wantM[i].CaseKey = CaseKey(wantM[i].Case)
		}
		wantM[3].Direction = DirectionNeutral // the zero value is stored as neutral
		if !reflect.DeepEqual(gotM, wantM) {
			t.Errorf("Measurements:\n got %+v\nwant %+v", gotM, wantM)
		}
		if gotM[0].CaseKey != gotM[1].CaseKey {
			t.Error("equal cases got different keys")
		}

		gotA, err := s.Artefacts(ctx, run.ID(), ArtefactFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(gotA) != len(arts) {
			t.Fatalf("got %d artefacts, want %d", len(gotA), len(arts))
		}
		for i, a := range arts {
			a.ID = gotA[i].ID
			a.CaseKey = CaseKey(a.Case)
			a.Size = int64(len(a.Data))
			if a.Data == nil {
				a.Data = []byte{}
			}
			if !reflect.DeepEqual(gotA[i], a) {
				t.Errorf("artefact %d:\n got %+v\nwant %+v", i, gotA[i], a)
			}
		}
		lean, err := s.Artefacts(ctx, "last", ArtefactFilter{Name: "hdr", SkipData: true})
		if err != nil || len(lean) != 1 || lean[0].Data != nil || lean[0].Size != 4 {
			t.Errorf("SkipData: %+v, %v", lean, err)
		}
	})
}

func TestFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		kinds := []Kind{KindStudy, KindBench, KindStudy, KindTune}
		var ids []string
		for i, k := range kinds {
			r, err := s.BeginRun(ctx, RunInfo{Kind: k, StartedAt: t0.Add(time.Duration(i) * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID())
			if i%2 == 0 {
				if err := r.Finish(ctx, StatusDone, nil); err != nil {
					t.Fatal(err)
				}
			}
			if i == 0 {
				if err := r.AddTarget(ctx, Target{Name: "a", Kind: TargetManaged}); err == nil {
					t.Error("AddTarget after Finish succeeded")
				}
			}
		}
		check := func(f RunFilter, want ...string) {
			t.Helper()
			runs, err := s.Runs(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range runs {
				got = append(got, r.ID)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Runs(%+v) = %v, want %v", f, got, want)
			}
		}
		check(RunFilter{}, ids[3], ids[2], ids[1], ids[0])
		check(RunFilter{Kind: KindStudy}, ids[2], ids[0])
		check(RunFilter{Status: StatusRunning}, ids[3], ids[1])
		check(RunFilter{Since: t0.Add(time.Hour), Before: t0.Add(3 * time.Hour)}, ids[2], ids[1])
		check(RunFilter{Limit: 2}, ids[3], ids[2])
		check(RunFilter{Kind: KindPlan})

		// Measurement and artefact filters.
		r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a", "b"} {
			if err := r.AddTarget(ctx, Target{Name: n, Kind: TargetManaged}); err != nil {
				t.Fatal(err)
			}
		}
		var ms []Measurement
		for _, tg := range []string{"a", "b"} {
			for _, st := range []string{"tps", "vacuum"} {
				for _, c := range []string{"1", "2"} {
					for _, m := range []string{"x", "y"} {
						ms = append(ms, Measurement{Target: tg, Study: st, Case: map[string]string{"c": c}, Metric: m, Value: 1})
					}
				}
			}
		}
		if err := r.AddMeasurements(ctx, ms); err != nil {
			t.Fatal(err)
		}
		key := CaseKey(map[string]string{"c": "2"})
		got, err := s.Measurements(ctx, r.ID(), MeasurementFilter{Target: "b", Study: "tps", CaseKey: key, Metric: "y"})
		if err != nil || len(got) != 1 || got[0].Target != "b" || got[0].Case["c"] != "2" || got[0].Metric != "y" {
			t.Errorf("filtered measurements: %+v, %v", got, err)
		}
		if got, _ := s.Measurements(ctx, r.ID(), MeasurementFilter{Study: "vacuum"}); len(got) != 8 {
			t.Errorf("study filter: %d measurements, want 8", len(got))
		}
		if got, _ := s.Measurements(ctx, ids[0], MeasurementFilter{}); len(got) != 0 {
			t.Errorf("another run's measurements leaked: %d", len(got))
		}
		for _, a := range []Artefact{
			{Target: "a", Study: "tps", Name: "n1", ContentType: "text/plain"},
			{Target: "b", Study: "tps", Name: "n1", ContentType: "text/plain"},
			{Target: "b", Study: "vacuum", Name: "n2", ContentType: "text/plain", Case: map[string]string{"c": "2"}},
		} {
			if err := r.AddArtefact(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range []struct {
			f    ArtefactFilter
			want int
		}{
			{ArtefactFilter{}, 3},
			{ArtefactFilter{Target: "b"}, 2},
			{ArtefactFilter{Study: "tps"}, 2},
			{ArtefactFilter{Name: "n1", Target: "a"}, 1},
			{ArtefactFilter{CaseKey: key}, 1},
		} {
			if got, err := s.Artefacts(ctx, r.ID(), tt.f); err != nil || len(got) != tt.want {
				t.Errorf("Artefacts(%+v): %d, %v; want %d", tt.f, len(got), err, tt.want)
			}
		}
	})
}

func TestRunRefs(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		for i, id := range []string{"20261130-103245-ab12", "20261130-103245-ab34", "20261201-000000-0000", "abc", "abc_d", "abcxd"} {
			if _, err := s.BeginRun(ctx, RunInfo{ID: id, Kind: KindBench, StartedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		for ref, want := range map[string]string{
			"20261130-103245-ab12": "20261130-103245-ab12",
			"20261130-103245-ab3":  "20261130-103245-ab34",
			"202612":               "20261201-000000-0000",
			"last":                 "abcxd",
			"abc":                  "abc", // exact beats longer IDs
			"abc_":                 "abc_d",
		} {
			r, err := s.Run(ctx, ref)
			if err != nil || r.ID != want {
				t.Errorf("Run(%q) = %q, %v; want %q", ref, r.ID, err, want)
			}
		}
		_, err := s.Run(ctx, "20261130")
		if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "20261130-103245-ab12, 20261130-103245-ab34") {
			t.Errorf("ambiguous prefix: %v", err)
		}
		if _, err := s.Run(ctx, "2025"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown run: %v", err)
		}
		for _, bad := range []string{"", "ABC", "a%", "a b", "x'; DROP TABLE runs; --"} {
			if _, err := s.Run(ctx, bad); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Run(%q): %v, want a bad-ID error", bad, err)
			}
		}
		if _, err := s.Targets(ctx, "2025"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Targets of unknown run: %v", err)
		}
		if _, err := s.BeginRun(ctx, RunInfo{ID: "abc", Kind: KindBench}); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("duplicate ID: %v", err)
		}
		for _, bad := range []string{"last", "Upper", "a/b"} {
			if _, err := s.BeginRun(ctx, RunInfo{ID: bad, Kind: KindBench}); err == nil {
				t.Errorf("BeginRun accepted ID %q", bad)
			}
		}

		empty := mustOpen(t, sqliteLocation(t))
		if _, err := empty.Run(ctx, "last"); !errors.Is(err, ErrNotFound) {
			t.Errorf("last of an empty store: %v", err)
		}
	})
}

func TestValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		if _, err := s.BeginRun(ctx, RunInfo{Kind: "nap"}); err == nil {
			t.Error("unknown kind accepted")
		}
		if _, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy, Extra: json.RawMessage(`[1]`)}); err == nil {
			t.Error("non-object extra accepted")
		}
		r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.AddTarget(ctx, Target{Name: "a", Kind: TargetManaged}); err != nil {
			t.Fatal(err)
		}
		for name, tg := range map[string]Target{
			"duplicate": {Name: "a", Kind: TargetManaged},
			"no name":   {Kind: TargetManaged},
			"bad kind":  {Name: "b", Kind: "cloud"},
			"dup set":   {Name: "c", Kind: TargetDSN, Settings: []Setting{{Name: "x", Value: "1"}, {Name: "x", Value: "2"}}},
			"bad extra": {Name: "d", Kind: TargetDSN, Extra: json.RawMessage(`{`)},
		} {
			if err := r.AddTarget(ctx, tg); err == nil {
				t.Errorf("AddTarget %s: accepted", name)
			}
		}
		good := Measurement{Target: "a", Study: "s", Metric: "m", Value: 1}
		for name, m := range map[string]Measurement{
			"no metric":      {Target: "a", Study: "s", Value: 1},
			"NaN":            {Target: "a", Study: "s", Metric: "m", Value: math.NaN()},
			"Inf":            {Target: "a", Study: "s", Metric: "m", Value: math.Inf(-1)},
			"bad direction":  {Target: "a", Study: "s", Metric: "m", Direction: "up"},
			"unknown target": {Target: "zz", Study: "s", Metric: "m"},
		} {
			// A bad measurement fails the whole batch: the good one is not stored either.
			if err := r.AddMeasurements(ctx, []Measurement{good, m}); err == nil {
				t.Errorf("AddMeasurements %s: accepted", name)
			}
		}
		if got, _ := s.Measurements(ctx, r.ID(), MeasurementFilter{}); len(got) != 0 {
			t.Errorf("%d measurements stored from failed batches", len(got))
		}
		if err := r.AddArtefact(ctx, Artefact{Name: "x"}); err == nil {
			t.Error("artefact without content type accepted")
		}
		if err := r.AddArtefact(ctx, Artefact{Name: "x", ContentType: "text/plain", Target: "zz"}); err == nil {
			t.Error("artefact of unknown target accepted")
		}
		if err := r.Finish(ctx, StatusRunning, nil); err == nil {
			t.Error("Finish(running) accepted")
		}
		if err := r.Finish(ctx, StatusDone, nil); err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(ctx, StatusDone, nil); err == nil {
			t.Error("second Finish accepted")
		}
		if err := r.AddMeasurements(ctx, []Measurement{good}); err == nil {
			t.Error("AddMeasurements after Finish accepted")
		}
		if err := r.AddArtefact(ctx, Artefact{Name: "x", ContentType: "text/plain"}); err == nil {
			t.Error("AddArtefact after Finish accepted")
		}
	})
}

// TestConcurrentWrites has goroutines add measurements to one run at once,
// while a second Store on the same file (as another pglab process would)
// writes another run.
func TestConcurrentWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		s := mustOpen(t, loc)
		other := mustOpen(t, loc)
		r, err := s.BeginRun(ctx, RunInfo{Kind: KindCompare})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := other.BeginRun(ctx, RunInfo{Kind: KindBench})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a", "b"} {
			if err := r.AddTarget(ctx, Target{Name: n, Kind: TargetManaged}); err != nil {
				t.Fatal(err)
			}
		}
		const workers, batches, per = 6, 20, 10
		var wg sync.WaitGroup
		errs := make(chan error, workers+1)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for b := 0; b < batches; b++ {
					ms := make([]Measurement, per)
					for i := range ms {
						ms[i] = Measurement{Target: []string{"a", "b"}[w%2], Study: "tps",
							Case: map[string]string{"worker": fmt.Sprint(w)}, Rep: b, Metric: fmt.Sprintf("m%d", i),
							Value: float64(w*1000000 + b*1000 + i)}
					}
					if err := r.AddMeasurements(ctx, ms); err != nil {
						errs <- err
						return
					}
					if b%5 == 0 { // readers run alongside the writers
						if _, err := s.Measurements(ctx, r.ID(), MeasurementFilter{}); err != nil {
							errs <- err
							return
						}
					}
				}
			}(w)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; b < batches; b++ {
				if err := r2.AddMeasurements(ctx, []Measurement{{Study: "bench", Metric: "tps", Rep: b, Value: 1}}); err != nil {
					errs <- err
					return
				}
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		got, err := s.Measurements(ctx, r.ID(), MeasurementFilter{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[float64]bool{}
		for _, m := range got {
			if seen[m.Value] {
				t.Errorf("value %v stored twice", m.Value)
			}
			seen[m.Value] = true
		}
		for w := 0; w < workers; w++ {
			for b := 0; b < batches; b++ {
				for i := 0; i < per; i++ {
					if v := float64(w*1000000 + b*1000 + i); !seen[v] {
						t.Fatalf("value %v missing (%d of %d stored)", v, len(got), workers*batches*per)
					}
				}
			}
		}
		if got2, err := s.Measurements(ctx, r2.ID(), MeasurementFilter{}); err != nil || len(got2) != batches {
			t.Errorf("other store's run: %d measurements, %v", len(got2), err)
		}
	})
}

// TestInterrupted stores what was measured after the context was
// cancelled, and finishes the run as interrupted.
func TestInterrupted(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		s := mustOpen(t, loc)
		ctx, cancel := context.WithCancel(context.Background())
		r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		if err != nil {
			t.Fatal(err)
		}
		cancel() // Ctrl-C
		if err := r.AddTarget(ctx, Target{Name: "a", Kind: TargetManaged}); err != nil {
			t.Fatalf("AddTarget after cancel: %v", err)
		}
		if err := r.AddMeasurements(ctx, []Measurement{{Target: "a", Study: "s", Metric: "m", Value: 2}}); err != nil {
			t.Fatalf("AddMeasurements after cancel: %v", err)
		}
		if err := r.Finish(ctx, StatusInterrupted, ctx.Err()); err != nil {
			t.Fatalf("Finish after cancel: %v", err)
		}
		got, err := s.Run(context.Background(), r.ID())
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != StatusInterrupted || got.Error != "context canceled" || got.FinishedAt.IsZero() {
			t.Errorf("run = %+v", got)
		}
		if ms, _ := s.Measurements(context.Background(), r.ID(), MeasurementFilter{}); len(ms) != 1 {
			t.Errorf("%d measurements, want 1", len(ms))
		}
		// Beginning a run with a cancelled context fails: nothing was started.
		if _, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy}); err == nil {
			t.Error("BeginRun with a cancelled context succeeded")
		}
	})
}

// TestNoSecretsOnDisk writes passwords into every field that could carry
// one and then looks for them in the raw bytes of the store's files.
func TestNoSecretsOnDisk(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "results.db")
	ctx := context.Background()
	s := mustOpen(t, loc)
	info := RunInfo{
		Kind:    KindCompare,
		Command: []string{"pglab", "compare", "--target", "a=postgres://u:SeCrEt1@h/db", "--store", "host=h password=SeCrEt2"},
		Extra:   json.RawMessage(`{"targets":{"a":"postgres://u:SeCrEt3@h/db"},"password":"SeCrEt4"}`),
	}
	r, err := s.BeginRun(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddTarget(ctx, Target{
		Name: "a", Kind: TargetDSN, Conn: "postgres://u:SeCrEt5@h/db?sslpassword=SeCrEt6",
		Settings: []Setting{{Name: "primary_conninfo", Value: "host=p password=SeCrEt7"}},
		Extra:    json.RawMessage(`{"conn":{"passwd":"SeCrEt8"}}`),
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddMeasurements(ctx, []Measurement{{Target: "a", Study: "s", Metric: "m",
		Case: map[string]string{"dsn": "postgres://x:SeCrEt9@h/db"}}}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddArtefact(ctx, Artefact{Name: "log", ContentType: "text/plain",
		Data: []byte("LOG: statement: ALTER SYSTEM SET primary_conninfo = 'password=SeCrEt10'")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(ctx, StatusFailed, errors.New("connect postgres://u:SeCrEt11@h/db: refused")); err != nil {
		t.Fatal(err)
	}
	// Read back through the API too, before and after closing.
	got, err := s.Run(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if dump := fmt.Sprintf("%+v %s", got, got.Extra); strings.Contains(strings.ToLower(dump), "secret") {
		t.Errorf("run record holds a secret: %s", dump)
	}
	check := func() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if i := strings.Index(string(data), "SeCrEt"); i >= 0 {
				t.Errorf("%s holds a secret: %q", e.Name(), data[i:min(len(data), i+12)])
			}
		}
	}
	check() // WAL file present
	s.Close()
	check()
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b c?d#e%20f")
	loc := filepath.Join(dir, "results.db")
	s := mustOpen(t, loc)
	if _, err := s.BeginRun(context.Background(), RunInfo{Kind: KindBench}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Dir(dir), dir} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", p, st.Mode().Perm(), err)
		}
	}
	for _, p := range []string{loc, loc + "-wal", loc + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q, %v; want wal", mode, err)
	}
	var fk int
	if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys %d, %v; want 1", fk, err)
	}
	if s.Location() != loc || s.IsPostgres() {
		t.Errorf("Location %q, IsPostgres %v", s.Location(), s.IsPostgres())
	}
}

func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	p, err := DefaultPath()
	if want := filepath.Join(home, ".local", "share", "pglab", "results.db"); err != nil || p != want {
		t.Errorf("DefaultPath() = %q, %v; want %q", p, err, want)
	}
	t.Setenv("XDG_DATA_HOME", "relative/dir") // not absolute: ignored, as the spec says
	if p2, _ := DefaultPath(); p2 != p {
		t.Errorf("relative XDG_DATA_HOME: %q", p2)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	p, err = DefaultPath()
	if want := filepath.Join(xdg, "pglab", "results.db"); err != nil || p != want {
		t.Errorf("DefaultPath() = %q, %v; want %q", p, err, want)
	}
	s := mustOpen(t, "")
	if s.Location() != p {
		t.Errorf("Open(\"\") at %q, want %q", s.Location(), p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
	s2 := mustOpen(t, "~/x.db")
	if want := filepath.Join(home, "x.db"); s2.Location() != want {
		t.Errorf("~ expanded to %q, want %q", s2.Location(), want)
	}
}

func TestIsPostgresDSN(t *testing.T) {
	for loc, want := range map[string]bool{
		"postgres://h/db":                  true,
		"postgresql://u@h/db":              true,
		"POSTGRES://h/db":                  true,
		"host=db dbname=lab":               true,
		"dbname=lab":                       true,
		"host=/var/run/postgresql":         true,
		"  service=lab":                    true,
		"":                                 false,
		"results.db":                       false,
		"/tmp/results.db":                  false,
		"./a=b.db":                         false,
		"a=b.db":                           false,
		"mode=fast.db":                     false,
		"/data/host=x/results.db":          false,
		"sqlite:results.db":                false,
		"C:\\Users\\me\\results.db":        false,
		"host=db port=5432 user=u sslmode": true,
	} {
		if got := IsPostgresDSN(loc); got != want {
			t.Errorf("IsPostgresDSN(%q) = %v, want %v", loc, got, want)
		}
	}
}

func TestCaseKey(t *testing.T) {
	a := CaseKey(map[string]string{"clients": "10", "mode": "prepared"})
	b := CaseKey(map[string]string{"mode": "prepared", "clients": "10"})
	c := CaseKey(map[string]string{"clients": "1", "mode": "0prepared"})
	if a != b || a == c || len(a) != 12 {
		t.Errorf("keys %q %q %q", a, b, c)
	}
	if CaseKey(nil) != CaseKey(map[string]string{}) {
		t.Error("nil and empty cases differ")
	}
	if got := caseJSON(map[string]string{"b": "2", "a": "1"}); got != `{"a":"1","b":"2"}` {
		t.Errorf("caseJSON = %s", got)
	}
}

// rawExec runs a statement on a store's database, for tests that set up
// odd states.
func rawExec(t *testing.T, s *Store, q string, args ...any) {
	t.Helper()
	if _, err := s.db.Exec(s.rebind(q), args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

var _ = sql.ErrNoRows

// TestDiscard removes a run with its targets, measurements and
// artefacts; the store's other runs stay.
func TestDiscard(t *testing.T) {
	forEachStore(t, func(t *testing.T, loc string) {
		s := mustOpen(t, loc)
		ctx := context.Background()
		keep, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.BeginRun(ctx, RunInfo{Kind: KindStudy})
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range []*Run{keep, r} {
			if err := run.AddTarget(ctx, Target{Name: "a", Kind: TargetManaged}); err != nil {
				t.Fatal(err)
			}
			if err := run.AddMeasurements(ctx, []Measurement{{Target: "a", Study: "s", Metric: "m", Value: 2}}); err != nil {
				t.Fatal(err)
			}
			if err := run.AddArtefact(ctx, Artefact{Target: "a", Study: "s", Name: "log", ContentType: "text/plain", Data: []byte("x")}); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Discard(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(ctx, r.ID()); err == nil {
			t.Error("the discarded run is still in the store")
		}
		if ms, _ := s.Measurements(ctx, r.ID(), MeasurementFilter{}); len(ms) != 0 {
			t.Errorf("the discarded run left %d measurements", len(ms))
		}
		var artefacts int
		if err := s.db.QueryRow(`SELECT count(*) FROM artefacts`).Scan(&artefacts); err != nil || artefacts != 1 {
			t.Errorf("%d artefacts in the store (%v), want the kept run's 1", artefacts, err)
		}
		if ms, _ := s.Measurements(ctx, keep.ID(), MeasurementFilter{}); len(ms) != 1 {
			t.Errorf("the other run has %d measurements, want 1", len(ms))
		}
		if err := r.AddMeasurements(ctx, []Measurement{{Target: "a", Study: "s", Metric: "m", Value: 2}}); err == nil {
			t.Error("a discarded run took a measurement")
		}
	})
}
