// Command clone-cost measures what a dataset reset costs on this machine's
// file system: a stopped data directory cloned with each method of package
// dataset (FICLONE, copy_file_range, a plain copy; one or several workers;
// with and without flushing the copy to disk), and a template database
// copied with CREATE DATABASE … STRATEGY FILE_COPY and WAL_LOG. It builds
// three clusters with the studies' data: the vacuum table of 3,000,000 rows
// with its index, pgbench scale 100, and seqscan's table of scale 50 (about
// 4.8 GB).
//
//	go run ./scripts/clone-cost -version 17 [-only vacuum,pgbench,big] [-tries 3]
//
// The source's pages are dropped from the OS page cache before each clone
// when the machine allows it (root), so that each copy reads from disk as a
// reset of a cache entry that was not used for a while does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/internal/coldcache"
	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/pgserver"
)

type cluster struct {
	name  string
	build func(ctx context.Context, conn *pgx.Conn, inst *pgserver.Instance) error
}

var clusters = []cluster{
	{"vacuum", func(ctx context.Context, conn *pgx.Conn, _ *pgserver.Instance) error {
		return execAll(ctx, conn, "CREATE TABLE t_vacuum_test (id int, v text)", "CREATE INDEX ON t_vacuum_test (id)",
			"INSERT INTO t_vacuum_test SELECT g, 'x' FROM generate_series(1, 3000000) g")
	}},
	{"pgbench", func(ctx context.Context, _ *pgx.Conn, inst *pgserver.Instance) error {
		cfg, err := pgx.ParseConfig(inst.DSN())
		if err != nil {
			return err
		}
		_, err = initdata.Run(ctx, &cfg.Config, initdata.Options{Scale: 100}, nil)
		return err
	}},
	{"big", func(ctx context.Context, conn *pgx.Conn, _ *pgserver.Instance) error {
		return execAll(ctx, conn, `CREATE UNLOGGED TABLE pgbench_accounts_large AS
			SELECT aid, (aid - 1) / 100000 + 1 AS bid, 0 AS abalance, repeat(md5(aid::text), 30) AS filler
			FROM generate_series(1, 5000000) aid`)
	}},
}

func execAll(ctx context.Context, conn *pgx.Conn, qs ...string) error {
	for _, q := range qs {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%.40s: %w", q, err)
		}
	}
	return nil
}

