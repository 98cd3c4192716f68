package capture

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/workload"
	"github.com/pglab/pglab/workload/sqltext"
)

// Reasons for what a capture could not take, as the summary and the
// workload's end record name them.
const (
	SkipCopyFromStdin = "COPY FROM STDIN statements (their data is not in the log)"
	SkipFastpath      = "fast-path function calls (large objects; no SQL text in the log)"
	SkipOtherDatabase = "statements of other databases (--database)"
	SkipUnknownDB     = "statements whose database the log does not tell (--database given)"
	SkipBackground    = "statements of background processes (not client backends)"
	SkipErrorNoText   = "errors logged without their statement (log_min_error_statement)"
	SkipNotUTF8       = "statements whose text or parameters are not valid UTF-8"
	SkipUnknownShape  = "log lines of unknown shape"
	SkipTruncated     = "truncated last records (--allow-truncated)"
	SkipFetch         = "portal fetches (execute fetch from: later parts of a statement already taken)"
	SkipPglab         = "statements of pglab's own sessions (application_name pglab…)"
	SkipEmpty         = "empty statements (a client's ping)"
)

// sink receives the workload's records (a *workload.Writer).
type sink interface {
	Session(*workload.Session) error
	Fingerprint(workload.Fingerprint) error
	Statement(*workload.Statement) error
	SessionEnd(workload.SessionEnd) error
}

// session is the state of one open session.
type session struct {
	key         string
	id          int64 // its workload ID; 0 until written
	db, user    string
	app         string
	startUS     int64
	connected   bool
	authorized  bool
	background  bool
	statements  int64
	pending     *workload.Statement // a log_statement line awaiting its duration
	swallow     bool                // the next bare duration belongs to a fetch or fast-path call
	prepUS      int64               // start of the Parse/Bind before the next Execute
	hasPrep     bool
	bindSQL     string
	bindName    string
	bindParams  []workload.Param
	bindHasArgs bool
	// prepQueryID is the query id of the Parse or Bind before the next
	// Execute (the log's, 0 when none).
	prepQueryID int64
	lastEndUS   int64
}

// assembler turns log entries into workload records.
type assembler struct {
	out      sink
	origin   int64 // µs since the epoch of offset 0
	database string
	keyByPID bool

	sessions map[string]*session
	nextID   int64
	norm     sqltext.Normalizer
	fpCache  map[string]sqltext.Fingerprint
	fpSeen   map[string]bool
	skips    map[string]int64
	counts   Counts
}

// fpCacheSize bounds the cache of fingerprints by statement text.
const fpCacheSize = 2048

func newAssembler(out sink, origin int64, database string, keyByPID bool) *assembler {
	return &assembler{out: out, origin: origin, database: database, keyByPID: keyByPID,
		sessions: map[string]*session{}, fpCache: map[string]sqltext.Fingerprint{},
		fpSeen: map[string]bool{}, skips: map[string]int64{}}
}

// handle takes one entry.
func (a *assembler) handle(e *entry) error {
	key := e.session
	if a.keyByPID {
		key = ""
		if e.pid != "" {
			key = "pid:" + e.pid
		}
	}
	if key == "" {
		return nil
	}
	switch e.severity {
	case "LOG":
		return a.log(e, key, parseMessage(e.message))
	case "ERROR", "FATAL", "PANIC":
		return a.failed(e, key)
	}
	return nil
}

// log takes a LOG message.
func (a *assembler) log(e *entry, key string, m message) error {
	if m.kind == mOther {
		return nil
	}
	if m.kind == mConnReceived {
		if err := a.endSession(key, e.time, false); err != nil {
			return err
		}
		s := a.session(key, e)
		s.connected = true
		return nil
	}
	if m.kind == mDisconnection {
		return a.endSession(key, e.time, true)
	}
	s := a.session(key, e)
	switch m.kind {
	case mConnAuthorized:
		s.authorized = true
		s.user = orElse(s.user, connField(m.rest, "user"))
		s.db = orElse(s.db, connField(m.rest, "database"))
		s.app = orElse(s.app, connField(m.rest, "application_name"))
	case mReplConn:
		s.background = true
	case mStatement, mExecute:
		return a.statement(s, e, m)
	case mParse, mBind:
		s.notePrep(e.time - m.durUS)
		if e.queryID != 0 {
			s.prepQueryID = e.queryID
		}
		if m.kind == mBind {
			s.bindSQL, s.bindName = m.sql, m.name
			s.bindParams, s.bindHasArgs = parseParams(e.detail)
		}
	case mFetch, mFastpath:
		return a.uncounted(s, m)
	case mDuration:
		return a.duration(s, e, m)
	}
	return nil
}

