package studies

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/internal/coldcache"
	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// seqScan is seed 002 §4: SELECT count(1) over a table larger than
// shared_buffers, cold (server restarted and the OS page cache emptied)
// and warm, with the disk's throughput observed during the scan.
type seqScan struct{}

func init() { study.Register("seqscan", func() study.Study { return seqScan{} }) }

func (seqScan) Info() study.Info {
	return study.Info{
		Name:   "seqscan",
		Title:  "SELECT count(1) over a table larger than shared_buffers, cold and warm",
		Source: "seed 002 §4",
		Params: []study.Param{
			{Name: "scale", Kind: study.KindInt, Default: "50", Quick: "3", Min: 1, MinSet: true, Doc: "pgbench scale of pgbench_accounts_large (100,000 rows of about 1 kB per unit)"},
			{Name: "modes", Kind: study.KindList, Default: "cold,warm", Choices: []string{"cold", "warm"}, Doc: "cold: restart and empty the OS page cache before each scan; warm: scan once untimed first"},
			{Name: "shared_buffers", Kind: study.KindString, Default: "1024MB", Quick: "128MB", Doc: "shared_buffers of managed servers (the article's 1024MB)"},
		},
		Version: 1,
		InAll:   true,
		Presentation: &results.Presentation{
			// No SpeedCovariate: the client sends one statement and waits,
			// so its CPU over the step is mostly its samplers', which grows
			// with the step's time: a proxy of the figure, not of the
			// machine's speed (an A/A called VACUUM +19 % on it).
			Labels: []results.LabelColumn{{Key: "cache", Head: "cache"}},
			Facts:  []results.MetricHead{{Metric: "table_mb", Head: "table"}},
			Primary: []results.MetricHead{
				{Metric: "elapsed_ms", Head: "Scan time"},
				{Metric: "mb_per_s", Head: "Scan throughput", Twin: "elapsed_ms"},
			},
			Charts: []results.Chart{
				{Kind: results.Bars, Title: "Scan throughput", Metrics: []string{"mb_per_s"},
					Ceiling: []string{"disk_read_mb_s_max", "disk_read_mb_s"}, CeilingText: "disk read ceiling (highest observed)"},
			},
			Texts: []results.TextView{{Name: "cold-method", Head: "How the caches were emptied"}},
		},
	}
}

func (seqScan) Plan(p study.Params) (study.Plan, error) {
	var cases []study.Case
	for _, m := range p.List("modes") {
		cases = append(cases, study.Case{Name: m + " scan", Labels: map[string]string{"cache": m}, Data: m})
	}
	return study.Plan{
		Cases: cases,
		Settings: []pgserver.Setting{
			{Name: "shared_buffers", Value: p.String("shared_buffers")},
			{Name: "autovacuum", Value: "off"},
		},
		Reps:      3,
		QuickReps: 8,
	}, nil
}

const seqScanTable = "pgbench_accounts_large"

// seqScanData is the article's table: created, given a primary key,
// scanned once to set its hint bits, checkpointed; never vacuumed.
func seqScanData(p study.Params) *study.Dataset {
	stmts := []string{
		"DROP TABLE IF EXISTS " + seqScanTable,
		fmt.Sprintf(`CREATE UNLOGGED TABLE %s AS
			SELECT aid, (aid - 1) / 100000 + 1 AS bid, 0 AS abalance, repeat(md5(aid::text), 30) AS filler
			FROM generate_series(1, %d) aid`, seqScanTable, p.Int("scale")*100000),
		// The article's table has a primary key and was never vacuumed
		// (autovacuum off): with an empty visibility map the planner scans
		// the heap. A VACUUM here would turn count(1) into an index-only
		// scan of the key.
		"ALTER TABLE " + seqScanTable + " ADD PRIMARY KEY (aid)",
		// Set hint bits once, and write them out, so that no measured
		// scan pays for them.
		"SET enable_indexonlyscan = off",
		"SELECT count(1) FROM " + seqScanTable,
		"RESET enable_indexonlyscan",
		"CHECKPOINT",
	}
	return &study.Dataset{Name: "seqscan-table", Params: []string{fmt.Sprintf("scale=%d", p.Int("scale"))},
		Recipe: dataset.Recipe(stmts...), Build: execStatements(stmts...)}
}

func (seqScan) Setup(ctx context.Context, s *study.Session) error {
	s.Log("creating %s (scale %d)", seqScanTable, s.Params.Int("scale"))
	if err := s.LoadData(ctx, seqScanData(s.Params)); err != nil {
		return err
	}
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var relBytes, sbBytes int64
	if err := conn.QueryRow(ctx, `SELECT pg_relation_size($1::regclass),
		(SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers')`, seqScanTable).Scan(&relBytes, &sbBytes); err != nil {
		return err
	}
	if relBytes <= sbBytes {
		s.Note("the table (%s) fits in shared_buffers (%s): raise scale for a scan larger than shared_buffers", units.Bytes(float64(relBytes)), units.Bytes(float64(sbBytes)))
	}
	return nil
}

