package script

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// Abort reasons pgbench prints after "client N aborted in command M (cmd) of
// script S; ".
const (
	ReasonEvaluation = "evaluation of meta-command failed"
	ReasonAssignment = "assignment of meta-command failed"
	ReasonExecution  = "execution of meta-command failed"
)

// ExecSet runs a \set command: it evaluates the expression and assigns the
// result. Errors are *ExecError as pgbench reports them. It does not
// allocate for numeric results.
func (c *Command) ExecSet(env *Env) error {
	if c.Meta != MetaSet || c.Type != MetaCommand {
		return c.misuse("ExecSet")
	}
	v, err := c.expr.Eval(env)
	if err != nil {
		return &ExecError{Detail: err.Error(), Command: c.Args[0], Reason: ReasonEvaluation}
	}
	if !c.setValid {
		return &ExecError{Detail: (&VarNameError{Context: c.Args[0], Name: c.Args[1]}).Error(),
			Command: "set", Reason: ReasonAssignment}
	}
	env.Vars.SetValue(c.setSlot, v)
	return nil
}

// EvalCondition evaluates the expression of an \if or \elif and returns its
// truth (NULL and zero are false). Errors are *ExecError.
func (c *Command) EvalCondition(env *Env) (bool, error) {
	if (c.Meta != MetaIf && c.Meta != MetaElif) || c.Type != MetaCommand {
		return false, c.misuse("EvalCondition")
	}
	v, err := c.expr.Eval(env)
	if err != nil {
		return false, &ExecError{Detail: err.Error(), Command: c.Args[0], Reason: ReasonEvaluation}
	}
	return v.Truth(), nil
}

// misuse reports a helper called on the wrong kind of command.
func (c *Command) misuse(fn string) error {
	what := "SQL command"
	if c.Type == MetaCommand {
		what = "\\" + c.Meta.String() + " command"
	}
	return fmt.Errorf("script: %s called on a %s", fn, what)
}

// sleepSpec is a parsed \sleep argument.
type sleepSpec struct {
	isVar bool
	slot  int
	name  string
	lit   int32 // atoi of the literal argument
	mult  int32 // 1 (us), 1000 (ms) or 1000000 (s)
}

func (p *scriptParser) sleepSpec(args []string) sleepSpec {
	sp := sleepSpec{mult: 1000000, slot: -1}
	if strings.HasPrefix(args[1], ":") {
		sp.isVar = true
		sp.name = args[1][1:]
		sp.slot = p.syms.Intern(sp.name)
	} else {
		sp.lit = atoi(args[1])
	}
	if len(args) > 2 {
		switch {
		case equalFold(args[2], "ms"):
			sp.mult = 1000
		case equalFold(args[2], "s"):
			sp.mult = 1000000
		default:
			sp.mult = 1
		}
	}
	return sp
}

// atoi emulates C's atoi on 64-bit glibc: strtol (leading white space, sign,
// digits, saturating at the long range) truncated to int.
func atoi[T ~string | ~[]byte](s T) int32 {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v int64
	sat := false
	for i < len(s) && isDigit(s[i]) {
		d := int64(s[i] - '0')
		if !sat {
			if v > (math.MaxInt64-d)/10 {
				sat = true
			} else {
				v = v*10 + d
			}
		}
		i++
	}
	switch {
	case sat && neg:
		v = math.MinInt64
	case sat:
		v = math.MaxInt64
	case neg:
		v = -v
	}
	return int32(v)
}

// SleepMicros returns the delay of a \sleep in microseconds, as pgbench's
// evaluateSleep: a literal number or the text of a :variable read with
// atoi, times the unit (seconds by default). Like pgbench, it computes in a
// 32-bit int, so huge delays wrap around and may be negative (no sleep).
// Errors are *ExecError (undefined variable, a value that is not a number).
func (c *Command) SleepMicros(vars *Variables) (int64, error) {
	if c.Meta != MetaSleep || c.Type != MetaCommand {
		return 0, c.misuse("SleepMicros")
	}
	sp := &c.sleep
	usec := sp.lit
	if sp.isVar {
		t, ok := vars.Text(sp.slot)
		if !ok {
			return 0, &ExecError{Detail: fmt.Sprintf("%s: undefined variable \"%s\"", c.Args[0], sp.name),
				Command: "sleep", Reason: ReasonExecution}
		}
		usec = atoi(t)
		if usec == 0 && (len(t) == 0 || !isDigit(t[0])) {
			return 0, &ExecError{Detail: fmt.Sprintf("%s: invalid sleep time \"%s\" for variable \"%s\"", c.Args[0], t, sp.name),
				Command: "sleep", Reason: ReasonExecution}
		}
	}
	return int64(usec * sp.mult), nil
}

// shellArg is one argument of \shell or \setshell.
type shellArg struct {
	lit   string // literal text, when slot < 0
	slot  int
	raw   string // the argument as written, for messages
	isVar bool
}

func (p *scriptParser) shellArgs(args []string) []shellArg {
	out := make([]shellArg, len(args))
	for i, a := range args {
		switch {
		case !strings.HasPrefix(a, ":"):
			out[i] = shellArg{lit: a, slot: -1, raw: a}
		case strings.HasPrefix(a, "::"):
			out[i] = shellArg{lit: a[1:], slot: -1, raw: a}
		default:
			out[i] = shellArg{slot: p.syms.Intern(a[1:]), raw: a, isVar: true}
		}
	}
	return out
}

