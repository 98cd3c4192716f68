package replay

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pglab/pglab/workload/sqltext"
)

// Ids: a replayed INSERT takes its id from the target's sequence, which
// need not give the value the source gave (sessions interleave otherwise,
// a failed statement consumed a value, …); statements that later use the
// captured id would then miss their row (a foreign-key error, an UPDATE of
// 0 rows) or hit another one. Replay maps the ids: the values an id source
// returns on the target stand for the captured values in every later
// statement, of its own session and of the others.
//
// The log does not show what a statement returned, so the captured value
// of an id source is found from its use. An id source is a statement whose
// text is an INSERT … RETURNING or calls nextval, currval or lastval. Its
// candidates are the integers that its own session sends after it
// (within idWindow statements) and that no statement of the workload sent
// before (new values: the application had them from somewhere, such as
// the source or a query's result). On the target, the source's value is
// the first integer column of its first row that is none of its own
// inputs, and its captured value the candidate nearest to it plus the
// drift its fingerprint's sources showed before in the round (a sequence
// drifts by a steady amount between a capture and a replay, the values
// the work before the log took; a film id or a quantity beside the new id
// lies elsewhere), within idDrift. Every later
// occurrence of a captured value — a bind parameter, or an integer
// constant (plain or quoted) of a simple-protocol or unnamed statement's
// text — is replaced by the target's value once the source has given it;
// an occurrence sent before its source ran on the target (another
// session's timing), or after the source gave no id there (it failed, or
// returned none), is sent as captured. At the end of the round, when
// every source has given its id or none, those are counted: uses of an
// id sent before their source gave it (Early), uses of the numbers a lost
// source may have given (AfterLost; which of them was its id is not
// known), and the failures of the statements that sent them (the
// replay's ids, not the target, made them fail: Round.FPs' IDErrors).
// Occurrences of numbers that turned out not to be ids are not uses.

// idWindow is how many of its session's statements after an id source may
// carry its captured value first.
const idWindow = 10

// IDUse is one occurrence of a captured id in a statement: a bind
// parameter (Param ≥ 0) or the bytes [Start, End) of its text.
type IDUse struct {
	Param      int
	Start, End int
	// Value is the captured id.
	Value string
}

// IDPlan counts what the workload's id sources and uses are.
type IDPlan struct {
	// Sources counts the id sources; Traced those with candidates for
	// their captured value (a later use).
	Sources, Traced int
	// Candidates counts the occurrences of candidates in later
	// statements: an upper bound of the uses of ids (the candidates a
	// source does not take are other numbers).
	Candidates int
}

// idDrift is how far a source's captured value may lie from the value the
// target gave: at most this much, or half the target's value.
const idDrift = 1000

// IDCounts are what a round did with the ids.
type IDCounts struct {
	// Produced counts the traced id sources that gave an id on the
	// target; Lost those that gave none (they failed, or returned no
	// integer that was not an input).
	Produced, Lost int
	// Mapped counts the uses of ids sent with the target's id (Changed of
	// them with an id other than the captured one); Early the uses sent as
	// captured because their source gave the id only later in the round;
	// AfterLost the uses of the numbers a lost source may have given, sent
	// as captured.
	Mapped, Changed, Early, AfterLost int
}

// Add adds o to c.
func (c *IDCounts) Add(o IDCounts) {
	c.Produced += o.Produced
	c.Lost += o.Lost
	c.Mapped += o.Mapped
	c.Changed += o.Changed
	c.Early += o.Early
	c.AfterLost += o.AfterLost
}

// isIDSource reports whether a normalised text's statements give ids: an
// INSERT with RETURNING, or a call of nextval, currval or lastval.
func isIDSource(words []string) bool {
	insert, returning := false, false
	for _, w := range words {
		switch w {
		case "nextval", "currval", "lastval":
			return true
		case "insert":
			insert = true
		case "returning":
			returning = true
		}
	}
	return insert && returning
}

