package script

import (
	"errors"
	"strings"
)

// CommandType tells SQL commands from backslash meta-commands.
type CommandType uint8

// The command types.
const (
	SQLCommand CommandType = iota + 1
	MetaCommand
)

// Meta identifies a meta-command (pgbench's MetaCommand). SQL commands have
// MetaNone, or MetaGset / MetaAset when a \gset or \aset follows them.
type Meta uint8

// The meta-commands.
const (
	MetaNone Meta = iota
	MetaSet
	MetaSetshell
	MetaShell
	MetaSleep
	MetaGset
	MetaAset
	MetaIf
	MetaElif
	MetaElse
	MetaEndif
	MetaStartPipeline
	MetaSyncPipeline
	MetaEndPipeline
)

var metaNames = [...]string{
	MetaNone: "", MetaSet: "set", MetaSetshell: "setshell", MetaShell: "shell", MetaSleep: "sleep",
	MetaGset: "gset", MetaAset: "aset", MetaIf: "if", MetaElif: "elif", MetaElse: "else",
	MetaEndif: "endif", MetaStartPipeline: "startpipeline", MetaSyncPipeline: "syncpipeline",
	MetaEndPipeline: "endpipeline",
}

// String returns the meta-command's name in lower case ("" for MetaNone).
func (m Meta) String() string {
	if int(m) < len(metaNames) {
		return metaNames[m]
	}
	return ""
}

// metaFromName converts a command name as pgbench's getMetaCommand does
// (case-insensitive).
func metaFromName(name string) Meta {
	for m := MetaSet; m <= MetaEndPipeline; m++ {
		if equalFold(name, metaNames[m]) {
			return m
		}
	}
	return MetaNone
}

// MaxArgs is pgbench's MAX_ARGS: a meta-command has at most this many words,
// command name included.
const MaxArgs = 256

// MaxParams is the largest number of variable references an SQL command can
// have in extended and prepared modes (MAX_ARGS - 1).
const MaxParams = MaxArgs - 1

// MaxScripts is pgbench's MAX_SCRIPTS; pgbench fails with "at most 128 SQL
// scripts are allowed" beyond it.
const MaxScripts = 128

// Command is one command of a script: an SQL command or a meta-command.
type Command struct {
	Type CommandType
	Meta Meta
	// Line is the 1-based line where the command starts.
	Line int
	// FirstLine is pgbench's first_line, shown in per-command reports (-r):
	// for SQL, the first line of the text (at most 127 bytes); for a
	// meta-command, its whole text from the backslash, continuation lines
	// included, without the final newline.
	FirstLine string
	// Args are a meta-command's words; Args[0] is its name as written. For
	// "\sleep 10ms" the unit is split off: ["sleep", "10ms", "ms"]. \set,
	// \if and \elif keep only the name (and \set its variable) here; their
	// expression is Expr().
	Args []string
	// SQL is an SQL command's text as pgbench sends it in simple mode before
	// variable substitution (its "lines").
	SQL string
	// VarPrefix is the variable prefix of a \gset or \aset attached to an SQL
	// command (Meta MetaGset or MetaAset); it may be empty.
	VarPrefix string

	expr     *Expr
	setSlot  int  // \set target
	setValid bool // \set target name is valid

	parts      []sqlPart // SQL text split at variable references
	paramSlots []int     // variable slot of $1, $2, ...
	paramNames []string
	paramSQL   string // text with $n placeholders

	sleep sleepSpec
	shell []shellArg
}

// Expr returns the expression of a \set, \if or \elif, or nil.
func (c *Command) Expr() *Expr { return c.expr }

// Script is a parsed pgbench script.
type Script struct {
	// Source is the script's name in messages: the file name, or the
	// builtin's description such as "<builtin: TPC-B (sort of)>".
	Source   string
	Commands []*Command
	// Symbols is the symbol table the script's variables are bound to.
	Symbols *Symbols
}

// Parse parses a pgbench script as pgbench's ParseScript and addScript do:
// the text is split into SQL commands and meta-commands, meta-command
// arguments and expressions are checked, \gset and \aset are merged into the
// preceding SQL command, and \if nesting is checked. Variable names are
// bound to slots of syms, which is shared by all scripts of a run; nil
// creates a new table (Script.Symbols).
//
// Errors are *SyntaxError, *ConditionError or *EmptyScriptError, whose
// texts are pgbench's (and an error if syms is frozen). Like pgbench (which reads a script as a C string),
// the text ends at its first NUL byte.
func Parse(source, text string, syms *Symbols) (*Script, error) {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	if syms == nil {
		syms = NewSymbols()
	}
	if syms.Frozen() {
		return nil, errors.New("script: cannot parse with a frozen symbol table")
	}
	p := &scriptParser{src: text, source: source, syms: syms, sc: sqlScanner{src: text}}
	s := &Script{Source: source, Symbols: syms}
	var buf []byte
	for {
		start := p.sc.pos
		var sr scanResult
		buf, sr = p.sc.scan(buf[:0])
		if cmd := p.sqlCommand(buf, start); cmd != nil {
			s.Commands = append(s.Commands, cmd)
		}
		if sr == scanBackslash {
			backslash := p.sc.pos - 1
			lineno := p.lineAt(backslash)
			cmd, err := p.backslashCommand(backslash, lineno)
			if err != nil {
				return nil, err
			}
			if cmd != nil {
				if cmd.Meta == MetaGset || cmd.Meta == MetaAset {
					if err := attachGset(s, cmd, source, lineno); err != nil {
						return nil, err
					}
				} else {
					s.Commands = append(s.Commands, cmd)
				}
			}
		}
		if sr == scanIncomplete || sr == scanEOL {
			break
		}
	}
	if len(s.Commands) == 0 {
		return nil, &EmptyScriptError{Source: source}
	}
	if err := checkConditional(s); err != nil {
		return nil, err
	}
	return s, nil
}

