package studies

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// copyErrors is seed 002 §5: how COPY FROM behaves with bad rows on each
// version — plain COPY, ON_ERROR ignore, LOG_VERBOSITY verbose and silent,
// REJECT_LIMIT, and a constraint violation that ON_ERROR does not skip.
type copyErrors struct{}

func init() { study.Register("copy-errors", func() study.Study { return copyErrors{} }) }

// copyProbe is one COPY FROM attempt of the matrix.
type copyProbe struct {
	name    string
	title   string
	options string // inside WITH (...)
	rows    string // CSV data, the article's rows
}

// The article's rows: the third has a non-integer abalance.
const copyGoodAndBad = "9999991, 1, 100, x\n9999992, 1, 200, x\n9999993, 1, invalid_balance, x\n9999994, 1, 300, x\n"

var copyProbes = []copyProbe{
	{"plain", "plain COPY, a bad value in row 3", "FORMAT csv", copyGoodAndBad},
	{"on_error_ignore", "ON_ERROR ignore", "FORMAT csv, ON_ERROR ignore", copyGoodAndBad},
	{"log_verbose", "ON_ERROR ignore, LOG_VERBOSITY verbose", "FORMAT csv, ON_ERROR ignore, LOG_VERBOSITY verbose", copyGoodAndBad},
	{"pk_violation", "ON_ERROR ignore with a duplicate key", "FORMAT csv, ON_ERROR ignore", "9999991, 1, 100, x\n1, 1, 200, x\n9999994, 1, 300, x\n"},
	{"reject_limit_ok", "ON_ERROR ignore, REJECT_LIMIT 1 (one bad row)", "FORMAT csv, ON_ERROR ignore, REJECT_LIMIT 1", copyGoodAndBad},
	{"reject_limit_hit", "ON_ERROR ignore, REJECT_LIMIT 1 (two bad rows)", "FORMAT csv, ON_ERROR ignore, REJECT_LIMIT 1", "9999991, 1, 100, x\n9999992, 1, bad1, x\n9999993, 1, bad2, x\n9999994, 1, 300, x\n"},
	{"log_silent", "ON_ERROR ignore, LOG_VERBOSITY silent", "FORMAT csv, ON_ERROR ignore, LOG_VERBOSITY silent", copyGoodAndBad},
}

func (copyErrors) Info() study.Info {
	names := make([]string, len(copyProbes))
	for i, p := range copyProbes {
		names[i] = p.name
	}
	return study.Info{
		Name:   "copy-errors",
		Title:  "COPY FROM with bad rows: ON_ERROR, LOG_VERBOSITY, REJECT_LIMIT and constraint violations, per version",
		Source: "seed 002 §5",
		Params: []study.Param{
			{Name: "probes", Kind: study.KindList, Default: strings.Join(names, ","), Choices: names, Doc: "which COPY variants to try"},
		},
		Version: 1,
		InAll:   true,
		// A behaviour probe: its outcomes are shown as a matrix, and none
		// of its figures is a change to call.
		Presentation: &results.Presentation{
			Texts: []results.TextView{{Name: "copy-output", Head: "What the server said", Markdown: true, Open: true}},
		},
	}
}

func (copyErrors) Plan(p study.Params) (study.Plan, error) {
	var cases []study.Case
	for _, name := range p.List("probes") {
		for _, pr := range copyProbes {
			if pr.name == name {
				cases = append(cases, study.Case{Name: pr.title, Labels: map[string]string{"probe": pr.name}, Data: pr})
			}
		}
	}
	// The outcome is deterministic: one repetition says it all.
	return study.Plan{Cases: cases, Reps: 1, QuickReps: 1}, nil
}

const copyTable = "copy_errors_test"

