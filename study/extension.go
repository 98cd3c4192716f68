package study

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EnsureExtension creates a contrib extension when it is missing, in the
// study schema (so that nothing lands in a user's other schemas).
func EnsureExtension(ctx context.Context, conn *pgx.Conn, name string) error {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE EXTENSION "+pgx.Identifier{name}.Sanitize()+" SCHEMA "+Schema); err != nil {
		return fmt.Errorf("create extension %s (from contrib): %w", name, err)
	}
	return nil
}
