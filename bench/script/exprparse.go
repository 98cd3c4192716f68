package script

import "math"

// tokKind is a token of pgbench's expression lexer (exprscan.l, EXPR state).
type tokKind uint8

const (
	tEnd tokKind = iota // newline or end of input
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tBool
	tNull
	tVar
	tFunc
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEndKw
	tPlus
	tMinus
	tMul
	tDiv
	tMod
	tLParen
	tRParen
	tComma
	tEq
	tNe
	tLe
	tGe
	tLt
	tGt
	tLShift
	tRShift
	tBitOr
	tBitAnd
	tBitXor
	tTilde
)

type token struct {
	kind tokKind
	text string // identifier, variable name (without ':') or literal text
	ival int64
	dval float64
	bval bool
}

// lexError is a lexer error found while scanning (unexpected character,
// constant overflow): message, detail and the 0-based offset in the source.
type lexError struct {
	msg, more string
	offset    int
}

// exprLexer scans a backslash command in the source text, in the two modes
// of exprscan.l: whitespace-separated words, and expression tokens. Both stop
// at (and consume) the end of the line; a backslash before the newline
// continues the command on the next line.
type exprLexer struct {
	src string
	pos int
	// lastEnd is the end offset of the last matched token, pgbench's
	// expr_scanner_offset(): error carets point at lastEnd-1.
	lastEnd        int
	lastWasNewline bool
}

func isExprSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// continuationAt reports the length of a line continuation ("\\\n" or
// "\\\r\n") at offset i, or 0.
func (lx *exprLexer) continuationAt(i int) int {
	s := lx.src
	if i < len(s) && s[i] == '\\' {
		if i+1 < len(s) && s[i+1] == '\n' {
			return 2
		}
		if i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n' {
			return 3
		}
	}
	return 0
}

// word returns the next whitespace-separated word and its start offset as
// pgbench computes it (end of the matched token minus the word length), or
// ok=false at the end of the command.
func (lx *exprLexer) word() (w string, offset int, ok bool) {
	lx.lastWasNewline = false
	s := lx.src
	for {
		if lx.pos >= len(s) {
			return "", -1, false
		}
		c := s[lx.pos]
		switch {
		case isExprSpace(c):
			for lx.pos < len(s) && isExprSpace(s[lx.pos]) {
				lx.pos++
			}
			lx.lastEnd = lx.pos
			continue
		case c == '\n':
			lx.pos++
			lx.lastEnd = lx.pos
			lx.lastWasNewline = true
			return "", -1, false
		}
		if n := lx.continuationAt(lx.pos); n > 0 {
			lx.pos += n
			lx.lastEnd = lx.pos
			continue
		}
		start := lx.pos
		end := start
		for end < len(s) && !isExprSpace(s[end]) && s[end] != '\n' {
			end++
		}
		tokEnd := end
		w = s[start:end]
		if end-start >= 2 && s[end-1] == '\\' {
			if n := lx.continuationAt(end - 1); n > 0 {
				w = s[start : end-1]
				tokEnd = end - 1 + n
			}
		}
		lx.pos = tokEnd
		lx.lastEnd = tokEnd
		return w, tokEnd - len(w), true
	}
}

func isAlpha(c byte) bool { return isVarStart(c) }

// asciiLower lower-cases ASCII letters only, as flex's [Aa][Nn][Dd] classes.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}
func isAlnum(c byte) bool { return isVarChar(c) }

var exprKeywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEndKw,
	"true": tBool, "false": tBool, "null": tNull,
}

