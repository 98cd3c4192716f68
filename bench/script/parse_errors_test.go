package script

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// parseErrorCases are bad (and a few tricky but valid) scripts with the exact
// error text pgbench prints for them, without the "pgbench: error: " prefix.
// The texts were recorded from pgbench 15.18; same15 is false where pgbench
// 17/18 differ from 15. An empty want means the script parses.
var parseErrorCases = []struct {
	script string
	want   string
	same15 bool
}{
	{"\\set i 1 +\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 +\n          ^ error found here", true},
	{"\\set i 1 +",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 +\n         ^ error found here", true},
	{"select 1;\n\\set i noSuchFunc(2)\n",
		"t.sql:2: unexpected function name (noSuchFunc) in command \"set\"\n\\set i noSuchFunc(2)\n                ^ error found here", true},
	{"\\set d ln(1.0, 2.0))\n",
		"t.sql:1: unexpected number of arguments (ln) in command \"set\"\n\\set d ln(1.0, 2.0))\n                  ^ error found here", true},
	{"\\set i greatest()\n",
		"t.sql:1: at least one argument expected (greatest) in command \"set\"\n\\set i greatest()\n                ^ error found here", true},
	{"\\set i least()\n",
		"t.sql:1: at least one argument expected (least) in command \"set\"\n\\set i least()\n             ^ error found here", true},
	{"\\set i hash()\n",
		"t.sql:1: unexpected number of arguments (hash) in command \"set\"\n\\set i hash()\n            ^ error found here", true},
	{"\\set i hash(1,2,3)\n",
		"t.sql:1: unexpected number of arguments (hash) in command \"set\"\n\\set i hash(1,2,3)\n                 ^ error found here", true},
	{"\\set i permute(1)\n",
		"t.sql:1: unexpected number of arguments (permute) in command \"set\"\n\\set i permute(1)\n                ^ error found here", true},
	{"\\set i permute(1, 2, 3, 4)\n",
		"t.sql:1: unexpected number of arguments (permute) in command \"set\"\n\\set i permute(1, 2, 3, 4)\n                         ^ error found here", true},
	{"\\set i 100000000000000000000\n",
		"t.sql:1: bigint constant overflow (100000000000000000000) in command \"set\"\n\\set i 100000000000000000000\n                           ^ error found here", true},
	{"\\set d 1.0E309\n",
		"t.sql:1: double constant overflow (1.0E309) in command \"set\"\n\\set d 1.0E309\n             ^ error found here", true},
	{"\\set d .1E310\n",
		"t.sql:1: double constant overflow (.1E310) in command \"set\"\n\\set d .1E310\n            ^ error found here", true},
	{"\\set d 1e-400\n",
		"t.sql:1: double constant overflow (1e-400) in command \"set\"\n\\set d 1e-400\n            ^ error found here", true},
	{"\\set i 9223372036854775808\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 9223372036854775808\n                         ^ error found here", true},
	{"\\set i ;\n",
		"t.sql:1: unexpected character (;) in command \"set\"\n\\set i ;\n       ^ error found here", true},
	{"\\set i 1 ; ; +\n",
		"t.sql:1: unexpected character (;) in command \"set\"\n\\set i 1 ; ; +\n           ^ error found here", true},
	{"\\set i foo(1) ;\n",
		"t.sql:1: unexpected character (;) in command \"set\"\n\\set i foo(1) ;\n              ^ error found here", true},
	{"\\set i 1 < 2 < 3\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 < 2 < 3\n             ^ error found here", true},
	{"\\set i CASE TRUE THEN 1 ELSE 0 END\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i CASE TRUE THEN 1 ELSE 0 END\n               ^ error found here", true},
	{"\\set i\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i\n      ^ error found here", true},
	{"\\set\n",
		"t.sql:1: missing argument in command \"set\"", true},
	{"\\if\n\\endif\n",
		"t.sql:1: syntax error in command \"if\"\n\\if\n   ^ error found here", true},
	{"\\if 0\n\\elif +\n\\endif\n",
		"t.sql:2: syntax error in command \"elif\"\n\\elif +\n       ^ error found here", true},
	{"\\if 0\n\\else BAD\n\\endif\n",
		"t.sql:2: unexpected argument in command \"else\"\n\\else BAD", true},
	{"\\if 0\n\\endif BAD\n",
		"t.sql:2: unexpected argument in command \"endif\"\n\\endif BAD", true},
	{"\\sleep\n",
		"t.sql:1: missing argument in command \"sleep\"\n\\sleep", true},
	{"\\sleep 1 2 3\n",
		"t.sql:1: too many arguments in command \"sleep\"\n\\sleep 1 2 3\n           ^ error found here", true},
	{"\\sleep 10ms s\n",
		"t.sql:1: invalid sleep time, must be an integer (10ms) in command \"sleep\"\n\\sleep 10ms s\n       ^ error found here", true},
	{"\\sleep abc\n",
		"t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n\\sleep abc\n       ^ error found here", true},
	{"\\sleep 1 week\n",
		"t.sql:1: unrecognized time unit, must be us, ms or s (week) in command \"sleep\"\n\\sleep 1 week\n         ^ error found here", true},
	{"\\setshell var\n",
		"t.sql:1: missing argument in command \"setshell\"\n\\setshell var", true},
	{"\\shell\n",
		"t.sql:1: missing command in command \"shell\"\n\\shell", true},
	{"\\shell echo " + strings.Repeat("arg ", 255) + "\n",
		"t.sql:1: too many arguments in command \"shell\"", true},
	{"\\nosuchcommand\n",
		"t.sql:1: invalid command in command \"nosuchcommand\"\n\\nosuchcommand", true},
	{"\\gset\n",
		"t.sql:1: \\gset must follow an SQL command", true},
	{"\\set i +1\n\\gset\n",
		"t.sql:2: \\gset must follow an SQL command (\\set i +1)", true},
	{"SELECT 1 AS i \\gset\n\\gset\n",
		"t.sql:2: \\gset must follow an SQL command", true},
	{"SELECT 1 \\gset a b\n",
		"t.sql:1: too many arguments in command \"gset\"\n\\gset a b", true},
	{"\\aset a b\n",
		"t.sql:1: too many arguments in command \"aset\"\n\\aset a b", true},
	{"\\if 1",
		"condition error in script \"t.sql\" command 2: \\if without matching \\endif", true},
	{"\\elif 1",
		"condition error in script \"t.sql\" command 1: \\elif without matching \\if", true},
	{"\\else",
		"condition error in script \"t.sql\" command 1: \\else without matching \\if", true},
	{"\\endif",
		"condition error in script \"t.sql\" command 1: \\endif without matching \\if", true},
	{"\\if 1\n\\else\n\\elif 0\n\\endif",
		"condition error in script \"t.sql\" command 3: \\elif after \\else", true},
	{"\\if 1\n\\else\n\\else\n\\endif",
		"condition error in script \"t.sql\" command 3: \\else after \\else", true},
	{"",
		"empty command list for script \"t.sql\"", true},
	{"-- comment\n",
		"empty command list for script \"t.sql\"", true},
	{"\\set i 1 + \\\n   ;\n",
		"t.sql:1: unexpected character (;) in command \"set\"\n\\set i 1 + \\\n   ;\n                ^ error found here", true},
	{"\\set i 1 +\\\n * 2\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 +\\\n * 2\n             ^ error found here", true},
	{"\\syncpipeline x\n",
		"t.sql:1: unexpected argument in command \"syncpipeline\"\n\\syncpipeline x", false},
	{"\\startpipeline x\n",
		"t.sql:1: unexpected argument in command \"startpipeline\"\n\\startpipeline x", true},
	{"\\endpipeline x\n",
		"t.sql:1: unexpected argument in command \"endpipeline\"\n\\endpipeline x", true},
	{"\\set i abs(,)\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i abs(,)\n            ^ error found here", true},
	{"\\set i 1 2\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 2\n         ^ error found here", true},
	{"\\set i :\n",
		"t.sql:1: unexpected character (:) in command \"set\"\n\\set i :\n       ^ error found here", true},
	{"\\set i pi\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i pi\n         ^ error found here", true},
	{"\\set i 1 <\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 <\n          ^ error found here", true},
	{"\\set i (1\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i (1\n         ^ error found here", true},
	{"\\set i - - 9223372036854775808 + 9223372036854775808\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i - - 9223372036854775808 + 9223372036854775808\n                                                   ^ error found here", true},
	{"\\set i 1 IS 2\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 IS 2\n            ^ error found here", true},
	{"\\set i 1 ISNULL ISNULL\n",
		"", true},
	{"\\set i a b\n",
		"t.sql:1: unexpected function name (a) in command \"set\"\n\\set i a b\n       ^ error found here", true},
	{"\\sleep abc\\\n ms\n",
		"t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n\\sleep abc\\\n ms\n         ^ error found here", true},
	{"\\SET i 1 +\n",
		"t.sql:1: syntax error in command \"SET\"\n\\SET i 1 +\n          ^ error found here", true},
	{"\\set i case when 1 then 2\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i case when 1 then 2\n                         ^ error found here", true},
	{"\\set i 1.e5x\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1.e5x\n           ^ error found here", true},
	{"\\set i !\n",
		"t.sql:1: unexpected character (!) in command \"set\"\n\\set i !\n       ^ error found here", true},
	{"\\set i 1 = 2 = 3\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 = 2 = 3\n             ^ error found here", true},
	{"select 1;\n\n\n\\gset\n",
		"", true},
	{"\\set i 5\nselect 1 \\gset\n\\if 1\n",
		"condition error in script \"t.sql\" command 4: \\if without matching \\endif", true},
	{"\\set i :1x + \n",
		"t.sql:1: syntax error in command \"set\"\n\\set i :1x + \n             ^ error found here", true},
	{"\\sleep :\n",
		"", true},
	{"\\sleep -\n",
		"", true},
	{"\\sleep +\n",
		"", true},
	{"\\set i 'x'\n",
		"t.sql:1: unexpected character (') in command \"set\"\n\\set i 'x'\n         ^ error found here", true},
	{"\\set i 1 /* c */\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 /* c */\n          ^ error found here", true},
	{"select 'a\n\\set i 1 +\n",
		"", true},
	{"\\set i random(1, \\\n 2\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i random(1, \\\n 2\n                     ^ error found here", true},
	{"\\set i 123abc\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 123abc\n            ^ error found here", true},
	{"\\set i .\n",
		"t.sql:1: unexpected character (.) in command \"set\"\n\\set i .\n       ^ error found here", true},
	{"\\set i 1e\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1e\n        ^ error found here", true},
	{"\\set i 1.5.5\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1.5.5\n           ^ error found here", true},
	// Line endings, continuations, NUL bytes, odd words.
	{"\\set i 1 +\r\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 +\n           ^ error found here", true},
	{"select 1;\r\n\\sleep 1 week\r\n",
		"t.sql:2: unrecognized time unit, must be us, ms or s (week) in command \"sleep\"\n\\sleep 1 week\n         ^ error found here", true},
	{"\\sleep abc\\\r\n ms\r\n",
		"t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n\\sleep abc\\\r\n ms\n          ^ error found here", true},
	{"\\set i 1\x00 +\n",
		"", true},
	{"\\set i 1 + \\\r\n *\r\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 + \\\r\n *\n               ^ error found here", true},
	{"\\if 1\r\n\\else x\r\n\\endif\r\n",
		"t.sql:2: unexpected argument in command \"else\"\n\\else x", true},
	{"\\set i 1 +\\",
		"t.sql:1: unexpected character (\\) in command \"set\"\n\\set i 1 +\\\n          ^ error found here", true},
	{"\\setshell\\\nx\n",
		"t.sql:1: missing argument in command \"setshell\"\n\\setshell\\\nx", true},
	{"\\set x\\\n 1 +\n",
		"t.sql:1: syntax error in command \"set\"\n\\set x\\\n 1 +\n            ^ error found here", true},
	{"\\set i \x01\n",
		"t.sql:1: unexpected character (\x01) in command \"set\"\n\\set i \x01\n       ^ error found here", true},
	{"\\set i é(1)\n",
		"t.sql:1: unexpected function name (é) in command \"set\"\n\\set i é(1)\n        ^ error found here", true},
	{"\\set i 1 # # 2\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i 1 # # 2\n           ^ error found here", true},
	{"\\set i (1,2)\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i (1,2)\n         ^ error found here", true},
	{"\\set i random(1,2) random(1,2)\n",
		"t.sql:1: syntax error in command \"set\"\n\\set i random(1,2) random(1,2)\n                        ^ error found here", true},
	{"\\elif\n",
		"t.sql:1: syntax error in command \"elif\"\n\\elif\n     ^ error found here", true},
	{"select 1 \\gset\nselect 2 \\aset\n\\aset\n",
		"t.sql:3: \\gset must follow an SQL command", true},
	{"\\set i 1\n\\\n\\set j +\n",
		"t.sql:3: syntax error in command \"set\"\n\\set j +\n        ^ error found here", true},
	{"\\ set i 1\n",
		"", true},
	// pgbench 15 reports the line where scanning resumed (2); 17/18 the backslash line.
	{"\\set i 1\n\n\n\\gset\n",
		"t.sql:4: \\gset must follow an SQL command (\\set i 1)", false},
}

func TestParseErrors(t *testing.T) {
	if len(parseErrorCases) < 25 {
		t.Fatalf("only %d cases", len(parseErrorCases))
	}
	for _, c := range parseErrorCases {
		_, err := Parse("t.sql", c.script, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("script %q:\n got: %s\nwant: %s", c.script, got, c.want)
		}
	}
}

// pgbench15 returns the path of a pgbench 15 binary to compare with (Debian's
// is in /usr/lib/postgresql/15/bin), or "" when there is none.
func pgbench15(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/lib/postgresql/15/bin/pgbench"}
	if p, err := exec.LookPath("pgbench"); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		out, err := exec.Command(p, "--version").Output()
		if err == nil && strings.Contains(string(out), "(PostgreSQL) 15.") {
			return p
		}
	}
	return ""
}

