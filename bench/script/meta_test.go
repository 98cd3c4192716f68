package script

import (
	"errors"
	"strings"
	"testing"
)

func parseOne(t *testing.T, text string) (*Script, *Env) {
	t.Helper()
	s, err := Parse("m.sql", text, nil)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	env, _ := newClient(t, s, 1, "x=abc", "one=1.0", "zero=0", "neg=-5", "sp= 7")
	return s, env
}

func TestSleepMicros(t *testing.T) {
	cases := []struct {
		text string
		want int64
	}{
		{`\sleep 2`, 2000000},
		{`\sleep 100 us`, 100},
		{`\sleep 100 US`, 100},
		{`\sleep 0 s`, 0},
		{`\sleep 10ms`, 10000},
		{`\sleep 10 ms`, 10000},
		{`\sleep -3ms`, -3000},
		{`\sleep +`, 0},
		{`\sleep :zero`, 0},
		{`\sleep :neg us`, -5},
		{`\sleep :sp ms`, 7000},
		// pgbench computes in a 32-bit int: 3000 s wraps around.
		{`\sleep 3000 s`, -1294967296},
	}
	for _, c := range cases {
		s, env := parseOne(t, c.text+"\n")
		got, err := s.Commands[0].SleepMicros(env.Vars)
		if err != nil || got != c.want {
			t.Errorf("%s: %d, %v; want %d", c.text, got, err, c.want)
		}
	}
	// A double variable is substituted as "%.15g", so 1.0 sleeps 1 ms.
	s, env := parseOne(t, "\\set one 1.0\n\\sleep :one ms\n")
	if err := s.Commands[0].ExecSet(env); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Commands[1].SleepMicros(env.Vars); err != nil || got != 1000 {
		t.Errorf(":one ms = %d, %v", got, err)
	}
	for text, want := range map[string]string{
		`\sleep :x`:      `sleep: invalid sleep time "abc" for variable "x"`,
		`\SLEEP :nosuch`: `SLEEP: undefined variable "nosuch"`,
		`\sleep :`:       `sleep: undefined variable ""`,
	} {
		s, env := parseOne(t, text+"\n")
		_, err := s.Commands[0].SleepMicros(env.Vars)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Detail != want || ee.Command != "sleep" || ee.Reason != ReasonExecution {
			t.Errorf("%s: %#v, want %q", text, err, want)
		}
	}
}