// next returns the next expression token. On a lexer error it returns the
// error and the token is to be ignored.
func (lx *exprLexer) next() (token, *lexError) {
	lx.lastWasNewline = false
	s := lx.src
	for {
		if lx.pos >= len(s) {
			lx.lastEnd = len(s)
			return token{kind: tEnd}, nil
		}
		c := s[lx.pos]
		if isExprSpace(c) {
			for lx.pos < len(s) && isExprSpace(s[lx.pos]) {
				lx.pos++
			}
			lx.lastEnd = lx.pos
			continue
		}
		if n := lx.continuationAt(lx.pos); n > 0 {
			lx.pos += n
			lx.lastEnd = lx.pos
			continue
		}
		if c == '\n' {
			lx.pos++
			lx.lastEnd = lx.pos
			lx.lastWasNewline = true
			return token{kind: tEnd}, nil
		}
		break
	}
	start := lx.pos
	c := s[start]
	two := ""
	if start+1 < len(s) {
		two = s[start : start+2]
	}
	emit := func(k tokKind, n int) (token, *lexError) {
		lx.pos = start + n
		lx.lastEnd = lx.pos
		return token{kind: k}, nil
	}
	switch two {
	case "<>", "!=":
		return emit(tNe, 2)
	case "<=":
		return emit(tLe, 2)
	case ">=":
		return emit(tGe, 2)
	case "<<":
		return emit(tLShift, 2)
	case ">>":
		return emit(tRShift, 2)
	}
	switch c {
	case '+':
		return emit(tPlus, 1)
	case '-':
		return emit(tMinus, 1)
	case '*':
		return emit(tMul, 1)
	case '/':
		return emit(tDiv, 1)
	case '%':
		return emit(tMod, 1)
	case '=':
		return emit(tEq, 1)
	case '<':
		return emit(tLt, 1)
	case '>':
		return emit(tGt, 1)
	case '|':
		return emit(tBitOr, 1)
	case '&':
		return emit(tBitAnd, 1)
	case '#':
		return emit(tBitXor, 1)
	case '~':
		return emit(tTilde, 1)
	case '(':
		return emit(tLParen, 1)
	case ')':
		return emit(tRParen, 1)
	case ',':
		return emit(tComma, 1)
	}
	if c == ':' && start+1 < len(s) && isAlnum(s[start+1]) {
		end := start + 1
		for end < len(s) && isAlnum(s[end]) {
			end++
		}
		lx.pos, lx.lastEnd = end, end
		return token{kind: tVar, text: s[start+1 : end]}, nil
	}
	if isDigit(c) || (c == '.' && start+1 < len(s) && isDigit(s[start+1])) {
		return lx.number(start)
	}
	if isAlpha(c) {
		end := start + 1
		for end < len(s) && isAlnum(s[end]) {
			end++
		}
		lx.pos, lx.lastEnd = end, end
		word := s[start:end]
		if k, ok := exprKeywords[asciiLower(word)]; ok {
			t := token{kind: k, text: word}
			if k == tBool {
				t.bval = equalFold(word, "true")
			}
			return t, nil
		}
		return token{kind: tFunc, text: word}, nil
	}
	lx.pos, lx.lastEnd = start+1, start+1
	return token{}, &lexError{msg: "unexpected character", more: s[start : start+1], offset: start}
}

// number scans an integer or double constant with flex's longest-match
// rules: {digit}+ is an integer, a longer match of
// {digit}+(\.{digit}*)?([eE][-+]?{digit}+)? or \.{digit}+([eE][-+]?{digit}+)?
// is a double.
func (lx *exprLexer) number(start int) (token, *lexError) {
	s := lx.src
	i := start
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intEnd := i
	dblEnd := i
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		dblEnd = i
	}
	if dblEnd < len(s) && (s[dblEnd] == 'e' || s[dblEnd] == 'E') {
		k := dblEnd + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			dblEnd = k
		}
	}
	if dblEnd > intEnd {
		text := s[start:dblEnd]
		lx.pos, lx.lastEnd = dblEnd, dblEnd
		f, kind := strToDouble(text)
		if kind != convOK {
			return token{}, &lexError{msg: "double constant overflow", more: text, offset: dblEnd - 1}
		}
		return token{kind: tDouble, text: text, dval: f}, nil
	}
	text := s[start:intEnd]
	lx.pos, lx.lastEnd = intEnd, intEnd
	if text == "9223372036854775808" {
		return token{kind: tMaxIntPlusOne, text: text}, nil
	}
	v, kind := strToInt64(text)
	if kind != convOK {
		return token{}, &lexError{msg: "bigint constant overflow", more: text, offset: intEnd - 1}
	}
	return token{kind: tInt, text: text, ival: v}, nil
}

// funcSpec describes one callable function of exprparse.y's table.
type funcSpec struct {
	name  string
	op    opcode
	nargs int // >= 0 fixed; nargsVariable, nargsHash, nargsPermute
}

const (
	nargsVariable = -1
	nargsHash     = -3
	nargsPermute  = -4
)

