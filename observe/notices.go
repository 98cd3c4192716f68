package observe

import (
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// NoticeLog collects the notices (INFO, NOTICE, WARNING …) a connection
// receives, formatted as psql prints them: "INFO:  message", then
// "DETAIL:  …" and "HINT:  …" lines. VACUUM VERBOSE reports arrive this
// way; ParseVacuumVerbose reads the text.
type NoticeLog struct {
	mu sync.Mutex
	b  strings.Builder
}

// CaptureNotices installs a NoticeLog on cfg (before connecting), keeping
// any handler already there.
func CaptureNotices(cfg *pgx.ConnConfig) *NoticeLog {
	l := &NoticeLog{}
	prev := cfg.OnNotice
	cfg.OnNotice = func(c *pgconn.PgConn, n *pgconn.Notice) {
		l.Add(n)
		if prev != nil {
			prev(c, n)
		}
	}
	return l
}

// Add appends one notice.
func (l *NoticeLog) Add(n *pgconn.Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(FormatNotice(n))
}

// String returns the notices collected so far.
func (l *NoticeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Take returns the notices collected so far and empties the log.
func (l *NoticeLog) Take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

// FormatNotice formats a notice as psql prints it, ending in a newline.
func FormatNotice(n *pgconn.Notice) string {
	var b strings.Builder
	sev := n.Severity
	if sev == "" {
		sev = "NOTICE"
	}
	b.WriteString(sev + ":  " + n.Message + "\n")
	if n.Detail != "" {
		b.WriteString("DETAIL:  " + n.Detail + "\n")
	}
	if n.Hint != "" {
		b.WriteString("HINT:  " + n.Hint + "\n")
	}
	return b.String()
}
