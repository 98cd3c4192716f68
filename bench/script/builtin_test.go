package script

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestBuiltinTexts(t *testing.T) {
	// The builtin scripts of pgbench.c with CppAsString2(naccounts) etc.
	// expanded; see the reference notes §1.10.
	tpcb := `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`
	b := Builtins()
	if len(b) != 3 || b[0].Name != "tpcb-like" || b[1].Name != "simple-update" || b[2].Name != "select-only" {
		t.Fatalf("builtins: %+v", b)
	}
	if b[0].Text != tpcb || b[0].Desc != "<builtin: TPC-B (sort of)>" {
		t.Errorf("tpcb-like text:\n%s", b[0].Text)
	}
	if b[1].Desc != "<builtin: simple update>" || strings.Contains(b[1].Text, "pgbench_tellers") ||
		!strings.Contains(b[1].Text, "INSERT INTO pgbench_history") {
		t.Errorf("simple-update: %+v", b[1])
	}
	if b[2].Text != "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n" ||
		b[2].Desc != "<builtin: select only>" {
		t.Errorf("select-only: %+v", b[2])
	}
	syms := NewSymbols()
	for _, bi := range b {
		s, err := bi.Parse(syms)
		if err != nil {
			t.Fatalf("%s: %v", bi.Name, err)
		}
		if s.Source != bi.Desc {
			t.Errorf("%s: source %q", bi.Name, s.Source)
		}
	}
	s, _ := b[0].Parse(syms)
	if n := len(s.Commands); n != 11 {
		t.Errorf("tpcb-like has %d commands, want 11", n)
	}
	if got := s.Commands[5].ParamSQL(); got != "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;" {
		t.Errorf("param SQL %q", got)
	}
	if got := s.Commands[9].FirstLine; got != "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);" {
		t.Errorf("first line %q", got)
	}
	if got := s.Commands[0].FirstLine; got != `\set aid random(1, 100000 * :scale)` {
		t.Errorf("meta first line %q", got)
	}
}

func TestFindBuiltin(t *testing.T) {
	for name, want := range map[string]string{"t": "tpcb-like", "tpcb": "tpcb-like", "si": "simple-update", "se": "select-only", "select-only": "select-only"} {
		b, err := FindBuiltin(name)
		if err != nil || b.Name != want {
			t.Errorf("FindBuiltin(%q) = %q, %v; want %q", name, b.Name, err, want)
		}
	}
	for name, want := range map[string]string{
		"s":          `ambiguous builtin name: 2 builtin scripts found for prefix "s"`,
		"":           `ambiguous builtin name: 3 builtin scripts found for prefix ""`,
		"xyz":        `no builtin script found for name "xyz"`,
		"tpcb-likeX": `no builtin script found for name "tpcb-likeX"`,
	} {
		_, err := FindBuiltin(name)
		var be *BuiltinError
		if !errors.As(err, &be) || err.Error() != want {
			t.Errorf("FindBuiltin(%q) error %v, want %q", name, err, want)
		}
	}
}

func TestBuiltinListAndShowScript(t *testing.T) {
	wantList := "Available builtin scripts:\n" +
		"      tpcb-like: <builtin: TPC-B (sort of)>\n" +
		"  simple-update: <builtin: simple update>\n" +
		"    select-only: <builtin: select only>\n\n"
	if got := BuiltinList(); got != wantList {
		t.Errorf("list:\n%q\nwant\n%q", got, wantList)
	}
	b, _ := FindBuiltin("se")
	wantShow := "-- select-only: <builtin: select only>\n" +
		"\\set aid random(1, 100000 * :scale)\n" +
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"
	if got := b.ShowScript(); got != wantShow {
		t.Errorf("show:\n%q\nwant\n%q", got, wantShow)
	}
	bin := pgbench15(t)
	if bin == "" {
		return
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-b", "list"}, wantList},
		{[]string{"--show-script=se"}, wantShow},
		{[]string{"--show-script=tpcb"}, Builtins()[0].ShowScript()},
		{[]string{"--show-script=si"}, Builtins()[1].ShowScript()},
	} {
		cmd := exec.Command(bin, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("pgbench %v: %v", c.args, err)
		}
		if stderr.String() != c.want {
			t.Errorf("pgbench %v prints\n%q\nwe print\n%q", c.args, stderr.String(), c.want)
		}
	}
}

func TestSplitWeight(t *testing.T) {
	ok := []struct {
		opt, name string
		weight    int
	}{
		{"select-only", "select-only", 1},
		{"se@2", "se", 2},
		{"file@with@at.sql@7", "file@with@at.sql", 7},
		{"se@ 5", "se", 5},
		{"si@+3", "si", 3},
		{"x@0", "x", 0},
		{"x@2147483647", "x", 2147483647},
		{"@5", "", 5},
	}
	for _, c := range ok {
		name, w, err := SplitWeight(c.opt)
		if err != nil || name != c.name || w != c.weight {
			t.Errorf("SplitWeight(%q) = %q, %d, %v", c.opt, name, w, err)
		}
	}
	// Messages as pgbench 15 prints them.
	bad := map[string]string{
		"select-only@one":           "invalid weight specification: @one",
		"se@-1":                     "weight specification out of range (0 .. 2147483647): -1",
		"se@2147483648":             "weight specification out of range (0 .. 2147483647): 2147483648",
		"tpcb@99999999999999999999": "invalid weight specification: @99999999999999999999",
		"se@5 ":                     "invalid weight specification: @5 ",
		"se@":                       "invalid weight specification: @",
		"se@0x10":                   "invalid weight specification: @0x10",
	}
	for opt, want := range bad {
		_, _, err := SplitWeight(opt)
		if err == nil || err.Error() != want {
			t.Errorf("SplitWeight(%q) error %v, want %q", opt, err, want)
		}
	}
	if err := CheckTotalWeight([]int{0, 0, 0}); err == nil || err.Error() != "total script weight must not be zero" {
		t.Errorf("zero total: %v", err)
	}
	if err := CheckTotalWeight([]int{0, 1}); err != nil {
		t.Errorf("total 1: %v", err)
	}
}

func TestChooseScript(t *testing.T) {
	r := NewPRNG(42)
	before := r
	if ChooseScript(&r, []int{5}, 5) != 0 || r != before {
		t.Error("a single script must be chosen without drawing")
	}
	weights := []int{1, 0, 3}
	counts := make([]int, 3)
	for i := 0; i < 40000; i++ {
		counts[ChooseScript(&r, weights, 4)]++
	}
	if counts[1] != 0 {
		t.Errorf("weight 0 chosen %d times", counts[1])
	}
	if f := float64(counts[2]) / 40000; f < 0.74 || f > 0.76 {
		t.Errorf("weight 3 of 4 chosen %.3f of the time", f)
	}
}