var funcTable = []funcSpec{
	{"mod", opMod, 2},
	{"abs", opAbs, 1},
	{"least", opLeast, nargsVariable},
	{"greatest", opGreatest, nargsVariable},
	{"debug", opDebug, 1},
	{"pi", opPi, 0},
	{"sqrt", opSqrt, 1},
	{"ln", opLn, 1},
	{"exp", opExp, 1},
	{"int", opInt, 1},
	{"double", opDouble, 1},
	{"random", opRandom, 2},
	{"random_gaussian", opRandomGaussian, 3},
	{"random_exponential", opRandomExponential, 3},
	{"random_zipfian", opRandomZipfian, 3},
	{"pow", opPow, 2},
	{"power", opPow, 2},
	{"hash", opHashMurmur2, nargsHash},
	{"hash_murmur2", opHashMurmur2, nargsHash},
	{"hash_fnv1a", opHashFNV1a, nargsHash},
	{"permute", opPermute, nargsPermute},
}

func findFunc(name string) (funcSpec, bool) {
	for _, f := range funcTable {
		if equalFold(name, f.name) {
			return f, true
		}
	}
	return funcSpec{}, false
}

// Operator precedence levels of exprparse.y, lowest first.
const (
	precOr     = 1
	precAnd    = 2
	precNot    = 3
	precIs     = 4 // IS, ISNULL, NOTNULL
	precCmp    = 5 // < > = <= >= <> (nonassoc)
	precBit    = 6 // | # & << >> ~
	precAdd    = 7
	precMul    = 8
	precUnary  = 9
	maxDepth   = 10000 // bison's YYMAXDEPTH
	defaultVar = "default_seed"
)

// exprParser is a precedence-climbing parser that accepts exactly the
// language of exprparse.y and reports errors at the same positions as the
// bison parser: semantic checks (unknown function, argument counts) run at
// the points where bison reduces without reading a lookahead token. It also
// counts the entries bison's LR stack would hold (stack: one per shifted
// token, minus the right-hand sides of reductions), to fail with "memory
// exhausted" where bison does (YYMAXDEPTH).
type exprParser struct {
	lx    *exprLexer
	syms  *Symbols
	tok   token
	have  bool // tok holds an unconsumed lookahead
	err   *lexError
	stack int
}

// push records a state pushed on bison's stack.
func (p *exprParser) push() {
	p.stack++
	if p.stack >= maxDepth {
		p.failHere("memory exhausted", "")
	}
}

// reduce records a reduction of a rule with n symbols to one.
func (p *exprParser) reduce(n int) { p.stack -= n - 1 }

func (p *exprParser) failed() bool { return p.err != nil }

// failHere records an error at the last matched token.
func (p *exprParser) failHere(msg, more string) {
	if p.err == nil {
		p.err = &lexError{msg: msg, more: more, offset: p.lx.lastEnd - 1}
	}
}

func (p *exprParser) peek() token {
	if !p.have && p.err == nil {
		t, lerr := p.lx.next()
		if lerr != nil {
			p.err = lerr
			return token{kind: tEnd}
		}
		p.tok, p.have = t, true
	}
	return p.tok
}

// consume shifts the lookahead token.
func (p *exprParser) consume() token {
	t := p.peek()
	p.have = false
	p.push()
	return t
}

func (p *exprParser) syntaxError() { p.failHere("syntax error", "") }

func (p *exprParser) expect(k tokKind) bool {
	if p.peek().kind != k || p.failed() {
		p.syntaxError()
		return false
	}
	p.consume()
	return !p.failed()
}

// parseTop parses a whole expression followed by the end of the command.
func (p *exprParser) parseTop() *node {
	p.stack = 1 // bison's initial state
	n := p.parseExpr(0)
	if p.failed() {
		return nil
	}
	if p.peek().kind != tEnd || p.failed() {
		p.syntaxError()
		return nil
	}
	p.consume()
	return n
}

func makeOp(op opcode, args ...*node) *node { return &node{op: op, args: args} }

func binaryInfo(k tokKind) (prec int, op opcode, swap bool) {
	switch k {
	case tOr:
		return precOr, opOr, false
	case tAnd:
		return precAnd, opAnd, false
	case tLt:
		return precCmp, opLt, false
	case tLe:
		return precCmp, opLe, false
	case tGt:
		return precCmp, opLt, true
	case tGe:
		return precCmp, opLe, true
	case tEq:
		return precCmp, opEq, false
	case tNe:
		return precCmp, opNe, false
	case tBitOr:
		return precBit, opBitOr, false
	case tBitXor:
		return precBit, opBitXor, false
	case tBitAnd:
		return precBit, opBitAnd, false
	case tLShift:
		return precBit, opLShift, false
	case tRShift:
		return precBit, opRShift, false
	case tPlus:
		return precAdd, opAdd, false
	case tMinus:
		return precAdd, opSub, false
	case tMul:
		return precMul, opMul, false
	case tDiv:
		return precMul, opDiv, false
	case tMod:
		return precMul, opMod, false
	case tIs, tIsNull, tNotNull:
		return precIs, 0, false
	}
	return 0, 0, false
}

