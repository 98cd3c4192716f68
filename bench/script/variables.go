package script

import (
	"fmt"
	"strings"
)

// Variables is one client's variable storage, indexed by the slots of a
// Symbols table. It follows pgbench's model: a variable holds either a typed
// Value (from \set, \setshell, or the engine's integers), or a string (from
// -D, \gset, \aset) that is interpreted as NULL, boolean, integer or double
// the first time an expression uses it; the string is kept and is what SQL
// substitution sends. The text of a typed value is computed once and cached.
//
// Reading and writing numeric values does not allocate once the variable's
// text buffer has grown to its working size. A Variables belongs to one
// client and must not be shared between goroutines.
type Variables struct {
	syms    *Symbols
	vars    []variable
	scratch []byte
}

type variable struct {
	defined bool
	valueOK bool // val holds the value
	val     Value
	textOK  bool // text holds the text form
	text    []byte
}

// NewVariables returns an empty variable set for the names of syms.
func NewVariables(syms *Symbols) *Variables {
	return &Variables{syms: syms, vars: make([]variable, syms.Len())}
}

// Symbols returns the symbol table the variables are indexed by.
func (v *Variables) Symbols() *Symbols { return v.syms }

// Clone returns an independent copy (pgbench copies client 0's -D variables
// to the other clients).
func (v *Variables) Clone() *Variables {
	c := &Variables{syms: v.syms, vars: make([]variable, len(v.vars))}
	for i, x := range v.vars {
		x.text = append([]byte(nil), x.text...)
		c.vars[i] = x
	}
	return c
}

func (v *Variables) slotFor(slot int) *variable {
	if slot >= len(v.vars) {
		n := max(v.syms.Len(), slot+1)
		grown := make([]variable, n)
		copy(grown, v.vars)
		v.vars = grown
	}
	return &v.vars[slot]
}

// Defined reports whether the variable in slot has been set.
func (v *Variables) Defined(slot int) bool {
	return slot >= 0 && slot < len(v.vars) && v.vars[slot].defined
}

// IsDefined reports whether the named variable has been set (pgbench's
// lookupVariable, used to let -D override scale, client_id, default_seed
// and random_seed).
func (v *Variables) IsDefined(name string) bool {
	slot, ok := v.syms.Lookup(name)
	return ok && v.Defined(slot)
}

// SetValue assigns a typed value to slot. A negative slot is ignored.
func (v *Variables) SetValue(slot int, val Value) {
	if slot < 0 {
		return
	}
	x := v.slotFor(slot)
	x.defined = true
	x.valueOK = true
	x.val = val
	x.textOK = false
}

// SetInt assigns an integer to slot.
func (v *Variables) SetInt(slot int, i int64) { v.SetValue(slot, Int(i)) }

// SetString assigns a string to slot; it is interpreted lazily when an
// expression reads it.
func (v *Variables) SetString(slot int, s string) {
	if slot < 0 {
		return
	}
	x := v.slotFor(slot)
	x.defined = true
	x.valueOK = false
	x.text = append(x.text[:0], s...)
	x.textOK = true
}

// SetBytes is SetString for a byte slice; the bytes are copied.
func (v *Variables) SetBytes(slot int, b []byte) {
	if slot < 0 {
		return
	}
	x := v.slotFor(slot)
	x.defined = true
	x.valueOK = false
	x.text = append(x.text[:0], b...)
	x.textOK = true
}

// Text returns the variable's text as pgbench's getVariable: the string it
// was set from, or the text of its value. The slice stays valid until the
// variable is next assigned. ok is false if the variable is not set.
func (v *Variables) Text(slot int) (text []byte, ok bool) {
	if !v.Defined(slot) {
		return nil, false
	}
	x := &v.vars[slot]
	if !x.textOK {
		x.text = x.val.AppendText(x.text[:0])
		x.textOK = true
	}
	return x.text, true
}

// Value returns the variable's value, interpreting its string the first time
// as pgbench's makeVariableValue: "null" (any case) is NULL; prefixes of
// "true"/"yes" and "on" are true; prefixes of "false"/"no", "off" and "of"
// are false; integers must fit in int64; anything else must be a double. An
// undefined variable yields `undefined variable "name"`.
func (v *Variables) Value(slot int) (Value, error) {
	if !v.Defined(slot) {
		return Value{}, &EvalError{Msg: fmt.Sprintf("undefined variable \"%s\"", v.syms.Name(slot))}
	}
	x := &v.vars[slot]
	if x.valueOK {
		return x.val, nil
	}
	val, err := interpret(v.syms.Name(slot), x.text)
	if err != nil {
		return Value{}, err
	}
	x.val = val
	x.valueOK = true
	return val, nil
}