// statement takes a statement or execute line: complete with its duration
// (log_min_duration_statement), or pending until its duration line
// (log_statement).
func (a *assembler) statement(s *session, e *entry, m message) error {
	if err := a.flushPending(s); err != nil {
		return err
	}
	st := &workload.Statement{Protocol: workload.Simple, SQL: m.sql, DurationUS: m.durUS, QueryID: e.queryID}
	if m.kind == mExecute {
		st.Protocol, st.Name = workload.Extended, m.name
		if st.QueryID == 0 {
			st.QueryID = s.prepQueryID
		}
		if p, ok := parseParams(e.detail); ok {
			st.Params = p
		} else if s.bindHasArgs && s.bindSQL == m.sql {
			st.Params = s.bindParams
		}
	}
	start := e.time
	if m.durUS >= 0 {
		start -= m.durUS
	}
	if st.Protocol == workload.Extended && s.hasPrep && s.prepUS < start {
		start = s.prepUS
	}
	st.StartUS = start - a.origin
	if m.durUS < 0 {
		s.pending = st
		return nil
	}
	return a.emit(s, st)
}

// duration takes a bare duration line: the end of the pending statement,
// of a fetch or fast-path call, or of a Parse or Bind.
func (a *assembler) duration(s *session, e *entry, m message) error {
	switch {
	case s.pending != nil:
		st := s.pending
		s.pending = nil
		st.DurationUS = m.durUS
		if e.queryID != 0 {
			st.QueryID = e.queryID // known once the statement was parsed
		}
		return a.emit(s, st)
	case s.swallow:
		s.swallow = false
	default:
		s.notePrep(e.time - m.durUS)
		if e.queryID != 0 {
			s.prepQueryID = e.queryID
		}
	}
	return nil
}

// uncounted takes a fetch from a portal or a fast-path call: not a
// statement of the workload, counted.
func (a *assembler) uncounted(s *session, m message) error {
	if err := a.flushPending(s); err != nil {
		return err
	}
	if m.kind == mFetch {
		a.skips[SkipFetch]++
	} else if a.keep(s) {
		a.skips[SkipFastpath]++
	}
	s.swallow = m.durUS < 0
	s.hasPrep, s.prepQueryID = false, 0
	return nil
}

// failed takes an ERROR, FATAL or PANIC: the failure of the pending
// statement, or a statement logged only by its error (its text in the
// entry's query, per log_min_error_statement).
func (a *assembler) failed(e *entry, key string) error {
	s := a.sessions[key]
	if s == nil && (e.query == "" || !isClient(e)) {
		return nil
	}
	if s == nil {
		s = a.session(key, e)
	}
	code := e.sqlstate
	if code == "" {
		code = "error"
	}
	if s.pending != nil && (e.query == "" || e.query == s.pending.SQL) {
		st := s.pending
		s.pending = nil
		st.Error = code
		return a.emit(s, st)
	}
	if e.query == "" {
		if e.severity == "ERROR" && a.keep(s) {
			a.skips[SkipErrorNoText]++
		}
		return nil
	}
	if err := a.flushPending(s); err != nil {
		return err
	}
	st := &workload.Statement{Protocol: workload.Simple, SQL: e.query, DurationUS: -1, Error: code, QueryID: e.queryID}
	if e.tag == "PARSE" || e.tag == "BIND" || s.bindSQL == e.query || s.hasPrep {
		st.Protocol = workload.Extended
		if st.QueryID == 0 {
			st.QueryID = s.prepQueryID
		}
		if s.bindSQL == e.query && s.bindHasArgs {
			st.Params, st.Name = s.bindParams, s.bindName
		}
	}
	start := e.time
	if s.hasPrep && s.prepUS < start {
		start = s.prepUS
	}
	st.StartUS = start - a.origin
	return a.emit(s, st)
}

// isClient reports whether an entry comes from a client backend (or the
// log does not say).
func isClient(e *entry) bool {
	return e.backend == "" || e.backend == "client backend"
}

// session returns the state of key's session, opening it at e when new.
func (a *assembler) session(key string, e *entry) *session {
	s := a.sessions[key]
	if s == nil {
		s = &session{key: key, startUS: e.time - a.origin}
		s.lastEndUS = s.startUS
		a.sessions[key] = s
	}
	s.db = orElse(s.db, e.db)
	s.user = orElse(s.user, e.user)
	s.app = orElse(s.app, e.app)
	if !isClient(e) && e.backend != "not initialized" {
		s.background = true
	}
	return s
}

func orElse(have, v string) string {
	if have != "" {
		return have
	}
	return v
}

func (s *session) notePrep(us int64) {
	if !s.hasPrep || us < s.prepUS {
		s.prepUS, s.hasPrep = us, true
	}
}

// flushPending takes the pending statement as it is (no duration known).
func (a *assembler) flushPending(s *session) error {
	if s.pending == nil {
		return nil
	}
	st := s.pending
	s.pending = nil
	return a.emit(s, st)
}

// keep reports whether the session's statements go into the workload,
// counting those that do not by reason.
func (a *assembler) keep(s *session) bool {
	return a.skipReason(s) == ""
}

func (a *assembler) skipReason(s *session) string {
	switch {
	case s.background:
		return SkipBackground
	case strings.HasPrefix(s.app, "pglab"):
		return SkipPglab
	case a.database != "" && s.db == "":
		return SkipUnknownDB
	case a.database != "" && s.db != a.database:
		return SkipOtherDatabase
	}
	return ""
}

