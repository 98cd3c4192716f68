package cli_test

// A real application's replay: a DVD-rental-like schema (an enum, a
// domain, a trigger function, a plpgsql function in a query, a view, a
// full-text column, payments partitioned by month), seven sessions that
// rent, pay, register customers and return each other's rentals, with ids
// from sequences that the statements after them use. The log begins after
// work it does not hold (rentals and a customer made with statement
// logging off), so every id the target's sequences give differs from the
// captured one.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// rentalData is the application's data, as the script that made it.
const rentalData = `-- a DVD-rental-like shop
CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE DOMAIN year AS integer CHECK (VALUE >= 1901 AND VALUE <= 2155);
CREATE FUNCTION last_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.last_update = now();
    RETURN NEW;
END $$;
CREATE TABLE film (film_id serial PRIMARY KEY, title text NOT NULL, description text, release_year year,
    rating mpaa_rating DEFAULT 'G', rental_rate numeric(4,2) NOT NULL DEFAULT 4.99,
    last_update timestamptz NOT NULL DEFAULT now(), fulltext tsvector NOT NULL);
CREATE INDEX film_fulltext_idx ON film USING gin (fulltext);
CREATE TRIGGER film_last_update BEFORE UPDATE ON film FOR EACH ROW EXECUTE FUNCTION last_updated();
INSERT INTO film (title, description, release_year, rating, fulltext)
SELECT 'Film ' || g, d, 2000 + g % 20, (ARRAY['G', 'PG', 'PG-13', 'R', 'NC-17'])[1 + g % 5]::mpaa_rating, to_tsvector('english', d)
FROM (SELECT g, 'A ' || (ARRAY['epic', 'fateful', 'boring', 'astounding'])[1 + g % 4] || ' drama of a '
    || (ARRAY['dog', 'robot', 'dentist', 'pastry chef', 'astronaut'])[1 + g % 5] AS d FROM generate_series(1, 1000) g) f;
CREATE TABLE customer (customer_id serial PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL,
    email text UNIQUE, active boolean NOT NULL DEFAULT true, create_date date NOT NULL DEFAULT current_date,
    last_update timestamptz DEFAULT now());
CREATE TRIGGER customer_last_update BEFORE UPDATE ON customer FOR EACH ROW EXECUTE FUNCTION last_updated();
INSERT INTO customer (first_name, last_name, email) SELECT 'First' || g, 'Last' || g, 'c' || g || '@example.org' FROM generate_series(1, 500) g;
CREATE TABLE inventory (inventory_id serial PRIMARY KEY, film_id int NOT NULL REFERENCES film, store_id int NOT NULL);
INSERT INTO inventory (film_id, store_id) SELECT 1 + g % 1000, 1 + g % 2 FROM generate_series(1, 4000) g;
CREATE TABLE rental (rental_id serial PRIMARY KEY, rental_date timestamptz NOT NULL DEFAULT now(),
    inventory_id int NOT NULL REFERENCES inventory, customer_id int NOT NULL REFERENCES customer,
    return_date timestamptz, last_update timestamptz DEFAULT now());
CREATE INDEX rental_inventory_idx ON rental (inventory_id) WHERE return_date IS NULL;
CREATE INDEX rental_customer_idx ON rental (customer_id);
INSERT INTO rental (rental_date, inventory_id, customer_id, return_date)
SELECT timestamptz '2026-01-01' + g * interval '2 hours', 1 + g % 4000, 1 + g % 500, timestamptz '2026-01-03' + g * interval '2 hours'
FROM generate_series(1, 3000) g;
CREATE TABLE payment (payment_id serial, customer_id int NOT NULL REFERENCES customer, rental_id int NOT NULL REFERENCES rental,
    amount numeric(5,2) NOT NULL, payment_date timestamptz NOT NULL) PARTITION BY RANGE (payment_date);
DO $$
DECLARE m date;
BEGIN
    FOR m IN SELECT generate_series(date '2026-01-01', date '2027-12-01', interval '1 month') LOOP
        EXECUTE format('CREATE TABLE payment_%s PARTITION OF payment FOR VALUES FROM (%L) TO (%L)',
            to_char(m, 'YYYY_MM'), m, m + interval '1 month');
    END LOOP;
END $$;
INSERT INTO payment (customer_id, rental_id, amount, payment_date)
SELECT customer_id, rental_id, 0.99 + rental_id % 5, rental_date FROM rental;
CREATE FUNCTION inventory_in_stock(p_inventory_id int) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN NOT EXISTS (SELECT 1 FROM rental WHERE inventory_id = p_inventory_id AND return_date IS NULL);
END $$;
CREATE VIEW customer_balance AS
SELECT c.customer_id, c.first_name, c.last_name, count(r.rental_id) AS rentals, coalesce(sum(p.amount), 0) AS paid
FROM customer c LEFT JOIN rental r USING (customer_id) LEFT JOIN payment p USING (rental_id)
GROUP BY c.customer_id;
`

