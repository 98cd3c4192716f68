package script

import (
	"fmt"
	"strings"
	"testing"
)

// client is what the engine keeps per client for the builtin scripts' hot
// path: the script, the evaluation environment and reused buffers.
type client struct {
	s      *Script
	env    *Env
	sql    []byte
	params [][]byte
}

func newBenchClient(tb testing.TB, name string) *client {
	tb.Helper()
	b, err := FindBuiltin(name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := b.Parse(nil)
	if err != nil {
		tb.Fatal(err)
	}
	env, _ := newClient(tb, s, 42)
	if err := env.Vars.DefineInt("startup", "scale", 100); err != nil {
		tb.Fatal(err)
	}
	return &client{s: s, env: env, sql: make([]byte, 0, 256), params: make([][]byte, 0, 8)}
}

// transaction runs the meta-commands of one transaction and builds every SQL
// command both as simple-mode text and as extended-mode parameters.
func (c *client) transaction(tb testing.TB) int {
	n := 0
	for i, cmd := range c.s.Commands {
		c.env.Command = i
		switch cmd.Type {
		case MetaCommand:
			if err := cmd.ExecSet(c.env); err != nil {
				tb.Fatal(err)
			}
		case SQLCommand:
			c.sql = cmd.AppendSQL(c.sql[:0], c.env.Vars)
			c.params = cmd.AppendParams(c.params[:0], c.env.Vars)
			n += len(c.sql) + len(c.params)
		}
	}
	return n
}

// TestHotPathAllocations checks that a warmed-up client runs the builtin
// scripts' per-transaction work without allocating.
func TestHotPathAllocations(t *testing.T) {
	for _, name := range []string{"tpcb-like", "simple-update", "select-only"} {
		c := newBenchClient(t, name)
		c.transaction(t)
		if allocs := testing.AllocsPerRun(200, func() { c.transaction(t) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations per transaction", name, allocs)
		}
	}
}

// BenchmarkEvalRandom evaluates and assigns "\set aid random(1, 100000 *
// :scale)".
func BenchmarkEvalRandom(b *testing.B) {
	c := newBenchClient(b, "select-only")
	set := c.s.Commands[0]
	b.ReportAllocs()
	for b.Loop() {
		if err := set.ExecSet(c.env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExprArith evaluates an arithmetic and comparison expression.
func BenchmarkExprArith(b *testing.B) {
	s, err := Parse("b.sql", "\\set x case when (:scale * 7 + 3) % 5 < 2 then abs(-:scale) else hash(:scale, 5) end\n", nil)
	if err != nil {
		b.Fatal(err)
	}
	env, _ := newClient(b, s, 1)
	cmd := s.Commands[0]
	b.ReportAllocs()
	for b.Loop() {
		if err := cmd.ExecSet(env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendSQL substitutes the variables of tpcb-like's INSERT in
// simple mode; the variables change every iteration as in a real run.
func BenchmarkAppendSQL(b *testing.B) {
	c := newBenchClient(b, "tpcb-like")
	insert := c.s.Commands[9]
	b.ReportAllocs()
	for b.Loop() {
		for _, cmd := range c.s.Commands[:4] {
			_ = cmd.ExecSet(c.env)
		}
		c.sql = insert.AppendSQL(c.sql[:0], c.env.Vars)
	}
}

// BenchmarkAppendParams builds the extended-mode parameters of the same
// INSERT.
func BenchmarkAppendParams(b *testing.B) {
	c := newBenchClient(b, "tpcb-like")
	insert := c.s.Commands[9]
	b.ReportAllocs()
	for b.Loop() {
		for _, cmd := range c.s.Commands[:4] {
			_ = cmd.ExecSet(c.env)
		}
		c.params = insert.AppendParams(c.params[:0], c.env.Vars)
	}
}

// BenchmarkTPCBTransaction is the whole client-side work of one tpcb-like
// transaction (4 \set, 7 SQL commands in both forms).
func BenchmarkTPCBTransaction(b *testing.B) {
	c := newBenchClient(b, "tpcb-like")
	b.ReportAllocs()
	for b.Loop() {
		c.transaction(b)
	}
}

// BenchmarkParseTPCB parses the tpcb-like builtin script.
func BenchmarkParseTPCB(b *testing.B) {
	bi, _ := FindBuiltin("tpcb-like")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bi.Parse(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse parses each builtin script, and a larger script that
// exercises the lexer's quotes, comments, dollar quoting and function
// bodies.
func BenchmarkParse(b *testing.B) {
	for _, bi := range Builtins() {
		b.Run(bi.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bi.Parse(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("large", func(b *testing.B) {
		text := largeScript(200)
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse("large", text, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// largeScript returns n repetitions of a block of SQL and meta-commands
// with every kind of quote and comment.
func largeScript(n int) string {
	const block = `-- a comment before the command
\set aid random(1, 100000 * :scale)
/* a /* nested */ block comment */
SELECT abalance, 'it''s', E'a\'b', U&"d\0061t", B'0101', X'1F', $$dollar; quoted$$
  FROM pgbench_accounts WHERE aid = :aid AND name <> 'x;y' -- trailing
  AND "Quoted ""ident""" IS NOT NULL AND a$b$c = $1;
CREATE FUNCTION f(int) RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT CASE WHEN $1 > 0 THEN 1 ELSE 0 END;
  SELECT 2;
END;
DO $body$ BEGIN PERFORM 1; END $body$;
SELECT 'multi'
  'line', 1.5e3, 0x1F, 1_000 \; SELECT :{?aid};
`
	return strings.Repeat(block, n)
}

// TestConcurrentClients runs clients in parallel on shared scripts, as the
// engine does; run it with -race.
func TestConcurrentClients(t *testing.T) {
	syms := NewSymbols()
	var scripts []*Script
	for _, b := range Builtins() {
		s, err := b.Parse(syms)
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, s)
	}
	gs, err := Parse("g.sql", "select 1 as x \\gset\n\\set y :x + 1\n", syms)
	if err != nil {
		t.Fatal(err)
	}
	syms.Freeze()
	if _, err := Parse("late.sql", "select 1;", syms); err == nil {
		t.Error("Parse accepted a frozen symbol table")
	}
	rr := DeriveRunRandom(7, 4, 4, false)
	done := make(chan error, 4)
	for c := 0; c < 4; c++ {
		go func(c int) {
			vars := NewVariables(syms)
			_ = vars.DefineInt("startup", "scale", 10)
			// client_id is read by no script: it is dropped, and the
			// shared table is not modified.
			if err := vars.DefineInt("startup", "client_id", int64(c)); err != nil || vars.IsDefined("client_id") {
				done <- fmt.Errorf("client_id: %v", err)
				return
			}
			rng := rr.Clients[c]
			env := &Env{Vars: vars, Rand: &rng}
			choose := rr.Threads[c].Choose
			for i := 0; i < 2000; i++ {
				s := scripts[ChooseScript(&choose, []int{1, 1, 1}, 3)]
				if _, err := runOnce(s, env); err != nil {
					done <- err
					return
				}
				if err := vars.StoreColumn("gset", "", "x", []byte("41")); err != nil {
					done <- err
					return
				}
				if _, err := runOnce(gs, env); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(c)
	}
	for c := 0; c < 4; c++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkDistributions measures the non-uniform random functions, which
// use the correctly rounded exp, log, pow and sin.
func BenchmarkDistributions(b *testing.B) {
	for _, e := range []string{"random(1, 1000000)", "random_exponential(1, 1000000, 2.5)",
		"random_gaussian(1, 1000000, 2.5)", "random_zipfian(1, 1000000, 1.07)"} {
		b.Run(e[:strings.IndexByte(e, '(')], func(b *testing.B) {
			s, err := Parse("d.sql", "\\set x "+e+"\n", nil)
			if err != nil {
				b.Fatal(err)
			}
			env, _ := newClient(b, s, 1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Commands[0].ExecSet(env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