func (copyErrors) Setup(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// pgbench_accounts' shape, as in the article, with one existing row
	// for the duplicate-key probe.
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + copyTable,
		"CREATE TABLE " + copyTable + " (aid int PRIMARY KEY, bid int, abalance int, filler character(84))",
		"INSERT INTO " + copyTable + " VALUES (1, 1, 0, '')",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

var skippedRE = regexp.MustCompile(`^(\d+) rows? (?:was|were) skipped`)

func (copyErrors) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	pr := c.Data.(copyProbe)
	var mu sync.Mutex
	var notices, said []string // said: the notices as psql prints them
	conn, err := s.Target.ConnectWithNotices(ctx, func(n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Severity+":  "+n.Message)
		said = append(said, psqlMessage((*pgconn.PgError)(n), false))
		mu.Unlock()
	})
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DELETE FROM "+copyTable+" WHERE aid >= 9999991"); err != nil {
		return err
	}
	sql := fmt.Sprintf("COPY %s (aid, bid, abalance, filler) FROM STDIN WITH (%s)", copyTable, pr.options)
	start := time.Now()
	tag, copyErr := conn.PgConn().CopyFrom(ctx, strings.NewReader(pr.rows), sql)
	s.AddMeasured(time.Since(start))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var loaded int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+copyTable+" WHERE aid >= 9999991").Scan(&loaded); err != nil {
		return err
	}
	mu.Lock()
	got := append([]string(nil), notices...)
	transcript := append([]string(nil), said...)
	mu.Unlock()

	supported := 1.0
	var errText string
	if copyErr != nil {
		var pgErr *pgconn.PgError
		if !errors.As(copyErr, &pgErr) {
			return copyErr
		}
		errText = psqlMessage(pgErr, true)
		// An option the server does not know is "not supported"; a COPY
		// that ran and failed on the data is a supported outcome.
		if pgErr.Code == "42601" || pgErr.Code == "22023" && strings.Contains(pgErr.Message, "not recognized") {
			supported = 0
		}
	}
	var skipped float64
	for _, n := range got {
		msg := n[strings.Index(n, ":  ")+3:]
		if m := skippedRE.FindStringSubmatch(msg); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			skipped += v
		}
	}
	s.Record("supported", supported, "", study.Exact())
	s.Record("rows_loaded", float64(loaded), "rows", study.Exact())
	s.Record("rows_skipped", skipped, "rows", study.Exact())
	s.Record("notices", float64(len(got)), "", study.Exact())
	s.Record("failed", b2f(copyErr != nil), "", study.Exact())
	s.Outcome(copyOutcome(copyErr != nil, loaded, skipped, got, errText))
	// The transcript as psql -a shows a script with the COPY and its data
	// inline: the statement, the rows, the server's messages, the tag.
	var out strings.Builder
	fmt.Fprintf(&out, "%s;\n%s\\.\n", sql, pr.rows)
	for _, n := range transcript {
		fmt.Fprintf(&out, "%s\n", n)
	}
	if errText != "" {
		fmt.Fprintf(&out, "%s\n", errText)
	} else {
		fmt.Fprintf(&out, "%s\n", tag.String())
	}
	return s.Artefact(ctx, "copy-output", "text/plain", []byte(out.String()))
}

func (copyErrors) Teardown(ctx context.Context, s *study.Session) error {
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS "+copyTable)
	return err
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// copyOutcome summarises a probe in one cell of the matrix, e.g. "3 rows
// loaded, 1 skipped (1 notice)" or "ERROR: option "on_error" not recognized".
func copyOutcome(failed bool, loaded int64, skipped float64, notices []string, errText string) string {
	if failed {
		first, _, _ := strings.Cut(errText, "\n")
		return strings.Replace(first, "ERROR:  ", "ERROR: ", 1)
	}
	text := fmt.Sprintf("%d rows loaded", loaded)
	if skipped > 0 {
		text += fmt.Sprintf(", %.0f skipped", skipped)
	}
	switch len(notices) {
	case 0:
		text += ", no notice"
	case 1:
		text += ", 1 notice"
	default:
		text += fmt.Sprintf(", %d notices", len(notices))
	}
	return text
}

// psqlMessage formats a server message as psql prints it by default
// (VERBOSITY default): "SEVERITY:  message", then DETAIL and HINT lines,
// and for an error its CONTEXT (psql's SHOW_CONTEXT errors).
func psqlMessage(e *pgconn.PgError, isError bool) string {
	sev := e.Severity
	if sev == "" {
		sev = "ERROR"
	}
	text := sev + ":  " + e.Message
	if e.Detail != "" {
		text += "\nDETAIL:  " + e.Detail
	}
	if e.Hint != "" {
		text += "\nHINT:  " + e.Hint
	}
	if isError && e.Where != "" {
		text += "\nCONTEXT:  " + e.Where
	}
	return text
}
