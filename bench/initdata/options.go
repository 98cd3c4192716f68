package initdata

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// DefaultSteps is the step string pgbench runs when -I is not given.
const DefaultSteps = "dtgvp"

// AllSteps lists every initialization step character pgbench accepts.
const AllSteps = "dtgGvpf"

// Rows per unit of scale, as pgbench's nbranches, ntellers and naccounts.
const (
	BranchesPerScale = 1
	TellersPerScale  = 10
	AccountsPerScale = 100000
)

// BigAIDScale is the scale from which the aid columns are bigint
// (pgbench's SCALE_32BIT_THRESHOLD).
const BigAIDScale = 20000

// PartitionMethod is how pgbench_accounts is partitioned.
type PartitionMethod int

// The partition methods of --partition-method.
const (
	PartitionNone PartitionMethod = iota
	PartitionRange
	PartitionHash
)

// String returns the method's name as pgbench spells it in the DDL.
func (m PartitionMethod) String() string {
	switch m {
	case PartitionRange:
		return "range"
	case PartitionHash:
		return "hash"
	default:
		return "none"
	}
}

// Options are pgbench's initialization options, plus pglab's choices of
// how to load. The zero value means pgbench's defaults: steps "dtgvp",
// scale 1, fillfactor 100, no partitions.
type Options struct {
	// Steps is the -I/--init-steps string; "" means DefaultSteps. Spaces
	// are allowed and ignored, as by pgbench.
	Steps string
	// NoVacuum (-n/--no-vacuum) removes every v from the steps.
	NoVacuum bool
	// ForeignKeys (--foreign-keys) appends f to the steps unless present.
	ForeignKeys bool
	// Scale (-s/--scale) multiplies the row counts; 0 means 1.
	Scale int
	// Fillfactor (-F/--fillfactor) of branches, tellers and accounts;
	// 0 means 100.
	Fillfactor int
	// Quiet (-q/--quiet) prints load progress every 5 seconds instead of
	// every 100,000 rows.
	Quiet bool
	// Partitions (--partitions) of pgbench_accounts; 0 means none.
	Partitions int
	// PartitionMethod (--partition-method); PartitionNone with
	// Partitions > 0 means range, as in pgbench.
	PartitionMethod PartitionMethod
	// UnloggedTables (--unlogged-tables) creates unlogged tables.
	UnloggedTables bool
	// Tablespace (--tablespace) for the tables; "" means the default.
	Tablespace string
	// IndexTablespace (--index-tablespace) for the primary keys.
	IndexTablespace string

	// Method chooses how Run works: MethodFast (the default) or
	// MethodPgbench, which does exactly what pgbench does (one
	// connection, no session settings), for comparisons. Both leave the
	// same tables.
	Method LoadMethod
	// Connections bounds the extra connections the fast method opens to
	// load and vacuum the partitions of pgbench_accounts in parallel; 0
	// means 4, 1 turns parallel work off.
	Connections int
	// MaintenanceWorkMem is the session maintenance_work_mem the fast
	// method sets for the primary-key step, in kB; 0 picks enough to
	// sort the accounts keys in memory (64 bytes a row plus 1 MB, at most
	// 1 GB, never less than the server's own setting); -1 keeps the
	// server's setting.
	MaintenanceWorkMem int
}

// LoadMethod is how Run does its work.
type LoadMethod int

// The load methods.
const (
	// MethodFast loads range partitions and vacuums partitions on
	// several connections and sizes maintenance_work_mem for the index
	// build (see the package documentation). The tables it leaves are
	// pgbench's.
	MethodFast LoadMethod = iota
	// MethodPgbench does what pgbench does, the way pgbench does it.
	MethodPgbench
)

// scale returns the effective scale.
func (o Options) scale() int {
	if o.Scale == 0 {
		return 1
	}
	return o.Scale
}

// fillfactor returns the effective fillfactor.
func (o Options) fillfactor() int {
	if o.Fillfactor == 0 {
		return 100
	}
	return o.Fillfactor
}

// partitionMethod returns the effective partition method.
func (o Options) partitionMethod() PartitionMethod {
	if o.Partitions > 0 && o.PartitionMethod == PartitionNone {
		return PartitionRange
	}
	if o.Partitions == 0 {
		return PartitionNone
	}
	return o.PartitionMethod
}

func (o Options) connections() int {
	if o.Connections <= 0 {
		return 4
	}
	return o.Connections
}

