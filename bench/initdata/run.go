package initdata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// StepTiming is the time one step took.
type StepTiming struct {
	// Step is the step's character (d, t, g, G, v, p or f).
	Step byte
	// Name is pgbench's name for it in the "done in" line ("drop tables",
	// "create tables", "client-side generate", ...).
	Name     string
	Duration time.Duration
}

// Timings are the durations of the steps run, in order.
type Timings struct {
	Steps []StepTiming
	// Total is the sum of the steps' durations, as in pgbench's
	// "done in" line (connection time is not counted).
	Total time.Duration
}

// String returns pgbench's final line without its newline:
// "done in 1.23 s (drop tables 0.01 s, create tables 0.00 s, ...)."
func (t *Timings) String() string {
	parts := make([]string, len(t.Steps))
	for i, s := range t.Steps {
		parts[i] = fmt.Sprintf("%s %.2f s", s.Name, s.Duration.Seconds())
	}
	return fmt.Sprintf("done in %.2f s (%s).", t.Total.Seconds(), strings.Join(parts, ", "))
}

var stepNames = map[byte]string{
	'd': "drop tables",
	't': "create tables",
	'g': "client-side generate",
	'G': "server-side generate",
	'v': "vacuum",
	'p': "primary keys",
	'f': "foreign keys",
}

// Run initializes the pgbench tables in the database cfg points at, like
// pgbench -i with the same options: it runs o.EffectiveSteps() in order,
// writing pgbench's messages (and the server's notices, as libpq prints
// them) to progress, and finally pgbench's "done in ..." line. progress
// may be nil.
//
// Errors are *Error values worded as pgbench's (the caller prints
// Error.Format("pgbench") or its own form and exits 1); nothing is
// printed for them. Cancelling ctx sends the server a cancel request, as
// pgbench's Ctrl-C does, and Run returns the resulting error: the
// server's cancellation as an *Error, or, when no statement was
// cancelled by the server (the cancel came between two, or the server
// did not act on it in time), an error wrapping ctx.Err().
func Run(ctx context.Context, cfg *pgconn.Config, o Options, progress io.Writer) (*Timings, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r := &runner{o: o, out: newSyncWriter(progress)}
	r.cfg = r.connConfig(cfg)
	conn, err := r.connect(ctx)
	if err != nil {
		if interrupted(err) {
			return nil, err
		}
		return nil, &Error{
			Messages: []string{connectMessage(err), "could not create connection for initialization"},
			Err:      err,
		}
	}
	r.conn = conn
	defer r.close()
	r.serverVersion = serverVersionNum(conn.ParameterStatus("server_version"))

	t := &Timings{}
	for _, c := range []byte(o.EffectiveSteps()) {
		if c == ' ' {
			continue
		}
		start := time.Now()
		var err error
		switch c {
		case 'd':
			err = r.drop(ctx)
		case 't':
			err = r.createTables(ctx)
		case 'g':
			err = r.generateClientSide(ctx)
		case 'G':
			err = r.generateServerSide(ctx)
		case 'v':
			err = r.vacuum(ctx)
		case 'p':
			err = r.primaryKeys(ctx)
		case 'f':
			err = r.foreignKeys(ctx)
		}
		if err != nil {
			var ie *Error
			if errors.As(err, &ie) && ie.Step == "" {
				ie.Step = stepNames[c]
			}
			return t, err
		}
		d := time.Since(start)
		t.Steps = append(t.Steps, StepTiming{Step: c, Name: stepNames[c], Duration: d})
		t.Total += d
	}
	r.out.printf("%s\n", t)
	return t, nil
}

// connectMessage renders a connection failure.
func connectMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return serverMessage(pe)
	}
	return err.Error()
}

// runner holds the state of one Run.
type runner struct {
	o             Options
	out           *syncWriter
	cfg           *pgconn.Config
	conn          *pgconn.PgConn
	serverVersion int

	mu    sync.Mutex
	spare []*pgconn.PgConn // idle extra connections
	all   []*pgconn.PgConn // every extra connection, for close
}

// connConfig copies cfg with notices printed as libpq prints them and
// context cancellation turned into a cancel request.
func (r *runner) connConfig(cfg *pgconn.Config) *pgconn.Config {
	c := cfg.Copy()
	c.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		r.out.printf("%s", formatNotice(n))
	}
	c.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{
			Conn:               pc,
			CancelRequestDelay: 0,
			DeadlineDelay:      5 * time.Second,
		}
	}
	return c
}

func (r *runner) connect(ctx context.Context) (*pgconn.PgConn, error) {
	return pgconn.ConnectConfig(ctx, r.cfg)
}

