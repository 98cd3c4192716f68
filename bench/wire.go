package bench

import (
	"encoding/binary"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// This file encodes the frontend messages of PostgreSQL's protocol 3 that the
// hot path sends, into reused buffers, and decodes the backend messages it
// reads. Connection start-up and authentication stay with pgconn.

// appendMsgStart starts a message of type typ, leaving room for its length;
// finishMsg fills the length in.
func appendMsgStart(b []byte, typ byte) ([]byte, int) {
	start := len(b)
	b = append(b, typ, 0, 0, 0, 0)
	return b, start
}

func finishMsg(b []byte, start int) []byte {
	binary.BigEndian.PutUint32(b[start+1:], uint32(len(b)-start-1))
	return b
}

// appendQuery appends a simple-protocol Query message.
func appendQuery(b []byte, sql []byte) []byte {
	b, s := appendMsgStart(b, 'Q')
	b = append(b, sql...)
	b = append(b, 0)
	return finishMsg(b, s)
}

// appendParse appends a Parse message for a statement named name (empty for
// the unnamed statement), with no parameter types given (the server infers
// them, as libpq does when pgbench passes no types).
func appendParse(b []byte, name, sql string) []byte {
	b, s := appendMsgStart(b, 'P')
	b = append(b, name...)
	b = append(b, 0)
	b = append(b, sql...)
	b = append(b, 0, 0, 0)
	return finishMsg(b, s)
}

// appendBindStart begins a Bind of statement name to the unnamed portal with
// n text parameters; the caller appends each parameter with appendBindParam
// and finishes with appendBindEnd.
func appendBindStart(b []byte, name string, n int) ([]byte, int) {
	b, s := appendMsgStart(b, 'B')
	b = append(b, 0) // unnamed portal
	b = append(b, name...)
	b = append(b, 0)
	b = append(b, 0, 0) // no parameter format codes: all text
	b = append(b, byte(n>>8), byte(n))
	return b, s
}

func appendBindParam(b []byte, data []byte, null bool) []byte {
	if null {
		return append(b, 0xff, 0xff, 0xff, 0xff)
	}
	n := len(data)
	b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	return append(b, data...)
}

func appendBindEnd(b []byte, start int) []byte {
	b = append(b, 0, 0) // no result format codes: all text
	return finishMsg(b, start)
}

// appendDescribePortal asks for the unnamed portal's row description (needed
// only when the result's column names are used, for \gset and \aset).
func appendDescribePortal(b []byte) []byte {
	return append(b, 'D', 0, 0, 0, 6, 'P', 0)
}

// appendExecute executes the unnamed portal to completion.
func appendExecute(b []byte) []byte {
	return append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
}

// appendSync ends an extended-protocol batch.
func appendSync(b []byte) []byte {
	return append(b, 'S', 0, 0, 0, 4)
}

// appendTerminate is the polite goodbye.
func appendTerminate(b []byte) []byte {
	return append(b, 'X', 0, 0, 0, 4)
}

// serverError is the content of an ErrorResponse (or NoticeResponse) that the
// engine reports.
type serverError struct {
	Severity string
	Code     string
	Message  string
	Detail   string
	Hint     string
	Context  string
	Position int
}

// pgError returns the message as pgconn's error type, the form
// pgnet.Lost classifies.
func (e serverError) pgError() *pgconn.PgError {
	return &pgconn.PgError{Severity: e.Severity, Code: e.Code, Message: e.Message, Detail: e.Detail, Hint: e.Hint, Where: e.Context}
}

// parseErrorFields decodes the fields of an ErrorResponse/NoticeResponse body.
func parseErrorFields(body []byte) serverError {
	var e serverError
	for len(body) > 0 && body[0] != 0 {
		f := body[0]
		body = body[1:]
		i := 0
		for i < len(body) && body[i] != 0 {
			i++
		}
		v := string(body[:i])
		if i < len(body) {
			body = body[i+1:]
		} else {
			body = nil
		}
		switch f {
		case 'S':
			if e.Severity == "" {
				e.Severity = v
			}
		case 'V':
			e.Severity = v
		case 'C':
			e.Code = v
		case 'M':
			e.Message = v
		case 'D':
			e.Detail = v
		case 'H':
			e.Hint = v
		case 'W':
			e.Context = v
		case 'P':
			n := 0
			for _, c := range v {
				if c < '0' || c > '9' {
					n = 0
					break
				}
				n = n*10 + int(c-'0')
			}
			e.Position = n
		}
	}
	return e
}

// libpqText formats the error as libpq's PQerrorMessage does in its default
// verbosity: "ERROR:  message", then DETAIL, HINT and CONTEXT lines, and for a
// position in the query the "LINE n: ..." line with a caret under it.
func (e serverError) libpqText(query string) string {
	var sb strings.Builder
	sb.WriteString(e.Severity)
	sb.WriteString(":  ")
	sb.WriteString(e.Message)
	sb.WriteByte('\n')
	if e.Position > 0 && query != "" {
		writeErrorLine(&sb, query, e.Position)
	}
	if e.Detail != "" {
		sb.WriteString("DETAIL:  " + e.Detail + "\n")
	}
	if e.Hint != "" {
		sb.WriteString("HINT:  " + e.Hint + "\n")
	}
	if e.Context != "" {
		sb.WriteString("CONTEXT:  " + e.Context + "\n")
	}
	return sb.String()
}

// writeErrorLine writes libpq's "LINE n: <text>" and caret lines for a
// 1-based character position in query (a simplified reportErrorPosition: the
// line is shown whole, no ellipses).
func writeErrorLine(sb *strings.Builder, query string, pos int) {
	runes := []rune(query)
	if pos > len(runes) {
		return
	}
	line, lineStart := 1, 0
	for i := 0; i < pos-1; i++ {
		if runes[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	end := lineStart
	for end < len(runes) && runes[end] != '\n' && runes[end] != '\r' {
		end++
	}
	prefix := "LINE " + itoa(line) + ": "
	sb.WriteString(prefix)
	sb.WriteString(string(runes[lineStart:end]))
	sb.WriteByte('\n')
	col := len(prefix)
	for _, r := range runes[lineStart : pos-1] {
		if r == '\t' {
			col += 8 - col%8
		} else {
			col++
		}
	}
	sb.WriteString(strings.Repeat(" ", col))
	sb.WriteString("^\n")
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
