// Command commit-cost measures what a commit costs a single client on this
// machine, the figure the aurora-like profile is calibrated on (seed 004:
// 2.26 ms per commit on Aurora): N single-row UPDATEs (prepared) committed
// one by one, then N inside one transaction, alternately -pairs times, on a
// managed server with or without a synchronous standby behind a delay, for
// each -replica-rtts value. It prints the median time per update in each
// mode and their difference, the commit cost.
//
//	go run ./scripts/commit-cost [-version 17] [-updates 2000] [-pairs 3]
//	    [-replica-rtts none,1ms,1.5ms,2ms] [-sync remote_write] [-set fsync=off]
//
// Run it under the heavy lock (flock /tmp/pglab-heavy.lock): it is a timing
// measurement.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/pgserver"
)

var (
	version = flag.String("version", "17", "PostgreSQL major version")
	updates = flag.Int("updates", 2000, "updates per mode and pair")
	pairs   = flag.Int("pairs", 3, "autocommit/transaction pairs per setting")
	rtts    = flag.String("replica-rtts", "none,1ms,1.5ms,2ms", "standby round trips to try ('none': no standby)")
	syncC   = flag.String("sync", "remote_write", "synchronous_commit with a standby")
	sets    = flag.String("set", "", "server settings, comma-separated name=value")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "commit-cost:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	spec, err := pgserver.ParseVersionSpec(*version)
	if err != nil {
		return err
	}
	bin, err := (&pgserver.Finder{}).Find(ctx, spec)
	if err != nil {
		return err
	}
	var settings []pgserver.Setting
	if *sets != "" {
		if settings, err = pgserver.ParseSettings(strings.Split(*sets, ",")); err != nil {
			return err
		}
	}
	settings = append(settings, pgserver.Setting{Name: "autovacuum", Value: "off"})
	fmt.Printf("PostgreSQL %s, %d updates per mode, %d pairs, settings %v, synchronous_commit %s with a standby\n\n", *version, *updates, *pairs, settings, *syncC)
	fmt.Println("| standby RTT | autocommit per update | transaction per update | commit cost |")
	fmt.Println("|---|---|---|---|")
	for _, r := range strings.Split(*rtts, ",") {
		r = strings.TrimSpace(r)
		auto, tx, err := measure(ctx, bin, settings, r)
		if err != nil {
			return fmt.Errorf("%s: %w", r, err)
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r, us(auto), us(tx), us(auto-tx))
	}
	return nil
}

func measure(ctx context.Context, bin *pgserver.Binaries, settings []pgserver.Setting, rtt string) (auto, tx time.Duration, err error) {
	inst, err := pgserver.Start(ctx, pgserver.Options{Binaries: bin, Name: "commit-cost", Settings: settings})
	if err != nil {
		return 0, 0, err
	}
	defer inst.Destroy(context.Background())
	if rtt != "none" {
		d, err := time.ParseDuration(rtt)
		if err != nil {
			return 0, 0, err
		}
		if _, err := inst.StartStandby(ctx, pgserver.StandbyOptions{Sync: true, SynchronousCommit: *syncC, RTT: d}); err != nil {
			return 0, 0, err
		}
	}
	conn, err := pgx.Connect(ctx, inst.DSN())
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(context.Background())
	for _, q := range []string{
		"CREATE TABLE accounts (id bigint PRIMARY KEY, status text NOT NULL, note text NOT NULL DEFAULT '')",
		fmt.Sprintf("INSERT INTO accounts SELECT g, 'inactive' FROM generate_series(1, %d) g", *updates),
		"VACUUM ANALYZE accounts",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return 0, 0, err
		}
	}
	pc := conn.PgConn()
	if _, err := pc.Prepare(ctx, "upd", "UPDATE accounts SET status = 'active' WHERE id = $1", nil); err != nil {
		return 0, 0, err
	}
	loop := func(explicit bool) (time.Duration, error) {
		if explicit {
			if err := pc.Exec(ctx, "BEGIN").Close(); err != nil {
				return 0, err
			}
		}
		t0 := time.Now()
		for i := 1; i <= *updates; i++ {
			if _, err := pc.ExecPrepared(ctx, "upd", [][]byte{[]byte(strconv.Itoa(i))}, nil, nil).Close(); err != nil {
				return 0, err
			}
		}
		if explicit {
			if err := pc.Exec(ctx, "COMMIT").Close(); err != nil {
				return 0, err
			}
		}
		return time.Since(t0) / time.Duration(*updates), nil
	}
	var as, ts []time.Duration
	for p := 0; p < *pairs; p++ {
		a, err := loop(false)
		if err != nil {
			return 0, 0, err
		}
		t, err := loop(true)
		if err != nil {
			return 0, 0, err
		}
		as, ts = append(as, a), append(ts, t)
	}
	slices.Sort(as)
	slices.Sort(ts)
	return as[len(as)/2], ts[len(ts)/2], nil
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", d.Seconds()*1e6) }
