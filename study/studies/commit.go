package studies

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// commitStudy is seed 004: N single-row updates, committed one by one,
// in one transaction or in batches, sent with the simple protocol, the
// extended protocol preparing an unnamed statement on every call (what Go's
// database/sql Exec does), a statement prepared once, or pipelined.
type commitStudy struct{}

func init() { study.Register("commit", func() study.Study { return commitStudy{} }) }

var (
	commitTxModes   = []string{"autocommit", "transaction", "batch"}
	commitProtocols = []string{"simple", "extended", "prepared", "pipeline"}
)

func (commitStudy) Info() study.Info {
	return study.Info{
		Name:   "commit",
		Title:  "single-row UPDATEs: commit per statement, per transaction or per batch, over four protocol styles",
		Source: "seed 004",
		Params: []study.Param{
			{Name: "rows", Kind: study.KindInt, Default: "10000", Quick: "2000", Min: 1, MinSet: true, Doc: "rows in benchmark_accounts"},
			{Name: "updates", Kind: study.KindInt, Default: "10000", Quick: strconv.Itoa(commitQuickUpdates), Min: 1, MinSet: true, Doc: "single-row updates per repetition (under --quick a quarter of a round of 2000: --reps auto looks at commit's cases after 4× the other studies' rounds)"},
			{Name: "tx_modes", Kind: study.KindList, Default: strings.Join(commitTxModes, ","), Choices: commitTxModes, Doc: "autocommit (a commit per update), transaction (one for all), batch (one per batch_size updates)"},
			{Name: "batch_size", Kind: study.KindInt, Default: "100", Min: 1, MinSet: true, Doc: "updates per transaction in batch mode"},
			{Name: "protocols", Kind: study.KindList, Default: strings.Join(commitProtocols, ","), Choices: commitProtocols, Doc: "simple query; extended with an unnamed statement prepared on every call; prepared once; pipelined"},
		},
		Version: 2,
		InAll:   true,
		Presentation: &results.Presentation{
			// The client sends the same statements and reads the same
			// results from every target: its CPU is the machine's speed.
			SpeedCovariate: true,
			Labels:         []results.LabelColumn{{Key: "tx", Head: "transactions"}, {Key: "protocol", Head: "protocol"}},
			Primary: []results.MetricHead{
				{Metric: "elapsed_ms", Head: "Time for all updates"},
				{Metric: "us_per_update", Head: "Time per update", Twin: "elapsed_ms"},
				{Metric: "commit_cost_us", Head: "Commit cost per update (WAL write and sync, synchronous standby wait)", PartOf: "us_per_update"},
				{Metric: "wal_sync_ms", Head: "WAL sync time", PartOf: "elapsed_ms"},
				{Metric: "wal_syncs", Head: "WAL syncs"},
				{Metric: "server_cpu_us_per_update", Head: "Server CPU per update"},
				{Metric: "wal_bytes", Head: "WAL written"},
			},
			Charts: []results.Chart{
				{Kind: results.Bars, Title: "Time for all updates by case", Metrics: []string{"elapsed_ms"}},
			},
		},
	}
}

type commitCase struct {
	txMode   string
	protocol string
}

func (commitStudy) Plan(p study.Params) (study.Plan, error) {
	var cases []study.Case
	for _, tx := range p.List("tx_modes") {
		for _, proto := range p.List("protocols") {
			name := tx + ", " + proto
			cases = append(cases, study.Case{Name: name, Labels: map[string]string{"tx": tx, "protocol": proto}, Data: commitCase{tx, proto}})
		}
	}
	return study.Plan{
		Cases: cases,
		// track_wal_io_timing gives wal_sync_ms; nothing else differs from
		// the defaults (synchronous_commit on, fsync on).
		Settings:  []pgserver.Setting{{Name: "track_wal_io_timing", Value: "on"}, {Name: "autovacuum", Value: "off"}},
		Reps:      5,
		QuickReps: 8 * commitQuickSplit,
		// Quick rounds are a quarter of 2000 updates, looked at after
		// four times the others' rounds: measured on 16 vs 17 (alternated
		// commit-only runs of about 5 min each), 2000-update rounds to 40
		// left 25 and 26 of 84 primary figures unresolved, 500-update
		// rounds to 160 left 6 and 11.
		QuickLookScale: commitQuickSplit,
	}, nil
}

const commitTable = "benchmark_accounts"

// commitQuickSplit is how many of --quick's commit rounds make one round
// of 2000 updates, the unit its looks are counted in: Plan.QuickLookScale.
// commitQuickUpdates is what one of them runs.
const (
	commitQuickSplit   = 4
	commitQuickUpdates = 2000 / commitQuickSplit
)