// Validate reports the first option pgbench would reject, with pgbench's
// message, or nil.
func (o Options) Validate() error {
	if o.Steps != "" {
		if _, err := ParseSteps(o.Steps); err != nil {
			return err
		}
	}
	if o.Scale < 0 {
		return rangeError("-s/--scale", 1, math.MaxInt32)
	}
	if o.Scale > math.MaxInt32 {
		return rangeError("-s/--scale", 1, math.MaxInt32)
	}
	if o.Fillfactor != 0 && (o.Fillfactor < 10 || o.Fillfactor > 100) {
		return rangeError("-F/--fillfactor", 10, 100)
	}
	if o.Partitions < 0 || o.Partitions > math.MaxInt32 {
		return rangeError("--partitions", 0, math.MaxInt32)
	}
	if o.PartitionMethod < PartitionNone || o.PartitionMethod > PartitionHash {
		return newError(fmt.Sprintf("invalid partition method, expecting \"range\" or \"hash\", got: \"%d\"", int(o.PartitionMethod)))
	}
	if o.Partitions == 0 && o.PartitionMethod != PartitionNone {
		return newError("--partition-method requires greater than zero --partitions")
	}
	if o.Method != MethodFast && o.Method != MethodPgbench {
		return fmt.Errorf("initdata: unknown load method %d", int(o.Method))
	}
	return nil
}

// EffectiveSteps returns the steps Run executes: Steps or DefaultSteps,
// with every v turned into a space under NoVacuum and f appended under
// ForeignKeys, exactly as pgbench rewrites them. Spaces are kept (they
// are ignored when run).
func (o Options) EffectiveSteps() string {
	s := o.Steps
	if s == "" {
		s = DefaultSteps
	}
	if o.NoVacuum {
		s = strings.ReplaceAll(s, "v", " ")
	}
	if o.ForeignKeys && !strings.Contains(s, "f") {
		s += "f"
	}
	return s
}

// ParseSteps checks an -I/--init-steps value as pgbench does and returns
// it unchanged when it is valid: not empty, and only characters of
// AllSteps or spaces.
func ParseSteps(s string) (string, error) {
	if s == "" {
		return "", newError("no initialization steps specified")
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(AllSteps+" ", rune(s[i])) {
			e := newError(fmt.Sprintf("unrecognized initialization step \"%c\"", s[i]))
			e.Detail = "Allowed step characters are: \"" + AllSteps + "\"."
			return "", e
		}
	}
	return s, nil
}

// ParseScale parses an -s/--scale value with pgbench's checks and
// messages.
func ParseScale(s string) (int, error) { return ParseInt(s, "-s/--scale", 1, math.MaxInt32) }

// ParseFillfactor parses an -F/--fillfactor value with pgbench's checks
// and messages.
func ParseFillfactor(s string) (int, error) { return ParseInt(s, "-F/--fillfactor", 10, 100) }

// ParsePartitions parses a --partitions value with pgbench's checks and
// messages.
func ParsePartitions(s string) (int, error) { return ParseInt(s, "--partitions", 0, math.MaxInt32) }

// ParsePartitionMethod parses a --partition-method value ("range" or
// "hash", in any case) with pgbench's message.
func ParsePartitionMethod(s string) (PartitionMethod, error) {
	switch strings.ToLower(s) {
	case "range":
		return PartitionRange, nil
	case "hash":
		return PartitionHash, nil
	}
	return PartitionNone, newError(fmt.Sprintf("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", s))
}

// ParseInt parses an integer option value the way PostgreSQL's client
// programs do (option_parse_int): leading white space and a sign are
// accepted, trailing white space is ignored, anything else after the
// digits is "invalid value", and a value outside min..max (an empty value
// counts as 0) is "must be in range".
func ParseInt(value, optname string, min, max int) (int, error) {
	s := strings.TrimLeftFunc(value, isCSpace)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	digits := s[:i]
	rest := s[i:]
	if i == start {
		// strtol consumed nothing: the whole value is what remains.
		digits = ""
		rest = value
	}
	if strings.TrimLeftFunc(rest, isCSpace) != "" {
		return 0, newError(fmt.Sprintf("invalid value \"%s\" for option %s", value, optname))
	}
	var v int64
	if digits != "" {
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return 0, rangeError(optname, min, max)
		}
		v = n
	}
	if v < int64(min) || v > int64(max) {
		return 0, rangeError(optname, min, max)
	}
	return int(v), nil
}

func isCSpace(r rune) bool {
	return r < unicode.MaxASCII && (r == ' ' || (r >= '\t' && r <= '\r'))
}

func rangeError(optname string, min, max int) *Error {
	return newError(fmt.Sprintf("%s must be in range %d..%d", optname, min, max))
}