func nullConst() *node            { return &node{op: opConst, val: Null()} }
func boolConst(b bool) *node      { return &node{op: opConst, val: Bool(b)} }
func intConst(i int64) *node      { return &node{op: opConst, val: Int(i)} }
func doubleConst(f float64) *node { return &node{op: opConst, val: Double(f)} }

func (p *exprParser) variable(name string) *node {
	return &node{op: opVar, slot: p.syms.Intern(name), name: name}
}

func (p *exprParser) parseExpr(minPrec int) *node {
	lhs := p.parsePrefix()
	lastNonassoc := 0
	for !p.failed() {
		t := p.peek()
		if p.failed() {
			return nil
		}
		prec, op, swap := binaryInfo(t.kind)
		if prec == 0 || prec < minPrec {
			break
		}
		if prec == lastNonassoc {
			p.syntaxError()
			return nil
		}
		p.consume()
		if p.failed() {
			return nil
		}
		lastNonassoc = 0
		switch t.kind {
		case tIsNull:
			p.reduce(2)
			lhs = makeOp(opIs, lhs, nullConst())
		case tNotNull:
			p.reduce(2)
			lhs = makeOp(opNot, makeOp(opIs, lhs, nullConst()))
		case tIs:
			lhs = p.parseIs(lhs)
		default:
			rhs := p.parseExpr(prec + 1)
			if p.failed() {
				return nil
			}
			p.reduce(3)
			if swap {
				lhs = makeOp(op, rhs, lhs)
			} else {
				lhs = makeOp(op, lhs, rhs)
			}
			if prec == precCmp {
				lastNonassoc = prec
			}
		}
	}
	if p.failed() {
		return nil
	}
	return lhs
}

// parseIs parses what follows IS: [NOT] NULL | [NOT] TRUE | [NOT] FALSE.
func (p *exprParser) parseIs(lhs *node) *node {
	negate := false
	t := p.peek()
	if t.kind == tNot && !p.failed() {
		negate = true
		p.consume()
		t = p.peek()
	}
	n := 3 // expr IS x
	if negate {
		n = 4 // expr IS NOT x
	}
	if p.failed() {
		return nil
	}
	var rhs *node
	switch t.kind {
	case tNull:
		rhs = nullConst()
	case tBool:
		rhs = boolConst(t.bval)
	default:
		p.syntaxError()
		return nil
	}
	p.consume()
	if p.failed() {
		return nil
	}
	p.reduce(n)
	is := makeOp(opIs, lhs, rhs)
	if negate {
		is = makeOp(opNot, is)
	}
	return is
}

func (p *exprParser) parsePrefix() *node {
	t := p.peek()
	if p.failed() {
		return nil
	}
	// prefix parses the operand of a prefix operator and reduces
	// "op expr".
	prefix := func(minPrec int) *node {
		operand := p.parseExpr(minPrec)
		if p.failed() {
			return nil
		}
		p.reduce(2)
		return operand
	}
	switch t.kind {
	case tLParen:
		p.consume()
		if p.failed() {
			return nil
		}
		n := p.parseExpr(0)
		if p.failed() || !p.expect(tRParen) {
			return nil
		}
		p.reduce(3)
		return n
	case tPlus:
		p.consume()
		if p.failed() {
			return nil
		}
		return prefix(precUnary + 1)
	case tMinus:
		p.consume()
		if p.failed() {
			return nil
		}
		if nt := p.peek(); nt.kind == tMaxIntPlusOne && !p.failed() {
			p.consume()
			if p.failed() {
				return nil
			}
			p.reduce(2)
			return intConst(math.MinInt64)
		}
		operand := prefix(precUnary + 1)
		if operand == nil {
			return nil
		}
		return makeOp(opSub, intConst(0), operand)
	case tTilde:
		p.consume()
		if p.failed() {
			return nil
		}
		operand := prefix(precBit + 1)
		if operand == nil {
			return nil
		}
		return makeOp(opBitXor, intConst(-1), operand)
	case tNot:
		p.consume()
		if p.failed() {
			return nil
		}
		operand := prefix(precNot + 1)
		if operand == nil {
			return nil
		}
		return makeOp(opNot, operand)
	case tNull, tBool, tInt, tDouble, tVar, tFunc, tCase:
		p.consume()
		if p.failed() {
			return nil
		}
		switch t.kind {
		case tNull:
			return nullConst()
		case tBool:
			return boolConst(t.bval)
		case tInt:
			return intConst(t.ival)
		case tDouble:
			return doubleConst(t.dval)
		case tVar:
			return p.variable(t.text)
		case tFunc:
			return p.parseCall(t.text)
		default:
			return p.parseCase()
		}
	}
	p.syntaxError()
	return nil
}

