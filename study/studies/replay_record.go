package studies

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/study"
	"github.com/pglab/pglab/workload/replay"
)

// replayTarget is what a target's rounds leave for the comparison at the
// end, per fingerprint (indexed like the workload's).
type replayTarget struct {
	shapes     []replay.Shape
	explainErr []string
	// sigs are the rows and row hash of each round.
	sigs [][]resultSig
	// errs counts failures by SQLSTATE over all rounds.
	errs []map[string]int
	// idErrs counts, of errs, the failures of statements that sent an id
	// its source gave late or not at all (replay.FPRound.IDErrors).
	idErrs []map[string]int
	// failing counts the rounds in which most of the fingerprint's calls
	// that succeeded at capture failed (its latency not compared).
	failing []int
	rounds  int
	// later are notes on the study made once, in the first round, said
	// at the end (outside any repetition).
	later []string
}

// resultSig is a read-only fingerprint's results in a round.
type resultSig struct {
	rows int64
	hash uint64
}

func newReplayTarget(fps int) *replayTarget {
	return &replayTarget{shapes: make([]replay.Shape, fps), explainErr: make([]string, fps), sigs: make([][]resultSig, fps),
		errs: make([]map[string]int, fps), idErrs: make([]map[string]int, fps), failing: make([]int, fps)}
}

// add keeps a round's results and errors.
func (t *replayTarget) add(w *replay.Workload, r *replay.Round) {
	t.rounds++
	for k, fr := range r.FPs {
		if failingRound(w.FPs[k], fr) {
			t.failing[k]++
		}
		t.sigs[k] = append(t.sigs[k], resultSig{fr.Rows, fr.Hash})
		t.errs[k] = addCounts(t.errs[k], fr.Errors)
		t.idErrs[k] = addCounts(t.idErrs[k], fr.IDErrors)
	}
}

// addCounts adds counts by SQLSTATE to dst, made when needed.
func addCounts(dst, src map[string]int) map[string]int {
	for code, n := range src {
		if dst == nil {
			dst = map[string]int{}
		}
		dst[code] += n
	}
	return dst
}

// explainAll reads the plan of each fingerprint's representative call
// (the first that succeeded at capture) on the fresh data of the first
// round.
func (st *replayStudy) explainAll(ctx context.Context, s *study.Session, t *replayTarget) error {
	cfg := s.Target.PlainConfig("pglab replay explain")
	cfg.RuntimeParams["statement_timeout"] = "30000"
	conn, err := pgconn.ConnectConfig(ctx, &cfg.Config)
	if err != nil {
		return study.ConnectError(s.Target.Name, err)
	}
	defer func() { conn.Close(context.WithoutCancel(ctx)) }()
	read, failed, first := 0, 0, ""
	for k, fp := range st.wl.FPs {
		if fp.Explain == nil {
			continue
		}
		plan, err := replay.Explain(ctx, conn, fp.Explain)
		if err == nil {
			t.shapes[k], err = replay.ShapeOf(plan)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t.explainErr[k] = study.OneLineError{Err: err}.Error()
			failed++
			if first == "" {
				first = queryLabel(fp.Text) + ": " + t.explainErr[k]
			}
			if conn.IsClosed() {
				next, err := pgconn.ConnectConfig(ctx, &cfg.Config)
				if err != nil {
					return study.ConnectError(s.Target.Name, err)
				}
				conn = next
			}
			continue
		}
		read++
	}
	text := fmt.Sprintf("plans read (EXPLAIN of each fingerprint's first call that succeeded at capture, on the data before the first round): %d of %s", read, countOf(len(st.wl.FPs), "fingerprint"))
	if failed > 0 {
		text += fmt.Sprintf("; EXPLAIN failed for %d (first: %s)", failed, first)
	}
	t.later = append(t.later, text)
	return nil
}