// emit writes a statement, or counts why it cannot.
func (a *assembler) emit(s *session, st *workload.Statement) error {
	s.hasPrep, s.bindSQL, s.bindParams, s.bindHasArgs, s.prepQueryID = false, "", nil, false, 0
	if r := a.skipReason(s); r != "" {
		a.skips[r]++
		return nil
	}
	if sqltext.IsCopyFromStdin(st.SQL) {
		a.skips[SkipCopyFromStdin]++
		return nil
	}
	if strings.Trim(st.SQL, "; \t\r\n") == "" {
		a.skips[SkipEmpty]++
		return nil
	}
	if !validUTF8(st) {
		a.skips[SkipNotUTF8]++
		return nil
	}
	if redactStatement(st) {
		a.counts.Redacted++
	}
	if st.StartUS < s.lastEndUS {
		st.StartUS = s.lastEndUS
	}
	s.lastEndUS = st.StartUS + max(st.DurationUS, 0)
	fp, err := a.fingerprint(st.SQL)
	if err != nil {
		return err
	}
	st.Fingerprint = fp
	if err := a.writeSession(s); err != nil {
		return err
	}
	st.Session = s.id
	s.statements++
	a.counts.add(st)
	return a.out.Statement(st)
}

// fingerprint returns the ID of sql's fingerprint, writing the
// fingerprint record the first time.
func (a *assembler) fingerprint(sql string) (string, error) {
	fp, ok := a.fpCache[sql]
	if !ok {
		fp = a.norm.Normalize(sql)
		if len(a.fpCache) >= fpCacheSize {
			clear(a.fpCache)
		}
		a.fpCache[sql] = fp
	}
	if !a.fpSeen[fp.ID] {
		a.fpSeen[fp.ID] = true
		if err := a.out.Fingerprint(workload.Fingerprint{ID: fp.ID, Text: fp.Text}); err != nil {
			return "", err
		}
	}
	return fp.ID, nil
}

// writeSession writes the session record once.
func (a *assembler) writeSession(s *session) error {
	if s.id != 0 {
		return nil
	}
	a.nextID++
	s.id = a.nextID
	return a.out.Session(&workload.Session{ID: s.id, Key: s.key, Database: s.db, User: s.user,
		Application: s.app, StartUS: s.startUS, Connected: s.connected})
}

// endSession closes key's session at t: its pending statement taken, its
// end written when disconnected (a session without statements is written
// when it was authorized, so that connection churn is part of the
// workload).
func (a *assembler) endSession(key string, t int64, disconnected bool) error {
	s := a.sessions[key]
	if s == nil {
		return nil
	}
	delete(a.sessions, key)
	if err := a.flushPending(s); err != nil {
		return err
	}
	if !a.keep(s) || (s.id == 0 && !s.authorized) {
		return nil
	}
	if err := a.writeSession(s); err != nil {
		return err
	}
	if !disconnected {
		return nil
	}
	return a.out.SessionEnd(workload.SessionEnd{Session: s.id, EndUS: max(t-a.origin, s.lastEndUS)})
}

// finish closes the sessions still open at the end of the log, in the
// order they began.
func (a *assembler) finish() error {
	open := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	sort.Slice(open, func(i, j int) bool {
		if open[i].startUS != open[j].startUS {
			return open[i].startUS < open[j].startUS
		}
		return open[i].key < open[j].key
	})
	for _, s := range open {
		if err := a.endSession(s.key, 0, false); err != nil {
			return err
		}
	}
	return nil
}

// validUTF8 reports whether a statement's text and parameters are UTF-8.
func validUTF8(st *workload.Statement) bool {
	if !utf8.ValidString(st.SQL) {
		return false
	}
	for _, p := range st.Params {
		if !utf8.ValidString(p.Value) {
			return false
		}
	}
	return true
}

// redactStatement masks the passwords of a statement and its parameters
// and reports whether it masked any.
func redactStatement(st *workload.Statement) bool {
	sql, params, changed := sqltext.RedactPasswords(st.SQL)
	st.SQL = sql
	for _, n := range params {
		if n >= 1 && n <= len(st.Params) && !st.Params[n-1].Null {
			st.Params = append([]workload.Param(nil), st.Params...)
			st.Params[n-1] = workload.Param{Value: redact.Mask}
			changed = true
		}
	}
	if mayHoldSecret(st.SQL) {
		if r := redact.Text(st.SQL); r != st.SQL {
			st.SQL, changed = r, true
		}
	}
	for i, p := range st.Params {
		if mayHoldSecret(p.Value) {
			if r := redact.Text(p.Value); r != p.Value {
				st.Params = append([]workload.Param(nil), st.Params...)
				st.Params[i].Value, changed = r, true
			}
		}
	}
	return changed
}

// mayHoldSecret is a cheap test before redact.Text: a URL or a
// password key.
func mayHoldSecret(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	for i := strings.IndexAny(s, "pP"); i >= 0 && i+5 <= len(s); {
		if w := s[i : i+5]; strings.EqualFold(w, "passw") {
			return true
		}
		j := strings.IndexAny(s[i+1:], "pP")
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}
