package study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

// artefact returns the data of the first artefact named name.
func (m *memStore) artefact(name string) []byte {
	for _, a := range m.artefacts {
		if a.Name == name {
			return a.Data
		}
	}
	return nil
}

// vacuumStep updates 95 % of a table's rows and measures the VACUUM
// after it; steps keeps each repetition's Step.
type vacuumStep struct{ steps []*Step }

func (v *vacuumStep) Info() Info {
	return Info{Name: "vacstep", Title: "a VACUUM after an UPDATE", Version: 1}
}

func (v *vacuumStep) Plan(Params) (Plan, error) {
	return Plan{Cases: []Case{{Name: "vacuum", Labels: map[string]string{"case": "vacuum"}}}, Reps: 1}, nil
}

func (v *vacuumStep) Setup(context.Context, *Session) error    { return nil }
func (v *vacuumStep) Teardown(context.Context, *Session) error { return nil }

func (v *vacuumStep) Run(ctx context.Context, s *Session, c Case, rep int) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"DROP TABLE IF EXISTS vt",
		"CREATE TABLE vt (id int, v text) WITH (autovacuum_enabled = off)",
		"INSERT INTO vt SELECT g, md5(g::text) FROM generate_series(1, 300000) g",
		"VACUUM vt",
		"UPDATE vt SET v = v || 'x' WHERE id % 20 <> 1",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	// The UPDATE's statistics reach pg_stat_wal before the step.
	if err := observe.Flush(ctx, conn); err != nil {
		return err
	}
	step, err := s.MeasureStep(ctx, "VACUUM", conn, func(ctx context.Context) error {
		_, err := conn.Exec(ctx, "VACUUM vt")
		return err
	})
	v.steps = append(v.steps, step)
	return err
}

// TestMeasureStepEvidence: a measured VACUUM after an UPDATE on 16 and 17
// records its WAL by record type (Heap2's prune records; the types'
// bytes with their images within 1 % and 4 kB of the step's wal_bytes)
// and, under Profile, its CPU by function (VACUUM's heap functions, the
// samples' CPU near the server's), with the artefacts wal-records,
// cpu-profile and cpu-stacks of the case and repetition.
func TestMeasureStepEvidence(t *testing.T) {
	for _, v := range []string{"16", "17"} {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			inst := pgtest.SharedWith(t, v, pgserver.Setting{Name: "autovacuum", Value: "off"})
			tg, err := DSNTarget(ctx, "a", pgtest.CreateDB(t, inst))
			if err != nil {
				t.Fatal(err)
			}
			st := &vacuumStep{}
			store := &memStore{}
			r := &Runner{Targets: []*Target{tg}, Store: store, Force: true, Profile: true}
			out, err := r.Run(ctx, st, Params{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range out.Notes {
				t.Logf("note: %s (%s)", n.Text, n.Metric)
			}
			got := map[string]results.Measurement{}
			for _, m := range out.Measurements {
				got[m.Metric] = m
			}
			prune := "wal_rec_count:Heap2/PRUNE_VACUUM_SCAN"
			if v == "16" {
				prune = "wal_rec_count:Heap2/PRUNE"
			}
			if m, ok := got[prune]; !ok || m.Value < 1500 || m.Unit != "count" {
				t.Errorf("%s = %+v, want one per page (about 2000)", prune, m)
			}
			total, stat := got[observe.WALRecTotalBytes].Value, got["wal_bytes"].Value
			if stat == 0 {
				stat, _ = st.steps[0].Counter("wal_bytes")
			}
			t.Logf("record types %.0f bytes, wal_bytes %.0f", total, stat)
			if math.Abs(total-stat) > 0.01*stat+4096 {
				t.Errorf("record types hold %.0f bytes, the step's wal_bytes is %.0f", total, stat)
			}
			var fns []string
			for name, m := range got {
				if fn, ok := strings.CutPrefix(name, observe.CPUFnPrefix); ok && m.Value > 0 {
					fns = append(fns, fn)
				}
			}
			t.Logf("functions: %s", strings.Join(fns, ", "))
			if !strings.Contains(strings.Join(fns, " "), "heap_") {
				t.Errorf("no heap function among %v", fns)
			}
			sampled, cpu := got[observe.CPUSampledMS].Value, got["server_cpu_ms"].Value
			if sampled <= 0 || math.Abs(sampled-cpu) > 0.3*cpu+20 {
				t.Errorf("cpu_sampled_ms %.1f, server_cpu_ms %.1f", sampled, cpu)
			}
			var w observe.WALRecords
			if err := json.Unmarshal(store.artefact(WALRecordsArtefact), &w); err != nil || len(w.Types) == 0 {
				t.Errorf("artefact %s: %v, %+v", WALRecordsArtefact, err, w)
			}
			var p observe.Profile
			if err := json.Unmarshal(store.artefact(CPUProfileArtefact), &p); err != nil || len(p.Functions) == 0 {
				t.Errorf("artefact %s: %v", CPUProfileArtefact, err)
			}
			if stacks := string(store.artefact(CPUStacksArtefact)); !strings.Contains(stacks, "client backend;") || !strings.Contains(stacks, ";heap_vacuum_rel;") {
				t.Errorf("artefact %s holds no client backend stack through heap_vacuum_rel:\n%.1500s", CPUStacksArtefact, stacks)
			}
			var tm results.StudyTime
			if err := json.Unmarshal(store.artefact(results.StudyTimeArtefact), &tm); err != nil || tm.ProfileMS <= 0 || tm.ProfileMS >= tm.RepsMS {
				t.Errorf("the study's time (%v) does not count the profiler's attach and read apart: %+v", err, tm)
			}
		})
	}
}