// pgbenchParseError runs pgbench on a script file; a script that does not
// parse makes pgbench fail before it connects. It returns the error text
// without the "pgbench: error: " prefixes and connection messages.
func pgbenchParseError(t *testing.T, bin, dir, script string, args ...string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "t.sql"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"-f", "t.sql", "-n", "-t1", "-h", "/nonexistent-pglab-socket-dir"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	var lines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if l == "" || strings.Contains(l, "connection to server") || strings.Contains(l, "Is the server running") ||
			strings.Contains(l, "could not create connection") {
			continue
		}
		lines = append(lines, strings.TrimPrefix(l, "pgbench: error: "))
	}
	return strings.Join(lines, "\n")
}

// TestParseErrorsAgainstPgbench compares the table with the pgbench binary of
// the machine (Debian's pgbench 15), when there is one.
func TestParseErrorsAgainstPgbench(t *testing.T) {
	bin := pgbench15(t)
	if bin == "" {
		t.Skip("no pgbench binary")
	}
	dir := t.TempDir()
	for _, c := range parseErrorCases {
		if !c.same15 {
			continue
		}
		if got := pgbenchParseError(t, bin, dir, c.script); got != c.want {
			t.Errorf("script %q: pgbench says\n%s\nthe table says\n%s", c.script, got, c.want)
		}
	}
}