// record records a round's figures: per fingerprint, and for the whole
// workload in case c.
func (st *replayStudy) record(s *study.Session, c study.Case, r *replay.Round) {
	busy := 0.0
	for k, fp := range st.wl.FPs {
		fr := r.FPs[k]
		if len(fr.Latencies) == 0 {
			continue
		}
		errs := 0
		for _, n := range fr.Errors {
			errs += n
		}
		total := replay.Sum(fr.Latencies)
		busy += total
		rec := s.In(fpCase(fp))
		if !failingRound(fp, fr) {
			// Compared only when it did the work it did at capture.
			rec.Record("median_ms", replay.Quantile(fr.Latencies, 0.5), "ms", study.LowerIsBetter())
		}
		rec.Record("p95_ms", replay.Quantile(fr.Latencies, 0.95), "ms", study.LowerIsBetter())
		rec.Record("total_ms", total, "ms", study.LowerIsBetter())
		rec.Record("calls", float64(len(fr.Latencies)), "count", study.Exact())
		rec.Record("errors", float64(errs), "count", study.LowerIsBetter(), study.Exact())
		rec.Record("rows", float64(fr.Rows), "count", study.Exact())
	}
	whole := s.In(c)
	whole.Record("statements", float64(r.Sent), "count", study.Exact())
	whole.Record("statements_failed", float64(r.Failed), "count", study.LowerIsBetter(), study.Exact())
	whole.Record("unexpected_errors", float64(r.Unexpected), "count", study.LowerIsBetter(), study.Exact())
	whole.Record("busy_ms", busy, "ms", study.LowerIsBetter())
	whole.Record("round_ms", float64(r.Elapsed.Microseconds())/1000, "ms", study.LowerIsBetter())
	lag := ""
	if len(r.Lags) > 0 {
		p50, p99 := replay.Quantile(r.Lags, 0.5), replay.Quantile(r.Lags, 0.99)
		whole.Record("lag_p50_ms", p50, "ms", study.LowerIsBetter())
		whole.Record("lag_p99_ms", p99, "ms", study.LowerIsBetter())
		lag = fmt.Sprintf("; schedule lag p50 %.2f ms, p99 %.2f ms", p50, p99)
	}
	ids := ""
	if plan := st.wl.IDs; plan.Traced > 0 {
		idErrs := 0
		for _, fr := range r.FPs {
			for _, n := range fr.IDErrors {
				idErrs += n
			}
		}
		whole.Record("ids_mapped", float64(r.IDs.Mapped), "count", study.Exact())
		whole.Record("ids_unmapped", float64(r.IDs.Early+r.IDs.AfterLost), "count", study.LowerIsBetter(), study.Exact())
		whole.Record("id_sources_lost", float64(r.IDs.Lost), "count", study.LowerIsBetter(), study.Exact())
		whole.Record("id_errors", float64(idErrs), "count", study.LowerIsBetter(), study.Exact())
		ids = fmt.Sprintf("; ids: %d of %s gave an id, %d none (failed, or returned no new number); uses of ids: %d sent with the target's id (%d of them other than the captured), %d as captured (%d before their source gave it, %d after a source that gave none), %s after those",
			r.IDs.Produced, countOf(plan.Traced, "traced id source"), r.IDs.Lost, r.IDs.Mapped, r.IDs.Changed,
			r.IDs.Early+r.IDs.AfterLost, r.IDs.Early, r.IDs.AfterLost, countOf(idErrs, "failure"))
	}
	order := ""
	if s.Params.String("order") == "commits" {
		ms := float64(r.OrderWait.Microseconds()) / 1000
		whole.Record("order_wait_ms", ms, "ms", study.LowerIsBetter())
		whole.Record("order_waits", float64(r.OrderWaits), "count", study.LowerIsBetter())
		order = fmt.Sprintf("; commit order: %s waited %.1f ms in all for other sessions' commits", countOf(r.OrderWaits, "statement"), ms)
	}
	s.In(study.Case{}).Note("fidelity: %d of %s executed; %d failed, %d of them unexpectedly (they succeeded at capture)%s%s%s",
		r.Sent, countOf(st.wl.Statements, "captured statement"), r.Failed, r.Unexpected, lag, ids, order)
	if r.ConnectErrors > 0 {
		s.In(study.Case{}).Note("%s could not connect, %s not sent (first: %s)", countOf(r.ConnectErrors, "session"), countOf(r.Unsent, "statement"), study.OneLineError{Err: r.ConnectError})
	}
}

// failingRound reports whether most of a fingerprint's calls that
// succeeded at capture failed in a round: its latency is then that of
// other work (an error raised early) and is not compared.
func failingRound(fp *replay.FP, fr replay.FPRound) bool {
	return fp.Succeeded > 0 && 2*fr.Unexpected > fp.Succeeded
}

// countOf writes a count with its noun: "1 row", "1,234 rows"; a plural
// other than the noun and "s" follows it ("use of an id", "uses of ids").
func countOf(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	p := noun + "s"
	if len(plural) > 0 {
		p = plural[0]
	}
	return compare.FormatExact(float64(n), compare.Count) + " " + p
}

// errorsText lists failures by SQLSTATE with their condition names:
// "23505 unique_violation × 12, 25P02 in_failed_sql_transaction × 6" (a
// name also keeps two codes apart when the report merges notes that
// differ only in numbers).
func errorsText(m map[string]int) string {
	var codes []string
	for c := range m {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	out := ""
	for i, c := range codes {
		if i > 0 {
			out += ", "
		}
		if name := replay.Condition(c); name != "" {
			out += fmt.Sprintf("%s %s × %d", c, name, m[c])
		} else {
			out += fmt.Sprintf("SQLSTATE %s × %d", c, m[c])
		}
	}
	return out
}
