package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
)

// Dataset is data a study builds the same way every time (the vacuum
// table, pgbench's tables at a scale, t_copy_large): on a server pglab
// started for the run it is built once per server build, initdb choices
// and definition into pglab's dataset cache, kept there as a stopped data
// directory, and every load is a clone of it; on any other server it is
// built in place.
type Dataset struct {
	// Name and Params identify the data (with the server's version and
	// initdb choices): "vacuum-table", {"rows=3000000", "index=yes"}.
	Name   string
	Params []string
	// Recipe is a digest of what Build does (dataset.Recipe of its
	// statements): a changed definition is another cache entry.
	Recipe string
	// Build creates the data through s, on a fresh server of the
	// target's build (a cache miss) or on the target itself (in place).
	// It must leave no other trace: nothing may read the data afterwards
	// (hint bits and the visibility map stay as Build left them).
	Build func(ctx context.Context, s *Session) error
	// Warm are tables put back, after a clone, into the state Build
	// leaves them in on a server that keeps running: read into shared
	// buffers with their indexes (a clone starts with empty buffers), and
	// their pg_class rows written since the last checkpoint (a clone
	// starts right after one: a VACUUM's update of its statistics would
	// otherwise write a full-page image of that catalog page, which the
	// statements run on one server do not).
	Warm []string
}

// Warm reads the dataset's Warm tables and their indexes into shared
// buffers (pg_prewarm, created in the cache entry).
func (s *Session) Warm(ctx context.Context, d *Dataset) error {
	if len(d.Warm) == 0 {
		return nil
	}
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, t := range d.Warm {
		if _, err := conn.Exec(ctx, `SELECT pg_prewarm($1::regclass), (SELECT count(pg_prewarm(indexrelid)) FROM pg_index WHERE indrelid = $1::regclass)`, t); err != nil {
			return fmt.Errorf("pg_prewarm %s: %w", t, err)
		}
		if _, err := conn.Exec(ctx, `UPDATE pg_catalog.pg_class SET relname = relname
			WHERE oid = $1::regclass OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = $1::regclass)`, t); err != nil {
			return fmt.Errorf("touch the catalog rows of %s: %w", t, err)
		}
	}
	return nil
}

// Title is the dataset in one line: "vacuum-table rows=3000000".
func (d *Dataset) Title() string {
	s := d.Name
	for _, p := range d.Params {
		s += " " + p
	}
	return s
}

// buildSettings are the settings of the server a cache entry is built on:
// nothing runs on its own (autovacuum off), and durability is left to the
// cache, which flushes every file once the server has stopped.
var buildSettings = []pgserver.Setting{
	{Name: "autovacuum", Value: "off"},
	{Name: "fsync", Value: "off"},
	{Name: "synchronous_commit", Value: "off"},
	{Name: "full_page_writes", Value: "off"},
	{Name: "max_wal_size", Value: "8GB"},
	{Name: "checkpoint_timeout", Value: "1h"},
	{Name: "maintenance_work_mem", Value: "512MB"},
	{Name: "shared_buffers", Value: "256MB"},
}

// Cloneable reports whether the target's data may be replaced by a clone
// from the cache: a server pglab started for this run, without a managed
// standby, with a cache to use.
func (s *Session) Cloneable() bool {
	t := s.Target
	return s.runner.Cache != nil && t.inst != nil && t.owned && t.inst.Standby() == nil
}

// LoadData makes the dataset the target's data: on a server pglab started
// for the run, its cached copy replaces the data directory (built first
// when the cache has none; the server restarts); elsewhere Build runs in
// place. Called in Run, it is a reset of the case (each repetition starts
// from the same data); in Setup, the study's data for all cases. The time
// it takes, how, and any wait for another pglab process are recorded.
func (s *Session) LoadData(ctx context.Context, d *Dataset) error {
	start := time.Now()
	use := results.DataUse{Target: s.Target.Name, Dataset: d.Title(), Rep: s.Rep()}
	var err error
	if s.Cloneable() {
		err = s.loadClone(ctx, d, &use)
	} else {
		use.Method = results.DataInPlace
		err = d.Build(ctx, s)
	}
	use.MS = msOf(time.Since(start))
	s.addDataUse(use)
	if err != nil {
		return fmt.Errorf("load %s: %w", d.Title(), err)
	}
	return nil
}

