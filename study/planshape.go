package study

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/workload/replay"
)

// PlanArtefact names the plan of a study statement, one per statement,
// case and target (PlanShape, JSON).
const PlanArtefact = "plan"

// PlanShape is the plan a target makes of one of a study's statements:
// EXPLAIN (FORMAT JSON) without running it, and its shape — node types,
// join order, indexes and relations, without estimates (replay.ShapeOf)
// — with a hash of the shape: two targets planned the statement alike
// when the hashes are equal.
type PlanShape struct {
	// Statement is the study's name for the statement ("count",
	// "update"); SQL its text.
	Statement string `json:"statement"`
	SQL       string `json:"sql"`
	// Hash is the first 16 hex digits of the SHA-256 of the shape's
	// lines; Shape the lines, one node each, indented by depth.
	Hash  string   `json:"hash"`
	Shape []string `json:"shape"`
	// Plan is EXPLAIN (FORMAT JSON)'s output.
	Plan json.RawMessage `json:"plan"`
}

// ShapeHash is the hash of a plan's shape.
func ShapeHash(shape replay.Shape) string {
	sum := sha256.Sum256([]byte(shape.String()))
	return hex.EncodeToString(sum[:8])
}

// RecordPlan reads the plan the target makes of a statement of the study
// on conn (EXPLAIN (FORMAT JSON), which does not run it; params are the
// values of $1, $2, … as text, their types inferred), and stores it with
// its shape as the artefact "plan" of the current case, once per case:
// call it outside the measured step. A statement the server cannot
// explain is noted, and not an error of the study.
func (s *Session) RecordPlan(ctx context.Context, conn *pgx.Conn, statement, sql string, params ...string) error {
	if s.planned(statement, false) {
		return nil
	}
	args := make([][]byte, len(params))
	for i, p := range params {
		args[i] = []byte(p)
	}
	rr := conn.PgConn().ExecParams(ctx, "EXPLAIN (FORMAT JSON) "+sql, args, nil, nil, nil)
	var plan []byte
	for rr.NextRow() {
		if v := rr.Values(); len(v) > 0 {
			plan = append(plan[:0], v[0]...)
		}
	}
	if _, err := rr.Close(); err != nil || plan == nil {
		if err == nil {
			err = errors.New("EXPLAIN returned no plan")
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.Note("the plan of %s could not be read: %v", statement, err)
		return nil
	}
	return s.RecordPlanOf(ctx, statement, sql, plan)
}

// RecordPlanOf stores a plan the study read itself (EXPLAIN (FORMAT
// JSON) of sql) as RecordPlan does, once per case.
func (s *Session) RecordPlanOf(ctx context.Context, statement, sql string, plan []byte) error {
	if s.planned(statement, true) {
		return nil
	}
	shape, err := replay.ShapeOf(plan)
	if err != nil {
		return fmt.Errorf("plan of %s: %w", statement, err)
	}
	data, err := json.Marshal(PlanShape{Statement: statement, SQL: sql, Hash: ShapeHash(shape), Shape: shape, Plan: plan})
	if err != nil {
		return fmt.Errorf("plan of %s: %w", statement, err)
	}
	return s.Artefact(ctx, PlanArtefact, "application/json", data)
}

// planned reports whether the statement's plan was recorded in the
// current case; mark marks it recorded.
func (s *Session) planned(statement string, mark bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := results.CaseKey(s.cur.Labels) + "\x00" + statement
	if s.plans == nil {
		s.plans = map[string]bool{}
	}
	done := s.plans[key]
	if mark {
		s.plans[key] = true
	}
	return done
}
