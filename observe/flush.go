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

// Sessions returns the process IDs of the server's sessions (every row of
// pg_stat_activity: client backends, parallel workers, background
// processes) other than q's own: what [SettleSessions] compares with after
// a step.
func Sessions(ctx context.Context, q Querier) (map[int32]bool, error) {
	rows, err := q.Query(ctx, "SELECT pid FROM pg_catalog.pg_stat_activity WHERE pid <> pg_catalog.pg_backend_pid()")
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	pids := map[int32]bool{}
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		pids[pid] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return pids, nil
}

// settlePoll is how often SettleSessions looks at pg_stat_activity.
const settlePoll = 10 * time.Millisecond

// SettleSessions is Settle for work done on connections that have been
// closed: on 15+ it returns as soon as every session that was not in
// before (see [Sessions]) has left pg_stat_activity, since a backend
// writes its statistics to shared memory before it gives up its
// pg_stat_activity entry; at most SettleTime, the wait of Settle, when
// some session stays (a connection of another program, a new autovacuum
// worker). On 13 and 14 (statistics collector) it is Settle.
func SettleSessions(ctx context.Context, q Querier, before map[int32]bool) error {
	major, err := majorVersion(ctx, q)
	if err != nil {
		return fmt.Errorf("flush statistics: %w", err)
	}
	if major < 15 || before == nil {
		return Settle(ctx)
	}
	deadline := time.Now().Add(SettleTime)
	for {
		now, err := Sessions(ctx, q)
		if err != nil {
			return fmt.Errorf("flush statistics: %w", err)
		}
		left := false
		for pid := range now {
			if !before[pid] {
				left = true
				break
			}
		}
		if !left {
			return nil
		}
		if time.Now().After(deadline) {
			return nil
		}
		if err := sleep(ctx, settlePoll); err != nil {
			return fmt.Errorf("flush statistics: %w", err)
		}
	}
}
