package studies

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/dataset/sqlscript"
	"github.com/pglab/pglab/study"
	"github.com/pglab/pglab/workload/replay"
)

// replayScript is replay.data as Plan checked it.
type replayScript struct {
	path string
	// sum is the file's SHA-256, hex: part of the dataset's key and of the
	// marker the load leaves on the target.
	sum     string
	summary sqlscript.Summary
}

// replayNoData is the marker's digest when no replay.data was given.
const replayNoData = "none"

// replayMarker is the table, in the study schema, that says what data a
// target holds: written last by the load, checked before every round.
const replayMarker = study.Schema + ".replay_data"

// checkData reads replay.data whole without running it (statements, COPY
// data, meta-commands) and takes its digest: a script that cannot load
// fails here, before any server is touched, with its file and line.
func (st *replayStudy) checkData(path string) error {
	if path == "" {
		st.data = nil
		return nil
	}
	if st.data != nil && st.data.path == path {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return &study.ParamError{Param: "data", Err: fmt.Errorf("replay.data: %w", err)}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return &study.ParamError{Param: "data", Err: fmt.Errorf("replay.data: %s is a directory, not a SQL file", path)}
	}
	h := sha256.New()
	sum, err := sqlscript.Check(io.TeeReader(f, h), path)
	if err != nil {
		return &study.ParamError{Param: "data", Err: fmt.Errorf("replay.data: %w", err)}
	}
	st.data = &replayScript{path: path, sum: hex.EncodeToString(h.Sum(nil)), summary: sum}
	return nil
}

// digest is the data's digest as the marker keeps it.
func (st *replayStudy) digest() string {
	if st.data == nil {
		return replayNoData
	}
	return st.data.sum
}

// dataset is the data every round starts from: replay.data loaded and
// analysed (or an empty database), with the marker.
func (st *replayStudy) dataset() *study.Dataset {
	name, sum := replayNoData, st.digest()
	if st.data != nil {
		name = filepath.Base(st.data.path)
	}
	return &study.Dataset{
		Name:   "replay-data",
		Params: []string{"file=" + name, "sha256=" + sum[:min(len(sum), 16)]},
		Recipe: dataset.Recipe("sqlscript: psql -f with ON_ERROR_STOP, VACUUM ANALYZE, marker v1", sum),
		Build:  st.build,
	}
}

// build loads replay.data through s (a dataset build or the target in
// place), runs VACUUM ANALYZE and writes the marker.
func (st *replayStudy) build(ctx context.Context, s *study.Session) error {
	cfg := s.Target.PlainConfig("pglab replay data")
	var res sqlscript.Result
	if st.data != nil {
		s.Log("loading %s", st.data.path)
		f, err := os.Open(st.data.path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		res, err = sqlscript.Exec(ctx, sqlscript.NewReader(io.TeeReader(f, h), st.data.path), sqlscript.Options{
			User:    cfg.User,
			Connect: func(ctx context.Context) (*pgconn.PgConn, error) { return pgconn.ConnectConfig(ctx, &cfg.Config) },
		})
		if err != nil {
			return err
		}
		if hex.EncodeToString(h.Sum(nil)) != st.data.sum {
			return fmt.Errorf("%s changed while pglab used it: give a file that stays as it is", st.data.path)
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return study.ConnectError(s.Target.Name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// As after a restore: the planner's statistics (a dump holds none
	// before 18), and hint bits and the visibility map set, so that no
	// round pays for them.
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return fmt.Errorf("VACUUM ANALYZE after loading the data: %w", err)
	}
	return writeMarker(ctx, conn, st.digest(), res)
}

// writeMarker records on the target what data it holds.
func writeMarker(ctx context.Context, conn *pgx.Conn, sum string, res sqlscript.Result) error {
	var skipped []string
	for _, sk := range res.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s × %d (first at line %d)", sk.Reason, sk.Count, sk.Line))
	}
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + replayMarker,
		"CREATE TABLE " + replayMarker + " (sha256 text NOT NULL, statements int, copy_rows bigint, skipped text, loaded timestamptz DEFAULT now())",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("write the replay data marker: %w", err)
		}
	}
	_, err := conn.Exec(ctx, "INSERT INTO "+replayMarker+" (sha256, statements, copy_rows, skipped) VALUES ($1, $2, $3, $4)",
		sum, res.Statements, res.CopyRows, strings.Join(skipped, "; "))
	if err != nil {
		return fmt.Errorf("write the replay data marker: %w", err)
	}
	return nil
}

// scriptError makes a load that failed in replay.data's script say only
// where and why ("replay.data: dump.sql:120: ERROR: …"), not the
// dataset's key: a bad parameter found late (the run that met it is not
// kept, see lab).
func scriptError(err error) error {
	var se *sqlscript.Error
	if errors.As(err, &se) {
		return &study.ParamError{Param: "data", Err: fmt.Errorf("replay.data: %w", se)}
	}
	return err
}

