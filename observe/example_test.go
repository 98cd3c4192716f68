package observe_test

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/observe"
)

// A measured step with everything observe offers. (Compiled, not run: it
// needs a server.)
func Example() {
	ctx := context.Background()
	dsn, dataDir := "postgres://localhost/pglab", "/var/lib/postgresql/data"
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	workerCfg, _ := pgx.ParseConfig(dsn)
	notices := observe.CaptureNotices(workerCfg)
	worker, err := pgx.ConnectConfig(ctx, workerCfg)
	if err != nil {
		return
	}
	defer worker.Close(ctx)

	info, _ := observe.Server(ctx, conn)
	osSampler := observe.StartOS(ctx, dataDir, 0)
	waits, _ := observe.StartWaits(ctx, dsn, 0)
	before, _ := observe.Snapshot(ctx, conn)

	worker.Exec(ctx, "VACUUM (VERBOSE) t")

	observe.Flush(ctx, worker)
	after, _ := observe.Snapshot(ctx, conn)
	series, _ := osSampler.Stop()
	profile, _ := waits.Stop()

	fmt.Println(info.Version, info.DataChecksums)
	for _, m := range observe.Diff(before, after) {
		fmt.Println(m.Name, m.Value, m.Unit)
	}
	if reports, err := observe.ParseVacuumVerbose(notices.Take()); err == nil {
		walBytes, _ := reports[0].Value("wal_bytes") // absent on 13 and 14
		fmt.Println(reports[0].Relation, walBytes)
	}
	for _, n := range append(observe.OSNotes(series, "vacuum"), observe.WaitNotes(profile)...) {
		fmt.Println(n.Text)
	}
}