func TestShellCommand(t *testing.T) {
	// From pgbench's TAP test "pgbench backslash commands".
	s, env := parseOne(t, "\\set one 1.0\n\\setshell another_one\\\n  echo \\\n    :one\n\\shell echo ::foo x\n")
	if err := s.Commands[0].ExecSet(env); err != nil {
		t.Fatal(err)
	}
	set := s.Commands[1]
	if set.Meta != MetaSetshell || set.ShellVariable() != "another_one" || set.ShellName() != "echo" {
		t.Fatalf("setshell parsed as %+v", set)
	}
	line, err := set.ShellCommand(env.Vars)
	if err != nil || line != "echo 1" {
		t.Errorf("setshell line %q, %v", line, err)
	}
	if err := set.SetShellResult(env.Vars, []byte("1\n")); err != nil {
		t.Fatal(err)
	}
	slot, _ := s.Symbols.Lookup("another_one")
	if v, err := env.Vars.Value(slot); err != nil || v != Int(1) {
		t.Errorf("another_one = %v, %v", v, err)
	}
	if line, err := s.Commands[2].ShellCommand(env.Vars); err != nil || line != "echo :foo x" {
		t.Errorf("shell line %q, %v", line, err)
	}

	// Results as pgbench 15 stores them.
	for out, want := range map[string]int64{
		"  42  \n":      42,
		"\n":            0,
		"99999999999\n": 1215752191, // (int) strtol
		"-7\nsecond\n":  -7,
		"13\r\n":        13,
		"+5":            5,
		"  ":            0,
		// strtol saturates, then the cast to int keeps the low 32 bits.
		"12345678901234567890123456789012345678901234567890123456789012345": -1,
		// fgets reads at most 63 bytes.
		strings.Repeat(" ", 60) + "12345": 123,
		strings.Repeat("9", 70):           1, // not an integer... see below
	} {
		if len(out) > 63 {
			continue
		}
		s, env := parseOne(t, "\\setshell v cmd\n")
		if err := s.Commands[0].SetShellResult(env.Vars, []byte(out)); err != nil {
			t.Errorf("%q: %v", out, err)
			continue
		}
		slot, _ := s.Symbols.Lookup("v")
		if v, _ := env.Vars.Value(slot); v != Int(want) {
			t.Errorf("%q stored %v, want %d", out, v, want)
		}
	}

	for _, c := range []struct{ text, out, want string }{
		{`\setshell i echo -n one`, "one", `echo: shell command must return an integer (not "one")`},
		{`\setshell i true`, "", `true: could not read result of shell command`},
		{`\setshell 1x echo 5`, "5\n", `setshell: invalid variable name: "1x"`},
		{`\setshell i printf "12abc"`, "12abc", `printf: shell command must return an integer (not "12abc")`},
		{`\setshell i x`, "1 2\n", "x: shell command must return an integer (not \"1 2\n\")"},
	} {
		s, env := parseOne(t, c.text+"\n")
		err := s.Commands[0].SetShellResult(env.Vars, []byte(c.out))
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Detail != c.want || ee.Command != "setshell" {
			t.Errorf("%s with %q: %#v, want %q", c.text, c.out, err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{`\shell echo ::foo :nosuchvariable`, `echo: undefined variable ":nosuchvariable"`},
		{`\shell echo ` + strings.Repeat("x", 260), `echo: shell command is too long`},
		{`\shell echo ` + strings.Repeat("x", 250), `echo: shell command is too long`},
	} {
		s, env := parseOne(t, c.text+"\n")
		_, err := s.Commands[0].ShellCommand(env.Vars)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Detail != c.want || ee.Command != "shell" || ee.Reason != ReasonExecution {
			t.Errorf("%.40s: %#v, want %q", c.text, err, c.want)
		}
	}
	// SHELL_COMMAND_SIZE 256 leaves 254 bytes for the command line.
	s, env = parseOne(t, `\shell echo `+strings.Repeat("x", 249)+"\n")
	if line, err := s.Commands[0].ShellCommand(env.Vars); err != nil || len(line) != 254 {
		t.Errorf("longest command: %d, %v", len(line), err)
	}
	if got := s.Commands[0].ShellLaunchError().AbortMessage(0, 0, 0); got != "client 0 aborted in command 0 (shell) of script 0; execution of meta-command failed" {
		t.Errorf("launch error %q", got)
	}
	if got := s.Commands[0].ShellLaunchError().Detail; got != "echo: could not launch shell command" {
		t.Errorf("launch detail %q", got)
	}
}

func TestSetInvalidName(t *testing.T) {
	for text, want := range map[string]string{
		`\set 1x 5`: `set: invalid variable name: "1x"`,
		`\SET . 1`:  `SET: invalid variable name: "."`,
	} {
		s, env := parseOne(t, text+"\n")
		err := s.Commands[0].ExecSet(env)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Detail != want ||
			ee.AbortMessage(0, 0, 0) != "client 0 aborted in command 0 (set) of script 0; assignment of meta-command failed" {
			t.Errorf("%s: %#v", text, err)
		}
	}
	s, env := parseOne(t, "\\SET i 1/0\n")
	err := s.Commands[0].ExecSet(env)
	var ee *ExecError
	if !errors.As(err, &ee) || ee.AbortMessage(3, 7, 1) != "client 3 aborted in command 7 (SET) of script 1; evaluation of meta-command failed" {
		t.Errorf("SET 1/0: %#v", err)
	}
}

func TestVariableInterpretation(t *testing.T) {
	cases := []struct {
		text string
		want Value
		err  string
	}{
		{"null", Null(), ""}, {"NuLL", Null(), ""},
		{"t", Bool(true), ""}, {"TRUE", Bool(true), ""}, {"y", Bool(true), ""}, {"yes", Bool(true), ""}, {"On", Bool(true), ""},
		{"f", Bool(false), ""}, {"fal", Bool(false), ""}, {"n", Bool(false), ""}, {"no", Bool(false), ""},
		{"off", Bool(false), ""}, {"of", Bool(false), ""},
		{"+3", Int(3), ""}, {" 42", Int(42), ""}, {"-9223372036854775808", Int(-9223372036854775808), ""},
		{"1.0", Double(1), ""}, {"-10.1", Double(-10.1), ""}, {"0x10", Double(16), ""}, {".5e1", Double(5), ""},
		{"1e10", Double(1e10), ""},
		{"o", Value{}, `malformed variable "v" value: "o"`},
		{"truex", Value{}, `malformed variable "v" value: "truex"`},
		{"5 ", Value{}, `malformed variable "v" value: "5 "`},
		{"1e400", Value{}, `malformed variable "v" value: "1e400"`},
		{"9223372036854775808", Value{}, `value "9223372036854775808" is out of range for type bigint`},
		{"-", Value{}, `invalid input syntax for type bigint: "-"`},
		{"", Value{}, ""},
	}
	syms := NewSymbols()
	slot := syms.Intern("v")
	for _, c := range cases {
		vars := NewVariables(syms)
		vars.SetString(slot, c.text)
		got, err := vars.Value(slot)
		if c.err != "" || c.text == "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: %v, %v; want error %q", c.text, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
		}
		// The original string is what SQL substitution sends.
		if txt, _ := vars.Text(slot); string(txt) != c.text {
			t.Errorf("%q: text became %q", c.text, txt)
		}
	}
	for _, c := range []struct {
		v    Value
		text string
	}{
		{Null(), "NULL"}, {Bool(true), "true"}, {Bool(false), "false"}, {Int(-12), "-12"},
		{Double(1), "1"}, {Double(-0.5421), "-0.5421"}, {Double(1.0 / 3), "0.333333333333333"},
	} {
		vars := NewVariables(syms)
		vars.SetValue(slot, c.v)
		if txt, ok := vars.Text(slot); !ok || string(txt) != c.text {
			t.Errorf("%v: text %q", c.v, txt)
		}
	}
}

func TestDefineAndStoreColumn(t *testing.T) {
	for arg, want := range map[string]string{
		"foobla": `invalid variable definition: "foobla"`,
		"=1":     `invalid variable definition: "=1"`,
		"a=":     `invalid variable definition: "a="`,
	} {
		if _, _, err := ParseDefine(arg); err == nil || err.Error() != want {
			t.Errorf("ParseDefine(%q): %v", arg, err)
		}
	}
	if n, v, err := ParseDefine("a=b=c"); err != nil || n != "a" || v != "b=c" {
		t.Errorf("a=b=c: %q %q %v", n, v, err)
	}
	syms := NewSymbols()
	vars := NewVariables(syms)
	if err := vars.DefineString("option", "1bad", "x"); err == nil || err.Error() != `option: invalid variable name: "1bad"` {
		t.Errorf("bad -D name: %v", err)
	}
	if err := vars.DefineString("option", "naïve", "x"); err != nil {
		t.Errorf("non-ASCII name: %v", err)
	}
	if !vars.IsDefined("naïve") || vars.IsDefined("other") {
		t.Error("IsDefined")
	}

	s, err := Parse("g.sql", "SELECT 1 AS a, 2 AS b \\gset p_\n\\set x :p_a + :p_b\n", syms)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Commands[0]; c.Meta != MetaGset || c.VarPrefix != "p_" || c.SQL != "SELECT 1 AS a, 2 AS b " {
		t.Fatalf("gset command %+v", c)
	}
	vars = NewVariables(syms)
	for col, val := range map[string]string{"a": "40", "b": "2", "unused": "9"} {
		if err := vars.StoreColumn("gset", "p_", col, []byte(val)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := syms.Lookup("p_unused"); ok {
		t.Error("StoreColumn added an unreferenced name to the symbol table")
	}
	r := NewPRNG(1)
	env := &Env{Vars: vars, Rand: &r}
	if err := s.Commands[1].ExecSet(env); err != nil {
		t.Fatal(err)
	}
	xs, _ := syms.Lookup("x")
	if v, _ := vars.Value(xs); v != Int(42) {
		t.Errorf("x = %v", v)
	}
	// pgbench's TAP "gset bad name" and "gset bad default name".
	for col, want := range map[string]string{
		"bad name!": `gset: invalid variable name: "bad name!"`,
		"?column?":  `gset: invalid variable name: "?column?"`,
	} {
		if err := vars.StoreColumn("gset", "", col, []byte("1")); err == nil || err.Error() != want {
			t.Errorf("StoreColumn(%q): %v", col, err)
		}
	}
	if err := vars.StoreColumn("aset", "p_", "bad name", nil); err == nil || err.Error() != `aset: invalid variable name: "p_bad name"` {
		t.Errorf("aset: %v", err)
	}
}

func TestScriptStructure(t *testing.T) {
	text := `-- comment
\set a 1
SELECT :a \gset
SELECT 2; SELECT 3 \aset
\startpipeline
SELECT 4;
\syncpipeline
SELECT 5;
\endpipeline
\if :a = 1
  \sleep 1 ms
\elif false
\else
\endif
select 1 \; select 2 \; select 3 \aset q
`
	s, err := Parse("st.sql", text, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Commands {
		if c.Type == SQLCommand {
			got = append(got, c.Meta.String()+":"+c.SQL)
		} else {
			got = append(got, c.Meta.String())
		}
	}
	want := []string{"set", "gset:SELECT :a ", ":SELECT 2;", "aset:SELECT 3 ", "startpipeline", ":SELECT 4;",
		"syncpipeline", ":SELECT 5;", "endpipeline", "if", "sleep", "elif", "else", "endif",
		"aset:select 1 ; select 2 ; select 3 "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands:\n%q\nwant\n%q", got, want)
	}
	lines := []int{2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	for i, c := range s.Commands {
		if c.Line != lines[i] {
			t.Errorf("command %d (%s) at line %d, want %d", i, c.Meta, c.Line, lines[i])
		}
	}
	if s.PipelineEnd(4) != 8 || s.PipelineEnd(9) != len(s.Commands) {
		t.Errorf("PipelineEnd: %d %d", s.PipelineEnd(4), s.PipelineEnd(9))
	}
	if s.Commands[14].VarPrefix != "q" || s.Commands[10].FirstLine != `\sleep 1 ms` {
		t.Errorf("prefix %q first line %q", s.Commands[14].VarPrefix, s.Commands[10].FirstLine)
	}
	if s.Commands[1].ParamSQL() != "SELECT $1 " || s.Commands[1].NumParams() != 1 || s.Commands[1].ParamNames()[0] != "a" {
		t.Errorf("params of %q: %q", s.Commands[1].SQL, s.Commands[1].ParamSQL())
	}
}

func TestTooManyParams(t *testing.T) {
	// pgbench's TAP test "sql too many args": 256 references fail in
	// extended and prepared modes; 255 pass.
	many := func(n int) string {
		return "\\set i 0\nSELECT LEAST(" + strings.TrimSuffix(strings.Repeat(":i, ", n), ", ") + ")"
	}
	s, err := Parse("p.sql", many(256), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckParams()
	var tm *TooManyParamsError
	if !errors.As(err, &tm) || !strings.HasPrefix(err.Error(), "statement has too many arguments (maximum is 255): SELECT LEAST(:i, :i") {
		t.Errorf("256 references: %v", err)
	}
	s, _ = Parse("p.sql", many(255), nil)
	if err := s.CheckParams(); err != nil {
		t.Errorf("255 references: %v", err)
	}
	bin := pgbench15(t)
	if bin == "" {
		return
	}
	got := pgbenchParseError(t, bin, t.TempDir(), many(256), "-M", "extended")
	if want := (&TooManyParamsError{SQL: "SELECT LEAST(" + strings.TrimSuffix(strings.Repeat(":i, ", 256), ", ") + ")"}).Error(); got != want {
		t.Errorf("pgbench says %.120q\nwe say %.120q", got, want)
	}
}

func TestCondStack(t *testing.T) {
	var cs CondStack
	if !cs.Empty() || !cs.Active() || cs.Peek() != IfNone || cs.Pop() || cs.Poke(IfTrue) {
		t.Fatal("empty stack")
	}
	cs.Push(IfFalse)
	if cs.Active() || cs.Depth() != 1 {
		t.Error("false branch is active")
	}
	cs.Poke(IfElseTrue)
	if !cs.Active() {
		t.Error("else branch not active")
	}
	cs.Push(IfIgnored)
	cs.Reset()
	if !cs.Empty() {
		t.Error("reset")
	}
}

func TestPipelineErrors(t *testing.T) {
	s, err := Parse("p.sql", "\\startpipeline\nselect 1 \\gset f\nselect 2 \\aset\n\\syncpipeline\n\\endpipeline\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The messages of pgbench's TAP tests for pipelines.
	for i, want := range []string{
		"client 0 aborted in command 0 (startpipeline) of script 0; already in pipeline mode",
		"client 0 aborted in command 1 (gset) of script 0; \\gset is not allowed in pipeline mode",
		"client 0 aborted in command 2 (aset) of script 0; \\aset is not allowed in pipeline mode",
		"client 0 aborted in command 3 (syncpipeline) of script 0; not in pipeline mode",
		"client 0 aborted in command 4 (endpipeline) of script 0; not in pipeline mode",
	} {
		reason := ReasonNotInPipeline
		if i == 0 {
			reason = ReasonAlreadyPipeline
		}
		if got := s.Commands[i].PipelineError(reason).AbortMessage(0, i, 0); got != want {
			t.Errorf("command %d: %q, want %q", i, got, want)
		}
	}
}

func TestLineNumbers(t *testing.T) {
	text := strings.Repeat("select 1;\n\\set a 1\n\n", 2000) + "\\set b 1 +\n"
	_, err := Parse("l.sql", text, nil)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 6001 {
		t.Fatalf("error %v", err)
	}
	s, _ := Parse("l.sql", strings.Repeat("select 1;\n\\set a 1\n\n", 2000), nil)
	for i, c := range s.Commands {
		if want := 3*(i/2) + 1 + i%2; c.Line != want {
			t.Fatalf("command %d at line %d, want %d", i, c.Line, want)
		}
	}
}

func TestHelpersOnWrongCommands(t *testing.T) {
	s, env := parseOne(t, "select 1;\n\\sleep 1\n")
	sql, sleep := s.Commands[0], s.Commands[1]
	if err := sql.ExecSet(env); err == nil || err.Error() != "script: ExecSet called on a SQL command" {
		t.Errorf("ExecSet on SQL: %v", err)
	}
	if _, err := sleep.EvalCondition(env); err == nil {
		t.Error("EvalCondition on \\sleep")
	}
	if _, err := sql.SleepMicros(env.Vars); err == nil {
		t.Error("SleepMicros on SQL")
	}
	if _, err := sleep.ShellCommand(env.Vars); err == nil {
		t.Error("ShellCommand on \\sleep")
	}
	if err := sql.SetShellResult(env.Vars, []byte("1")); err == nil {
		t.Error("SetShellResult on SQL")
	}
}
