package script

import (
	"fmt"
	"strings"
)

// SyntaxError is a script parse error, printed exactly as pgbench's
// syntax_error() prints it (without the "pgbench: error: " prefix that
// pgbench's logger puts before the first line):
//
//	<source>:<line>: <message>[ (<detail>)][ at column N][ in command "<cmd>"]
//	<text of the command>
//	<spaces>^ error found here
//
// The second line is present when HasText is true, the caret line when also
// Column >= 0; " at column N" appears only when there is a column but no
// text.
type SyntaxError struct {
	Source  string // script name (file name or builtin description)
	Line    int    // 1-based line of the backslash command
	Column  int    // 0-based column in Text, or -1
	Command string // meta-command name as written, or "" for none
	Message string
	Detail  string // pgbench's "more", shown in parentheses; "" for none
	Text    string // the command's text, from its backslash
	HasText bool
}

// Error returns pgbench's message, one to three lines without a trailing
// newline.
func (e *SyntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", e.Source, e.Line, e.Message)
	if e.Detail != "" {
		fmt.Fprintf(&b, " (%s)", e.Detail)
	}
	if e.Column >= 0 && !e.HasText {
		fmt.Fprintf(&b, " at column %d", e.Column+1)
	}
	if e.Command != "" {
		fmt.Fprintf(&b, " in command \"%s\"", e.Command)
	}
	if e.HasText {
		b.WriteByte('\n')
		b.WriteString(e.Text)
		if e.Column >= 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", e.Column))
			b.WriteString("^ error found here")
		}
	}
	return b.String()
}

// ConditionError is pgbench's static check of \if ... \endif nesting
// (CheckConditional), for example
// `condition error in script "x.sql" command 3: \else after \else`.
// Command is 1-based; for a missing \endif it is one past the last command.
type ConditionError struct {
	Source  string
	Command int
	Message string
}

// Error returns pgbench's message.
func (e *ConditionError) Error() string {
	return fmt.Sprintf("condition error in script \"%s\" command %d: %s", e.Source, e.Command, e.Message)
}

// EmptyScriptError is pgbench's error for a script without any command.
type EmptyScriptError struct {
	Source string
}

// Error returns pgbench's message.
func (e *EmptyScriptError) Error() string {
	return fmt.Sprintf("empty command list for script \"%s\"", e.Source)
}

// TooManyParamsError is pgbench's error for an SQL command with more than 255
// variable references, which extended and prepared modes cannot send
// (MAX_ARGS). Simple mode has no such limit.
type TooManyParamsError struct {
	SQL string
}

// Error returns pgbench's message.
func (e *TooManyParamsError) Error() string {
	return fmt.Sprintf("statement has too many arguments (maximum is %d): %s", MaxParams, e.SQL)
}

// ExecError is a failed meta-command at run time. pgbench logs Detail (when
// not empty) as one error line, then
// "client <id> aborted in command <n> (<Command>) of script <s>; <Reason>";
// AbortMessage formats that second line.
type ExecError struct {
	Detail  string // the specific message, e.g. "division by zero"; may be ""
	Command string // the name pgbench shows in parentheses
	Reason  string // e.g. "evaluation of meta-command failed"
}

// Error returns Detail, or Reason when there is no detail.
func (e *ExecError) Error() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Reason
}

// AbortMessage returns pgbench's abort line for client, 0-based command
// index and script index.
func (e *ExecError) AbortMessage(client, command, script int) string {
	return fmt.Sprintf("client %d aborted in command %d (%s) of script %d; %s", client, command, e.Command, script, e.Reason)
}
