package script

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Builtin is one of pgbench's builtin scripts.
type Builtin struct {
	Name string // short name for -b, e.g. "tpcb-like"
	Desc string // description, the script's Source, e.g. "<builtin: TPC-B (sort of)>"
	Text string // the script text
}

const builtinSets = "\\set aid random(1, 100000 * :scale)\n" +
	"\\set bid random(1, 1 * :scale)\n" +
	"\\set tid random(1, 10 * :scale)\n" +
	"\\set delta random(-5000, 5000)\n"

var builtins = []Builtin{
	{
		Name: "tpcb-like",
		Desc: "<builtin: TPC-B (sort of)>",
		Text: builtinSets +
			"BEGIN;\n" +
			"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n" +
			"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n" +
			"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n" +
			"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n" +
			"END;\n",
	},
	{
		Name: "simple-update",
		Desc: "<builtin: simple update>",
		Text: builtinSets +
			"BEGIN;\n" +
			"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n" +
			"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n" +
			"END;\n",
	},
	{
		Name: "select-only",
		Desc: "<builtin: select only>",
		Text: "\\set aid random(1, 100000 * :scale)\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
	},
}

// Builtins returns pgbench's builtin scripts in pgbench's order.
func Builtins() []Builtin {
	return append([]Builtin(nil), builtins...)
}

// BuiltinError is pgbench's error for -b or --show-script with a name that
// matches no builtin or several. pgbench prints Error(), then the
// BuiltinList text, and exits with status 1.
type BuiltinError struct {
	Name  string
	Found int // 0: none; > 1: ambiguous
}

// Error returns pgbench's message.
func (e *BuiltinError) Error() string {
	if e.Found == 0 {
		return fmt.Sprintf("no builtin script found for name \"%s\"", e.Name)
	}
	return fmt.Sprintf("ambiguous builtin name: %d builtin scripts found for prefix \"%s\"", e.Found, e.Name)
}

// FindBuiltin returns the builtin whose name starts with name, which must
// match exactly one builtin (pgbench's findBuiltin). "-b list" is handled by
// the caller, which prints BuiltinList.
func FindBuiltin(name string) (Builtin, error) {
	var found []Builtin
	for _, b := range builtins {
		if strings.HasPrefix(b.Name, name) {
			found = append(found, b)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return Builtin{}, &BuiltinError{Name: name, Found: len(found)}
}

// BuiltinList returns the text pgbench prints (on stderr) for "-b list" and
// after a builtin lookup error.
func BuiltinList() string {
	var b strings.Builder
	b.WriteString("Available builtin scripts:\n")
	for _, s := range builtins {
		fmt.Fprintf(&b, "  %13s: %s\n", s.Name, s.Desc)
	}
	b.WriteString("\n")
	return b.String()
}

// ShowScript returns the text pgbench prints (on stderr) for
// "--show-script=NAME": a "-- name: description" line, the script, and an
// empty line.
func (b Builtin) ShowScript() string {
	return fmt.Sprintf("-- %s: %s\n%s\n", b.Name, b.Desc, b.Text)
}

// Parse parses the builtin script; its Source is the description.
func (b Builtin) Parse(syms *Symbols) (*Script, error) {
	return Parse(b.Desc, b.Text, syms)
}

// WeightError is pgbench's error for a bad "@weight" suffix of -b or -f.
type WeightError struct {
	Spec     string // the suffix, including '@'
	Value    int64
	OutRange bool
}

// Error returns pgbench's message.
func (e *WeightError) Error() string {
	if e.OutRange {
		return fmt.Sprintf("weight specification out of range (0 .. %d): %d", math.MaxInt32, e.Value)
	}
	return fmt.Sprintf("invalid weight specification: %s", e.Spec)
}

// SplitWeight splits a -b or -f argument "NAME[@WEIGHT]" as pgbench's
// parseScriptWeight: the last '@' starts the weight, which must be a whole
// decimal integer (strtol: leading white space and a sign allowed) in
// 0 .. INT_MAX. Without '@' the weight is 1.
func SplitWeight(option string) (name string, weight int, err error) {
	sep := strings.LastIndexByte(option, '@')
	if sep < 0 {
		return option, 1, nil
	}
	name, spec := option[:sep], option[sep:]
	digits := spec[1:]
	end := strtolEnd([]byte(digits))
	if end == 0 || end != len(digits) {
		return "", 0, &WeightError{Spec: spec}
	}
	v, err := strconv.ParseInt(strings.TrimLeft(digits, " \t\n\v\f\r"), 10, 64)
	if err != nil {
		// strtol overflow: ERANGE
		return "", 0, &WeightError{Spec: spec}
	}
	if v > math.MaxInt32 || v < 0 {
		return "", 0, &WeightError{Spec: spec, Value: v, OutRange: true}
	}
	return name, int(v), nil
}

// ErrZeroTotalWeight is pgbench's error when the weights of all scripts add
// up to zero.
var ErrZeroTotalWeight = errors.New("total script weight must not be zero")

// CheckTotalWeight returns ErrZeroTotalWeight if the weights sum to zero.
func CheckTotalWeight(weights []int) error {
	var total int64
	for _, w := range weights {
		total += int64(w)
	}
	if total == 0 {
		return ErrZeroTotalWeight
	}
	return nil
}

// ChooseScript picks a script by weight as pgbench's chooseScript does with
// the thread's "choose" random state: w = uniform(0, total-1), then weights
// are subtracted in order. With a single script no random number is drawn.
func ChooseScript(r *PRNG, weights []int, total int64) int {
	if len(weights) == 1 {
		return 0
	}
	w := r.Uniform(0, total-1)
	i := 0
	for {
		w -= int64(weights[i])
		i++
		if w < 0 || i >= len(weights) {
			break
		}
	}
	return i - 1
}
