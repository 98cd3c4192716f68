package study

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/observe"
)

// Step is what the runner observed around one measured step.
type Step struct {
	// Elapsed is the client's wall time of the step.
	Elapsed time.Duration
	// Counters are the differences of the server's cumulative counters
	// across the step (WAL, fsyncs, buffers, I/O, commits), as observe
	// names them.
	Counters []observe.Metric
}

// Counter returns a counter difference by name.
func (st *Step) Counter(name string) (float64, bool) {
	m, ok := observe.Find(st.Counters, name)
	return m.Value, ok
}

// Measure runs fn as the measured step: the server's counters are read
// before and after (on a connection of the runner's own), and the wall time
// of fn is taken. work is the connection fn does its work on, flushed
// before the closing snapshot so that its statistics are counted; pass nil
// when fn works on other connections, which must be closed when it returns
// (the runner then waits for their statistics to arrive). The counters are
// stored as an artefact "counters" of the current case and repetition.
func (s *Session) Measure(ctx context.Context, work *pgx.Conn, fn func(context.Context) error) (*Step, error) {
	obs, err := s.observer(ctx)
	if err != nil {
		return nil, err
	}
	before, err := observe.Snapshot(ctx, obs)
	if err != nil {
		return nil, fmt.Errorf("read server counters: %w", err)
	}
	start := time.Now()
	ferr := fn(ctx)
	step := &Step{Elapsed: time.Since(start)}
	if ferr != nil {
		return step, ferr
	}
	if work != nil {
		err = observe.Flush(ctx, work)
	} else {
		err = observe.Settle(ctx)
	}
	if err != nil {
		return step, fmt.Errorf("flush statistics: %w", err)
	}
	after, err := observe.Snapshot(ctx, obs)
	if err != nil {
		return step, fmt.Errorf("read server counters: %w", err)
	}
	step.Counters = observe.Diff(before, after)
	if data, err := json.Marshal(map[string]any{"elapsed_ms": float64(step.Elapsed.Microseconds()) / 1000, "counters": step.Counters}); err == nil {
		if err := s.Artefact(ctx, "counters", "application/json", data); err != nil {
			return step, err
		}
	}
	return step, nil
}

// observer returns the session's own connection for counter snapshots.
func (s *Session) observer(ctx context.Context) (*pgx.Conn, error) {
	s.mu.Lock()
	c := s.obs
	s.mu.Unlock()
	if c != nil && !c.IsClosed() {
		return c, nil
	}
	c, err := s.Target.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.obs = c
	s.mu.Unlock()
	return c, nil
}

// closeObserver closes the snapshot connection (the runner calls it before
// restarts and at the end).
func (s *Session) closeObserver() {
	s.mu.Lock()
	c := s.obs
	s.obs = nil
	s.mu.Unlock()
	if c != nil {
		c.Close(context.Background())
	}
}
