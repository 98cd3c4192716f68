package replay

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/pglab/pglab/workload"
	"github.com/pglab/pglab/workload/sqltext"
)

// Workload is a workload file in memory, ready to replay: its sessions in
// the order they began, each with its statements in order, and its
// fingerprints in the order first seen.
type Workload struct {
	Header   workload.Header
	End      workload.End
	Sessions []*Session
	FPs      []*FP
	// Statements counts the statements of every session.
	Statements int
	// IDs counts the id sources and the uses of their captured ids.
	IDs IDPlan
	// Commits counts the workload's commits (see Commit order in
	// order.go).
	Commits int
	// FirstUS is the offset of the first statement (of the first session
	// without statements): offset 0 of a replay. Sessions that connected
	// before it connect at once; the log's idle time before it is not
	// replayed.
	FirstUS int64
}

// Session is one captured connection.
type Session struct {
	ID          int64
	Database    string
	User        string
	Application string
	StartUS     int64
	Statements  []Stmt
}

// Stmt is one statement of a session.
type Stmt struct {
	StartUS int64
	// FP is the index of its fingerprint in Workload.FPs.
	FP       int
	Extended bool
	// Name is the prepared statement's name ("" for the unnamed one).
	Name   string
	SQL    string
	Params [][]byte // nil for SQL NULL
	// Error is the SQLSTATE it failed with at capture.
	Error string
	// IDCands are, for an id source (FP.IDSource), the values its
	// captured id may have been, as its session's later statements show;
	// IDUses are the candidates it sends (see Ids in ids.go).
	IDCands []string
	IDUses  []IDUse
	// durationUS is its captured duration; commit numbers it among the
	// workload's commits (-1: it commits nothing) and waitCommits counts
	// the commits that had ended at capture before it began (see Commit
	// order in order.go).
	durationUS  int64
	commit      int
	waitCommits int
}

// FP is a fingerprint: the statements that differ only in constants.
type FP struct {
	ID   string
	Text string
	// Calls counts its statements in the workload; Succeeded those that
	// succeeded at capture.
	Calls, Succeeded int
	// ReadOnly marks a query that only reads (SELECT, VALUES, TABLE, WITH
	// without data-modifying statements): its results are compared across
	// targets.
	ReadOnly bool
	// IDSource marks an INSERT … RETURNING or a call of nextval, currval
	// or lastval: its statements give ids that later ones use.
	IDSource bool
	// QueryIDs are the server's query ids its statements carried at
	// capture (pg_stat_statements' queryid: the source server's, within its
	// major version), in the order first seen; more than one where the
	// server tells apart what the fingerprint does not (a constant and a
	// parameter, lists of other lengths). Empty without compute_query_id.
	QueryIDs []int64
	// Explain is the first of its statements that succeeded at capture and
	// that EXPLAIN takes (one SELECT, INSERT, UPDATE, DELETE, MERGE,
	// VALUES, TABLE or WITH statement), or nil.
	Explain *Stmt
}

// Load reads a workload file into memory. A file of another format
// version, or one truncated, is an error that says so.
func Load(path string) (*Workload, error) {
	r, err := workload.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	w, err := read(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// read reads a workload's records.
func read(r *workload.Reader) (*Workload, error) {
	w := &Workload{Header: r.Header()}
	sessions := map[int64]*Session{}
	fps := map[string]int{}
	first := true
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch v := rec.(type) {
		case *workload.Session:
			s := &Session{ID: v.ID, Database: v.Database, User: v.User, Application: v.Application, StartUS: v.StartUS}
			sessions[v.ID] = s
			w.Sessions = append(w.Sessions, s)
		case *workload.Fingerprint:
			if _, ok := fps[v.ID]; !ok {
				fps[v.ID] = len(w.FPs)
				w.FPs = append(w.FPs, classify(v))
			}
		case *workload.Statement:
			if err := w.add(v, sessions, fps); err != nil {
				return nil, err
			}
			w.FirstUS, first = earliest(w.FirstUS, v.StartUS, first), false
		}
	}
	if first {
		for _, s := range w.Sessions {
			w.FirstUS, first = earliest(w.FirstUS, s.StartUS, first), false
		}
	}
	w.End, _ = r.End()
	sort.SliceStable(w.Sessions, func(i, j int) bool { return w.Sessions[i].StartUS < w.Sessions[j].StartUS })
	w.planIDs()
	w.planCommits()
	return w, nil
}

func earliest(cur, v int64, first bool) int64 {
	if first || v < cur {
		return v
	}
	return cur
}

// add appends a statement to its session.
func (w *Workload) add(v *workload.Statement, sessions map[int64]*Session, fps map[string]int) error {
	s := sessions[v.Session]
	if s == nil {
		return fmt.Errorf("a statement of session %d, which no session record opened", v.Session)
	}
	k, ok := fps[v.Fingerprint]
	if !ok {
		return fmt.Errorf("a statement of fingerprint %s, which no fingerprint record gave", v.Fingerprint)
	}
	st := Stmt{StartUS: v.StartUS, FP: k, Extended: v.Protocol == workload.Extended, Name: v.Name, SQL: v.SQL, Error: v.Error, durationUS: max(v.DurationUS, 0)}
	if st.Extended {
		st.Params = make([][]byte, len(v.Params))
		for i, p := range v.Params {
			if !p.Null {
				st.Params[i] = []byte(p.Value)
			}
		}
	}
	s.Statements = append(s.Statements, st)
	fp := w.FPs[k]
	fp.Calls++
	if v.QueryID != 0 && !slices.Contains(fp.QueryIDs, v.QueryID) {
		fp.QueryIDs = append(fp.QueryIDs, v.QueryID)
	}
	if st.Error == "" {
		fp.Succeeded++
	}
	w.Statements++
	if fp.Explain == nil && st.Error == "" && explainable(fp.Text) {
		c := st
		fp.Explain = &c
	}
	return nil
}

// classify reads what a fingerprint's normalised text says of its
// statements.
func classify(f *workload.Fingerprint) *FP {
	fp := &FP{ID: f.ID, Text: f.Text}
	words := textWords(f.Text)
	if len(words) == 0 {
		return fp
	}
	fp.IDSource = isIDSource(words)
	switch words[0] {
	case "select", "values", "table", "with":
		fp.ReadOnly = true
		for _, w := range words {
			switch w {
			case "insert", "update", "delete", "merge", "into", "nextval", "setval", "currval", "lastval":
				fp.ReadOnly = false
			}
		}
	}
	return fp
}

// explainable reports whether EXPLAIN takes a statement of this
// normalised text: one statement of a kind EXPLAIN shows.
func explainable(text string) bool {
	words := textWords(text)
	if len(words) == 0 || strings.Contains(strings.TrimRight(strings.TrimSpace(text), ";"), ";") {
		return false
	}
	switch words[0] {
	case "select", "insert", "update", "delete", "merge", "values", "table", "with":
		return true
	}
	return false
}

// textWords returns the unquoted words of a normalised text.
func textWords(text string) []string {
	var out []string
	l := sqltext.NewLexer(text)
	for t, ok := l.Next(); ok; t, ok = l.Next() {
		if t.Kind == sqltext.Ident {
			out = append(out, strings.ToLower(t.Text))
		}
	}
	return out
}
