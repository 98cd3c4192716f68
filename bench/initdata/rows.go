package initdata

import (
	"io"
	"strconv"
)

// Table identifies one of the three tables step g fills.
type Table int

// The tables step g fills, in the order it fills them.
const (
	Branches Table = iota
	Tellers
	Accounts
)

// Name returns the table's name.
func (t Table) Name() string {
	return [...]string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts"}[t]
}

// PerScale returns the table's rows per unit of scale.
func (t Table) PerScale() int64 {
	return [...]int64{BranchesPerScale, TellersPerScale, AccountsPerScale}[t]
}

// groupSize returns the rows per branch: 10 tellers, 100000 accounts
// (and 1 branch).
func (t Table) groupSize() int64 {
	switch t {
	case Tellers:
		return TellersPerScale
	case Accounts:
		return AccountsPerScale
	}
	return 1
}

// appendRow appends pgbench's COPY text line for row k (0-based) of t:
// initBranch, initTeller and initAccount's formats.
func (t Table) appendRow(dst []byte, k int64) []byte {
	dst = strconv.AppendInt(dst, k+1, 10)
	if t == Branches {
		return append(dst, "\t0\t\\N\n"...)
	}
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, k/t.groupSize()+1, 10)
	return append(dst, t.suffix()...)
}

// suffix is what follows the id (branches) or the bid (tellers,
// accounts) on a line: the balance and the filler (NULL, or empty for
// the accounts' blank-padded char(84)).
func (t Table) suffix() string {
	if t == Accounts {
		return "\t0\t\n"
	}
	return "\t0\t\\N\n"
}

// endOfData ends pgbench's COPY data.
const endOfData = "\\.\n"

// maxLine bounds one line: two 19-digit numbers and separators.
const maxLine = 64

// rowSource is an io.Reader producing pgbench's COPY text for rows
// [next, end) of a table, whole lines per Read, and reporting them to a
// progress counter as they are produced. It keeps the id's decimal digits
// and counts them up instead of formatting every number.
type rowSource struct {
	table     Table
	next, end int64
	finished  bool
	prog      *progress
	// pending is data to send before row next; it holds pendingRows rows.
	pending     []byte
	pendingRows int64
	// id holds the digits of next+1, group those of the bid of row next
	// (valid up to row groupEnd).
	id, group []byte
	groupEnd  int64
}

func newRowSource(t Table, from, to int64, prog *progress) *rowSource {
	return &rowSource{table: t, next: from, end: to, prog: prog, groupEnd: -1}
}

// Read fills p with whole lines; it needs len(p) of at least maxLine
// bytes.
func (s *rowSource) Read(p []byte) (int, error) {
	if s.finished {
		return 0, io.EOF
	}
	if len(s.pending) > 0 {
		n := copy(p, s.pending)
		s.pending = s.pending[n:]
		if len(s.pending) == 0 && s.prog != nil {
			s.prog.add(s.pendingRows)
		}
		return n, nil
	}
	first := s.next
	buf := p[:0:len(p)]
	if s.next < s.end && s.id == nil {
		s.id = strconv.AppendInt(nil, s.next+1, 10)
	}
	suffix := s.table.suffix()
	gs := s.table.groupSize()
	for s.next < s.end && cap(buf)-len(buf) >= maxLine {
		buf = append(buf, s.id...)
		if s.table != Branches {
			if s.next >= s.groupEnd {
				g := s.next / gs
				s.group = strconv.AppendInt(s.group[:0], g+1, 10)
				s.groupEnd = (g + 1) * gs
			}
			buf = append(buf, '\t')
			buf = append(buf, s.group...)
		}
		buf = append(buf, suffix...)
		s.next++
		s.id = incrementDecimal(s.id)
	}
	if s.next == s.end && cap(buf)-len(buf) >= len(endOfData) {
		buf = append(buf, endOfData...)
		s.finished = true
	}
	if s.prog != nil && s.next > first {
		s.prog.add(s.next - first)
	}
	return len(buf), nil
}

// incrementDecimal adds one to a non-negative number in decimal digits.
func incrementDecimal(d []byte) []byte {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] != '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	return append([]byte{'1'}, d...)
}
