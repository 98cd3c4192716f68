package replay

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Mode is how a replay keeps time.
type Mode string

// The modes.
const (
	// Timed sends each statement at its captured offset (divided by the
	// speed), whatever the statements before it took on the target: an
	// open loop across sessions. A session whose previous statement ran
	// late sends the next one late: the lag.
	Timed Mode = "timed"
	// Fast opens each session at its captured offset and sends its
	// statements one after the other, without the captured pauses.
	Fast Mode = "fast"
)

// Options say how Run replays.
type Options struct {
	Mode Mode
	// Speed divides the captured offsets: 2 replays twice as fast. 0
	// means 1.
	Speed float64
	// Connect opens the connection of a captured session on the target.
	Connect func(ctx context.Context, s *Session) (*pgconn.PgConn, error)
	// Lead is the time between Run's start and offset 0, for the
	// sessions to be ready (0: 50 ms).
	Lead time.Duration
	// CommitOrder makes each statement wait until the commits that ended
	// before it began at capture have ended on the target (see Commit
	// order in order.go).
	CommitOrder bool
}

// Round is what one replay of a workload measured.
type Round struct {
	// Elapsed is the time from offset 0 to the end of the last session.
	Elapsed time.Duration
	// FPs are the fingerprints' figures, indexed like Workload.FPs.
	FPs []FPRound
	// Sent counts the statements sent, Failed those that failed,
	// Unexpected those that failed here but succeeded at capture, Unsent
	// those of sessions that could not connect.
	Sent, Failed, Unexpected, Unsent int
	// ConnectErrors counts sessions that could not connect, with the
	// first error.
	ConnectErrors int
	ConnectError  error
	// Lags are, in timed mode, how late each statement was sent (ms):
	// its actual start minus its scheduled one.
	Lags []float64
	// IDs counts the ids the round mapped (see Ids in ids.go).
	IDs IDCounts
	// OrderWait is the time statements waited for other sessions' commits
	// (Options.CommitOrder), summed; OrderWaits counts the statements that
	// waited.
	OrderWait  time.Duration
	OrderWaits int
	// asCaptured are the statements that sent candidates as captured,
	// counted at the end of the round.
	asCaptured []sentAsCaptured
}

// sentAsCaptured is a statement that sent candidate ids as captured: its
// fingerprint, the values, its SQLSTATE ("" when it succeeded).
type sentAsCaptured struct {
	fp     int
	values []string
	state  string
}

// FPRound is one fingerprint's figures in a round.
type FPRound struct {
	// Latencies are the statements' times (ms) from sending to their
	// result read, failed ones included.
	Latencies []float64
	// Errors counts failures by SQLSTATE; Unexpected counts those of
	// statements that succeeded at capture; IDErrors, of the failures,
	// those of statements that sent a captured id as it was because its
	// source gave the id only later in the round, or gave none (see Ids in
	// ids.go): the replay's ids made them fail, not the target.
	Errors     map[string]int
	Unexpected int
	IDErrors   map[string]int
	// Rows is the rows returned or affected, summed over the calls.
	Rows int64
	// Hash is, for a read-only fingerprint, the sum of the hashes of
	// every row returned (see RowHash): independent of the order of rows
	// and calls.
	Hash uint64
}

// Run replays the workload once on a target: every session on its own
// connection, all sessions at once, as opts say. Statements that fail are
// counted; Run fails only when ctx ends.
func Run(ctx context.Context, w *Workload, opts Options) (*Round, error) {
	if opts.Speed <= 0 {
		opts.Speed = 1
	}
	if opts.Lead <= 0 {
		opts.Lead = 50 * time.Millisecond
	}
	base := time.Now().Add(opts.Lead)
	round := &Round{FPs: make([]FPRound, len(w.FPs))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	ids := newIDMap()
	var order *commitOrder
	if opts.CommitOrder {
		order = newCommitOrder(ctx, w.Commits)
	}
	for _, s := range w.Sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sr := &sessionRun{w: w, s: s, opts: opts, base: base, fps: map[int]*FPRound{}, ids: ids, order: order}
			sr.run(ctx)
			mu.Lock()
			sr.mergeInto(round)
			mu.Unlock()
		}()
	}
	wg.Wait()
	round.Elapsed = time.Since(base)
	for _, u := range round.asCaptured {
		if ids.unsent(u.values, &round.IDs) && u.state != "" {
			fr := &round.FPs[u.fp]
			if fr.IDErrors == nil {
				fr.IDErrors = map[string]int{}
			}
			fr.IDErrors[u.state]++
		}
	}
	round.asCaptured = nil
	if err := ctx.Err(); err != nil {
		return round, err
	}
	return round, nil
}