// integersOf returns the integers a statement sends: its bind parameters
// whose text is an integer, and, when its text may be rewritten (simple
// protocol or the unnamed statement), its integer constants, plain or
// in single quotes.
func integersOf(st *Stmt) []IDUse {
	var out []IDUse
	for i, p := range st.Params {
		if p != nil && isInteger(string(p)) {
			out = append(out, IDUse{Param: i, Value: string(p)})
		}
	}
	if st.Extended && st.Name != "" {
		return out
	}
	pos := 0
	for _, t := range sqltext.Tokens(st.SQL) {
		switch t.Kind {
		case sqltext.Number:
			if isInteger(t.Text) {
				out = append(out, IDUse{Param: -1, Start: pos, End: pos + len(t.Text), Value: t.Text})
			}
		case sqltext.String:
			if len(t.Text) > 2 && t.Text[0] == '\'' && t.Text[len(t.Text)-1] == '\'' && isInteger(t.Text[1:len(t.Text)-1]) {
				out = append(out, IDUse{Param: -1, Start: pos + 1, End: pos + len(t.Text) - 1, Value: t.Text[1 : len(t.Text)-1]})
			}
		}
		pos += len(t.Text)
	}
	return out
}

// isInteger reports whether s is a decimal integer of at most 19 digits
// with no sign, leading zero or separator (the text form of an id).
func isInteger(s string) bool {
	if len(s) == 0 || len(s) > 19 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// stmtRef is a statement's place: its session and index there.
type stmtRef struct{ s, i int }

// planIDs finds the workload's id sources, their captured values and
// their uses (see Ids above), and sets Stmt.IDValue and Stmt.IDUses.
func (w *Workload) planIDs() {
	order := w.globalOrder()
	ints := map[stmtRef][]IDUse{}
	first := map[string]stmtRef{} // a value's first occurrence
	for _, ref := range order {
		us := integersOf(&w.Sessions[ref.s].Statements[ref.i])
		ints[ref] = us
		for _, u := range us {
			if _, ok := first[u.Value]; !ok {
				first[u.Value] = ref
			}
		}
	}
	cand := map[string]bool{} // a value some source may have given
	for si, s := range w.Sessions {
		var pending []int
		for i := range s.Statements {
			st := &s.Statements[i]
			pending = slices.DeleteFunc(pending, func(k int) bool { return i-k > idWindow })
			for _, u := range ints[stmtRef{si, i}] {
				if first[u.Value] != (stmtRef{si, i}) {
					continue
				}
				for _, k := range pending {
					src := &s.Statements[k]
					if !slices.Contains(src.IDCands, u.Value) {
						src.IDCands = append(src.IDCands, u.Value)
						cand[u.Value] = true
					}
				}
			}
			if w.FPs[st.FP].IDSource {
				w.IDs.Sources++
				pending = append(pending, i)
			}
		}
	}
	for _, s := range w.Sessions {
		for i := range s.Statements {
			if len(s.Statements[i].IDCands) > 0 {
				w.IDs.Traced++
			}
		}
	}
	for _, ref := range order {
		st := &w.Sessions[ref.s].Statements[ref.i]
		for _, u := range ints[ref] {
			if cand[u.Value] {
				st.IDUses = append(st.IDUses, u)
				w.IDs.Candidates++
			}
		}
	}
}

// globalOrder returns every statement's place in the order the source
// sent them (start time, then session order).
func (w *Workload) globalOrder() []stmtRef {
	var out []stmtRef
	for si, s := range w.Sessions {
		for i := range s.Statements {
			out = append(out, stmtRef{si, i})
		}
	}
	slices.SortStableFunc(out, func(a, b stmtRef) int {
		return cmp.Compare(w.Sessions[a.s].Statements[a.i].StartUS, w.Sessions[b.s].Statements[b.i].StartUS)
	})
	return out
}

// idMap holds a round's ids: captured value → the target's, the
// candidates that sources passed over (other values) and those of sources
// that gave no id (lost). Its sessions share it.
type idMap struct {
	mu    sync.Mutex
	m     map[string]string
	other map[string]bool
	lost  map[string]bool
	// drift is each fingerprint's last captured value minus the target's.
	drift map[int]float64
}

func newIDMap() *idMap {
	return &idMap{m: map[string]string{}, other: map[string]bool{}, lost: map[string]bool{}, drift: map[int]float64{}}
}

// rewrite returns the statement's text and parameters with each captured
// id it uses replaced by the target's value where there is one, counts
// the uses mapped, and returns the candidates it sent as captured (known
// to be ids or not at the end of the round: see unsent).
func (m *idMap) rewrite(st *Stmt, c *IDCounts) (string, [][]byte, []string) {
	if len(st.IDUses) == 0 {
		return st.SQL, st.Params, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	params := st.Params
	var sql strings.Builder
	var asCaptured []string
	at := 0
	copied := false
	for _, u := range st.IDUses {
		v, ok := m.m[u.Value]
		if !ok {
			if !m.other[u.Value] {
				asCaptured = append(asCaptured, u.Value)
			}
			continue
		}
		c.Mapped++
		if v == u.Value {
			continue
		}
		c.Changed++
		if u.Param >= 0 {
			if !copied {
				params, copied = slices.Clone(st.Params), true
			}
			params[u.Param] = []byte(v)
			continue
		}
		sql.WriteString(st.SQL[at:u.Start])
		sql.WriteString(v)
		at = u.End
	}
	if at == 0 {
		return st.SQL, params, asCaptured
	}
	sql.WriteString(st.SQL[at:])
	return sql.String(), params, asCaptured
}

// unsent counts, at the end of a round, the candidates sent as captured:
// uses of an id its source gave later (early), of the numbers of a source
// that gave none (afterLost); the others were not ids. It reports whether
// any was a use of an id.
func (m *idMap) unsent(values []string, c *IDCounts) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	use := false
	for _, v := range values {
		switch {
		case m.other[v]:
		case m.m[v] != "":
			c.Early++
			use = true
		case m.lost[v]:
			c.AfterLost++
			use = true
		}
	}
	return use
}

// produced records the value an id source gave on the target: the first
// integer column of its first row that is none of the statement's own
// (rewritten) inputs; the candidate nearest to it, within idDrift, is
// the captured value it stands for.
func (m *idMap) produced(st *Stmt, row [][]byte, sql string, params [][]byte, c *IDCounts) {
	inputSet := map[string]bool{}
	for _, u := range integersOf(&Stmt{SQL: sql, Params: params, Extended: st.Extended, Name: st.Name}) {
		inputSet[u.Value] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range row {
		if v == nil || !isInteger(string(v)) || inputSet[string(v)] {
			continue
		}
		if x := m.nearest(st.IDCands, string(v), m.drift[st.FP]); x != "" {
			m.m[x] = string(v)
			xv, _ := strconv.ParseFloat(x, 64)
			yv, _ := strconv.ParseFloat(string(v), 64)
			m.drift[st.FP] = xv - yv
			for _, o := range st.IDCands {
				if o != x {
					m.other[o] = true
				}
			}
			c.Produced++
			return
		}
		break
	}
	c.Lost++
	for _, x := range st.IDCands {
		if _, taken := m.m[x]; !taken && !m.other[x] {
			m.lost[x] = true
		}
	}
}

// nearest returns the candidate not yet taken that lies nearest to the
// target's value y plus drift, within idDrift (or half of y) of y, or "".
func (m *idMap) nearest(cands []string, y string, drift float64) string {
	yv, _ := strconv.ParseFloat(y, 64)
	limit := math.Max(idDrift, yv/2)
	best, bestD := "", math.Inf(1)
	for _, x := range cands {
		if _, taken := m.m[x]; taken {
			continue
		}
		xv, _ := strconv.ParseFloat(x, 64)
		if math.Abs(xv-yv) > limit {
			continue
		}
		if d := math.Abs(xv - yv - drift); d < bestD {
			best, bestD = x, d
		}
	}
	return best
}
