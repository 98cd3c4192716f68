package cli_test

// README's capture → replay recipe, followed as written: its commands are
// read from README.md and run by a shell with the pglab binary on PATH,
// against an instance of pglab pg start --versions 17 on which the
// DVD-rental application runs (rental_test.go), with only what README
// marks as placeholders (<…>) filled in, as README says to fill them for
// such an instance. What its comments ask of the user (restart the server
// once logging_collector is on, let the application run) the test does
// where they say so.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
)

// recipeHeading is the README section that holds the recipe; its first
// shell block is the recipe.
const recipeHeading = "## Your own workload: capture → replay → verdicts"

// placeholderRE is a placeholder of the recipe: "<major>", "<system identifier>".
var placeholderRE = regexp.MustCompile(`<[a-z][a-z ]*>`)

// recipeCommands returns the commands of README's recipe: the lines of
// its first shell block, continued lines joined, without comments.
func recipeCommands(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), recipeHeading)
	_, block, ok2 := strings.Cut(section, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("README.md has no shell block under %q", recipeHeading)
	}
	var out []string
	for _, l := range strings.Split(regexp.MustCompile(`\\\n\s*`).ReplaceAllString(block, " "), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// recipeRun is the recipe's state as the test follows it.
type recipeRun struct {
	t      *testing.T
	bin    string // the pglab binary
	dir    string // where the commands run
	dsn    string // what pglab pg start printed last
	sent   int    // statements the application sent
	logDir string
}

// pglab runs the pglab binary and returns its standard output.
func (r *recipeRun) pglab(args ...string) string {
	r.t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(r.bin, args...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = &out, &errb, r.dir
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("pglab %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// shell runs a command line of the recipe as a shell does, pglab on PATH.
func (r *recipeRun) shell(line string) string {
	r.t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command("bash", "-euc", line)
	cmd.Stdout, cmd.Stderr, cmd.Dir = &out, &errb, r.dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(r.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("README's recipe: %s: %v\n%s%s", line, err, out.String(), errb.String())
	}
	return out.String()
}

// fill puts into a command what README says goes into each placeholder
// for an instance of pglab pg start named shop.
func (r *recipeRun) fill(line string) string {
	r.t.Helper()
	var sysid string
	if strings.Contains(line, "<system identifier>") {
		conn := pgtest.Connect(r.t, r.dsn)
		if err := conn.QueryRow(context.Background(), "SELECT system_identifier::text FROM pg_control_system()").Scan(&sysid); err != nil {
			r.t.Fatal(err)
		}
		conn.Close(context.Background())
	}
	values := map[string]string{"<major>": "17", "<dsn>": r.dsn, "<server>": "--instance shop", "<log>": "--instance shop",
		"<system identifier>": sysid}
	return placeholderRE.ReplaceAllStringFunc(line, func(p string) string {
		v, ok := values[p]
		if !ok {
			r.t.Fatalf("README's recipe has a placeholder %s that this test does not know: %s", p, line)
		}
		return v
	})
}

// testReps is $PGLAB_REPS for the recipe's commands: its comparisons,
// as written (--reps auto, up to 40 rounds a case), at a fixed 6 rounds,
// as a CI job shortens its runs, to keep the suite under CI's time.
const testReps = "6"

// TestReadmeRecipe: README's capture → replay recipe, followed word for
// word (its comparisons at $PGLAB_REPS=testReps) against a managed 17
// running the DVD-rental application in
// database app: the settings applied (and, apart, reverted), the data
// dumped with pglab pg dump --instance, the log captured with pglab
// capture --instance (every statement the application sent, each with its
// query id, none of the dump's), the replay on 16 and 17 (no statement
// fails that succeeded at capture) and an A/A replay (nothing called).
func TestReadmeRecipe(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("README's recipe applies the settings with psql: install PostgreSQL's client (Debian: apt-get install postgresql-client; make test does): %v", err)
	}
	lines := recipeCommands(t)
	if len(lines) != 8 {
		t.Fatalf("README's recipe has %d commands, this test knows 8 (settings, revert, apply, dump, revert, capture, replay, A/A): %q", len(lines), lines)
	}
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	t.Setenv(lab.RepsEnv, testReps)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	r := &recipeRun{t: t, bin: pglabBinary(t), dir: t.TempDir()}
	r.dsn = r.pglab("--quiet", "pg", "start", "--versions", "17", "--name", "shop")
	t.Cleanup(func() {
		exec.Command(r.bin, "--quiet", "pg", "stop", "--remove", "shop").Run()
		if left := postgresProcessesUnder(os.Getenv("XDG_STATE_HOME")); len(left) > 0 {
			t.Errorf("processes left: %v", left)
		}
	})
	inst, err := pgserver.OpenNamed("shop")
	if err != nil {
		t.Fatal(err)
	}
	r.logDir = filepath.Join(inst.DataDir(), "log")
	loadRental(t, r.dsn, inst.DSNFor("app"))

	var captured, replayed, aa string
	for _, line := range lines {
		out := r.shell(r.fill(line))
		switch {
		case strings.HasPrefix(line, "psql") && strings.Contains(line, "capture-on.sql"):
			// "then restart the server once if logging_collector was off (an
			// instance of pglab pg start: pglab pg stop NAME, then pglab pg
			// start --name NAME --versions N)"
			r.pglab("--quiet", "pg", "stop", "shop")
			r.dsn = r.pglab("--quiet", "pg", "start", "--name", "shop", "--versions", "17")
		case strings.HasPrefix(line, "pglab pg dump"):
			// "then let the application run for a while"
			if inst, err = pgserver.OpenNamed("shop"); err != nil { // on its port since the restart
				t.Fatal(err)
			}
			r.sent = runRentalApp(t, inst.DSNFor("app"))
			logs, _ := filepath.Glob(filepath.Join(r.logDir, "*.csv"))
			waitSessionsLogged(t, logs...)
		case strings.HasPrefix(line, "pglab capture") && strings.Contains(line, "--out"):
			captured = out
		case strings.HasPrefix(line, "pglab compare --aa"):
			aa = out
		case strings.HasPrefix(line, "pglab compare"):
			replayed = out
		}
	}
	t.Logf("capture:\n%s", captured)
	for _, want := range []string{fmt.Sprintf("statements    %d ", r.sent), fmt.Sprintf("query ids     %d of %d statements", r.sent, r.sent)} {
		if !strings.Contains(captured, want) {
			t.Errorf("the capture lacks %q (the application sent %d statements):\n%s", want, r.sent, captured)
		}
	}
	checkRecipeReports(t, r.dir, replayed, aa)
}

// checkRecipeReports checks the replay's reports: every fingerprint with
// its query id, no statement failing on 16 or 17 that succeeded at
// capture, and the A/A calling nothing.
func checkRecipeReports(t *testing.T, dir, replayed, aa string) {
	for _, out := range []string{"replay-16-17", "replay-aa"} {
		js, err := os.ReadFile(filepath.Join(dir, out, "report.json"))
		if err != nil {
			t.Fatalf("%v\n%s%s", err, replayed, aa)
		}
		d := readReplayDoc(t, js)
		if out == "replay-aa" && (d.Family == nil || d.Family.Called != 0) {
			t.Errorf("A/A replay: family %+v, want nothing called", d.Family)
		}
		fps := 0
		for _, st := range d.Studies {
			for _, c := range st.Cases {
				if c.Labels["fingerprint"] != "all" {
					fps++
					if c.Labels["query_id"] == "" {
						t.Errorf("%s: %s has no query_id", out, c.Labels["query"])
					}
				}
			}
			for i, n := range st.Notes {
				if strings.HasPrefix(n.Text, "fidelity:") {
					if i == 0 || !strings.HasPrefix(st.Notes[i-1].Text, "fidelity:") {
						t.Logf("%s, %s: %s", out, n.Target, n.Text)
					}
					if !strings.Contains(n.Text, ", 0 of them unexpectedly") {
						t.Errorf("%s, %s: statements that succeeded at capture failed: %s", out, n.Target, n.Text)
					}
				}
			}
		}
		if fps < 8 {
			t.Errorf("%s: %d fingerprints, want the application's 8 or more", out, fps)
		}
	}
}

// loadRental creates database app on the instance and loads the shop's
// data into it, before the capture's settings are applied.
func loadRental(t *testing.T, dsn, appDSN string) {
	t.Helper()
	ctx := context.Background()
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(ctx, "create database app"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	app := pgtest.Connect(t, appDSN)
	if _, err := app.Exec(ctx, rentalData); err != nil {
		t.Fatalf("load the shop's data: %v", err)
	}
	app.Close(ctx)
}

// runRentalApp runs the shop's clerks one after another in database app
// and returns the statements they sent.
func runRentalApp(t *testing.T, appDSN string) int {
	t.Helper()
	ctx := context.Background()
	sent, prev := 0, 0
	for i := 0; i < rentalSessions; i++ {
		cfg, err := pgx.ParseConfig(appDSN)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = fmt.Sprintf("clerk-%d", i)
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rental, n, err := rentalSession(ctx, conn, i, prev)
		conn.Close(ctx)
		sent += n
		if err != nil {
			t.Fatalf("clerk %d: %v", i, err)
		}
		prev = rental
	}
	return sent
}