func (p *exprParser) parseCall(name string) *node {
	// bison reduces FUNCTION to a function number right after shifting it.
	spec, ok := findFunc(name)
	if !ok {
		p.failHere("unexpected function name", name)
		return nil
	}
	if !p.expect(tLParen) {
		return nil
	}
	var args []*node
	if k := p.peek().kind; k != tRParen && k != tComma && !p.failed() {
		a := p.parseExpr(0) // reduced to elist
		if p.failed() {
			return nil
		}
		args = append(args, a)
	} else if !p.failed() {
		p.push() // the empty elist
	}
	for !p.failed() && p.peek().kind == tComma && !p.failed() {
		p.consume()
		if p.failed() {
			return nil
		}
		a := p.parseExpr(0)
		if p.failed() {
			return nil
		}
		p.reduce(3) // elist ',' expr
		args = append(args, a)
	}
	if p.failed() || !p.expect(tRParen) {
		return nil
	}
	p.reduce(4) // function '(' elist ')'
	// Argument counts are checked when "function ( elist )" is reduced,
	// right after the closing parenthesis.
	n := len(args)
	switch spec.nargs {
	case nargsVariable:
		if n == 0 {
			p.failHere("at least one argument expected", spec.name)
			return nil
		}
	case nargsHash:
		if n < 1 || n > 2 {
			p.failHere("unexpected number of arguments", spec.name)
			return nil
		}
		if n == 1 {
			args = append(args, p.variable(defaultVar))
		}
	case nargsPermute:
		if n < 2 || n > 3 {
			p.failHere("unexpected number of arguments", spec.name)
			return nil
		}
		if n == 2 {
			args = append(args, p.variable(defaultVar))
		}
	default:
		if n != spec.nargs {
			p.failHere("unexpected number of arguments", spec.name)
			return nil
		}
	}
	return &node{op: spec.op, args: args}
}

func (p *exprParser) parseCase() *node {
	var args []*node
	for first := true; ; first = false {
		if !p.expect(tWhen) {
			return nil
		}
		cond := p.parseExpr(0)
		if p.failed() || !p.expect(tThen) {
			return nil
		}
		then := p.parseExpr(0)
		if p.failed() {
			return nil
		}
		if first {
			p.reduce(4) // WHEN expr THEN expr
		} else {
			p.reduce(5) // when_then_list WHEN expr THEN expr
		}
		args = append(args, cond, then)
		if p.peek().kind != tWhen || p.failed() {
			break
		}
	}
	if p.failed() {
		return nil
	}
	switch p.peek().kind {
	case tEndKw:
		if p.consume(); p.failed() {
			return nil
		}
		p.reduce(3) // CASE when_then_list END
		args = append(args, nullConst())
	case tElse:
		if p.consume(); p.failed() {
			return nil
		}
		e := p.parseExpr(0)
		if p.failed() || !p.expect(tEndKw) {
			return nil
		}
		p.reduce(5) // CASE when_then_list ELSE expr END
		args = append(args, e)
	default:
		p.syntaxError()
		return nil
	}
	return &node{op: opCase, args: args}
}

// finishError completes an expression error as expr_yyerror_more does: the
// rest of the line is lexed (a lexer error found there replaces the first
// error, as pgbench's recursive error path does), and the offset of the end
// of the line is returned.
func (p *exprParser) finishError() *lexError {
	e := p.err
	if !p.lx.lastWasNewline {
		for {
			t, lerr := p.lx.next()
			if lerr != nil {
				e = lerr
				continue
			}
			if t.kind == tEnd {
				break
			}
		}
	}
	return e
}
