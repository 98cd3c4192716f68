package observe

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/internal/pgnet"
)

// DefaultWaitInterval is the wait-event sampler's interval when none is
// given: 5 samples a second. Measured on a 2-core VM with
// BenchmarkWaitSamplerCost, one sample costs about 0.5 ms of client CPU
// and 0.25 ms of server CPU, so this interval uses under 0.5 % of one CPU
// in all.
const DefaultWaitInterval = 200 * time.Millisecond

// CPUEvent is the event name of an active session not waiting on
// anything: running on a CPU (or about to).
const CPUEvent = "CPU"

// waitQuery reads the sessions doing work: client backends and parallel
// workers that are active, and background processes (no state), all
// outside an idle main loop (wait_event_type "Activity": a WAL sender
// streaming to a standby is "active" there). The sampler's own session is
// left out.
const waitQuery = `SELECT coalesce(wait_event_type || ':' || wait_event, wait_event_type, 'CPU'), count(*)::int
	FROM pg_catalog.pg_stat_activity
	WHERE pid <> pg_catalog.pg_backend_pid()
	  AND (state = 'active' OR state IS NULL) AND wait_event_type IS DISTINCT FROM 'Activity'
	GROUP BY 1`

// WaitSampler counts what the server's sessions wait on, sampling
// pg_stat_activity on a connection of its own until Stop.
type WaitSampler struct {
	conn     *pgx.Conn
	tx       pgx.Tx
	interval time.Duration
	start    time.Time

	mu       sync.Mutex
	counts   map[string]int
	samples  int
	sessions int
	err      error

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
	prof   *WaitProfile
}

// WaitShare is one wait event's part of the samples.
type WaitShare struct {
	// Event is "wait_event_type:wait_event", e.g. "IO:DataFileRead", or
	// "CPU" for an active session that waits on nothing.
	Event string
	// Count is how many session-samples showed it.
	Count int
	// Pct is Count in percent of all session-samples.
	Pct float64
}

// WaitProfile is what a WaitSampler recorded.
type WaitProfile struct {
	Start, End time.Time
	Interval   time.Duration
	// Samples is how many times pg_stat_activity was read; Sessions the
	// number of session-samples (active sessions summed over samples).
	Samples, Sessions int
	// Events are all events seen, most frequent first (ties by name).
	Events []WaitShare
}

// ActiveSessions is the mean number of working sessions per sample.
func (p *WaitProfile) ActiveSessions() float64 {
	if p.Samples == 0 {
		return 0
	}
	return float64(p.Sessions) / float64(p.Samples)
}

// Time estimates the session time spent in event during the sampling: its
// session-samples per sample times the sampled wall time (one session
// waiting all the time is the whole duration; two, twice it).
func (p *WaitProfile) Time(event string) time.Duration {
	if p.Samples == 0 {
		return 0
	}
	for _, e := range p.Events {
		if strings.EqualFold(e.Event, event) {
			return time.Duration(float64(e.Count) / float64(p.Samples) * float64(p.End.Sub(p.Start)))
		}
	}
	return 0
}

// Top returns the n most frequent events (all when n ≤ 0 or fewer).
func (p *WaitProfile) Top(n int) []WaitShare {
	if n <= 0 || n > len(p.Events) {
		n = len(p.Events)
	}
	return append([]WaitShare(nil), p.Events[:n]...)
}

// Metrics summarises the profile: wait_samples, wait_active_sessions
// (mean), and "wait_pct:EVENT" for the n most frequent events.
func (p *WaitProfile) Metrics(n int) []Metric {
	out := []Metric{
		{Name: "wait_samples", Value: float64(p.Samples), Unit: "count"},
		{Name: "wait_active_sessions", Value: p.ActiveSessions(), Unit: "count"},
	}
	for _, e := range p.Top(n) {
		out = append(out, Metric{Name: "wait_pct:" + e.Event, Value: e.Pct, Unit: "pct"})
	}
	return out
}

// StartWaits connects to dsn and samples pg_stat_activity every interval
// (DefaultWaitInterval when ≤ 0) until Stop or the end of ctx. It counts,
// per sample, each session doing work by its wait event (see waitQuery:
// active client sessions and parallel workers of every database, and
// background processes outside their idle loop; never itself).
//
// The samples are read in one long transaction that never takes a
// transaction ID, after pg_stat_clear_snapshot() each time, so that the
// sampler adds no commits to pg_stat_database while it runs and holds back
// no vacuum horizon. idle_in_transaction_session_timeout is turned off
// for its session.
func StartWaits(ctx context.Context, dsn string, interval time.Duration) (*WaitSampler, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err == nil {
		err = pgnet.Configure(&cfg.Config)
	}
	if err != nil {
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	return StartWaitsConfig(ctx, cfg, interval)
}

// StartWaitsConfig is StartWaits with a parsed connection configuration.
func StartWaitsConfig(ctx context.Context, cfg *pgx.ConnConfig, interval time.Duration) (*WaitSampler, error) {
	if interval <= 0 {
		interval = DefaultWaitInterval
	}
	cfg = cfg.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "pglab wait sampler"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	s := &WaitSampler{conn: conn, interval: interval, counts: map[string]int{}, done: make(chan struct{})}
	if _, err := conn.Exec(ctx, "SET idle_in_transaction_session_timeout = 0"); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	if s.tx, err = conn.Begin(ctx); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	s.start = time.Now()
	ctx, s.cancel = context.WithCancel(ctx)
	go s.loop(ctx)
	return s, nil
}

func (s *WaitSampler) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.sample(ctx); err != nil {
				if ctx.Err() == nil {
					s.mu.Lock()
					s.err = fmt.Errorf("wait sampler: %w", err)
					s.mu.Unlock()
				}
				return
			}
		}
	}
}

// sample reads pg_stat_activity once: one round trip, both statements
// prepared (a simple-protocol round trip costs the server 3× the CPU).
func (s *WaitSampler) sample(ctx context.Context) error {
	b := &pgx.Batch{}
	b.Queue("SELECT pg_catalog.pg_stat_clear_snapshot()")
	b.Queue(waitQuery)
	res := s.tx.SendBatch(ctx, b)
	defer res.Close()
	if _, err := res.Exec(); err != nil {
		return err
	}
	rows, err := res.Query()
	if err != nil {
		return err
	}
	got := map[string]int{}
	n := 0
	for rows.Next() {
		var ev string
		var c int
		if err := rows.Scan(&ev, &c); err != nil {
			return err
		}
		got[ev] += c
		n += c
	}
	if err := rows.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples++
	s.sessions += n
	for ev, c := range got {
		s.counts[ev] += c
	}
	return nil
}

// Stop ends the sampling, closes the connection and returns the profile;
// the error is the one that ended sampling early, if any (the profile
// holds the samples read before it). Stop may be called more than once.
func (s *WaitSampler) Stop() (*WaitProfile, error) {
	s.once.Do(func() {
		s.cancel()
		<-s.done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.tx.Commit(ctx)
		s.conn.Close(ctx)
		p := &WaitProfile{Start: s.start, End: time.Now(), Interval: s.interval, Samples: s.samples, Sessions: s.sessions}
		for ev, c := range s.counts {
			p.Events = append(p.Events, WaitShare{Event: ev, Count: c, Pct: 100 * float64(c) / float64(s.sessions)})
		}
		sort.Slice(p.Events, func(i, j int) bool {
			a, b := p.Events[i], p.Events[j]
			return a.Count > b.Count || a.Count == b.Count && a.Event < b.Event
		})
		s.prof = p
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prof, s.err
}