// interpret converts a variable's string to a value (makeVariableValue).
func interpret(name string, b []byte) (Value, error) {
	if len(b) == 0 {
		// pgbench fails without a message on an empty string.
		return Value{}, &EvalError{}
	}
	switch {
	case equalFold(b, "null"):
		return Null(), nil
	case prefixOfFold(b, "true") || prefixOfFold(b, "yes") || equalFold(b, "on"):
		return Bool(true), nil
	case prefixOfFold(b, "false") || prefixOfFold(b, "no") || equalFold(b, "off") || equalFold(b, "of"):
		return Bool(false), nil
	case isAnInt(b):
		i, kind := strToInt64(b)
		switch kind {
		case convRange:
			return Value{}, &EvalError{Msg: fmt.Sprintf("value \"%s\" is out of range for type bigint", b)}
		case convSyntax:
			return Value{}, &EvalError{Msg: fmt.Sprintf("invalid input syntax for type bigint: \"%s\"", b)}
		}
		return Int(i), nil
	default:
		f, kind := strToDouble(string(b))
		if kind != convOK {
			return Value{}, &EvalError{Msg: fmt.Sprintf("malformed variable \"%s\" value: \"%s\"", name, b)}
		}
		return Double(f), nil
	}
}

// prefixOfFold reports whether s is a non-empty prefix of the lower-case word
// w, ignoring ASCII case (pg_strncasecmp(s, w, strlen(s)) == 0).
func prefixOfFold(s []byte, w string) bool {
	if len(s) == 0 || len(s) > len(w) {
		return false
	}
	for i, c := range s {
		if lower(c) != w[i] {
			return false
		}
	}
	return true
}

// VarNameError is pgbench's error for assigning to an invalid variable name:
// `<context>: invalid variable name: "<name>"`, where context is "option"
// for -D, "set", "setshell", "gset", "aset" or "startup".
type VarNameError struct {
	Context string
	Name    string
}

// Error returns pgbench's message.
func (e *VarNameError) Error() string {
	return fmt.Sprintf("%s: invalid variable name: \"%s\"", e.Context, e.Name)
}

// define finds or creates the named variable as pgbench's
// lookupCreateVariable: the name is checked only when the variable is new.
// On a frozen symbol table a name that no script reads gets slot -1, and
// the value is dropped.
func (v *Variables) define(context, name string) (int, error) {
	if slot, ok := v.syms.Lookup(name); ok && v.Defined(slot) {
		return slot, nil
	}
	if !ValidVariableName(name) {
		return -1, &VarNameError{Context: context, Name: name}
	}
	return v.syms.Intern(name), nil
}

// DefineString assigns a string by name as pgbench's putVariable (used for
// -D with context "option"). Before the symbol table is frozen the name is
// added to it if needed, so that scripts parsed later can read it.
func (v *Variables) DefineString(context, name, value string) error {
	slot, err := v.define(context, name)
	if err != nil {
		return err
	}
	v.SetString(slot, value)
	return nil
}

// DefineValue assigns a typed value by name as pgbench's putVariableValue.
func (v *Variables) DefineValue(context, name string, val Value) error {
	slot, err := v.define(context, name)
	if err != nil {
		return err
	}
	v.SetValue(slot, val)
	return nil
}

// DefineInt assigns an integer by name as pgbench's putVariableInt (the
// engine's scale, client_id, default_seed and random_seed, context
// "startup").
func (v *Variables) DefineInt(context, name string, i int64) error {
	return v.DefineValue(context, name, Int(i))
}

// StoreColumn stores one result column for \gset or \aset: the variable
// prefix+column gets the string value, as pgbench's putVariable with context
// "gset" or "aset". A name that no script reads is only checked, not stored
// (nothing could read it). The returned *VarNameError is pgbench's first
// message; pgbench then reports "client %d script %d command %d query %d:
// error storing into variable %s" and fails the client. It does not allocate
// when the name is known.
func (v *Variables) StoreColumn(context, prefix, column string, value []byte) error {
	v.scratch = append(append(v.scratch[:0], prefix...), column...)
	slot, ok := v.syms.lookupBytes(v.scratch)
	if ok && v.Defined(slot) {
		v.SetBytes(slot, value)
		return nil
	}
	if !validNameBytes(v.scratch) {
		return &VarNameError{Context: context, Name: string(v.scratch)}
	}
	if ok {
		v.SetBytes(slot, value)
	}
	return nil
}

// DefineError is pgbench's error for a -D argument without "=", with an
// empty name or with an empty value.
type DefineError struct {
	Arg string
}

// Error returns pgbench's message.
func (e *DefineError) Error() string {
	return fmt.Sprintf("invalid variable definition: \"%s\"", e.Arg)
}

// ParseDefine splits a -D argument "NAME=VALUE" at its first '=' as pgbench
// does; the name's validity is checked by DefineString.
func ParseDefine(arg string) (name, value string, err error) {
	i := strings.IndexByte(arg, '=')
	if i <= 0 || i == len(arg)-1 {
		return "", "", &DefineError{Arg: arg}
	}
	return arg[:i], arg[i+1:], nil
}