// at returns the time of a captured offset in this replay.
func (r *sessionRun) at(offsetUS int64) time.Time {
	d := float64(offsetUS-r.w.FirstUS) / r.opts.Speed
	return r.base.Add(time.Duration(d * float64(time.Microsecond)))
}

// sleepUntil waits until t or ctx's end; false when ctx ended.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// sessionRun is one session's replay.
type sessionRun struct {
	w    *Workload
	s    *Session
	opts Options
	base time.Time

	fps          map[int]*FPRound
	lags         []float64
	sent, failed int
	unexpected   int
	unsent       int
	connectErr   error
	prepared     map[string]string // name → SQL prepared under it
	ids          *idMap
	idCounts     IDCounts
	asCaptured   []sentAsCaptured
	order        *commitOrder // nil without Options.CommitOrder
	orderWait    time.Duration
	orderWaits   int
}

// run connects at the session's offset and sends its statements.
func (r *sessionRun) run(ctx context.Context) {
	if !sleepUntil(ctx, r.at(r.s.StartUS)) {
		return
	}
	conn, err := r.opts.Connect(ctx, r.s)
	if err != nil {
		r.connectErr = err
		r.unsent = len(r.s.Statements)
		if r.order != nil {
			r.order.endAll(r.s, 0)
		}
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for i := range r.s.Statements {
		st := &r.s.Statements[i]
		var sched time.Time
		if r.opts.Mode == Timed {
			sched = r.at(st.StartUS)
			if !sleepUntil(ctx, sched) {
				return
			}
		}
		if r.order != nil {
			if d := r.order.wait(st.waitCommits); d > 0 {
				r.orderWait += d
				r.orderWaits++
			}
		}
		if r.opts.Mode == Timed {
			r.lags = append(r.lags, msSince(sched))
		}
		if ctx.Err() != nil {
			return
		}
		r.statement(ctx, conn, st)
		if r.order != nil {
			r.order.ended(st.commit)
		}
	}
}

// statement sends one statement and counts what it did.
func (r *sessionRun) statement(ctx context.Context, conn *pgconn.PgConn, st *Stmt) {
	fp := r.w.FPs[st.FP]
	fr := r.fps[st.FP]
	if fr == nil {
		fr = &FPRound{}
		r.fps[st.FP] = fr
	}
	sql, params, asCaptured := r.ids.rewrite(st, &r.idCounts)
	res := r.exec(ctx, conn, st, sql, params, fp.ReadOnly, len(st.IDCands) > 0)
	if len(asCaptured) > 0 {
		r.asCaptured = append(r.asCaptured, sentAsCaptured{fp: st.FP, values: asCaptured, state: res.state})
	}
	if len(st.IDCands) > 0 {
		if res.state != "" {
			res.first = nil
		}
		r.ids.produced(st, res.first, sql, params, &r.idCounts)
	}
	r.sent++
	fr.Latencies = append(fr.Latencies, res.ms)
	fr.Rows += res.rows
	fr.Hash += res.hash
	if res.state == "" {
		return
	}
	r.failed++
	if fr.Errors == nil {
		fr.Errors = map[string]int{}
	}
	fr.Errors[res.state]++
	if st.Error == "" {
		fr.Unexpected++
		r.unexpected++
	}
}

// mergeInto adds the session's figures to the round's.
func (r *sessionRun) mergeInto(round *Round) {
	round.Sent += r.sent
	round.Failed += r.failed
	round.Unexpected += r.unexpected
	round.Unsent += r.unsent
	round.Lags = append(round.Lags, r.lags...)
	round.IDs.Add(r.idCounts)
	round.asCaptured = append(round.asCaptured, r.asCaptured...)
	round.OrderWait += r.orderWait
	round.OrderWaits += r.orderWaits
	if r.connectErr != nil {
		round.ConnectErrors++
		if round.ConnectError == nil {
			round.ConnectError = r.connectErr
		}
	}
	for k, fr := range r.fps {
		dst := &round.FPs[k]
		dst.Latencies = append(dst.Latencies, fr.Latencies...)
		dst.Rows += fr.Rows
		dst.Hash += fr.Hash
		dst.Unexpected += fr.Unexpected
		for code, n := range fr.Errors {
			if dst.Errors == nil {
				dst.Errors = map[string]int{}
			}
			dst.Errors[code] += n
		}
	}
}

func msSince(t time.Time) float64 {
	return float64(time.Since(t).Nanoseconds()) / 1e6
}

// String describes a round's fidelity in one line.
func (r *Round) String() string {
	return fmt.Sprintf("sent %d, failed %d (%d unexpected), unsent %d", r.Sent, r.Failed, r.Unexpected, r.Unsent)
}