// rentalSessions is how many sessions the application runs.
const rentalSessions = 7

// rentalSession is one counter clerk's session: find a film by its
// description, an inventory copy in stock (a plpgsql function), rent it
// (INSERT … RETURNING), take the payment with the new rental's id, read
// the customer's balance (a view), return the rental the previous clerk
// made (its id, from another session); session 0 registers a customer
// first and rents for them, and tries to register one that exists (a
// unique violation, at capture too). It returns the ids it made.
func rentalSession(ctx context.Context, conn *pgx.Conn, i int, prevRental int) (rental int, sent int, err error) {
	q := func(dst any, sql string, args ...any) error {
		sent++
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
		for rows.Next() {
			if dst != nil {
				if err := rows.Scan(dst); err != nil {
					rows.Close()
					return fmt.Errorf("%s: %w", sql, err)
				}
				dst = nil
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
		time.Sleep(15 * time.Millisecond)
		return nil
	}
	customer := 1 + i*37
	if i == 0 {
		if err := q(&customer, "insert into customer (first_name, last_name, email) values ($1, $2, $3) returning customer_id", "New", "Customer", "new-customer@example.org"); err != nil {
			return 0, sent, err
		}
		sent++
		if _, err := conn.Exec(ctx, "insert into customer (first_name, last_name, email) values ($1, $2, $3)", "Old", "Customer", "c1@example.org"); err == nil {
			return 0, sent, fmt.Errorf("a duplicate email was taken")
		}
	}
	words := []string{"robot", "dentist", "astronaut", "dog", "epic", "fateful", "astounding"}
	var film, inventory int
	if err := q(&film, "select film_id from film where fulltext @@ to_tsquery('english', $1) order by film_id limit 1", words[i%len(words)]); err != nil {
		return 0, sent, err
	}
	if err := q(&inventory, "select inventory_id from inventory where film_id = $1 and inventory_in_stock(inventory_id) order by inventory_id limit 1", film); err != nil {
		return 0, sent, err
	}
	if err := q(&rental, "insert into rental (inventory_id, customer_id) values ($1, $2) returning rental_id", inventory, customer); err != nil {
		return 0, sent, err
	}
	if err := q(nil, "insert into payment (customer_id, rental_id, amount, payment_date) values ($1, $2, $3, now())", customer, rental, "2.99"); err != nil {
		return 0, sent, err
	}
	if err := q(nil, "select rentals, paid from customer_balance where customer_id = $1", customer); err != nil {
		return 0, sent, err
	}
	if prevRental > 0 {
		if err := q(nil, "update rental set return_date = now() where rental_id = $1 returning rental_id", prevRental); err != nil {
			return 0, sent, err
		}
	}
	if err := q(nil, "select date_trunc('month', payment_date) m, sum(amount) from payment where payment_date >= '2026-03-01' group by 1 order by 1 desc limit 1", pgx.QueryExecModeSimpleProtocol); err != nil {
		return 0, sent, err
	}
	return rental, sent, nil
}

// rentalCapture is the shop's workload, captured once per test binary.
type rentalCapture struct {
	data, newer, workload string
	sent                  int
}

var (
	rentalOnce  sync.Once
	rentalCap   *rentalCapture
	rentalErr   error
	rentalFiles = map[string][]byte{}
)

// rentalWorkload runs the shop on a managed 17 that logs to csvlog, after
// work the log does not see, captures the log, and gives the test the
// data dumped (pglab pg dump) before that work, the data dumped after the
// logged work (the customer it registers already there), and the
// workload: README's recipe on a 17 source.
func rentalWorkload(t *testing.T) *rentalCapture {
	t.Helper()
	rentalOnce.Do(func() {
		rentalCap, rentalErr = runRental(t, t.TempDir())
		if rentalErr != nil {
			return
		}
		for _, f := range []string{rentalCap.data, rentalCap.newer, rentalCap.workload} {
			if rentalFiles[filepath.Base(f)], rentalErr = os.ReadFile(f); rentalErr != nil {
				return
			}
		}
	})
	if rentalErr != nil {
		t.Fatal(rentalErr)
	}
	c := *rentalCap
	copyInto(t, rentalFiles, &c.data, &c.newer, &c.workload)
	return &c
}

func runRental(t *testing.T, dir string) (*rentalCapture, error) {
	c := &rentalCapture{data: filepath.Join(dir, "rental.sql"), newer: filepath.Join(dir, "rental-newer.sql"), workload: filepath.Join(dir, "rental.workload")}
	script := filepath.Join(dir, "rental-script.sql")
	if err := os.WriteFile(script, []byte(rentalData), 0o644); err != nil {
		return nil, err
	}
	inst, err := loggingServer(t)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := loadQuietly(ctx, inst, script); err != nil {
		return nil, err
	}
	// README's recipe, step 2: the data as it was when the log began,
	// dumped by pglab pg dump (the machine's pg_dump 15 refuses a 17),
	// its own statements not logged.
	quietDSN := inst.DSN() + "&options=-c%20log_min_duration_statement%3D-1"
	dump := func(file string) error {
		if r := run(t, "--quiet", "pg", "dump", "--no-owner", "-f", file, quietDSN); r.code != 0 {
			return fmt.Errorf("pglab pg dump: exit %d: %s", r.code, r.stderr)
		}
		return nil
	}
	if err := dump(c.data); err != nil {
		return nil, err
	}
	// Work before the log: three rentals and a customer, unlogged.
	quiet, err := pgx.Connect(ctx, quietDSN)
	if err != nil {
		return nil, err
	}
	_, err = quiet.Exec(ctx, "insert into rental (inventory_id, customer_id) select g, g - 3000 from generate_series(3001, 3003) g; insert into customer (first_name, last_name) values ('Walk', 'In')")
	quiet.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("the work before the log: %w", err)
	}
	prev := 0
	for i := 0; i < rentalSessions; i++ {
		cfg, _ := pgx.ParseConfig(inst.DSN())
		cfg.RuntimeParams["application_name"] = fmt.Sprintf("clerk-%d", i)
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		rental, sent, err := rentalSession(ctx, conn, i, prev)
		conn.Close(ctx)
		c.sent += sent
		if err != nil {
			return nil, fmt.Errorf("clerk %d: %w", i, err)
		}
		prev = rental
		time.Sleep(40 * time.Millisecond)
	}
	// Data taken after the logged work: the customer it registers is in.
	if err := dump(c.newer); err != nil {
		return nil, err
	}
	logFile := filepath.Join(inst.DataDir(), "log", "pg.csv")
	waitSessionsLogged(t, logFile)
	r := run(t, "capture", "--database", "pglab", "--log", logFile, "--out", c.workload)
	if r.code != 0 {
		return nil, fmt.Errorf("capture: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("statements    %d ", c.sent)) {
		return nil, fmt.Errorf("capture took other than the %d statements sent:\n%s", c.sent, r.stdout)
	}
	return c, nil
}

// TestReplayRentalIDs: on data whose sequences stand behind the log's
// (the work before it is not in the dump), every rental, payment and
// return finds its row: no statement fails that succeeded at capture, in
// either mode nor in commit order, and every use of a captured id is sent
// with the target's.
// The same workload on data taken after the logged work (the customer it
// registers already there) says so in one line and leaves that insert out
// of the comparison. An A/A replay calls nothing.
func TestReplayRentalIDs(t *testing.T) {
	c := rentalWorkload(t)
	for _, mode := range []string{"timed", "fast", "timed, in commit order"} {
		dir := t.TempDir()
		order := "none"
		if m, ok := strings.CutSuffix(mode, ", in commit order"); ok {
			mode, order = m, "commits"
		}
		r := run(t, "--quiet", "study", "replay", "--versions", "17", "--reps", "2", "--json", "--param", "mode="+mode, "--param", "order="+order,
			"--param", "workload="+c.workload, "--param", "data="+c.data, "--store", filepath.Join(dir, "r.db"))
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, r.code, r.stderr)
		}
		d := readReplayDoc(t, []byte(r.stdout))
		figures := map[string]float64{}
		for _, m := range d.Measurements {
			if m.Rep == 2 {
				figures[m.Metric] += m.Value
			}
		}
		if figures["statements"] != float64(c.sent) || figures["unexpected_errors"] != 0 || figures["statements_failed"] != 1 {
			t.Errorf("%s: round 2: %v statements (want %d), %v failed (want the 1 that failed at capture), %v unexpectedly (want 0)",
				mode, figures["statements"], c.sent, figures["statements_failed"], figures["unexpected_errors"])
		}
		t.Logf("%s, order %s: round 2: %v statements, workload time %.1f ms, round %.0f ms, schedule lag p99 %.2f ms, %v statements waited %.1f ms for commits",
			mode, order, figures["statements"], figures["busy_ms"], figures["round_ms"], figures["lag_p99_ms"], figures["order_waits"], figures["order_wait_ms"])
		// 7 rentals and 1 customer; uses: 7 payments, 6 returns, the new
		// customer's rental and payment.
		if figures["ids_mapped"] < 15 || figures["id_sources_lost"] != 0 || (mode == "timed" && figures["ids_unmapped"] != 0) {
			t.Errorf("%s: round 2: %v ids mapped (want ≥ 15), %v sent unmapped, %v sources lost", mode, figures["ids_mapped"], figures["ids_unmapped"], figures["id_sources_lost"])
		}
	}

	// An A/A replay of the shop calls nothing.
	dir := t.TempDir()
	r := run(t, "--quiet", "compare", "--aa", "--versions", "17", "--reps", "6", "--studies", "replay", "--out", filepath.Join(dir, "aa"),
		"--param", "replay.workload="+c.workload, "--param", "replay.data="+c.data, "--store", filepath.Join(dir, "r.db"))
	if r.code != 0 {
		t.Fatalf("A/A: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "aa", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d := readReplayDoc(t, data); d.Family == nil || d.Family.Called != 0 || d.Family.Comparisons < 10 {
		t.Errorf("A/A replay of the shop: family %+v, want 0 called of 10 or more", d.Family)
	}

	out := filepath.Join(dir, "report")
	r = run(t, "--quiet", "compare", "--versions", "17", "--reps", "2", "--studies", "replay", "--out", out,
		"--param", "replay.workload="+c.workload, "--param", "replay.data="+c.newer, "--store", filepath.Join(dir, "r.db"))
	if r.code != 0 {
		t.Fatalf("newer data: exit %d: %s", r.code, r.stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	want := "data against the log: 1 fingerprint («insert into customer(first_name, last_name, email) values ($1, $2, $3) returning customer_id») failed in most rounds where it had succeeded at capture (mostly 23505 unique_violation × 2): the rows they write exist already, so the data is likely newer than the log"
	if !strings.Contains(string(md), want) {
		t.Errorf("report.md on newer data lacks %q:\n%s", want, md)
	}
}
