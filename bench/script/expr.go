package script

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// opcode identifies an expression node: a constant, a variable, or one of
// pgbench's functions (operators are functions too, as in exprparse.y).
type opcode uint8

const (
	opConst opcode = iota
	opVar
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opAbs
	opLeast
	opGreatest
	opDebug
	opPi
	opSqrt
	opLn
	opExp
	opInt
	opDouble
	opRandom
	opRandomGaussian
	opRandomExponential
	opRandomZipfian
	opPow
	opAnd
	opOr
	opNot
	opBitAnd
	opBitOr
	opBitXor
	opLShift
	opRShift
	opEq
	opNe
	opLe
	opLt
	opIs
	opCase
	opHashMurmur2
	opHashFNV1a
	opPermute
)

// maxFuncArgs is pgbench's MAX_FARGS: a function evaluates at most this many
// arguments.
const maxFuncArgs = 16

// Gaussian and zipfian parameter bounds (MIN_GAUSSIAN_PARAM etc.).
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

type node struct {
	op   opcode
	val  Value // opConst
	slot int   // opVar
	name string
	args []*node
}

// Expr is a parsed pgbench expression (the argument of \set, \if, \elif).
// Variables are resolved to slots of the Symbols table it was parsed with.
type Expr struct {
	root *node
}

// Env is what evaluating an expression needs from one client: its variables,
// its random state (pgbench's per-client cs_func_rs), where debug() writes,
// and the script and command numbers debug() prints. Keep one Env per client
// and update Script and Command before each evaluation.
type Env struct {
	Vars *Variables
	Rand *PRNG
	// Debug receives debug() output; nil means os.Stderr.
	Debug io.Writer
	// Script is the index of the running script (pgbench's use_file).
	Script int
	// Command is the 0-based index of the running command; debug() prints
	// it plus one.
	Command int
}

// EvalError is a run-time error of an expression, whose text is pgbench's
// message (for example "division by zero" or `undefined variable "x"`).
// pgbench fails silently for a variable holding an empty string; then Msg is
// empty.
type EvalError struct {
	Msg string
}

// Error returns pgbench's message.
func (e *EvalError) Error() string { return e.Msg }

func evalErrorf(format string, args ...any) error {
	return &EvalError{Msg: fmt.Sprintf(format, args...)}
}

// Eval evaluates the expression for one client. Evaluation of numeric
// expressions does not allocate.
func (e *Expr) Eval(env *Env) (Value, error) {
	if e == nil || e.root == nil {
		return Value{}, &EvalError{Msg: "no expression"}
	}
	return env.eval(e.root)
}

func (env *Env) eval(n *node) (Value, error) {
	switch n.op {
	case opConst:
		return n.val, nil
	case opVar:
		return env.Vars.Value(n.slot)
	case opAnd, opOr, opCase:
		return env.evalLazy(n)
	default:
		return env.evalStandard(n)
	}
}

func coerceToBool(v Value) (bool, error) {
	if v.kind == KindBool {
		return v.b, nil
	}
	return false, evalErrorf("cannot coerce %s to boolean", v.kind)
}

func coerceToInt(v Value) (int64, error) {
	switch v.kind {
	case KindInt:
		return v.i, nil
	case KindDouble:
		d := math.RoundToEven(v.f)
		if math.IsNaN(d) || !(d >= -0x1p63 && d < 0x1p63) {
			return 0, evalErrorf("double to int overflow for %s", formatF(d))
		}
		return int64(d), nil
	default:
		return 0, evalErrorf("cannot coerce %s to int", v.kind)
	}
}

func coerceToDouble(v Value) (float64, error) {
	switch v.kind {
	case KindDouble:
		return v.f, nil
	case KindInt:
		return float64(v.i), nil
	default:
		return 0, evalErrorf("cannot coerce %s to double", v.kind)
	}
}

