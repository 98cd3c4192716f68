package observe

import (
	"context"
	"fmt"
	"time"
)

// SettleTime is how long Settle waits: a backend holds its statistics for
// at most a second after its last flush before it flushes them while idle
// (15+, PGSTAT_MIN_INTERVAL), and writes them when it exits; the margin
// covers the exit of sessions that have just disconnected.
const SettleTime = 1200 * time.Millisecond

// Flush makes the statistics gathered by the session on q visible to
// other sessions: call it on each connection that did measured work,
// after the work and before the closing Snapshot.
//
// On 15+ it runs pg_stat_force_next_flush(); the session flushes before
// it reports the statement done, so the statistics are visible when
// Flush returns. On 13 and 14 (stats collector) it waits until the
// session may send its statistics (500 ms after the last send), makes it
// send them with a trivial statement, and waits 500 ms more so that the
// collector's file is fresh enough for readers: about a second.
//
// Flush itself is one committed transaction in q's database.
func Flush(ctx context.Context, q Querier) error {
	major, err := majorVersion(ctx, q)
	if err != nil {
		return fmt.Errorf("flush statistics: %w", err)
	}
	if major >= 15 {
		if _, err := q.Exec(ctx, "SELECT pg_catalog.pg_stat_force_next_flush()"); err != nil {
			return fmt.Errorf("flush statistics: %w", err)
		}
		return nil
	}
	if err := sleep(ctx, 510*time.Millisecond); err != nil {
		return fmt.Errorf("flush statistics: %w", err)
	}
	if _, err := q.Exec(ctx, "SELECT 1"); err != nil {
		return fmt.Errorf("flush statistics: %w", err)
	}
	if err := sleep(ctx, 510*time.Millisecond); err != nil {
		return fmt.Errorf("flush statistics: %w", err)
	}
	return nil
}

// Settle waits SettleTime, for work done on connections that cannot be
// reached with Flush (closed ones, another program's). On 15+ that is
// enough for every idle or exited session; on 13 and 14 an idle session
// may keep its last half second of statistics until its next statement
// or its exit, so close those connections before Settle.
func Settle(ctx context.Context) error {
	return sleep(ctx, SettleTime)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