func (r *runner) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.conn.Close(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.all {
		c.Close(ctx)
	}
}

// extraConns returns n extra connections (opened in parallel, kept for
// reuse until Run ends); put them back with release.
func (r *runner) extraConns(ctx context.Context, n int) ([]*pgconn.PgConn, error) {
	r.mu.Lock()
	var got []*pgconn.PgConn
	for len(got) < n && len(r.spare) > 0 {
		got = append(got, r.spare[len(r.spare)-1])
		r.spare = r.spare[:len(r.spare)-1]
	}
	r.mu.Unlock()
	need := n - len(got)
	if need == 0 {
		return got, nil
	}
	conns := make([]*pgconn.PgConn, need)
	errs := make([]error, need)
	var wg sync.WaitGroup
	for i := range need {
		wg.Go(func() { conns[i], errs[i] = r.connect(ctx) })
	}
	wg.Wait()
	r.mu.Lock()
	for _, c := range conns {
		if c != nil {
			r.all = append(r.all, c)
			got = append(got, c)
		}
	}
	r.mu.Unlock()
	for _, err := range errs {
		if err != nil {
			r.release(got)
			if interrupted(err) {
				return nil, err
			}
			return nil, &Error{
				Messages: []string{connectMessage(err), "could not create connection for initialization"},
				Err:      err,
			}
		}
	}
	return got, nil
}

func (r *runner) release(conns []*pgconn.PgConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range conns {
		if !c.IsClosed() {
			r.spare = append(r.spare, c)
		}
	}
}

// execSQL runs one statement as pgbench's executeStatement does.
func execSQL(ctx context.Context, conn *pgconn.PgConn, sql string) error {
	_, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return queryError(sql, err)
	}
	return nil
}

// serverVersionNum turns a server_version parameter ("17.10", "16.4
// (Debian ...)", "18beta1") into libpq's PQserverVersion number.
func serverVersionNum(s string) int {
	var nums []int
	cur, in := 0, false
	for i := 0; i < len(s) && len(nums) < 3; i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			cur = cur*10 + int(c-'0')
			in = true
			continue
		}
		if in {
			nums = append(nums, cur)
			cur, in = 0, false
		}
		if c != '.' {
			break
		}
	}
	if in && len(nums) < 3 {
		nums = append(nums, cur)
	}
	for len(nums) < 3 {
		nums = append(nums, 0)
	}
	if nums[0] >= 10 {
		return nums[0]*10000 + nums[1]
	}
	return nums[0]*10000 + nums[1]*100 + nums[2]
}

func (r *runner) drop(ctx context.Context) error {
	r.out.printf("dropping old tables...\n")
	return execSQL(ctx, r.conn, DropStatement)
}

