package initdata

import (
	"encoding/binary"
	"io"
	"math"
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

// colKind says what a generated column holds for row k (0-based).
type colKind int

const (
	colID    colKind = iota // k+1
	colGroup                // k/groupSize+1: a teller's or account's bid
	colZero                 // 0: the balances
	colNull                 // NULL: the branches' and tellers' filler
	colEmpty                // '': the accounts' filler, blank-padded by char(n)
)

// columns returns what pgbench writes into each column of t, in order.
func (t Table) columns() []colKind {
	switch t {
	case Branches:
		return []colKind{colID, colZero, colNull}
	case Tellers:
		return []colKind{colID, colGroup, colZero, colNull}
	default:
		return []colKind{colID, colGroup, colZero, colEmpty}
	}
}

// groupSize returns the rows per branch: 10 tellers, 100000 accounts.
func (t Table) groupSize() int64 {
	if t == Tellers {
		return TellersPerScale
	}
	return AccountsPerScale
}

// Type OIDs of the column types binary COPY knows how to send.
const (
	oidInt8   = 20
	oidInt4   = 23
	oidBpchar = 1042
)

// binaryHeader starts every binary COPY stream: signature, flags,
// header-extension length.
var binaryHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// rowFormat encodes the rows of one table in one COPY format.
type rowFormat struct {
	table  Table
	binary bool
	// Binary: one row with constant parts filled in, and where the
	// varying values go (width 4 or 8; groupOff < 0 when absent).
	tmpl              []byte
	idOff, idWidth    int
	groupOff, grpWide int
}

// textFormat returns pgbench's text rows for t.
func textFormat(t Table) *rowFormat { return &rowFormat{table: t} }

// binaryFormat returns binary rows for t given the type OIDs of the
// table's columns (in order, dropped and generated columns left out), or
// nil when binary COPY cannot send the same values: other column types,
// another column count, or ids beyond an int column's range (which
// pgbench's text COPY would make the server reject).
func binaryFormat(t Table, types []uint32, maxID int64) *rowFormat {
	kinds := t.columns()
	if len(types) != len(kinds) {
		return nil
	}
	f := &rowFormat{table: t, binary: true, groupOff: -1}
	f.tmpl = binary.BigEndian.AppendUint16(nil, uint16(len(kinds)))
	for i, k := range kinds {
		switch k {
		case colNull, colEmpty:
			if types[i] != oidBpchar {
				return nil
			}
			n := uint32(0)
			if k == colNull {
				n = math.MaxUint32 // -1: NULL
			}
			f.tmpl = binary.BigEndian.AppendUint32(f.tmpl, n)
			continue
		}
		var w int
		switch types[i] {
		case oidInt4:
			w = 4
		case oidInt8:
			w = 8
		default:
			return nil
		}
		if w == 4 && k == colID && maxID > math.MaxInt32 {
			return nil
		}
		f.tmpl = binary.BigEndian.AppendUint32(f.tmpl, uint32(w))
		switch k {
		case colID:
			f.idOff, f.idWidth = len(f.tmpl), w
		case colGroup:
			f.groupOff, f.grpWide = len(f.tmpl), w
		}
		f.tmpl = append(f.tmpl, make([]byte, w)...)
	}
	return f
}

// appendText appends pgbench's text line for row k (0-based).
func (f *rowFormat) appendText(dst []byte, k int64) []byte {
	dst = strconv.AppendInt(dst, k+1, 10)
	switch f.table {
	case Branches:
		return append(dst, "\t0\t\\N\n"...)
	case Tellers:
		dst = append(dst, '\t')
		dst = strconv.AppendInt(dst, k/TellersPerScale+1, 10)
		return append(dst, "\t0\t\\N\n"...)
	default:
		dst = append(dst, '\t')
		dst = strconv.AppendInt(dst, k/AccountsPerScale+1, 10)
		return append(dst, "\t0\t\n"...)
	}
}

func putInt(b []byte, width int, v int64) {
	if width == 4 {
		binary.BigEndian.PutUint32(b, uint32(v))
	} else {
		binary.BigEndian.PutUint64(b, uint64(v))
	}
}

// rowSource is an io.Reader producing the COPY data of rows [next, end)
// of a table, whole rows per Read, and reporting them to a progress
// counter as they are produced.
type rowSource struct {
	f         *rowFormat
	next, end int64
	started   bool
	finished  bool
	prog      *progress
	// pending is data to send before row next; it holds pendingRows rows.
	pending     []byte
	pendingRows int64
}

func newRowSource(f *rowFormat, from, to int64, prog *progress) *rowSource {
	return &rowSource{f: f, next: from, end: to, prog: prog}
}

// maxTextLine bounds one text line: two 19-digit numbers and separators.
const maxTextLine = 64

// encode writes row k (0-based) at the start of dst, which must hold
// maxTextLine bytes or one binary row, and returns its length.
func (f *rowFormat) encode(dst []byte, k int64) int {
	if !f.binary {
		return len(f.appendText(dst[:0], k))
	}
	size := len(f.tmpl)
	b := dst[:size]
	copy(b, f.tmpl)
	putInt(b[f.idOff:], f.idWidth, k+1)
	if f.groupOff >= 0 {
		putInt(b[f.groupOff:], f.grpWide, k/f.table.groupSize()+1)
	}
	return size
}

// tail returns what ends the COPY data: the binary trailer, or pgbench's
// end-of-data line.
func (f *rowFormat) tail() []byte {
	if f.binary {
		return []byte{0xff, 0xff}
	}
	return []byte("\\.\n")
}

// Read fills p with whole rows; it needs len(p) of at least 64 bytes.
func (s *rowSource) Read(p []byte) (int, error) {
	if s.finished {
		return 0, io.EOF
	}
	n := 0
	if !s.started && s.f.binary {
		n = copy(p, binaryHeader)
	}
	s.started = true
	if len(s.pending) > 0 {
		c := copy(p[n:], s.pending)
		s.pending = s.pending[c:]
		if len(s.pending) == 0 && s.prog != nil {
			s.prog.add(s.pendingRows)
		}
		return n + c, nil
	}
	first := s.next
	rowMax := maxTextLine
	if s.f.binary {
		rowMax = len(s.f.tmpl)
	}
	for s.next < s.end && len(p)-n >= rowMax {
		n += s.f.encode(p[n:], s.next)
		s.next++
	}
	if s.next == s.end {
		tail := s.f.tail()
		if len(p)-n >= len(tail) {
			n += copy(p[n:], tail)
			s.finished = true
		}
	}
	if s.prog != nil && s.next > first {
		s.prog.add(s.next - first)
	}
	return n, nil
}