func (commitStudy) Setup(ctx context.Context, s *study.Session) error {
	s.WaitInterval = commitWaitInterval
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	rows := s.Params.Int("rows")
	// The seed's table (id, status, balance, last_accessed, version, note)
	// with its index on status; balances are deterministic here.
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + commitTable,
		"CREATE TABLE " + commitTable + ` (
			id bigint PRIMARY KEY,
			status text NOT NULL,
			balance numeric(12,2) NOT NULL DEFAULT 0,
			last_accessed timestamptz NOT NULL DEFAULT now(),
			version integer NOT NULL DEFAULT 0,
			note text NOT NULL DEFAULT '')`,
		fmt.Sprintf(`INSERT INTO %s (id, status, balance, last_accessed, version, note)
			SELECT g, CASE WHEN g %% 5 = 0 THEN 'suspended' WHEN g %% 2 = 0 THEN 'active' ELSE 'inactive' END,
			       (g * 7919 %% 1000000) / 100.0, now() - (g %% 365) * interval '1 day', g %% 100, 'seed row ' || g
			FROM generate_series(1, %d) g`, commitTable, rows),
		"CREATE INDEX ON " + commitTable + " (status)",
		"VACUUM ANALYZE " + commitTable,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", strings.Fields(q)[0], err)
		}
	}
	return nil
}

// rtConn counts round trips: a read from the socket that follows a write
// is the client waiting for the server's answer.
type rtConn struct {
	net.Conn
	mu        sync.Mutex
	wrote     bool
	roundTrip int
}

func (c *rtConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.wrote = true
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *rtConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	if c.wrote {
		c.roundTrip++
		c.wrote = false
	}
	c.mu.Unlock()
	return c.Conn.Read(b)
}

func (c *rtConn) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.roundTrip
}