func (r *runner) createTables(ctx context.Context) error {
	r.out.printf("creating tables...\n")
	stmts := CreateTableStatements(r.o, r.serverVersion)
	for i, sql := range stmts {
		if i == len(tableDDLs) {
			r.out.printf("creating %d partitions...\n", r.o.Partitions)
		}
		if err := execSQL(ctx, r.conn, sql); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) generateServerSide(ctx context.Context) error {
	r.out.printf("generating data (server-side)...\n")
	if err := execSQL(ctx, r.conn, "begin"); err != nil {
		return err
	}
	if err := execSQL(ctx, r.conn, TruncateStatement); err != nil {
		return err
	}
	for _, sql := range ServerSideStatements(r.o) {
		if err := execSQL(ctx, r.conn, sql); err != nil {
			return err
		}
	}
	return execSQL(ctx, r.conn, "commit")
}

func (r *runner) vacuum(ctx context.Context) error {
	r.out.printf("vacuuming...\n")
	vacuumed := false
	if r.o.Method == MethodFast && r.o.connections() > 1 {
		var err error
		if vacuumed, err = r.vacuumPartitions(ctx); err != nil {
			return err
		}
	}
	for _, sql := range VacuumStatements {
		if vacuumed && sql == "vacuum analyze pgbench_accounts" {
			// The partitions are vacuumed: this finds their pages
			// all-visible and skips them, and must not then take the
			// pages it did not read for empty ones and truncate them.
			sql = "vacuum (analyze, truncate false) pgbench_accounts"
		}
		if err := execSQL(ctx, r.conn, sql); err != nil {
			return err
		}
	}
	return nil
}

// partitionsSQL lists the ordinary partitions of a partitioned
// pgbench_accounts (none when it is not partitioned or does not exist).
const partitionsSQL = "SELECT c.oid::pg_catalog.regclass::pg_catalog.text FROM pg_catalog.pg_inherits i " +
	"JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid " +
	"JOIN pg_catalog.pg_class p ON p.oid = i.inhparent " +
	"WHERE p.oid = pg_catalog.to_regclass('pgbench_accounts') AND p.relkind = 'p' AND c.relkind = 'r' ORDER BY 1"

// vacuumPartitions vacuums the partitions of pgbench_accounts in
// parallel, each as pgbench's "vacuum analyze pgbench_accounts" vacuums
// it (the same scan, the same truncation decision); it reports whether
// there were partitions to vacuum.
func (r *runner) vacuumPartitions(ctx context.Context) (bool, error) {
	rows, err := queryStrings(ctx, r.conn, partitionsSQL)
	if err != nil || len(rows) < 2 {
		return false, err
	}
	leaves := make(chan string, len(rows))
	for _, row := range rows {
		leaves <- row[0]
	}
	close(leaves)
	return true, r.parallel(ctx, min(r.o.connections(), len(rows)), func(ctx context.Context, conn *pgconn.PgConn) error {
		for l := range leaves {
			if err := execSQL(ctx, conn, "vacuum "+l); err != nil {
				return err
			}
		}
		return nil
	})
}

// parallel runs work on n extra connections at once and returns the
// first error; an error cancels the others' context.
func (r *runner) parallel(ctx context.Context, n int, work func(context.Context, *pgconn.PgConn) error) error {
	conns, err := r.extraConns(ctx, n)
	if err != nil {
		return err
	}
	defer r.release(conns)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	for _, conn := range conns {
		wg.Go(func() {
			if err := work(ctx, conn); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	return firstErr
}

func (r *runner) primaryKeys(ctx context.Context) error {
	r.out.printf("creating primary keys...\n")
	if r.o.Method == MethodFast {
		reset, err := r.setIndexMemory(ctx, r.conn)
		if err != nil {
			return err
		}
		if reset {
			defer execSQL(context.WithoutCancel(ctx), r.conn, "reset maintenance_work_mem")
		}
	}
	for _, sql := range PrimaryKeyStatements(r.o) {
		if err := execSQL(ctx, r.conn, sql); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) foreignKeys(ctx context.Context) error {
	r.out.printf("creating foreign keys...\n")
	for _, sql := range ForeignKeyStatements {
		if err := execSQL(ctx, r.conn, sql); err != nil {
			return err
		}
	}
	return nil
}

// maxIndexMemoryKB caps the maintenance_work_mem the fast method picks.
const maxIndexMemoryKB = 1 << 20

// indexBytesPerRow estimates what sorting one accounts key costs in
// memory (index tuple, sort slot, allocation overhead).
const indexBytesPerRow = 64

// setIndexMemory raises the session's maintenance_work_mem for the index
// build as Options.MaintenanceWorkMem says; it reports whether it changed
// the setting.
func (r *runner) setIndexMemory(ctx context.Context, conn *pgconn.PgConn) (bool, error) {
	want := r.o.MaintenanceWorkMem
	if want < 0 {
		return false, nil
	}
	if want == 0 {
		rows := int64(r.o.scale()) * AccountsPerScale
		kb := rows*indexBytesPerRow/1024 + 1024
		if kb > maxIndexMemoryKB {
			kb = maxIndexMemoryKB
		}
		cur, err := currentSettingKB(ctx, conn, "maintenance_work_mem")
		if err != nil {
			return false, err
		}
		if kb <= cur {
			return false, nil
		}
		want = int(kb)
	}
	if err := execSQL(ctx, conn, "set maintenance_work_mem = '"+strconv.Itoa(want)+"kB'"); err != nil {
		return false, err
	}
	return true, nil
}

// currentSettingKB reads a memory setting in kB.
func currentSettingKB(ctx context.Context, conn *pgconn.PgConn, name string) (int64, error) {
	sql := "select setting::bigint * case unit when 'kB' then 1 when '8kB' then 8 when 'MB' then 1024 else 1 end from pg_catalog.pg_settings where name = '" + name + "'"
	rows, err := queryStrings(ctx, conn, sql)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, queryError(sql, fmt.Errorf("no setting %s", name))
	}
	v, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		return 0, queryError(sql, err)
	}
	return v, nil
}

// queryStrings runs a query and returns its rows as text values (NULL as
// "").
func queryStrings(ctx context.Context, conn *pgconn.PgConn, sql string, args ...string) ([][]string, error) {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := conn.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, queryError(sql, res.Err)
	}
	out := make([][]string, len(res.Rows))
	for i, row := range res.Rows {
		out[i] = make([]string, len(row))
		for j, v := range row {
			out[i][j] = string(v)
		}
	}
	return out, nil
}
