package apply

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// param is what pg_settings says about one parameter.
type param struct {
	Name           string
	Setting        string // pg_settings.setting: base units, canonical spelling
	Unit           string // pg_settings.unit: "8kB", "kB", "MB", "ms", "s", ... or ""
	Vartype        string // bool, integer, real, string, enum
	Context        string // postmaster, sighup, superuser, user, ...
	EnumVals       []string
	Min, Max       string
	Source         string // pg_settings.source: default, configuration file, command line, ...
	PendingRestart bool
	Display        string // current_setting(name): as SHOW prints it ("128MB")
}

// needsRestart reports whether a new value takes effect only at a restart.
func (p param) needsRestart() bool { return p.Context == "postmaster" }

// memoryUnits are the memory units PostgreSQL accepts, in bytes.
var memoryUnits = map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}

// timeUnits are the time units PostgreSQL accepts, in microseconds.
var timeUnits = map[string]float64{"us": 1, "ms": 1e3, "s": 1e6, "min": 60e6, "h": 3600e6, "d": 86400e6}

// baseUnitSize returns the size of a pg_settings unit ("8kB" is 8192
// bytes, "ms" is 1000 µs) and the table of units a value may carry.
func baseUnitSize(unit string) (size float64, table map[string]float64, err error) {
	if unit == "" {
		return 1, nil, nil
	}
	num := strings.TrimRight(unit, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	name := unit[len(num):]
	mult := 1.0
	if num != "" {
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			return 0, nil, fmt.Errorf("unknown unit %q", unit)
		}
		mult = float64(n)
	}
	if s, ok := memoryUnits[name]; ok {
		return mult * s, memoryUnits, nil
	}
	if s, ok := timeUnits[name]; ok {
		return mult * s, timeUnits, nil
	}
	return 0, nil, fmt.Errorf("unknown unit %q", unit)
}

// number parses a decimal value with an optional unit as PostgreSQL's
// parse_int and parse_real do (hexadecimal and octal spellings are not
// taken), and returns it in the parameter's base
// unit: "256MB" for a parameter in 8kB pages is 32768.
func number(value, unit string) (float64, error) {
	s := strings.TrimSpace(value)
	end := 0
	for end < len(s) && strings.IndexByte("0123456789+-.eE", s[end]) >= 0 {
		// An "e" followed by a letter starts a unit, not an exponent.
		if (s[end] == 'e' || s[end] == 'E') && (end+1 >= len(s) || strings.IndexByte("0123456789+-", s[end+1]) < 0) {
			break
		}
		end++
	}
	num, suffix := s[:end], strings.TrimSpace(s[end:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", value)
	}
	if suffix == "" {
		return v, nil
	}
	base, table, err := baseUnitSize(unit)
	if err != nil {
		return 0, err
	}
	if table == nil {
		return 0, fmt.Errorf("%q: this parameter takes no unit", value)
	}
	size, ok := table[suffix]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q", value, suffix)
	}
	// A fractional amount ("30.1GB") is first rounded to a whole number
	// of the next smaller unit, as convert_to_base_unit does.
	v *= size
	if next := nextSmaller[suffix]; next != "" {
		v = math.RoundToEven(v/table[next]) * table[next]
	}
	return v / base, nil
}

// nextSmaller is the unit below each unit.
var nextSmaller = map[string]string{"TB": "GB", "GB": "MB", "MB": "kB", "kB": "B", "d": "h", "h": "min", "min": "s", "s": "ms", "ms": "us"}

// boolValue parses a boolean as PostgreSQL's parse_bool does: on, off,
// true, false, yes, no, 1, 0 and unique prefixes of true, false, yes, no.
func boolValue(value string) (bool, bool) {
	s := strings.ToLower(strings.TrimSpace(value))
	prefixOf := func(word string) bool { return s != "" && strings.HasPrefix(word, s) }
	switch {
	case s == "1" || prefixOf("true") || prefixOf("yes") || s == "on":
		return true, true
	case s == "0" || prefixOf("false") || prefixOf("no") || s == "of" || s == "off":
		return false, true
	}
	return false, false
}

// canonical returns value as pg_settings.setting would show it once set:
// booleans as on/off, numbers in the parameter's base unit (integers
// rounded as PostgreSQL rounds), enum names in lower case. It reports a
// value the parameter cannot take (bad syntax, out of range, an enum name
// this server does not have) as an error.
func canonical(p param, value string) (string, error) {
	switch p.Vartype {
	case "bool":
		b, ok := boolValue(value)
		if !ok {
			return "", fmt.Errorf("%q is not a boolean", value)
		}
		if b {
			return "on", nil
		}
		return "off", nil
	case "integer", "real":
		v, err := number(value, p.Unit)
		if err != nil {
			return "", err
		}
		if p.Vartype == "integer" {
			v = math.RoundToEven(v)
		}
		if err := inRange(p, v); err != nil {
			return "", err
		}
		if p.Vartype == "integer" {
			return strconv.FormatFloat(v, 'f', 0, 64), nil
		}
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case "enum":
		s := strings.ToLower(strings.TrimSpace(value))
		if slices.Contains(p.EnumVals, s) {
			return s, nil
		}
		// Hidden boolean spellings that enums such as huge_pages accept.
		if b, ok := boolValue(s); ok {
			word := map[bool]string{true: "on", false: "off"}[b]
			if slices.Contains(p.EnumVals, word) {
				return word, nil
			}
		}
		return "", fmt.Errorf("%q is not one of this server's values: %s", value, strings.Join(p.EnumVals, ", "))
	}
	return value, nil
}

// inRange checks v against pg_settings' min_val and max_val.
func inRange(p param, v float64) error {
	lo, lerr := strconv.ParseFloat(p.Min, 64)
	hi, herr := strconv.ParseFloat(p.Max, 64)
	if (lerr == nil && v < lo) || (herr == nil && v > hi) {
		unit := ""
		if p.Unit != "" {
			unit = " (in units of " + p.Unit + ")"
		}
		return fmt.Errorf("%s is outside %s..%s%s", strconv.FormatFloat(v, 'g', -1, 64), p.Min, p.Max, unit)
	}
	return nil
}

// sameSetting reports whether two canonical settings of p are equal:
// exactly, or for real parameters within rounding of the last digits.
func sameSetting(p param, a, b string) bool {
	if a == b {
		return true
	}
	if p.Vartype != "real" {
		return false
	}
	x, errx := strconv.ParseFloat(a, 64)
	y, erry := strconv.ParseFloat(b, 64)
	if errx != nil || erry != nil {
		return false
	}
	return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}