// attachGset merges a \gset or \aset into the preceding SQL command.
func attachGset(s *Script, g *Command, source string, lineno int) error {
	if len(s.Commands) == 0 {
		return &SyntaxError{Source: source, Line: lineno, Column: -1, Message: "\\gset must follow an SQL command"}
	}
	prev := s.Commands[len(s.Commands)-1]
	if prev.Type != SQLCommand || prev.Meta != MetaNone {
		e := &SyntaxError{Source: source, Line: lineno, Column: -1, Message: "\\gset must follow an SQL command"}
		if prev.Type == MetaCommand {
			// pgbench shows the previous command's first line, which SQL
			// commands only get later.
			e.Detail = prev.FirstLine
		}
		return e
	}
	if len(g.Args) > 1 {
		prev.VarPrefix = g.Args[1]
	}
	prev.Meta = g.Meta
	return nil
}

type scriptParser struct {
	src    string
	source string
	syms   *Symbols
	sc     sqlScanner
	// lineAt's memo: the line of offset linePos. Offsets asked for only
	// grow, so counting newlines stays linear in the script's size.
	linePos, line int
}

// lineAt returns the 1-based line of offset pos; pos must not decrease
// between calls.
func (p *scriptParser) lineAt(pos int) int {
	if p.line == 0 {
		p.line = 1
	}
	if pos > p.linePos {
		p.line += strings.Count(p.src[p.linePos:pos], "\n")
		p.linePos = pos
	}
	return p.line
}

// sqlCommand makes an SQL command from the scanned text, or returns nil if
// the text is only white space and "--" comments (create_sql_command).
func (p *scriptParser) sqlCommand(buf []byte, start int) *Command {
	i := 0
	for i < len(buf) {
		if isCSpace(buf[i]) {
			i++
		} else if buf[i] == '-' && i+1 < len(buf) && buf[i+1] == '-' {
			nl := strings.IndexByte(string(buf[i:]), '\n')
			if nl < 0 {
				return nil
			}
			i += nl + 1
		} else {
			break
		}
	}
	if i >= len(buf) {
		return nil
	}
	text := string(buf[i:])
	cmd := &Command{Type: SQLCommand, Meta: MetaNone, SQL: text, Line: p.lineOfText(start)}
	first := text
	if len(first) > 127 {
		first = first[:127]
	}
	if j := strings.IndexAny(first, "\n\r"); j >= 0 {
		first = first[:j]
	}
	cmd.FirstLine = first
	p.bindSQL(cmd)
	return cmd
}

// lineOfText returns the line of the first character at or after start that
// is not white space or part of a "--" comment.
func (p *scriptParser) lineOfText(start int) int {
	s := p.src
	i := start
	for i < len(s) {
		if isCSpace(s[i]) {
			i++
		} else if s[i] == '-' && i+1 < len(s) && s[i+1] == '-' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
		} else {
			break
		}
	}
	return p.lineAt(min(i, len(s)))
}

// chomp drops trailing newlines and carriage returns.
func chomp(s string) string {
	return strings.TrimRight(s, "\r\n")
}

