package script

import (
	"io"
	"strings"
	"testing"
)

// fuzzSeeds are scripts for the fuzzers' seed corpus: the builtins, the
// TAP expression script, the splitting scripts and the parse-error table.
func fuzzSeeds() []string {
	seeds := []string{tapExpressions, splitScript, splitScript2, refScriptA, refScriptB,
		"\\set x :nosuch\n", "\\if :x\n\\else\n\\endif\n", "select $$;\n", "\\sleep :x ms\n",
		"\\setshell v echo :x ::y\n", "select 1 \\gset\n", "\\set i random_zipfian(1, 10, 1.5)\n"}
	for _, b := range Builtins() {
		seeds = append(seeds, b.Text)
	}
	for _, c := range parseErrorCases {
		seeds = append(seeds, c.script)
	}
	return seeds
}

// runFuzzed parses text and, when it parses, runs it once for a client with
// a few variables set, checking only that nothing panics or hangs.
func runFuzzed(t *testing.T, text string) {
	s, err := Parse("fuzz.sql", text, nil)
	if err != nil {
		if err.Error() == "" {
			t.Fatalf("empty error text for %q", text)
		}
		return
	}
	if len(s.Commands) == 0 {
		t.Fatalf("script without commands parsed: %q", text)
	}
	_ = s.CheckParams()
	vars := NewVariables(s.Symbols)
	for _, d := range [][2]string{{"x", "5"}, {"y", "abc"}, {"z", "-1.5"}, {"n", "null"}, {"scale", "1"}, {"default_seed", "7"}} {
		_ = vars.DefineString("option", d[0], d[1])
	}
	r := NewPRNG(1)
	env := &Env{Vars: vars, Rand: &r, Debug: io.Discard}
	_, _ = runOnce(s, env)
	var buf []byte
	var params [][]byte
	for _, c := range s.Commands {
		if c.Type == SQLCommand {
			buf = c.AppendSQL(buf[:0], vars)
			params = c.AppendParams(params[:0], vars)
			if len(params) != c.NumParams() || strings.Count(c.ParamSQL(), "$") < c.NumParams() {
				t.Fatalf("parameters of %q", c.SQL)
			}
		}
		if c.Meta == MetaSetshell {
			_ = c.SetShellResult(vars, []byte("12\n"))
		}
	}
}

// FuzzParse checks that no script makes the parser or the evaluator panic.
// Run it with a short -fuzzminimizetime: minimizing the large seeds takes
// Go's default minute per new input.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<16 {
			return
		}
		runFuzzed(t, text)
	})
}

// FuzzEval does the same for single expressions in \set and \if.
func FuzzEval(f *testing.F) {
	for _, e := range []string{
		"random(1, 100000 * :scale)", "case when :x > 1 then :y else :z end", "hash(:x) # ~:x << 3",
		"least(:x, 2.5, -1) / 0", "permute(:x, 10)", "random_gaussian(1, 10, 2.5)", "int(:z) % 0",
		"-9223372036854775808 / -1", "debug(:n is null and not :n notnull)", "pow(2, 1000) * 1e308",
		"random_exponential(1, 10, 0.0/0)", "abs(true) + 1", "((((1))))", "sqrt(-1.0) = sqrt(-1.0)",
	} {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 1<<12 || strings.ContainsAny(expr, "\n\\") {
			return
		}
		runFuzzed(t, "\\set v "+expr+"\n\\if "+expr+"\n\\endif\n")
	})
}

// TestFuzzSeeds runs the seed corpora as ordinary tests.
func TestFuzzSeeds(t *testing.T) {
	for _, s := range fuzzSeeds() {
		runFuzzed(t, s)
	}
}