// evalLazy evaluates AND, OR and CASE, which do not evaluate all their
// arguments (evalLazyFunc).
func (env *Env) evalLazy(n *node) (Value, error) {
	args := n.args
	a1, err := env.eval(args[0])
	if err != nil {
		return Value{}, err
	}
	switch n.op {
	case opAnd, opOr:
		if a1.kind == KindNull {
			return Null(), nil
		}
		b1, err := coerceToBool(a1)
		if err != nil {
			return Value{}, err
		}
		if n.op == opAnd && !b1 {
			return Bool(false), nil
		}
		if n.op == opOr && b1 {
			return Bool(true), nil
		}
		a2, err := env.eval(args[1])
		if err != nil {
			return Value{}, err
		}
		if a2.kind == KindNull {
			return Null(), nil
		}
		b2, err := coerceToBool(a2)
		if err != nil {
			return Value{}, err
		}
		return Bool(b2), nil
	default: // opCase: when1, then1, when2, then2, ..., else
		i := 0
		for {
			if a1.Truth() {
				return env.eval(args[i+1])
			}
			i += 2
			if i+1 >= len(args) {
				return env.eval(args[i])
			}
			if a1, err = env.eval(args[i]); err != nil {
				return Value{}, err
			}
		}
	}
}

func addOverflow(a, b int64) (int64, bool) {
	s := a + b
	return s, (a^s)&(b^s) < 0
}

func subOverflow(a, b int64) (int64, bool) {
	s := a - b
	return s, (a^b)&(a^s) < 0
}

func mulOverflow(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, false
	}
	c := a * b
	if (c < 0) != ((a < 0) != (b < 0)) || c/b != a {
		return c, true
	}
	return c, false
}