// coldMethod empties the caches the scan could hit and says how.
func (seqScan) makeCold(ctx context.Context, s *study.Session) (string, error) {
	method := ""
	if s.Target.Managed() {
		if err := s.RestartTarget(ctx); err != nil {
			return "", err
		}
		method = "server restarted"
	} else {
		conn, err := s.Target.Connect(ctx)
		if err != nil {
			return "", err
		}
		defer conn.Close(context.Background())
		switch {
		case s.Target.VersionNum >= 180000:
			if err := study.EnsureExtension(ctx, conn, "pg_buffercache"); err == nil {
				_, err = conn.Exec(ctx, "SELECT pg_buffercache_evict_relation($1::regclass)", seqScanTable)
				if err == nil {
					method = "shared buffers evicted (pg_buffercache_evict_relation)"
				}
			}
		case s.Target.VersionNum >= 170000:
			if err := study.EnsureExtension(ctx, conn, "pg_buffercache"); err == nil {
				_, err = conn.Exec(ctx, `SELECT pg_buffercache_evict(bufferid) FROM pg_buffercache
					WHERE relfilenode = pg_relation_filenode($1::regclass)
					  AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`, seqScanTable)
				if err == nil {
					method = "shared buffers evicted (pg_buffercache_evict)"
				}
			}
		}
		if method == "" {
			method = "shared buffers NOT emptied (a user's server before 17: no eviction function)"
		}
	}
	// Under a memory limit the server's page cache is charged to its
	// cgroup: empty that too (nothing pglab reads for the server is
	// charged there, pages belong to whoever read them first).
	if what, err := s.Target.Environment().DropCache(); err != nil {
		return method, err
	} else if what != "" {
		method += " + " + what
	}
	switch {
	case coldcache.CanDropAll():
		if err := coldcache.DropAll(); err != nil {
			return method, err
		}
		method += " + OS page cache dropped (drop_caches)"
	case s.Target.DataDir != "":
		files, err := relationFiles(ctx, s)
		if err == nil {
			_, err = coldcache.EvictFiles(files)
		}
		if err != nil {
			method += fmt.Sprintf(" + OS page cache NOT emptied (%v)", err)
		} else {
			method += " + relation files evicted from the OS page cache (posix_fadvise)"
		}
	default:
		method += " + OS page cache NOT emptied (remote server)"
	}
	return method, nil
}

// relationFiles lists the table's files in the data directory.
func relationFiles(ctx context.Context, s *study.Session) ([]string, error) {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	var rel string
	if err := conn.QueryRow(ctx, "SELECT pg_relation_filepath($1::regclass)", seqScanTable).Scan(&rel); err != nil {
		return nil, err
	}
	return coldcache.RelationFiles(s.Target.DataDir, rel), nil
}

func (st seqScan) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	mode := c.Data.(string)
	method := "one untimed scan first"
	if mode == "cold" {
		var err error
		if method, err = st.makeCold(ctx, s); err != nil {
			return err
		}
	}
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// Planned workers, from the plan of the measured query.
	var plan []byte
	if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) SELECT count(1) FROM "+seqScanTable).Scan(&plan); err != nil {
		return err
	}
	if err := s.RecordPlanOf(ctx, "count", "SELECT count(1) FROM "+seqScanTable, plan); err != nil {
		return err
	}
	workers := plannedWorkers(plan)
	if node := planNodes(plan); !strings.Contains(node, "Seq Scan") {
		s.Note("the plan is not a sequential scan: %s", node)
	}
	var relBytes int64
	if err := conn.QueryRow(ctx, "SELECT pg_relation_size($1::regclass)", seqScanTable).Scan(&relBytes); err != nil {
		return err
	}
	if mode == "warm" {
		if _, err := conn.Exec(ctx, "SELECT count(1) FROM "+seqScanTable); err != nil {
			return err
		}
	}
	if s.Target.DataDir != "" {
		if files, err := relationFiles(ctx, s); err == nil {
			var cached int64
			for _, f := range files {
				n, _ := coldcache.Resident(f)
				cached += n
			}
			s.Record("os_cached_mb_before", float64(cached)/(1<<20), "MB")
		}
	}
	var count int64
	step, err := s.MeasureStep(ctx, "scan", conn, func(ctx context.Context) error {
		return conn.QueryRow(ctx, "SELECT count(1) FROM "+seqScanTable).Scan(&count)
	})
	if err != nil {
		return fmt.Errorf("SELECT count(1): %w", err)
	}
	secs := step.Elapsed.Seconds()
	s.Record("elapsed_ms", secs*1000, "ms", study.LowerIsBetter())
	s.Record("mb_per_s", float64(relBytes)/secs/(1<<20), "MB/s", study.HigherIsBetter())
	s.Record("table_mb", float64(relBytes)/(1<<20), "MB", study.Exact())
	s.Record("rows", float64(count), "rows", study.Exact())
	s.Record("parallel_workers", float64(workers), "count", study.Exact())
	if rep == 1 {
		s.Note("%s: %s", mode, method)
	}
	return s.Artefact(ctx, "cold-method", "text/plain", []byte(method))
}

// planNodes lists the node types of an EXPLAIN (FORMAT JSON) plan, e.g.
// "Aggregate > Gather > Aggregate > Seq Scan".
func planNodes(plan []byte) string {
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if json.Unmarshal(plan, &doc) != nil || len(doc) == 0 {
		return ""
	}
	var parts []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if t, ok := n["Node Type"].(string); ok {
			parts = append(parts, t)
		}
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					walk(m)
				}
			}
		}
	}
	walk(doc[0].Plan)
	return strings.Join(parts, " > ")
}

// plannedWorkers reads "Workers Planned" from an EXPLAIN (FORMAT JSON)
// plan (0 when the plan has no Gather).
func plannedWorkers(plan []byte) int {
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if json.Unmarshal(plan, &doc) != nil || len(doc) == 0 {
		return 0
	}
	var walk func(n map[string]any) int
	walk = func(n map[string]any) int {
		if w, ok := n["Workers Planned"].(float64); ok {
			return int(w)
		}
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					if w := walk(m); w > 0 {
						return w
					}
				}
			}
		}
		return 0
	}
	return walk(doc[0].Plan)
}

func (seqScan) Teardown(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS "+seqScanTable)
	return err
}