// backslashCommand parses a meta-command whose backslash is at offset
// start (process_backslash_command). It returns nil for a lone backslash.
func (p *scriptParser) backslashCommand(start, lineno int) (*Command, error) {
	lx := &exprLexer{src: p.src, pos: p.sc.pos, lastEnd: p.sc.pos}
	defer func() {
		p.sc.pos = lx.pos
		p.sc.lx.Reset()
	}()
	name, off, ok := lx.word()
	if !ok {
		return nil, nil
	}
	cmd := &Command{Type: MetaCommand, Line: lineno, Args: []string{name}, Meta: metaFromName(name), setSlot: -1}
	offsets := []int{off}
	synErr := func(msg, more string, column int, withText bool) *SyntaxError {
		e := &SyntaxError{Source: p.source, Line: lineno, Column: column, Command: name, Message: msg, Detail: more}
		if withText {
			e.Text, e.HasText = cmd.FirstLine, true
		}
		return e
	}

	switch cmd.Meta {
	case MetaSet, MetaIf, MetaElif:
		if cmd.Meta == MetaSet {
			v, _, ok := lx.word()
			if !ok {
				return nil, synErr("missing argument", "", -1, false)
			}
			cmd.Args = append(cmd.Args, v)
			if ValidVariableName(v) {
				cmd.setSlot, cmd.setValid = p.syms.Intern(v), true
			}
		}
		ep := &exprParser{lx: lx, syms: p.syms}
		root := ep.parseTop()
		if ep.failed() {
			e := ep.finishError()
			text := chomp(p.src[start:lx.pos])
			return nil, &SyntaxError{Source: p.source, Line: lineno, Column: e.offset - start, Command: name,
				Message: e.msg, Detail: e.more, Text: text, HasText: true}
		}
		cmd.expr = &Expr{root: root}
		cmd.FirstLine = chomp(p.src[start:lx.pos])
		return cmd, nil
	}

	for {
		w, off, ok := lx.word()
		if !ok {
			break
		}
		if len(cmd.Args) >= MaxArgs {
			return nil, synErr("too many arguments", "", -1, false)
		}
		cmd.Args = append(cmd.Args, w)
		offsets = append(offsets, off)
	}
	cmd.FirstLine = chomp(p.src[start:lx.pos])
	argc := len(cmd.Args)

	switch cmd.Meta {
	case MetaSleep:
		if argc < 2 {
			return nil, synErr("missing argument", "", -1, true)
		}
		if argc > 3 {
			return nil, synErr("too many arguments", "", offsets[3]-start, true)
		}
		if a := cmd.Args[1]; a[0] != ':' {
			i := 0
			if a[0] == '+' || a[0] == '-' {
				i++
			}
			haveDigit := i < len(a) && isDigit(a[i])
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			if i < len(a) {
				if argc == 2 && haveDigit {
					cmd.Args = append(cmd.Args, a[i:])
					offsets = append(offsets, offsets[1]+i)
					argc = 3
				} else {
					return nil, synErr("invalid sleep time, must be an integer", a, offsets[1]-start, true)
				}
			}
		}
		if argc == 3 {
			u := cmd.Args[2]
			if !equalFold(u, "us") && !equalFold(u, "ms") && !equalFold(u, "s") {
				return nil, synErr("unrecognized time unit, must be us, ms or s", u, offsets[2]-start, true)
			}
		}
		cmd.sleep = p.sleepSpec(cmd.Args)
	case MetaSetshell:
		if argc < 3 {
			return nil, synErr("missing argument", "", -1, true)
		}
		cmd.shell = p.shellArgs(cmd.Args[2:])
		if ValidVariableName(cmd.Args[1]) {
			cmd.setSlot, cmd.setValid = p.syms.Intern(cmd.Args[1]), true
		}
	case MetaShell:
		if argc < 2 {
			return nil, synErr("missing command", "", -1, true)
		}
		cmd.shell = p.shellArgs(cmd.Args[1:])
	case MetaElse, MetaEndif, MetaStartPipeline, MetaEndPipeline, MetaSyncPipeline:
		if argc != 1 {
			return nil, synErr("unexpected argument", "", -1, true)
		}
	case MetaGset, MetaAset:
		if argc > 2 {
			return nil, synErr("too many arguments", "", -1, true)
		}
	default:
		return nil, synErr("invalid command", "", -1, true)
	}
	return cmd, nil
}

// checkConditional checks the \if ... \endif structure (CheckConditional).
func checkConditional(s *Script) error {
	var stack CondStack
	for i, cmd := range s.Commands {
		if cmd.Type != MetaCommand {
			continue
		}
		fail := func(msg string) error {
			return &ConditionError{Source: s.Source, Command: i + 1, Message: msg}
		}
		switch cmd.Meta {
		case MetaIf:
			stack.Push(IfFalse)
		case MetaElif:
			if stack.Empty() {
				return fail("\\elif without matching \\if")
			}
			if stack.Peek() == IfElseFalse {
				return fail("\\elif after \\else")
			}
		case MetaElse:
			if stack.Empty() {
				return fail("\\else without matching \\if")
			}
			if stack.Peek() == IfElseFalse {
				return fail("\\else after \\else")
			}
			stack.Poke(IfElseFalse)
		case MetaEndif:
			if !stack.Pop() {
				return fail("\\endif without matching \\if")
			}
		}
	}
	if !stack.Empty() {
		return &ConditionError{Source: s.Source, Command: len(s.Commands) + 1, Message: "\\if without matching \\endif"}
	}
	return nil
}

// PipelineEnd returns the index of the first \endpipeline after command i,
// or len(Commands) if there is none: in prepared mode pgbench prepares the
// SQL commands between a \startpipeline and that index before entering
// pipeline mode.
func (s *Script) PipelineEnd(i int) int {
	for j := i + 1; j < len(s.Commands); j++ {
		if c := s.Commands[j]; c.Type == MetaCommand && c.Meta == MetaEndPipeline {
			return j
		}
	}
	return len(s.Commands)
}