// evalStandard evaluates the functions that take all their arguments
// (evalStandardFunc).
func (env *Env) evalStandard(n *node) (Value, error) {
	var vargs [maxFuncArgs]Value
	nargs := min(len(n.args), maxFuncArgs)
	hasNull := false
	for i := 0; i < nargs; i++ {
		v, err := env.eval(n.args[i])
		if err != nil {
			return Value{}, err
		}
		vargs[i] = v
		hasNull = hasNull || v.kind == KindNull
	}
	if len(n.args) > maxFuncArgs {
		return Value{}, evalErrorf("too many function arguments, maximum is %d", maxFuncArgs)
	}
	if hasNull && n.op != opIs && n.op != opDebug {
		return Null(), nil
	}
	switch n.op {
	case opAdd, opSub, opMul, opDiv, opMod, opEq, opNe, opLe, opLt:
		return arith(n.op, vargs[0], vargs[1])

	case opBitAnd, opBitOr, opBitXor, opLShift, opRShift:
		li, err := coerceToInt(vargs[0])
		if err != nil {
			return Value{}, err
		}
		ri, err := coerceToInt(vargs[1])
		if err != nil {
			return Value{}, err
		}
		// x86-64 masks shift counts to 6 bits; pgbench inherits that.
		sh := uint64(ri) & 63
		switch n.op {
		case opBitAnd:
			return Int(li & ri), nil
		case opBitOr:
			return Int(li | ri), nil
		case opBitXor:
			return Int(li ^ ri), nil
		case opLShift:
			return Int(li << sh), nil
		default:
			return Int(li >> sh), nil
		}

	case opNot:
		b, err := coerceToBool(vargs[0])
		if err != nil {
			return Value{}, err
		}
		return Bool(!b), nil

	case opPi:
		return Double(math.Pi), nil

	case opAbs:
		v := vargs[0]
		switch v.kind {
		case KindInt:
			if v.i < 0 {
				return Int(-v.i), nil
			}
			return v, nil
		case KindDouble:
			if v.f < 0 {
				return Double(-v.f), nil
			}
			return v, nil
		default:
			// pgbench reads the double member of its value union here; for
			// a boolean that is the denormal 1 or 0.
			bits := uint64(0)
			if v.b {
				bits = 1
			}
			return Double(math.Float64frombits(bits)), nil
		}

	case opDebug:
		env.debug(vargs[0])
		return vargs[0], nil

	case opDouble, opSqrt, opLn, opExp:
		d, err := coerceToDouble(vargs[0])
		if err != nil {
			return Value{}, err
		}
		switch n.op {
		case opSqrt:
			d = math.Sqrt(d)
		case opLn:
			d = cLog(d)
		case opExp:
			d = cExp(d)
		}
		return Double(d), nil

	case opInt:
		i, err := coerceToInt(vargs[0])
		if err != nil {
			return Value{}, err
		}
		return Int(i), nil

	case opLeast, opGreatest:
		return extremum(n.op, vargs[:nargs])

	case opRandom, opRandomExponential, opRandomGaussian, opRandomZipfian:
		return env.random(n.op, vargs[:nargs])

	case opPow:
		ld, err := coerceToDouble(vargs[0])
		if err != nil {
			return Value{}, err
		}
		rd, err := coerceToDouble(vargs[1])
		if err != nil {
			return Value{}, err
		}
		return Double(cPow(ld, rd)), nil

	case opIs:
		a, b := vargs[0], vargs[1]
		return Bool(a.kind == b.kind && (a.kind == KindNull || a.b == b.b)), nil

	case opHashMurmur2, opHashFNV1a:
		val, err := coerceToInt(vargs[0])
		if err != nil {
			return Value{}, err
		}
		seed, err := coerceToInt(vargs[1])
		if err != nil {
			return Value{}, err
		}
		if n.op == opHashMurmur2 {
			return Int(HashMurmur2(val, uint64(seed))), nil
		}
		return Int(HashFNV1a(val, uint64(seed))), nil

	case opPermute:
		var iv [3]int64
		for i := range iv {
			x, err := coerceToInt(vargs[i])
			if err != nil {
				return Value{}, err
			}
			iv[i] = x
		}
		if iv[1] <= 0 {
			return Value{}, evalErrorf("permute size parameter must be greater than zero")
		}
		return Int(Permute(iv[0], iv[1], iv[2])), nil
	}
	return Value{}, evalErrorf("unexpected function %d", n.op)
}

// arith evaluates the overloaded arithmetic and comparison operators: double
// if either side is a double (except %), else int with overflow checks.
func arith(op opcode, l, r Value) (Value, error) {
	if (l.kind == KindDouble || r.kind == KindDouble) && op != opMod {
		ld, err := coerceToDouble(l)
		if err != nil {
			return Value{}, err
		}
		rd, err := coerceToDouble(r)
		if err != nil {
			return Value{}, err
		}
		switch op {
		case opAdd:
			return Double(ld + rd), nil
		case opSub:
			return Double(ld - rd), nil
		case opMul:
			return Double(ld * rd), nil
		case opDiv:
			return Double(ld / rd), nil
		case opEq:
			return Bool(ld == rd), nil
		case opNe:
			return Bool(ld != rd), nil
		case opLe:
			return Bool(ld <= rd), nil
		default:
			return Bool(ld < rd), nil
		}
	}
	li, err := coerceToInt(l)
	if err != nil {
		return Value{}, err
	}
	ri, err := coerceToInt(r)
	if err != nil {
		return Value{}, err
	}
	switch op {
	case opAdd:
		s, of := addOverflow(li, ri)
		if of {
			return Value{}, evalErrorf("bigint add out of range")
		}
		return Int(s), nil
	case opSub:
		s, of := subOverflow(li, ri)
		if of {
			return Value{}, evalErrorf("bigint sub out of range")
		}
		return Int(s), nil
	case opMul:
		s, of := mulOverflow(li, ri)
		if of {
			return Value{}, evalErrorf("bigint mul out of range")
		}
		return Int(s), nil
	case opEq:
		return Bool(li == ri), nil
	case opNe:
		return Bool(li != ri), nil
	case opLe:
		return Bool(li <= ri), nil
	case opLt:
		return Bool(li < ri), nil
	default: // opDiv, opMod
		if ri == 0 {
			return Value{}, evalErrorf("division by zero")
		}
		if ri == -1 {
			if op == opDiv {
				if li == math.MinInt64 {
					return Value{}, evalErrorf("bigint div out of range")
				}
				return Int(-li), nil
			}
			return Int(0), nil
		}
		if op == opDiv {
			return Int(li / ri), nil
		}
		return Int(li % ri), nil
	}
}