// TestMeasureStepEvidenceAbsent: what a target cannot give is absent,
// with a note on the family's metric saying why, never zero: WAL by
// record type on 13 (no pg_walinspect), on a user's server without the
// extension (pglab does not create it there without --force), and CPU
// by function for a server that is not on this machine.
func TestMeasureStepEvidenceAbsent(t *testing.T) {
	cases := []struct {
		version, wal, profile string
		elsewhere             bool
	}{
		{version: "13", wal: "PostgreSQL 13 has no pg_walinspect"},
		{version: "17", wal: "pg_walinspect is not installed", profile: "not a server elsewhere", elsewhere: true},
	}
	for _, c := range cases {
		t.Run(c.version, func(t *testing.T) {
			ctx := context.Background()
			tg, err := DSNTarget(ctx, "a", pgtest.CreateDB(t, pgtest.Shared(t, c.version)))
			if err != nil {
				t.Fatal(err)
			}
			if c.elsewhere {
				tg.DataDir = "" // as a server on another machine
			}
			out, err := (&Runner{Targets: []*Target{tg}, Profile: true}).Run(ctx, &vacuumStep{}, Params{})
			if err != nil {
				t.Fatal(err)
			}
			notes := map[string]string{}
			for _, n := range out.Notes {
				notes[n.Metric] = n.Text
			}
			if !strings.Contains(notes[WALRecordsAbsentMetric], c.wal) {
				t.Errorf("note on %s: %q, want %q", WALRecordsAbsentMetric, notes[WALRecordsAbsentMetric], c.wal)
			}
			if c.profile != "" && !strings.Contains(notes[ProfileAbsentMetric], c.profile) {
				t.Errorf("note on %s: %q, want %q", ProfileAbsentMetric, notes[ProfileAbsentMetric], c.profile)
			}
			for _, m := range out.Measurements {
				if strings.HasPrefix(m.Metric, "wal_rec_") || strings.HasPrefix(m.Metric, "wal_fpi_bytes:") ||
					(c.elsewhere && strings.HasPrefix(m.Metric, "cpu_")) {
					t.Errorf("absent figure recorded: %s = %v", m.Metric, m.Value)
				}
			}
		})
	}
}
