package capture

import (
	"strings"

	"github.com/pglab/pglab/workload"
)

// msgKind is what a LOG message tells (lc_messages must be English: the
// texts are PostgreSQL's untranslated ones, src/backend/tcop/postgres.c
// and src/backend/utils/init/postinit.c).
type msgKind uint8

const (
	mOther          msgKind = iota
	mConnReceived           // connection received: host=… port=…
	mConnAuthorized         // connection authorized: user=… database=… [application_name=…]
	mReplConn               // replication connection authorized: …
	mDisconnection          // disconnection: session time: …
	mStatement              // [duration: X ms  ]statement: SQL
	mExecute                // [duration: X ms  ]execute NAME[/PORTAL]: SQL
	mFetch                  // [duration: X ms  ]execute fetch from NAME[/PORTAL]: SQL
	mParse                  // duration: X ms  parse NAME: SQL
	mBind                   // duration: X ms  bind NAME[/PORTAL]: SQL
	mFastpath               // [duration: X ms  ]fastpath function call: "f" (OID n)
	mDuration               // duration: X ms (log_duration after log_statement)
)

// message is a LOG message read.
type message struct {
	kind  msgKind
	durUS int64  // -1 without a duration
	name  string // prepared statement name; "" for the unnamed one
	sql   string
	rest  string // the text after the kind's words (connection messages)
}

// bodies maps the start of a message (after any duration) to its kind;
// longer starts first where one is the start of another.
var bodies = []struct {
	start string
	kind  msgKind
	named bool // NAME: SQL follows
}{
	{"statement: ", mStatement, false},
	{"execute fetch from ", mFetch, true},
	{"execute ", mExecute, true},
	{"parse ", mParse, true},
	{"bind ", mBind, true},
	{"fastpath function call: ", mFastpath, false},
	{"connection received: ", mConnReceived, false},
	{"connection authorized: ", mConnAuthorized, false},
	{"replication connection authorized: ", mReplConn, false},
	{"disconnection: ", mDisconnection, false},
}

// parseMessage reads a LOG message.
func parseMessage(m string) message {
	msg := message{durUS: -1}
	if strings.HasPrefix(m, "duration: ") {
		d, rest, ok := parseDuration(m[len("duration: "):])
		if !ok {
			return msg
		}
		msg.durUS = d
		if rest == "" {
			msg.kind = mDuration
			return msg
		}
		if !strings.HasPrefix(rest, "  ") {
			return message{durUS: -1}
		}
		m = rest[2:]
	}
	for _, b := range bodies {
		if !strings.HasPrefix(m, b.start) {
			continue
		}
		rest := m[len(b.start):]
		if !b.named {
			msg.kind, msg.sql, msg.rest = b.kind, rest, rest
			return msg
		}
		name, sql, ok := strings.Cut(rest, ": ")
		if !ok {
			return message{durUS: -1}
		}
		if i := strings.IndexByte(name, '/'); i >= 0 {
			name = name[:i] // NAME/PORTAL
		}
		if name == "<unnamed>" {
			name = ""
		}
		msg.kind, msg.name, msg.sql = b.kind, name, sql
		return msg
	}
	return msg
}

// parseDuration reads "0.045 ms" and returns microseconds and what follows.
func parseDuration(s string) (int64, string, bool) {
	i := 0
	var whole, frac, scale int64 = 0, 0, 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		whole = whole*10 + int64(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if scale < 1000 {
				frac = frac*10 + int64(s[i]-'0')
				scale *= 10
			}
			i++
		}
	}
	if !strings.HasPrefix(s[i:], " ms") {
		return 0, "", false
	}
	return whole*1000 + frac*1000/scale, s[i+3:], true
}

// connField returns the value of key= in a connection message
// ("user=alice database=app application_name=my app"): up to the next
// " key=" of the message's own keys, or its end.
func connField(rest, key string) string {
	i := strings.Index(" "+rest, " "+key+"=")
	if i < 0 {
		return ""
	}
	v := rest[i+len(key)+1:]
	end := len(v)
	for _, next := range []string{" user=", " database=", " application_name=", " SSL enabled", " GSS ", " host=", " port=", " identity="} {
		if j := strings.Index(v, next); j >= 0 && j < end {
			end = j
		}
	}
	return v[:end]
}

// parseParams reads the bind parameters of a DETAIL: "Parameters: $1 =
// '…', $2 = NULL" (13+ writes "parameters:", 16+ "Parameters:"). Values
// are quoted with doubled single quotes; NULL stays distinct. ok is false
// when detail holds no parameters or is not of this shape.
func parseParams(detail string) (params []workload.Param, ok bool) {
	const label = "parameters: "
	if len(detail) < len(label) || !strings.EqualFold(detail[:len(label)], label) {
		return nil, false
	}
	s := detail[len(label):]
	for n := 1; ; n++ {
		var p workload.Param
		if s, ok = cutParamName(s, n); !ok {
			return nil, false
		}
		if p, s, ok = cutParamValue(s); !ok {
			return nil, false
		}
		params = append(params, p)
		if s == "" {
			return params, true
		}
		if !strings.HasPrefix(s, ", ") {
			return nil, false
		}
		s = s[2:]
	}
}

// cutParamName cuts "$n = " for the expected n.
func cutParamName(s string, n int) (string, bool) {
	if !strings.HasPrefix(s, "$") {
		return s, false
	}
	i := 1
	v := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int(s[i]-'0')
		i++
	}
	if v != n || !strings.HasPrefix(s[i:], " = ") {
		return s, false
	}
	return s[i+3:], true
}

// cutParamValue cuts NULL or a quoted value.
func cutParamValue(s string) (workload.Param, string, bool) {
	if strings.HasPrefix(s, "NULL") {
		return workload.Param{Null: true}, s[4:], true
	}
	if !strings.HasPrefix(s, "'") {
		return workload.Param{}, s, false
	}
	end := 1
	for {
		j := strings.IndexByte(s[end:], '\'')
		if j < 0 {
			return workload.Param{}, s, false
		}
		end += j + 1
		if end < len(s) && s[end] == '\'' {
			end++ // a doubled quote
			continue
		}
		v := s[1 : end-1]
		if strings.Contains(v, "''") {
			v = strings.ReplaceAll(v, "''", "'")
		}
		return workload.Param{Value: v}, s[end:], true
	}
}