// extremum evaluates least() and greatest(): double if any argument is a
// double, else int.
func extremum(op opcode, args []Value) (Value, error) {
	haveDouble := false
	for _, a := range args {
		if a.kind == KindDouble {
			haveDouble = true
			break
		}
	}
	if haveDouble {
		ext, err := coerceToDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		for _, a := range args[1:] {
			d, err := coerceToDouble(a)
			if err != nil {
				return Value{}, err
			}
			if op == opLeast {
				if !(ext < d) {
					ext = d
				}
			} else if !(ext > d) {
				ext = d
			}
		}
		return Double(ext), nil
	}
	ext, err := coerceToInt(args[0])
	if err != nil {
		return Value{}, err
	}
	for _, a := range args[1:] {
		i, err := coerceToInt(a)
		if err != nil {
			return Value{}, err
		}
		if op == opLeast {
			ext = min(ext, i)
		} else {
			ext = max(ext, i)
		}
	}
	return Int(ext), nil
}

// random evaluates the random functions with the client's random state.
func (env *Env) random(op opcode, args []Value) (Value, error) {
	imin, err := coerceToInt(args[0])
	if err != nil {
		return Value{}, err
	}
	imax, err := coerceToInt(args[1])
	if err != nil {
		return Value{}, err
	}
	if imin > imax {
		return Value{}, evalErrorf("empty range given to random")
	}
	delta, of := subOverflow(imax, imin)
	if !of {
		_, of = addOverflow(delta, 1)
	}
	if of {
		return Value{}, evalErrorf("random range is too large")
	}
	if op == opRandom {
		return Int(env.Rand.Uniform(imin, imax)), nil
	}
	param, err := coerceToDouble(args[2])
	if err != nil {
		return Value{}, err
	}
	switch op {
	case opRandomGaussian:
		if param < minGaussianParam {
			return Value{}, evalErrorf("gaussian parameter must be at least %s (not %s)", formatF(minGaussianParam), formatF(param))
		}
		return Int(env.Rand.Gaussian(imin, imax, param)), nil
	case opRandomZipfian:
		// pgbench lets NaN through and then loops forever; refuse it.
		if param < minZipfianParam || param > maxZipfianParam || math.IsNaN(param) {
			return Value{}, evalErrorf("zipfian parameter must be in range [%.3f, %.0f] (not %s)", minZipfianParam, maxZipfianParam, formatF(param))
		}
		return Int(env.Rand.Zipfian(imin, imax, param)), nil
	default:
		if param <= 0.0 {
			return Value{}, evalErrorf("exponential parameter must be greater than zero (not %s)", formatF(param))
		}
		return Int(env.Rand.Exponential(imin, imax, param)), nil
	}
}

// debug writes pgbench's debug() line.
func (env *Env) debug(v Value) {
	w := env.Debug
	if w == nil {
		w = os.Stderr
	}
	b := make([]byte, 0, 64)
	b = append(b, "debug(script="...)
	b = strconv.AppendInt(b, int64(env.Script), 10)
	b = append(b, ",command="...)
	b = strconv.AppendInt(b, int64(env.Command)+1, 10)
	b = append(b, "): "...)
	b = v.appendDebug(b)
	b = append(b, '\n')
	_, _ = w.Write(b)
}
