package observe

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// TestSettleSessionsCountsClosedConnections does work on connections
// that are closed right away (as a bench run's are) and checks that after
// SettleSessions the counters hold every row and commit of them, round
// after round: a session that left pg_stat_activity has flushed its
// statistics. One session of each round is left in a query when its
// socket is dropped, so that its backend outlives the client. A second part keeps an unrelated session open and checks
// that the wait is then bounded by SettleTime.
func TestSettleSessionsCountsClosedConnections(t *testing.T) {
	for _, v := range testVersions() {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			dsn := pgtest.CreateDB(t, pgtest.Shared(t, v))
			obs := pgtest.Connect(t, dsn)
			exec(t, obs, "CREATE TABLE t (k int)")
			// obs's own statistics (the catalog rows of CREATE TABLE)
			// must not land in the first round's difference.
			if err := Flush(ctx, obs); err != nil {
				t.Fatal(err)
			}
			const clients, rowsEach = 4, 25
			rounds := 5
			if major(t, obs) < 15 {
				rounds = 1 // Settle's fixed wait there
			}
			for round := 0; round < rounds; round++ {
				before, err := Snapshot(ctx, obs)
				if err != nil {
					t.Fatal(err)
				}
				sessions, err := Sessions(ctx, obs)
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				errs := make(chan error, clients)
				for c := 0; c < clients; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						conn, err := pgx.Connect(ctx, dsn)
						if err != nil {
							errs <- err
							return
						}
						defer conn.Close(context.Background())
						for r := 0; r < rowsEach; r++ {
							if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1)", r); err != nil {
								errs <- err
								return
							}
						}
						if c == 0 {
							// Leave this session busy and drop the socket: the
							// backend notices when its sleep ends, then exits
							// and only then writes its pending statistics
							// (all but the first insert's).
							go conn.Exec(ctx, "SELECT pg_sleep(0.4)")
							time.Sleep(50 * time.Millisecond)
							conn.PgConn().Conn().Close()
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
				start := time.Now()
				if err := SettleSessions(ctx, obs, sessions); err != nil {
					t.Fatal(err)
				}
				took := time.Since(start)
				after, err := Snapshot(ctx, obs)
				if err != nil {
					t.Fatal(err)
				}
				m := metricsOf(Diff(before, after))
				if got := m["tup_inserted"]; got != clients*rowsEach {
					t.Errorf("round %d (settled in %v): tup_inserted %v, want %d", round, took, got, clients*rowsEach)
				}
				if got := m["xact_commit"]; got < clients*rowsEach {
					t.Errorf("round %d (settled in %v): xact_commit %v, want at least %d", round, took, got, clients*rowsEach)
				}
			}

			// A session that stays bounds the wait.
			sessions, err := Sessions(ctx, obs)
			if err != nil {
				t.Fatal(err)
			}
			stay := pgtest.Connect(t, dsn)
			exec(t, stay, "SELECT 1")
			start := time.Now()
			if err := SettleSessions(ctx, obs, sessions); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took < SettleTime || took > SettleTime+5*time.Second {
				t.Errorf("with a session that stays, SettleSessions took %v, want about %v", took, SettleTime)
			}
		})
	}
}