// TestBisonStackLimit checks nesting limits against pgbench 15: for each
// shape of expression, the smallest nesting n that fails with "memory
// exhausted" (bison's YYMAXDEPTH of 10000 stack entries) and the caret
// column pgbench prints.
func TestBisonStackLimit(t *testing.T) {
	shapes := []struct {
		name   string
		expr   func(n int) string
		n, col int
	}{
		{"parentheses", func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }, 9997, 10005},
		{"unary minus", func(n int) string { return strings.Repeat("-", n) + "1" }, 9998, 10005},
		{"nested sums", func(n int) string { return strings.Repeat("1+(", n) + "1" + strings.Repeat(")", n) }, 3333, 10005},
		{"calls", func(n int) string { return strings.Repeat("abs(", n) + "1" + strings.Repeat(")", n) }, 4999, 20003},
		{"second arguments", func(n int) string { return strings.Repeat("least(1,", n) + "1" + strings.Repeat(")", n) }, 2500, 20005},
		{"not", func(n int) string { return strings.Repeat("not ", n) + "true" }, 9998, 40002},
		{"case then", func(n int) string { return strings.Repeat("case when true then ", n) + "1" + strings.Repeat(" end", n) }, 2500, 50000},
		{"case else", func(n int) string {
			return strings.Repeat("case when true then 1 else ", n) + "1" + strings.Repeat(" end", n)
		}, 3333, 89984},
		{"empty calls", func(n int) string { return strings.Repeat("least(", n) + strings.Repeat(")", n) }, 4999, 30001},
		{"is not null", func(n int) string { return strings.Repeat("(", n) + "1 is not null" + strings.Repeat(")", n) }, 9995, 10014},
		{"products", func(n int) string { return strings.Repeat("1 + 2 * (", n) + "1" + strings.Repeat(")", n) }, 2000, 18004},
	}
	for _, sh := range shapes {
		_, err := Parse("deep.sql", "\\set i "+sh.expr(sh.n-1)+"\n", nil)
		var se *SyntaxError
		if errors.As(err, &se) && se.Message == "memory exhausted" {
			t.Errorf("%s: nesting %d already fails", sh.name, sh.n-1)
		}
		_, err = Parse("deep.sql", "\\set i "+sh.expr(sh.n)+"\n", nil)
		if !errors.As(err, &se) || se.Message != "memory exhausted" || se.Column != sh.col || se.Command != "set" {
			if se != nil {
				t.Errorf("%s: nesting %d: %q at column %d, want memory exhausted at %d", sh.name, sh.n, se.Message, se.Column, sh.col)
			} else {
				t.Errorf("%s: nesting %d: %v", sh.name, sh.n, err)
			}
		}
	}
	// Left-associative chains do not grow the stack.
	if _, err := Parse("deep.sql", "\\set i "+strings.Repeat("1 + ", 20000)+"1\n", nil); err != nil {
		t.Errorf("long sum: %v", err)
	}
}
