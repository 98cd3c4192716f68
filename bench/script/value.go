package script

import (
	"math"
	"strconv"
)

// Kind is the type of a Value, as pgbench's PgBenchValueType.
type Kind uint8

// The kinds of value an expression can produce. KindNone is the zero Kind: a
// variable that holds only a string which has not been interpreted yet.
const (
	KindNone Kind = iota
	KindNull
	KindBool
	KindInt
	KindDouble
)

// String returns pgbench's name of the kind ("none", "null", "boolean", "int",
// "double"), as used in its "cannot coerce" messages.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindInt:
		return "int"
	case KindDouble:
		return "double"
	default:
		return "none"
	}
}

// Value is one pgbench expression value: NULL, a boolean, a 64-bit integer or
// a double. It is a small value type; copying it never allocates.
type Value struct {
	kind Kind
	b    bool
	i    int64
	f    float64
}

// Null returns the NULL value.
func Null() Value { return Value{kind: KindNull} }

// Bool returns a boolean value.
func Bool(b bool) Value { return Value{kind: KindBool, b: b} }

// Int returns an integer value.
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Double returns a double value.
func Double(f float64) Value { return Value{kind: KindDouble, f: f} }

// Kind returns the value's kind.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether the value is NULL.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsBool returns the boolean and true if the value is a boolean.
func (v Value) AsBool() (bool, bool) { return v.b, v.kind == KindBool }

// AsInt returns the integer and true if the value is an integer (no coercion).
func (v Value) AsInt() (int64, bool) { return v.i, v.kind == KindInt }

// AsDouble returns the double and true if the value is a double (no coercion).
func (v Value) AsDouble() (float64, bool) { return v.f, v.kind == KindDouble }

// Truth returns the value's truth for \if and CASE WHEN, as pgbench's
// valueTruth: NULL and FALSE are false, numbers are true when not zero.
func (v Value) Truth() bool {
	switch v.kind {
	case KindBool:
		return v.b
	case KindInt:
		return v.i != 0
	case KindDouble:
		return v.f != 0
	default:
		return false
	}
}

// AppendText appends the value's text form as pgbench substitutes it into SQL
// and shell commands (getVariable): "NULL", "true"/"false", the decimal integer,
// or the double printed with "%.15g".
func (v Value) AppendText(dst []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(dst, "NULL"...)
	case KindBool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindInt:
		return strconv.AppendInt(dst, v.i, 10)
	case KindDouble:
		return appendG15(dst, v.f)
	default:
		return dst
	}
}

// String returns AppendText's text.
func (v Value) String() string { return string(v.AppendText(nil)) }

// appendDebug appends the text debug() prints after its prefix.
func (v Value) appendDebug(dst []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(dst, "null"...)
	case KindBool:
		if v.b {
			return append(dst, "boolean true"...)
		}
		return append(dst, "boolean false"...)
	case KindInt:
		return strconv.AppendInt(append(dst, "int "...), v.i, 10)
	default:
		return appendG15(append(dst, "double "...), v.f)
	}
}

// appendG15 formats f as pgbench's printf("%.15g"): glibc's digits, and
// PostgreSQL's spelling of infinities and NaNs.
func appendG15(dst []byte, f float64) []byte {
	if s, ok := nonFinite(f); ok {
		return append(dst, s...)
	}
	return strconv.AppendFloat(dst, f, 'g', 15, 64)
}

// formatF formats f as pgbench's printf("%f").
func formatF(f float64) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// nonFinite returns the spelling of infinities and NaNs of PostgreSQL's own
// snprintf (src/port/snprintf.c), which pgbench uses for all its output.
func nonFinite(f float64) (string, bool) {
	switch {
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	case math.IsNaN(f):
		return "NaN", true
	}
	return "", false
}

// isCSpace reports whether c is a space for C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// errKind tells why a number did not convert.
type errKind uint8

const (
	convOK errKind = iota
	convSyntax
	convRange
)

