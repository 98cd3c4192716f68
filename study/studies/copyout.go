package studies

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// copyOut is seed 002 §3: COPY … TO STDOUT through the wire, bytes
// discarded by the client, from tables prewarmed into shared buffers, for
// rows of about 1 kB (pgbench_accounts with a filler of
// repeat(md5(aid::text), 30)) and for the five-text-column table with
// repeat(md5(g::text), k) for k = 200, 800, 1600 (rows of 6, 24, 48 kB).
type copyOut struct{}

func init() { study.Register("copy-out", func() study.Study { return copyOut{} }) }

func (copyOut) Info() study.Info {
	return study.Info{
		Name:   "copy-out",
		Title:  "COPY TO STDOUT of prewarmed tables with rows of 1 kB to 48 kB, bytes discarded by the client",
		Source: "seed 002 §3",
		Params: []study.Param{
			{Name: "tables", Kind: study.KindList, Default: "accounts,200,800,1600", Choices: []string{"accounts", "200", "800", "1600"}, Doc: "accounts: pgbench_accounts_large (about 1 kB rows); a number k: t_copy_large with five repeat(md5(g::text), k) columns"},
			{Name: "scale", Kind: study.KindInt, Default: "50", Quick: "1", Min: 1, MinSet: true, Doc: "pgbench scale of pgbench_accounts_large (100,000 rows per unit)"},
			{Name: "rows", Kind: study.KindInt, Default: "100000", Quick: "600", Min: 1, MinSet: true, Doc: "rows of each t_copy_large table"},
			{Name: "shared_buffers", Kind: study.KindString, Default: "1024MB", Quick: "256MB", Doc: "shared_buffers of managed servers (the article's 1024MB)"},
		},
		Version: 1,
		InAll:   true,
		Presentation: &results.Presentation{
			Labels: []results.LabelColumn{{Key: "table", Head: "table"}},
			Facts:  []results.MetricHead{{Metric: "avg_row_bytes", Head: "row size"}},
			Primary: []results.MetricHead{
				{Metric: "elapsed_ms", Head: "COPY TO time"},
				{Metric: "mb_per_s", Head: "COPY TO throughput", Twin: "elapsed_ms"},
			},
			Charts: []results.Chart{
				{Kind: results.Bars, Title: "COPY TO time by row size", Metrics: []string{"elapsed_ms"}},
			},
		},
	}
}

// copyOutTable is one table of the study.
type copyOutTable struct {
	key    string // "accounts" or k
	name   string
	create string
}

func copyOutTables(p study.Params) []copyOutTable {
	var out []copyOutTable
	for _, t := range p.List("tables") {
		if t == "accounts" {
			// pgbench_accounts' rows (aid, bid, abalance) at the given
			// scale, generated in SQL, with the article's filler.
			out = append(out, copyOutTable{key: t, name: "pgbench_accounts_large", create: fmt.Sprintf(
				`CREATE UNLOGGED TABLE pgbench_accounts_large AS
				 SELECT aid, (aid - 1) / 100000 + 1 AS bid, 0 AS abalance, repeat(md5(aid::text), 30) AS filler
				 FROM generate_series(1, %d) aid`, p.Int("scale")*100000)})
			continue
		}
		k, _ := strconv.Atoi(t)
		name := "t_copy_large_" + t
		col := fmt.Sprintf("repeat(md5(g::text), %d)", k)
		out = append(out, copyOutTable{key: t, name: name, create: fmt.Sprintf(
			`CREATE UNLOGGED TABLE %s (id int, c1 text, c2 text, c3 text, c4 text, c5 text);
			 INSERT INTO %s SELECT g, %s, %s, %s, %s, %s FROM generate_series(1, %d) g`,
			name, name, col, col, col, col, col, p.Int("rows"))})
	}
	return out
}

func (copyOut) Plan(p study.Params) (study.Plan, error) {
	var cases []study.Case
	for _, t := range copyOutTables(p) {
		name := "pgbench_accounts_large (about 1 kB rows)"
		if t.key != "accounts" {
			name = fmt.Sprintf("t_copy_large, repeat × %s", t.key)
		}
		cases = append(cases, study.Case{Name: name, Labels: map[string]string{"table": t.key}, Data: t})
	}
	return study.Plan{
		Cases: cases,
		Settings: []pgserver.Setting{
			{Name: "shared_buffers", Value: p.String("shared_buffers")},
			{Name: "autovacuum", Value: "off"},
		},
		Reps:      5,
		QuickReps: 8,
	}, nil
}

func (copyOut) Setup(ctx context.Context, s *study.Session) error {
	return s.LoadData(ctx, copyOutData(s.Params))
}

// copyOutData is the study's tables, created, vacuumed and analysed, with
// pg_prewarm: the same for every repetition, which only reads them.
func copyOutData(p study.Params) *study.Dataset {
	var stmts []string
	for _, t := range copyOutTables(p) {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+t.name, t.create, "VACUUM ANALYZE "+t.name)
	}
	build := execStatements(stmts...)
	return &study.Dataset{
		Name:   "copy-out-tables",
		Params: []string{"tables=" + strings.Join(p.List("tables"), ","), fmt.Sprintf("scale=%d", p.Int("scale")), fmt.Sprintf("rows=%d", p.Int("rows"))},
		Recipe: dataset.Recipe(append([]string{"CREATE EXTENSION pg_prewarm"}, stmts...)...),
		Build: func(ctx context.Context, s *study.Session) error {
			if err := s.Target.WithConn(ctx, func(conn *pgx.Conn) error { return study.EnsureExtension(ctx, conn, "pg_prewarm") }); err != nil {
				return err
			}
			s.Log("creating %s", strings.Join(p.List("tables"), ", "))
			return build(ctx, s)
		},
	}
}

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)

func (copyOut) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	t := c.Data.(copyOutTable)
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// Prewarm the heap and its TOAST table into shared buffers.
	if _, err := conn.Exec(ctx, `SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.oid = $1::regclass
		UNION ALL SELECT pg_prewarm(c.reltoastrelid) FROM pg_class c WHERE c.oid = $1::regclass AND c.reltoastrelid <> 0`, t.name); err != nil {
		return fmt.Errorf("pg_prewarm %s: %w", t.name, err)
	}
	var w countingWriter
	var rows int64
	step, err := s.MeasureStep(ctx, "COPY", conn, func(ctx context.Context) error {
		tag, err := conn.PgConn().CopyTo(ctx, &w, "COPY "+t.name+" TO STDOUT")
		rows = tag.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("COPY %s TO STDOUT: %w", t.name, err)
	}
	secs := step.Elapsed.Seconds()
	s.Record("elapsed_ms", secs*1000, "ms", study.LowerIsBetter())
	s.Record("mb_per_s", float64(w.n)/secs/(1<<20), "MB/s", study.HigherIsBetter())
	s.Record("bytes", float64(w.n), "bytes", study.Exact())
	s.Record("rows", float64(rows), "rows", study.Exact())
	if rows > 0 {
		s.Record("avg_row_bytes", float64(w.n)/float64(rows), "bytes")
	}
	var relBytes int64
	if err := conn.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", t.name).Scan(&relBytes); err == nil {
		s.Record("table_bytes", float64(relBytes), "bytes", study.Exact())
	}
	return nil
}

func (copyOut) Teardown(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var names []string
	for _, t := range copyOutTables(s.Params) {
		names = append(names, t.name)
	}
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS "+strings.Join(names, ", "))
	return err
}
