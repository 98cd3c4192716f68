package studies

import (
	"context"
	"fmt"
	"strings"

	"github.com/pglab/pglab/study"
)

// execStatements is a Build that runs SQL statements in order.
func execStatements(stmts ...string) func(ctx context.Context, s *study.Session) error {
	return func(ctx context.Context, s *study.Session) error {
		conn, err := s.Target.Connect(ctx)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		for _, q := range stmts {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", firstLine(q), err)
			}
		}
		return nil
	}
}

// firstLine shortens a statement for an error message.
func firstLine(q string) string {
	q = strings.TrimSpace(q)
	if k := strings.IndexByte(q, '\n'); k > 0 {
		q = q[:k] + " …"
	}
	return q
}

// yesNo spells a flag for a note.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
