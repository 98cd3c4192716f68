package studies

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// vacuumStudy is seed 000 §4: a table of N rows (id int, v text), with or
// without an index on id, a share of its rows updated, then VACUUM VERBOSE,
// timed by the client, with the figures VACUUM itself prints.
type vacuumStudy struct{}

func init() { study.Register("vacuum", func() study.Study { return vacuumStudy{} }) }

// vacuumCase is one (update share, index) pair of the article.
type vacuumCase struct {
	pct   int
	index bool
	where string // the article's UPDATE condition for pct
}

// The article's update conditions: 95 % is id % 20 != 1, 50 % is
// id % 2 = 1, 5 % is id % 20 = 1.
var vacuumWhere = map[int]string{95: "id % 20 != 1", 50: "id % 2 = 1", 5: "id % 20 = 1"}

func (vacuumStudy) Info() study.Info {
	return study.Info{
		Name:   "vacuum",
		Title:  "VACUUM VERBOSE after updating 95 %, 50 % or 5 % of a table's rows, with and without an index",
		Source: "seed 000 §4",
		Params: []study.Param{
			{Name: "rows", Kind: study.KindInt, Default: "3000000", Quick: "300000", Min: 1000, MinSet: true, Doc: "rows in t_vacuum_test"},
			{Name: "cases", Kind: study.KindList, Default: "95:index,95:noindex,50:index,5:index", Choices: []string{"95:index", "95:noindex", "50:index", "50:noindex", "5:index", "5:noindex"}, Doc: "update share and index, as the article's four cases"},
			{Name: "checkpoint_before", Kind: study.KindBool, Default: "false", Doc: "run CHECKPOINT before the VACUUM (the article does not)"},
		},
		Version: 1,
		InAll:   true,
		Presentation: &results.Presentation{
			// No SpeedCovariate: the client sends one statement and waits,
			// so its CPU over the step is mostly its samplers', which grows
			// with the step's time: a proxy of the figure, not of the
			// machine's speed (an A/A called VACUUM +19 % on it).
			Labels: []results.LabelColumn{{Key: "update_pct", Head: "rows updated", Suffix: " %"}, {Key: "index", Head: "index"}},
			Primary: []results.MetricHead{
				{Metric: "elapsed_ms", Head: "VACUUM time"},
				{Metric: "wal_bytes", Head: "WAL written by VACUUM"},
			},
			Charts: []results.Chart{
				{Kind: results.Bars, Title: "VACUUM time by case", Metrics: []string{"elapsed_ms"}},
				{Kind: results.Bars, Title: "WAL written by VACUUM by case", Metrics: []string{"wal_bytes"}},
			},
			Texts: []results.TextView{{Name: "vacuum-verbose", Head: "VACUUM VERBOSE output"}},
		},
	}
}

func (vacuumStudy) Plan(p study.Params) (study.Plan, error) {
	var cases []study.Case
	for _, c := range p.List("cases") {
		pctText, idx, _ := strings.Cut(c, ":")
		var pct int
		fmt.Sscan(pctText, &pct)
		vc := vacuumCase{pct: pct, index: idx == "index", where: vacuumWhere[pct]}
		name := fmt.Sprintf("%d %% updated, ", pct)
		if vc.index {
			name += "with index"
		} else {
			name += "no index"
		}
		cases = append(cases, study.Case{Name: name, Labels: map[string]string{"update_pct": pctText, "index": map[bool]string{true: "yes", false: "no"}[vc.index]}, Data: vc})
	}
	return study.Plan{
		Cases: cases,
		// The article's postgresql.conf (§2.2), the parts that matter here.
		Settings: []pgserver.Setting{
			{Name: "shared_buffers", Value: "256MB"},
			{Name: "maintenance_work_mem", Value: "512MB"},
			{Name: "max_wal_size", Value: "1GB"},
			{Name: "checkpoint_timeout", Value: "30min"},
			{Name: "autovacuum", Value: "off"},
			{Name: "log_checkpoints", Value: "on"},
		},
		Reps:      5,
		QuickReps: 8,
	}, nil
}

func (vacuumStudy) Setup(ctx context.Context, s *study.Session) error { return nil }

// vacuumData is the article's table before its UPDATE: created (with its
// index when the case has one) and filled. Each repetition starts from a
// fresh copy, in shared buffers as the INSERT leaves it.
func vacuumData(p study.Params, index bool) *study.Dataset {
	stmts := []string{
		"DROP TABLE IF EXISTS t_vacuum_test",
		"CREATE TABLE t_vacuum_test (id int, v text)",
	}
	if index {
		stmts = append(stmts, "CREATE INDEX ON t_vacuum_test (id)")
	}
	stmts = append(stmts, fmt.Sprintf("INSERT INTO t_vacuum_test SELECT g, 'x' FROM generate_series(1, %d) g", p.Int("rows")))
	return &study.Dataset{
		Name:   "vacuum-table",
		Params: []string{fmt.Sprintf("rows=%d", p.Int("rows")), "index=" + yesNo(index)},
		Recipe: dataset.Recipe(stmts...),
		Build:  execStatements(stmts...),
		Warm:   []string{"t_vacuum_test"},
	}
}