// replayMarkerRow is the marker as read back.
type replayMarkerRow struct {
	sum, skipped string
	statements   int
	copyRows     int64
}

// readMarker reads the marker; ok is false when the target has none.
func readMarker(ctx context.Context, conn *pgx.Conn) (m replayMarkerRow, ok bool, err error) {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", replayMarker).Scan(&exists); err != nil || !exists {
		return m, false, err
	}
	err = conn.QueryRow(ctx, "SELECT sha256, coalesce(statements, 0), coalesce(copy_rows, 0), coalesce(skipped, '') FROM "+replayMarker+" LIMIT 1").
		Scan(&m.sum, &m.statements, &m.copyRows, &m.skipped)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, false, nil
	}
	return m, err == nil, err
}

// loadInPlace loads the data once on a target whose rounds cannot start
// from a clone (a user's server, a named instance): unless its marker
// says it holds that data already. Without replay.data the target's data
// is used as found.
func (st *replayStudy) loadInPlace(ctx context.Context, s *study.Session) error {
	rec := s.In(study.Case{})
	if st.data == nil {
		rec.Note("the data as found on the server: rounds are not reset (pglab resets only servers it started for the run), so each round replays on what the ones before it left")
		return nil
	}
	var m replayMarkerRow
	var ok bool
	err := s.Target.WithPlainConn(ctx, func(conn *pgx.Conn) (err error) {
		m, ok, err = readMarker(ctx, conn)
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case ok && m.sum == st.digest():
		rec.Note("%s was loaded on this server before (pglab's marker says so): not loaded again", filepath.Base(st.data.path))
	case ok:
		return fmt.Errorf("target %s: its data is not what replay.data loaded (pglab's marker %s names other data): refusing to load over it or to replay on it", s.Target.Name, replayMarker)
	default:
		if err := s.LoadData(ctx, st.dataset()); err != nil {
			return scriptError(err)
		}
	}
	rec.Note("data loaded once: rounds are not reset (pglab resets only servers it started for the run), so each round replays on what the ones before it left")
	return nil
}

// checkMarker refuses a target whose data is not what replay.data loaded,
// or that is the server the workload was captured from; in the first
// round it notes how the data loaded.
func (st *replayStudy) checkMarker(ctx context.Context, s *study.Session, rep int) error {
	return s.Target.WithPlainConn(ctx, func(conn *pgx.Conn) error {
		if err := st.checkSourceOn(ctx, s, conn); err != nil {
			return err
		}
		if st.data == nil && !s.Cloneable() {
			return nil
		}
		m, ok, err := readMarker(ctx, conn)
		if err != nil {
			return fmt.Errorf("target %s: read the replay data marker: %w", s.Target.Name, err)
		}
		if !ok || m.sum != st.digest() {
			return fmt.Errorf("target %s: its data is not what replay.data loaded (pglab's marker %s is missing or names other data): refusing to replay on it", s.Target.Name, replayMarker)
		}
		if rep == 1 && st.data != nil {
			text := fmt.Sprintf("replay.data %s (sha256 %s…): %s, %s by COPY, then VACUUM ANALYZE", filepath.Base(st.data.path), m.sum[:12],
				countOf(m.statements, "statement"), countOf(int(m.copyRows), "row"))
			if m.skipped != "" {
				text += "; skipped: " + m.skipped
			}
			st.targets[s.Target.Name].later = append(st.targets[s.Target.Name].later, text)
		}
		return nil
	})
}

// checkSource refuses the server the workload came from (Setup).
func (st *replayStudy) checkSource(ctx context.Context, s *study.Session) error {
	return s.Target.WithPlainConn(ctx, func(conn *pgx.Conn) error { return st.checkSourceOn(ctx, s, conn) })
}

// checkSourceOn compares the target's system identifier with the one the
// capture recorded, and refuses a match.
func (st *replayStudy) checkSourceOn(ctx context.Context, s *study.Session, conn *pgx.Conn) error {
	want := st.wl.Header.Source.SystemIdentifier
	if want == "" {
		return nil
	}
	var id string
	if err := conn.QueryRow(ctx, "SELECT system_identifier::text FROM pg_control_system()").Scan(&id); err != nil {
		return fmt.Errorf("target %s: read its system identifier, to check that it is not the server the workload came from: %w", s.Target.Name, err)
	}
	if id == want {
		return fmt.Errorf("target %s is the server the workload was captured from (system identifier %s): the replay writes, refusing to replay on it", s.Target.Name, id)
	}
	return nil
}

// connector opens the replay's sessions: plain connections with the
// study's statement_timeout.
func (st *replayStudy) connector(s *study.Session) func(context.Context, *replay.Session) (*pgconn.PgConn, error) {
	cfg := s.Target.PlainConfig("pglab replay")
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(s.Params.Duration("statement_timeout").Milliseconds())
	return func(ctx context.Context, _ *replay.Session) (*pgconn.PgConn, error) {
		return pgconn.ConnectConfig(ctx, &cfg.Config)
	}
}