// strToInt64 converts s as pgbench's strtoint64: optional leading and
// trailing white space, an optional sign and at least one digit.
func strToInt64[T ~string | ~[]byte](s T) (int64, errKind) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, convSyntax
	}
	// Accumulate as a negative number, like pgbench, so INT64_MIN fits.
	var tmp int64
	overflow := false
	for i < len(s) && isDigit(s[i]) {
		d := int64(s[i] - '0')
		if !overflow {
			if tmp < math.MinInt64/10 || (tmp == math.MinInt64/10 && d > 8) {
				overflow = true
			} else {
				tmp = tmp*10 - d
			}
		}
		i++
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, convSyntax
	}
	if overflow {
		return 0, convRange
	}
	if !neg {
		if tmp == math.MinInt64 {
			return 0, convRange
		}
		tmp = -tmp
	}
	return tmp, convOK
}

// isAnInt reports whether s matches pgbench's is_an_int: "^\s*[-+]?[0-9]+$",
// with its quirk that a sign or spaces alone also pass.
func isAnInt[T ~string | ~[]byte](s T) bool {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

// strToDouble converts s as pgbench's strtodouble, which calls C's strtod and
// insists that the whole string is used. Overflow and underflow (ERANGE) are
// reported as convRange.
func strToDouble(s string) (float64, errKind) {
	n, end, rangeErr := cStrtod(s)
	if end == 0 || end != len(s) {
		return 0, convSyntax
	}
	if rangeErr {
		return n, convRange
	}
	return n, convOK
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the ASCII lower-case word w,
// ignoring case.
func hasPrefixFold[T ~string | ~[]byte](s T, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if lower(s[i]) != w[i] {
			return false
		}
	}
	return true
}

// equalFold reports whether s equals the ASCII word w, ignoring ASCII case
// (pg_strcasecmp).
func equalFold[T ~string | ~[]byte](s T, w string) bool {
	return len(s) == len(w) && hasPrefixFold(s, w)
}

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// cStrtod emulates glibc's strtod in the C locale. It returns the value, the
// number of bytes used (0 if no conversion) and whether errno would be ERANGE.
func cStrtod(s string) (float64, int, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case hasPrefixFold(rest, "infinity"):
		return math.Inf(int(sign)), i + 8, false
	case hasPrefixFold(rest, "inf"):
		return math.Inf(int(sign)), i + 3, false
	case hasPrefixFold(rest, "nan"):
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isDigit(s[k]) || s[k] == '_' || (lower(s[k]) >= 'a' && lower(s[k]) <= 'z')) {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return math.Copysign(math.NaN(), sign), j, false
	}
	if len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		if v, n, r, ok := hexStrtod(s, i+2, sign); ok {
			return v, n, r
		}
		// "0x" without hex digits converts the "0" only.
		return math.Copysign(0, sign), i + 1, false
	}
	j := i
	digits := 0
	nonzero := false
	for j < len(s) && isDigit(s[j]) {
		if s[j] != '0' {
			nonzero = true
		}
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			if s[j] != '0' {
				nonzero = true
			}
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	v, err := strconv.ParseFloat(s[start:j], 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, 0, false
	}
	return v, j, err != nil || underflowed(v, nonzero)
}

// hexStrtod converts the hexadecimal part of a C floating constant starting
// at s[i] (after "0x").
func hexStrtod(s string, i int, sign float64) (float64, int, bool, bool) {
	j := i
	mant := []byte("0x")
	digits := 0
	nonzero := false
	for j < len(s) && isHexDigit(s[j]) {
		mant = append(mant, s[j])
		nonzero = nonzero || s[j] != '0'
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		mant = append(mant, '.')
		j++
		for j < len(s) && isHexDigit(s[j]) {
			mant = append(mant, s[j])
			nonzero = nonzero || s[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false, false
	}
	exp := "p0"
	if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			exp = "p" + s[j+1:k]
			j = k
		}
	}
	v, err := strconv.ParseFloat(string(mant)+exp, 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, 0, false, false
	}
	return sign * v, j, err != nil || underflowed(v, nonzero), true
}

// underflowed reports whether glibc would set ERANGE for an underflow: a
// non-zero input that converted to zero or to a subnormal number.
func underflowed(v float64, nonzero bool) bool {
	if !nonzero {
		return false
	}
	a := math.Abs(v)
	return a < 0x1p-1022
}