func (commitStudy) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	cc := c.Data.(commitCase)
	n := int(s.Params.Int("updates"))
	rows := s.Params.Int("rows")
	batch := int(s.Params.Int("batch_size"))

	cfg := s.Target.ConnConfig()
	var counted *rtConn
	dial := cfg.DialFunc // the target's, with its TCP timeouts (pgnet)
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		counted = &rtConn{Conn: conn}
		return counted, nil
	}
	cfg.Fallbacks = nil
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	pc := conn.PgConn()
	const updateSQL = "UPDATE " + commitTable + " SET status = 'active' WHERE id = $1"
	if cc.protocol == "prepared" || cc.protocol == "pipeline" {
		if _, err := pc.Prepare(ctx, "upd", updateSQL, nil); err != nil {
			return err
		}
	}
	// The ids updated: spread over the table, the same in every repetition.
	id := func(i int) int64 { return int64(i)%rows + 1 }

	// txEnd reports whether the update at i ends a transaction.
	txSize := 1
	switch cc.txMode {
	case "transaction":
		txSize = n
	case "batch":
		txSize = batch
	}
	explicit := cc.txMode != "autocommit"

	lat := make([]time.Duration, 0, n)
	simpleExec := func(ctx context.Context, sql string) error {
		return pc.Exec(ctx, sql).Close()
	}
	if err := s.RecordPlan(ctx, conn, "update", updateSQL, "1"); err != nil {
		return err
	}
	startRT, endRT := 0, 0
	step, err := s.Measure(ctx, conn, func(ctx context.Context) error {
		startRT = counted.count()
		defer func() { endRT = counted.count() }()
		if cc.protocol == "pipeline" {
			return commitPipeline(ctx, pc, n, txSize, explicit, id)
		}
		for i := 0; i < n; i++ {
			if explicit && i%txSize == 0 {
				if err := simpleExec(ctx, "BEGIN"); err != nil {
					return err
				}
			}
			t0 := time.Now()
			var err error
			arg := []byte(strconv.FormatInt(id(i), 10))
			switch cc.protocol {
			case "simple":
				err = simpleExec(ctx, "UPDATE "+commitTable+" SET status = 'active' WHERE id = "+string(arg))
			case "extended":
				// database/sql's Exec: Parse+Describe of an unnamed statement,
				// then Bind+Execute — two round trips.
				if _, err = pc.Prepare(ctx, "", updateSQL, nil); err == nil {
					_, err = pc.ExecPrepared(ctx, "", [][]byte{arg}, nil, nil).Close()
				}
			case "prepared":
				_, err = pc.ExecPrepared(ctx, "upd", [][]byte{arg}, nil, nil).Close()
			}
			if err != nil {
				return fmt.Errorf("update %d: %w", i+1, err)
			}
			lat = append(lat, time.Since(t0))
			if explicit && (i%txSize == txSize-1 || i == n-1) {
				if err := simpleExec(ctx, "COMMIT"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.Record("elapsed_ms", float64(step.Elapsed.Microseconds())/1000, "ms", study.LowerIsBetter())
	s.Record("round_trips", float64(endRT-startRT), "count", study.LowerIsBetter())
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		s.Record("op_p50_us", float64(lat[len(lat)/2].Nanoseconds())/1000, "us", study.LowerIsBetter())
		s.Record("op_p99_us", float64(lat[(len(lat)*99)/100].Nanoseconds())/1000, "us", study.LowerIsBetter())
	}
	s.Record("us_per_update", float64(step.Elapsed.Nanoseconds())/1000/float64(n), "us", study.LowerIsBetter())
	s.RecordServerCPUPer(step, "server_cpu_us_per_update", float64(n))
	for _, m := range []struct{ counter, metric, unit string }{
		{"xact_commit", "commits", "count"},
		{"wal_syncs", "wal_syncs", "count"},
		{"wal_sync_ms", "wal_sync_ms", "ms"},
		{"wal_write_ms", "wal_write_ms", "ms"},
		{"wal_bytes", "wal_bytes", "bytes"},
		{"wal_records", "wal_records", "count"},
	} {
		if v, ok := s.StepCounter(step, m.counter, m.metric); ok {
			s.Record(m.metric, v, m.unit, study.LowerIsBetter())
		}
	}
	recordCommitLatency(s, step, n)
	return nil
}

// commitWaitInterval is the wait-event sampler's interval in the commit
// study: fast enough to time the IPC:SyncRep waits of one session (a few
// hundred samples in a quick run), at about 2.5 % of a CPU.
const commitWaitInterval = 20 * time.Millisecond

// recordCommitLatency records the time spent committing, the analogue of
// Aurora's aurora_stat_get_db_commit_latency: the WAL's writes and syncs
// (pg_stat_wal, pg_stat_io in 18; track_wal_io_timing) plus the waits for
// a synchronous standby (IPC:SyncRep, timed by wait-event sampling), in
// all (commit_ms), per commit (commit_latency_us) and per update
// (commit_cost_us: "commit cost per update" of seed 004's slide 22).
func recordCommitLatency(s *study.Session, step *study.Step, updates int) {
	write, wok := step.Counter("wal_write_ms")
	sync, sok := step.Counter("wal_sync_ms")
	if !wok && !sok {
		return // the server does not time WAL I/O: no latency to add up
	}
	var syncRep time.Duration
	if step.Waits != nil {
		syncRep = step.Waits.Time("IPC:SyncRep")
	}
	syncRepMs := float64(syncRep.Microseconds()) / 1000
	total := write + sync + syncRepMs
	s.Record("syncrep_wait_ms", syncRepMs, "ms", study.LowerIsBetter())
	s.Record("commit_ms", total, "ms", study.LowerIsBetter())
	s.Record("commit_cost_us", total*1000/float64(updates), "us", study.LowerIsBetter())
	if commits, ok := step.Counter("xact_commit"); ok && commits > 0 {
		s.Record("commit_latency_us", total*1000/commits, "us", study.LowerIsBetter())
	}
}

// commitPipeline sends every update in pipeline mode: a Sync ends each
// transaction (each statement, in autocommit mode), and results are read
// as they come, without waiting between statements.
func commitPipeline(ctx context.Context, pc *pgconn.PgConn, n, txSize int, explicit bool, id func(int) int64) error {
	p := pc.StartPipeline(ctx)
	syncs := 0
	for i := 0; i < n; i++ {
		if explicit && i%txSize == 0 {
			p.SendQueryParams("BEGIN", nil, nil, nil, nil)
		}
		p.SendQueryPrepared("upd", [][]byte{[]byte(strconv.FormatInt(id(i), 10))}, nil, nil)
		if i%txSize == txSize-1 || i == n-1 {
			if explicit {
				p.SendQueryParams("COMMIT", nil, nil, nil, nil)
			}
			p.SendPipelineSync()
			syncs++
		}
	}
	if err := p.Flush(); err != nil {
		p.Close()
		return err
	}
	for syncs > 0 {
		res, err := p.GetResults()
		if err != nil {
			p.Close()
			return err
		}
		switch r := res.(type) {
		case *pgconn.ResultReader:
			if _, err := r.Close(); err != nil {
				p.Close()
				return err
			}
		case *pgconn.PipelineSync:
			syncs--
		case nil:
			p.Close()
			return fmt.Errorf("pipeline ended early")
		}
	}
	return p.Close()
}

func (commitStudy) Teardown(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS "+commitTable)
	return err
}