func (vacuumStudy) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	vc := c.Data.(vacuumCase)
	if err := s.LoadData(ctx, vacuumData(s.Params, vc.index)); err != nil {
		return err
	}
	cfg := s.Target.ConnConfig()
	notices := observe.CaptureNotices(cfg)
	conn, err := study.ConnectConfig(ctx, s.Target.Name, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// The article's statements, in its order: the table as created and
	// filled, then, in the same server lifetime as the VACUUM, the UPDATE.
	stmts := []string{"UPDATE t_vacuum_test SET v = 'y' WHERE " + vc.where}
	if s.Params.Bool("checkpoint_before") {
		stmts = append(stmts, "CHECKPOINT")
	}
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	notices.Take()
	step, err := s.MeasureStep(ctx, "VACUUM", conn, func(ctx context.Context) error {
		_, err := conn.Exec(ctx, "VACUUM VERBOSE t_vacuum_test")
		return err
	})
	if err != nil {
		return fmt.Errorf("VACUUM VERBOSE t_vacuum_test: %w", err)
	}
	text := notices.Take()
	if err := s.Artefact(ctx, "vacuum-verbose", "text/plain", []byte(text)); err != nil {
		return err
	}
	s.Record("elapsed_ms", float64(step.Elapsed.Microseconds())/1000, "ms", study.LowerIsBetter())

	reports, err := observe.ParseVacuumVerbose(text)
	if err != nil {
		return fmt.Errorf("read VACUUM VERBOSE output: %w", err)
	}
	var table *observe.VacuumReport
	for k := range reports {
		if !reports[k].Toast {
			table = &reports[k]
			break
		}
	}
	if table == nil {
		return errors.New("VACUUM VERBOSE printed no report for t_vacuum_test")
	}
	// What VACUUM VERBOSE prints about the table itself (not its TOAST
	// table). WAL usage is printed from 15 on; on 13 and 14 the server's
	// WAL counters of the step stand in for it.
	vacuumMetrics := []struct {
		name, unit string
		exact      bool
	}{
		{"wal_records", "count", false},
		{"wal_fpi", "count", false},
		{"wal_bytes", "bytes", false},
		{"index_scans", "count", true},
		{"pages_scanned", "pages", true},
		{"pages_removed", "pages", true},
		{"tuples_removed", "count", true},
		{"buffer_hits", "count", false},
		{"buffer_misses", "count", false},
		{"buffer_dirtied", "count", false},
		{"cpu_user_s", "s", false},
		{"cpu_sys_s", "s", false},
	}
	for _, m := range vacuumMetrics {
		v, ok := table.Value(m.name)
		source := "verbose"
		if !ok && strings.HasPrefix(m.name, "wal_") {
			v, ok = step.Counter(m.name)
			if !ok && m.name == "wal_bytes" {
				v, ok = step.Counter("wal_lsn_bytes") // 13 has no pg_stat_wal
			}
			source = "counters"
			if why := observe.CounterAbsent(m.name, s.Target.VersionNum); !ok && why != "" {
				s.Unavailable(m.name, observe.VacuumAbsent(m.name, s.Target.VersionNum)+" and "+why)
			}
		} else if why := observe.VacuumAbsent(m.name, s.Target.VersionNum); !ok && why != "" {
			s.Unavailable(m.name, why)
		}
		if !ok {
			continue
		}
		opts := []study.MetricOption{study.LowerIsBetter()}
		if m.exact {
			opts = append(opts, study.Exact())
		}
		s.Record(m.name, v, m.unit, opts...)
		if source == "counters" && rep == 1 {
			s.Note("%s from the server's WAL counters (VACUUM VERBOSE prints WAL usage from PostgreSQL 15 on)", m.name)
		}
	}
	if v, ok := step.Counter("checkpoints"); ok && v > 0 {
		s.Note("a checkpoint ran during the VACUUM (%.0f); its full-page images inflate WAL", v)
	}
	noteFullPageImages(s, table, step)
	return nil
}

// noteFullPageImages flags a VACUUM that wrote full-page images. A page
// gets one when it is first changed after a checkpoint began; without a
// CHECKPOINT right before the VACUUM (the article's method) that depends
// on whether the checkpoint the UPDATE's WAL requested (max_wal_size) fell
// before or during the VACUUM, so WAL records, bytes and time vary with
// its timing. A handful of images (the visibility and free space maps)
// count as none.
func noteFullPageImages(s *study.Session, table *observe.VacuumReport, step *study.Step) {
	fpi, ok := table.Value("wal_fpi")
	if !ok {
		fpi, ok = step.Counter("wal_fpi") // 14 prints no WAL usage
	}
	pages, _ := table.Value("pages_scanned")
	if !ok || fpi <= max(10, pages/100) {
		return
	}
	if s.Params.Bool("checkpoint_before") {
		s.Note("VACUUM wrote %s full-page images, one for each page it changed first after the CHECKPOINT before it (checkpoint_before=true): deterministic", compare.FormatExact(fpi, compare.Count))
		return
	}
	s.Note("VACUUM wrote %s full-page images: a checkpoint began between the UPDATE's changes and the VACUUM's, so the WAL figures (records, bytes) and the time depend on when it fell; checkpoint_before=true makes them deterministic", compare.FormatExact(fpi, compare.Count))
}

func (vacuumStudy) Teardown(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS t_vacuum_test")
	return err
}
