package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// recordFormat is the version of the record's layout.
const recordFormat = 1

// Record is what pglab applied to one server and what postgresql.auto.conf
// held before, so that Revert can undo exactly that.
type Record struct {
	// Format is the layout version, 1.
	Format int `json:"format"`
	// Applied is when pglab last applied settings.
	Applied time.Time `json:"applied"`
	// Params are the parameters pglab set, in the order it set them.
	Params []RecordedParam `json:"params"`
}

// RecordedParam is one parameter pglab set with ALTER SYSTEM.
type RecordedParam struct {
	// Name is the parameter's name.
	Name string `json:"name"`
	// Value is the value pglab set.
	Value string `json:"value"`
	// Before is postgresql.auto.conf's value before pglab first set the
	// parameter, or nil when the file did not hold it (Revert then resets
	// it).
	Before *string `json:"before"`
}

// find returns the recorded parameter called name.
func (r *Record) find(name string) *RecordedParam {
	for i := range r.Params {
		if r.Params[i].Name == name {
			return &r.Params[i]
		}
	}
	return nil
}

// parseRecord decodes a record and checks its layout.
func parseRecord(data []byte, where string) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("record of applied settings (%s) is damaged: %w", where, err)
	}
	if r.Format != recordFormat {
		return nil, fmt.Errorf("record of applied settings (%s) has layout %d; this pglab reads %d", where, r.Format, recordFormat)
	}
	for _, p := range r.Params {
		if !validName(p.Name) {
			return nil, fmt.Errorf("record of applied settings (%s) names %q, which is not a parameter name", where, p.Name)
		}
	}
	return &r, nil
}

// RecordLocation says where the record of what pglab applied is kept: a
// file path, or the custom parameter in the server's
// postgresql.auto.conf.
func (s *Server) RecordLocation() string {
	if s.RecordFile != "" {
		return s.RecordFile
	}
	return RecordParameter + " in the server's postgresql.auto.conf"
}

// loadRecord reads the record; nil when there is none. autoConf is the
// server's postgresql.auto.conf (read by readAutoConf); when that was not
// read from the file itself, the record parameter's value in effect is
// read.
func (s *Server) loadRecord(ctx context.Context, conn *pgx.Conn, auto autoConf) (*Record, error) {
	if s.RecordFile != "" {
		data, err := os.ReadFile(s.RecordFile)
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the record of applied settings: %w", err)
		}
		return parseRecord(data, s.RecordFile)
	}
	v, ok := auto.get(RecordParameter)
	if !ok && !auto.exact {
		var cur *string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1, true)", RecordParameter).Scan(&cur); err != nil {
			return nil, fmt.Errorf("%s: read %s: %w", s.Label, RecordParameter, err)
		}
		if cur != nil {
			v = *cur
		}
	}
	if v == "" {
		return nil, nil
	}
	return parseRecord([]byte(v), RecordParameter)
}

// saveRecord writes the record, or removes it when r is nil.
func (s *Server) saveRecord(ctx context.Context, conn *pgx.Conn, r *Record) error {
	var data []byte
	if r != nil {
		var err error
		if s.RecordFile != "" {
			data, err = json.MarshalIndent(r, "", "  ")
			data = append(data, '\n')
		} else {
			data, err = json.Marshal(r)
		}
		if err != nil {
			return fmt.Errorf("encode the record of applied settings: %w", err)
		}
	}
	if s.RecordFile == "" {
		// Before PostgreSQL 15, ALTER SYSTEM knows a custom parameter only
		// when the session has it: define it here (the session's own value
		// is kept).
		if _, err := conn.Exec(ctx, "SELECT set_config($1, coalesce(current_setting($1, true), ''), false)", RecordParameter); err != nil {
			return fmt.Errorf("%s: define %s: %w", s.Label, RecordParameter, err)
		}
		if r == nil {
			return alterSystem(ctx, conn, RecordParameter, nil)
		}
		v := string(data)
		return alterSystem(ctx, conn, RecordParameter, &v)
	}
	if r == nil {
		if err := os.Remove(s.RecordFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the record of applied settings: %w", err)
		}
		return nil
	}
	return writeFileAtomic(s.RecordFile, data)
}

// writeFileAtomic replaces path with data (mode 0600) so that a reader
// sees the old or the new content, never a part.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-")
	if err != nil {
		return fmt.Errorf("write the record of applied settings: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write the record of applied settings: %w", err)
	}
	return nil
}