// ShellCommandSize is pgbench's SHELL_COMMAND_SIZE: a shell command line
// must be shorter than this many bytes (minus one).
const ShellCommandSize = 256

// ShellName returns the program word of a \shell or \setshell (the first
// word after the command, or after the variable of \setshell), which pgbench
// uses as the prefix of its shell messages.
func (c *Command) ShellName() string {
	if len(c.shell) == 0 {
		return ""
	}
	return c.shell[0].raw
}

// ShellVariable returns the variable name a \setshell assigns.
func (c *Command) ShellVariable() string {
	if c.Meta != MetaSetshell || len(c.Args) < 2 {
		return ""
	}
	return c.Args[1]
}

// ShellCommand builds the command line of a \shell or \setshell as
// pgbench's runShellCommand: the words joined by single spaces, where
// ":name" is replaced by the variable's text and "::word" passes ":word".
// The engine runs the line with "/bin/sh -c" (C's system() or popen()).
// Errors are *ExecError: an undefined variable or a line too long.
func (c *Command) ShellCommand(vars *Variables) (string, error) {
	if (c.Meta != MetaShell && c.Meta != MetaSetshell) || c.Type != MetaCommand {
		return "", c.misuse("ShellCommand")
	}
	name := c.ShellName()
	var b []byte
	for i, a := range c.shell {
		arg := a.lit
		var argb []byte
		if a.isVar {
			t, ok := vars.Text(a.slot)
			if !ok {
				return "", c.shellErr(fmt.Sprintf("%s: undefined variable \"%s\"", name, a.raw))
			}
			argb = t
		}
		n := len(arg) + len(argb)
		sep := 0
		if i > 0 {
			sep = 1
		}
		if len(b)+n+sep >= ShellCommandSize-1 {
			return "", c.shellErr(fmt.Sprintf("%s: shell command is too long", name))
		}
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, arg...)
		b = append(b, argb...)
	}
	return string(b), nil
}

func (c *Command) shellErr(detail string) *ExecError {
	cmd := "shell"
	if c.Meta == MetaSetshell {
		cmd = "setshell"
	}
	return &ExecError{Detail: detail, Command: cmd, Reason: ReasonExecution}
}

// ShellLaunchError returns pgbench's error for a \shell whose command failed
// (system() returned non-zero) or a \setshell whose command could not be
// started. pgbench omits the detail when the run's time (-T) is over.
func (c *Command) ShellLaunchError() *ExecError {
	return c.shellErr(fmt.Sprintf("%s: could not launch shell command", c.ShellName()))
}

// SetShellResult stores the output of a \setshell command as pgbench does:
// only the first line (at most 63 bytes) is read, it must be an integer
// (strtol, trailing white space allowed) and is stored as a 32-bit int.
// Errors are *ExecError: no output, not an integer, or an invalid variable
// name.
func (c *Command) SetShellResult(vars *Variables, output []byte) error {
	if c.Meta != MetaSetshell || c.Type != MetaCommand {
		return c.misuse("SetShellResult")
	}
	name := c.ShellName()
	if len(output) == 0 {
		return c.shellErr(fmt.Sprintf("%s: could not read result of shell command", name))
	}
	// fgets(res, 64, fp): up to 63 bytes, through the first newline.
	res := output
	if len(res) > 63 {
		res = res[:63]
	}
	if i := bytes.IndexByte(res, '\n'); i >= 0 {
		res = res[:i+1]
	}
	// A NUL ends the C string.
	if i := bytes.IndexByte(res, 0); i >= 0 {
		res = res[:i]
	}
	end := strtolEnd(res)
	for end < len(res) && isCSpace(res[end]) {
		end++
	}
	if len(res) == 0 || end != len(res) {
		return c.shellErr(fmt.Sprintf("%s: shell command must return an integer (not \"%s\")", name, res))
	}
	if !c.setValid {
		return c.shellErr((&VarNameError{Context: "setshell", Name: c.Args[1]}).Error())
	}
	vars.SetInt(c.setSlot, int64(atoi(res)))
	return nil
}

// strtolEnd returns where strtol(s, &end, 10) stops; 0 if nothing converts.
func strtolEnd(s []byte) int {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// Run-time pipeline failures, as pgbench reports them with no detail line:
// "client N aborted in command M (<command>) of script S; <reason>".
const (
	ReasonPipelineSimple  = "cannot use pipeline mode with the simple query protocol"
	ReasonAlreadyPipeline = "already in pipeline mode"
	ReasonNotInPipeline   = "not in pipeline mode"
	ReasonEnterPipeline   = "failed to enter pipeline mode"
	ReasonPipelineSync    = "failed to send a pipeline sync"
	ReasonGsetInPipeline  = "\\gset is not allowed in pipeline mode"
	ReasonAsetInPipeline  = "\\aset is not allowed in pipeline mode"
)

// PipelineError returns the *ExecError pgbench reports for a pipeline
// failure of this command: a pipeline meta-command with one of the Reason
// constants above, or an SQL command with \gset or \aset run inside a
// pipeline (its reason is chosen from the command).
func (c *Command) PipelineError(reason string) *ExecError {
	switch c.Meta {
	case MetaGset:
		return &ExecError{Command: "gset", Reason: ReasonGsetInPipeline}
	case MetaAset:
		return &ExecError{Command: "aset", Reason: ReasonAsetInPipeline}
	}
	return &ExecError{Command: c.Meta.String(), Reason: reason}
}
