package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/tune"
)

// Row compares one recommended parameter with the server's setting.
type Row struct {
	// Name is the parameter's name.
	Name string `json:"name"`
	// Current is the value in effect as SHOW prints it ("128MB"), or ""
	// when the server does not know the parameter.
	Current string `json:"current"`
	// Recommended is the recommended value as tune gives it ("256MB").
	Recommended string `json:"recommended"`
	// Differs is true when the value in effect is not the recommended one
	// (compared in the parameter's base unit).
	Differs bool `json:"differs"`
	// Restart is true when a new value takes effect only at a restart
	// (pg_settings.context is postmaster).
	Restart bool `json:"restart"`
	// PendingRestart is true when the server has a changed value waiting
	// for a restart (pg_settings.pending_restart).
	PendingRestart bool `json:"pending_restart"`
	// Unsupported says why this server cannot take the recommended value
	// (an unknown parameter, an enum value it was built without, a value
	// out of range); empty when it can. Such a parameter is never applied.
	Unsupported string `json:"unsupported,omitempty"`

	param  param  // pg_settings' row
	target string // Recommended in canonical form
}

// Compare reads the server's settings of the recommended parameters and
// compares each with the recommended value.
func (s *Server) Compare(ctx context.Context, params []tune.Parameter) ([]Row, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	return s.compare(ctx, conn, params)
}

func (s *Server) compare(ctx context.Context, conn *pgx.Conn, params []tune.Parameter) ([]Row, error) {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	info, err := readParams(ctx, conn, names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Label, err)
	}
	superuser, err := isSuperuser(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Label, err)
	}
	rows := make([]Row, len(params))
	for i, rp := range params {
		r := Row{Name: rp.Name, Recommended: rp.Value}
		p, ok := info[rp.Name]
		if !ok {
			r.Unsupported = "this server has no such parameter"
			rows[i] = r
			continue
		}
		r.param, r.Current, r.Restart, r.PendingRestart = p, p.Display, p.needsRestart(), p.PendingRestart
		r.target, err = serverCanonical(ctx, conn, p, rp.Value, superuser)
		if err != nil {
			var ue unsupportedError
			if !errors.As(err, &ue) {
				return nil, fmt.Errorf("%s: %w", s.Label, err)
			}
			r.Unsupported = ue.msg
		} else {
			r.Differs = !sameSetting(p, r.target, p.Setting)
		}
		rows[i] = r
	}
	return rows, nil
}

// readParams reads pg_settings' rows of the named parameters.
func readParams(ctx context.Context, conn *pgx.Conn, names []string) (map[string]param, error) {
	rows, err := conn.Query(ctx, `SELECT name, setting, coalesce(unit, ''), vartype, context, coalesce(enumvals, '{}'),
		coalesce(min_val, ''), coalesce(max_val, ''), coalesce(source, ''), pending_restart, current_setting(name)
		FROM pg_settings WHERE name = ANY($1)`, names)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	out := map[string]param{}
	for rows.Next() {
		var p param
		if err := rows.Scan(&p.Name, &p.Setting, &p.Unit, &p.Vartype, &p.Context, &p.EnumVals, &p.Min, &p.Max, &p.Source, &p.PendingRestart, &p.Display); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read pg_settings: %w", err)
		}
		out[p.Name] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	return out, nil
}

func isSuperuser(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var su string
	if err := conn.QueryRow(ctx, "SELECT current_setting('is_superuser')").Scan(&su); err != nil {
		return false, fmt.Errorf("read is_superuser: %w", err)
	}
	return su == "on", nil
}

// unsupportedError is a value the server cannot take.
type unsupportedError struct{ msg string }

func (e unsupportedError) Error() string { return e.msg }

// serverCanonical returns value as pg_settings.setting will show it. A
// parameter this session may SET is set for a moment inside a transaction
// that is rolled back, so that the server itself parses the value (and
// names, e.g., the compression methods it was built with); any other is
// parsed here from pg_settings' unit, range and enum values.
// A value the server refuses is an unsupportedError.
func serverCanonical(ctx context.Context, conn *pgx.Conn, p param, value string, superuser bool) (string, error) {
	if !(p.Context == "user" || (p.Context == "superuser" && superuser)) {
		c, err := canonical(p, value)
		if err != nil {
			return "", unsupportedError{err.Error()}
		}
		return c, nil
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback(context.Background())
	var setting string
	_, err = tx.Exec(ctx, "SELECT set_config($1, $2, true)", p.Name, value)
	if err == nil {
		err = tx.QueryRow(ctx, "SELECT setting FROM pg_settings WHERE name = $1", p.Name).Scan(&setting)
	}
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			msg := pe.Message
			if pe.Hint != "" {
				msg += " (" + strings.TrimSuffix(pe.Hint, ".") + ")"
			}
			return "", unsupportedError{msg}
		}
		return "", err
	}
	return setting, nil
}