// loadClone acquires the dataset's cache entry (building it on a miss)
// and replaces the target's data directory with a clone of it.
func (s *Session) loadClone(ctx context.Context, d *Dataset, use *results.DataUse) error {
	inst := s.Target.inst
	e, got, err := s.entry(ctx, d)
	use.WaitMS, use.BuildMS, use.Built = msOf(got.Waited), msOf(got.Build), got.Built
	if err != nil {
		return err
	}
	use.Entry, use.Bytes = e.ID, e.Bytes
	pw, err := e.Password()
	if err != nil {
		return err
	}
	s.closeObserver()
	var st dataset.CloneStats
	err = inst.ReplaceData(ctx, pw, func(dir string) error {
		var err error
		st, err = dataset.Clone(e.DataDir(), dir, dataset.CloneOptions{Sync: true})
		return err
	})
	use.Method, use.CloneMS = string(st.Method), msOf(st.Elapsed)
	if err != nil {
		return err
	}
	if err := s.Target.followServer(); err != nil {
		return err
	}
	return s.Warm(ctx, d)
}

// WithConn runs fn on a new connection to the target.
func (t *Target) WithConn(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return fn(conn)
}

// entry returns the session's hold on the dataset's cache entry, taking
// it (and building the entry on a miss) on first use. The hold lasts until
// the study ends, so that no other process evicts it between repetitions.
func (s *Session) entry(ctx context.Context, d *Dataset) (*dataset.Entry, dataset.Acquired, error) {
	key := s.datasetKey(d)
	if e, ok := s.entries[key.ID()]; ok {
		return e, dataset.Acquired{}, nil
	}
	e, got, err := s.runner.Cache.Acquire(ctx, key, func(ctx context.Context, dir string) error {
		return s.buildEntry(ctx, d, dir)
	})
	if err != nil {
		return nil, got, err
	}
	if s.entries == nil {
		s.entries = map[string]*dataset.Entry{}
	}
	s.entries[key.ID()] = e
	return e, got, nil
}

// releaseData lets the cache entries the session held go.
func (s *Session) releaseData() {
	for id, e := range s.entries {
		e.Release()
		delete(s.entries, id)
	}
}

// datasetKey is the cache key of d on the session's target.
func (s *Session) datasetKey(d *Dataset) dataset.Key {
	inst := s.Target.inst
	return dataset.Key{
		Version:  inst.Version().String(),
		Build:    inst.Binaries().Dir,
		Initdb:   []string{"checksums=" + onOff(inst.Checksums()), "encoding=UTF8", "locale=C", "auth=scram-sha-256"},
		Database: inst.Database(),
		Dataset:  d.Name,
		Params:   d.Params,
		Recipe:   d.Recipe,
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// buildEntry builds the dataset into a cache entry's directory: a new
// server of the target's binaries and initdb choices, the study's schema,
// Build, a checkpoint, a clean shutdown.
func (s *Session) buildEntry(ctx context.Context, d *Dataset, dir string) error {
	inst := s.Target.inst
	s.Log("building %s for the dataset cache (once per server build)", d.Title())
	b, err := pgserver.Start(ctx, pgserver.Options{Binaries: inst.Binaries(), Name: "dataset-" + d.Name, Dir: dir,
		Checksums: inst.Checksums(), Database: inst.Database(), Settings: buildSettings})
	if err != nil {
		return err
	}
	defer b.Stop(context.WithoutCancel(ctx))
	bt, err := ManagedTarget(ctx, s.Target.Name+" (dataset build)", b, true)
	if err != nil {
		return err
	}
	if err := bt.ensureSchema(ctx, false); err != nil {
		return err
	}
	if len(d.Warm) > 0 {
		if err := bt.WithConn(ctx, func(conn *pgx.Conn) error { return EnsureExtension(ctx, conn, "pg_prewarm") }); err != nil {
			return err
		}
	}
	bs := &Session{Target: bt, Params: s.Params, Quick: s.Quick, study: s.study, runner: &Runner{Progress: s.runner.Progress}}
	if err := d.Build(ctx, bs); err != nil {
		return err
	}
	if err := checkpoint(ctx, bt); err != nil {
		return err
	}
	if err := b.Stop(ctx); err != nil {
		return err
	}
	// The server's own files of this build: not part of the data.
	os.RemoveAll(filepath.Join(dir, "sock"))
	os.Remove(filepath.Join(dir, "instance.json"))
	return nil
}

func checkpoint(ctx context.Context, t *Target) error {
	conn, err := pgx.ConnectConfig(ctx, t.config)
	if err != nil {
		return ConnectError(t.Name, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("target %s: CHECKPOINT: %w", t.Name, err)
	}
	return nil
}

// followServer takes the managed server's password and port after its
// data directory was replaced.
func (t *Target) followServer() error {
	pw := t.inst.Password()
	t.config.Password = pw
	if t.direct != nil {
		t.direct.Password = pw
	} else {
		t.config.Port = uint16(t.inst.Port())
	}
	return t.followPort()
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