func main() {
	version := flag.String("version", "17", "PostgreSQL version")
	only := flag.String("only", "vacuum,pgbench,big", "clusters to measure")
	tries := flag.Int("tries", 3, "clones per method")
	flag.Parse()
	ctx := context.Background()
	spec, err := pgserver.ParseVersionSpec(*version)
	check(err)
	b, err := (&pgserver.Finder{}).Find(ctx, spec)
	check(err)
	for _, c := range clusters {
		if slices.Contains(strings.Split(*only, ","), c.name) {
			check(measure(ctx, b, c, *tries))
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "clone-cost:", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, b *pgserver.Binaries, c cluster, tries int) error {
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: b, Name: "clone-" + c.name,
		Settings: []pgserver.Setting{{Name: "autovacuum", Value: "off"}, {Name: "max_wal_size", Value: "4GB"}, {Name: "maintenance_work_mem", Value: "512MB"}}})
	if err != nil {
		return err
	}
	defer inst.Destroy(context.Background())
	conn, err := pgx.Connect(ctx, inst.DSN())
	if err != nil {
		return err
	}
	t0 := time.Now()
	err = c.build(ctx, conn, inst)
	conn.Close(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%s: built in %.1f s\n", c.name, time.Since(t0).Seconds())
	if err := measureTemplate(ctx, inst, tries); err != nil {
		return err
	}
	if err := inst.Stop(ctx); err != nil {
		return err
	}
	// As the dataset cache keeps it: without the WAL segments recycled
	// for later use.
	trimmed, err := dataset.TrimWAL(inst.DataDir())
	if err != nil {
		return err
	}
	fmt.Printf("  (%s of recycled WAL removed before cloning)\n", units.Bytes(float64(trimmed)))
	return measureClones(inst.DataDir(), tries)
}

// measureTemplate times CREATE DATABASE from the instance's database as a
// template, with each strategy, then drops the copy.
func measureTemplate(ctx context.Context, inst *pgserver.Instance, tries int) error {
	conn, err := pgx.Connect(ctx, inst.DSNFor("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var size int64
	if err := conn.QueryRow(ctx, "SELECT pg_database_size($1)", inst.Database()).Scan(&size); err != nil {
		return err
	}
	for _, strategy := range []string{"FILE_COPY", "WAL_LOG"} {
		var took []time.Duration
		for range tries {
			coldcache.DropAll()
			t0 := time.Now()
			if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE copy TEMPLATE %s STRATEGY %s", inst.Database(), strategy)); err != nil {
				return err
			}
			took = append(took, time.Since(t0))
			if _, err := conn.Exec(ctx, "DROP DATABASE copy"); err != nil {
				return err
			}
		}
		report("CREATE DATABASE STRATEGY "+strategy, size, took)
	}
	return nil
}

// measureClones clones the stopped data directory with every method.
func measureClones(src string, tries int) error {
	root, err := os.MkdirTemp(filepath.Dir(src), "clones-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	type variant struct {
		name string
		opts dataset.CloneOptions
	}
	variants := []variant{
		{"FICLONE (reflink)", dataset.CloneOptions{Method: dataset.Reflink}},
		{"copy_file_range, 1 worker", dataset.CloneOptions{Method: dataset.CopyFileRange, Workers: 1}},
		{"copy_file_range, 2 workers", dataset.CloneOptions{Method: dataset.CopyFileRange, Workers: 2}},
		{"copy_file_range, 4 workers", dataset.CloneOptions{Method: dataset.CopyFileRange, Workers: 4}},
		{"copy_file_range, 4 workers, written out", dataset.CloneOptions{Method: dataset.CopyFileRange, Workers: 4, Sync: true}},
		{"plain copy, 1 worker", dataset.CloneOptions{Method: dataset.PlainCopy, Workers: 1}},
		{"plain copy, 4 workers", dataset.CloneOptions{Method: dataset.PlainCopy, Workers: 4}},
		{"plain copy, 4 workers, written out", dataset.CloneOptions{Method: dataset.PlainCopy, Workers: 4, Sync: true}},
	}
	for _, v := range variants {
		var took []time.Duration
		var bytes int64
		for k := range tries {
			coldcache.DropAll()
			dst := filepath.Join(root, fmt.Sprint(k))
			t0 := time.Now()
			st, err := dataset.Clone(src, dst, v.opts)
			if err != nil {
				fmt.Printf("  %-42s failed: %v\n", v.name, err)
				break
			}
			rm := time.Now()
			os.RemoveAll(dst)
			took = append(took, rm.Sub(t0))
			bytes = st.Bytes
			// Let the write-back of an unsynced copy finish before the
			// next one is timed.
			syncAll()
		}
		if len(took) > 0 {
			report(v.name, bytes, took)
		}
	}
	return nil
}

func syncAll() { _ = exec("sync") }

func exec(name string) error {
	p, err := os.StartProcess("/bin/"+name, []string{name}, &os.ProcAttr{})
	if err != nil {
		return err
	}
	_, err = p.Wait()
	return err
}

func report(what string, bytes int64, took []time.Duration) {
	slices.Sort(took)
	med := took[len(took)/2]
	fmt.Printf("  %-42s %9s  median %6.2f s  (min %.2f, max %.2f)  %11s\n", what, units.Bytes(float64(bytes)),
		med.Seconds(), took[0].Seconds(), took[len(took)-1].Seconds(), units.ByteRate(float64(bytes)/med.Seconds()))
}
