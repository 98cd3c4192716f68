package sqllex

import (
	"strings"
	"testing"
)

// scanToken opens the token at the start of src and scans it in one chunk;
// it returns the token's length (0 if none opens) and the kind the scanner
// is left inside.
func scanToken(src string) (int, Kind) {
	var s Scanner
	n := s.Open(src, 0)
	if n == 0 {
		return 0, s.Inside()
	}
	return s.Scan(src, n), s.Inside()
}

func TestOpenAndScan(t *testing.T) {
	for _, tc := range []struct {
		src   string
		token string // the token's text; "" when nothing opens
		left  Kind   // what the scanner is inside at its end
	}{
		{`'abc' x`, `'abc'`, None},
		{`'it''s' x`, `'it''s'`, None},
		{`'''' x`, `''''`, None},
		{`'a\' x'`, `'a\'`, None}, // standard strings: no escapes
		{`E'a\'b' x`, `E'a\'b'`, None},
		{`e'a\\' x`, `e'a\\'`, None},
		{`E'a''b' x`, `E'a''b'`, None},
		{`E'a\`, `E'a\`, EscapeString},
		{`B'0101' x`, `B'0101'`, None},
		{`x'1F' x`, `x'1F'`, None},
		{`N'abc' x`, `N'abc'`, None},
		{`U&'d\0061t' x`, `U&'d\0061t'`, None},
		{`u&"d\0061t" x`, `u&"d\0061t"`, None},
		{`"Quoted ""id""" x`, `"Quoted ""id"""`, None},
		{`"a'b" x`, `"a'b"`, None},
		{`'unterminated`, `'unterminated`, String},
		{`"unterminated`, `"unterminated`, QuotedIdent},
		{`$$a;'b$$ x`, `$$a;'b$$`, None},
		{`$a$ $b$ $ $a $a$ x`, `$a$ $b$ $ $a $a$`, None},
		{`$a$x$ab$y$a$ x`, `$a$x$ab$y$a$`, None},
		{`$_b1$ $_b1$`, `$_b1$ $_b1$`, None},
		{`$é$x$é$`, `$é$x$é$`, None},
		{`$a$ unterminated`, `$a$ unterminated`, DollarString},
		{`-- comment ; 'x'` + "\nnext", `-- comment ; 'x'`, None},
		{"-- ends at CR\rnext", "-- ends at CR", None},
		{`-- to the end`, `-- to the end`, LineComment},
		{`/* a */ x`, `/* a */`, None},
		{`/**/ x`, `/**/`, None},
		{`/* a /* b */ c */ x`, `/* a /* b */ c */`, None},
		{`/* a **/ x`, `/* a **/`, None},
		{`/*/ a */ x`, `/*/ a */`, None},
		{`/* a /* b */ unterminated`, `/* a /* b */ unterminated`, BlockComment},
		{`/* ' " $$ */ x`, `/* ' " $$ */`, None},
	} {
		n, left := scanToken(tc.src)
		if got := tc.src[:n]; got != tc.token || left != tc.left {
			t.Errorf("%q: token %q inside %v, want %q inside %v", tc.src, got, left, tc.token, tc.left)
		}
	}
}

func TestOpenNothing(t *testing.T) {
	for _, src := range []string{
		`$1`, `$`, `$1$`, `$ a$`, `$a`, `- 1`, `-`, `/ 2`, `/`, `E`, `Ex'`, `b`, `U&x`, `U&`, `u'`, `abc`, `;`,
	} {
		var s Scanner
		if n := s.Open(src, 0); n != 0 || s.Inside() != None {
			t.Errorf("%q: opened %d bytes, inside %v", src, n, s.Inside())
		}
	}
}

// TestChunks feeds texts in pieces and checks the scanner ends where it
// ends on the whole text.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		chunks []string
		left   Kind
	}{
		{[]string{"'a\n", "b'"}, None},
		{[]string{"E'a\\", "'b'"}, None},
		{[]string{"E'a\\", "'b"}, EscapeString},
		{[]string{"/* a\n", "/* b */\n", "*/"}, None},
		{[]string{"/* a\n", "/* b */\n"}, BlockComment},
		{[]string{"$t$ a\n", "$t$"}, None},
		{[]string{"$t$ a\n", "$u$\n"}, DollarString},
		{[]string{`"a`, `""`, `b"`}, None},
	} {
		var s Scanner
		i := s.Open(tc.chunks[0], 0)
		if i == 0 {
			t.Fatalf("%q: nothing opens", tc.chunks[0])
		}
		for k, c := range tc.chunks {
			end := s.Scan(c, i)
			i = 0
			if s.Inside() == None && k != len(tc.chunks)-1 {
				t.Errorf("%q: closed in chunk %d at %d", tc.chunks, k, end)
			}
		}
		if s.Inside() != tc.left {
			t.Errorf("%q: inside %v, want %v", tc.chunks, s.Inside(), tc.left)
		}
	}
}

func TestDollarTag(t *testing.T) {
	var s Scanner
	src := "$body$ x $body$"
	if n := s.Open(src, 0); n != len("$body$") || s.Tag() != "$body$" {
		t.Fatalf("Open = %d, tag %q", n, s.Tag())
	}
	if end := s.Scan(src, 6); end != len(src) || s.Inside() != None || s.Tag() != "" {
		t.Errorf("Scan = %d, inside %v, tag %q", end, s.Inside(), s.Tag())
	}
}

func TestContinue(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // the string token with its continuations
	}{
		{"'a'\n'b' x", "'a'\n'b'"},
		{"'a' -- c\n  -- d\n\t'b' x", "'a' -- c\n  -- d\n\t'b'"},
		{"'a' 'b'", "'a'"},                   // no newline: two strings
		{"'a'\nx", "'a'"},                    // no quote after the newline
		{"E'a'\n'b\\'c' x", "E'a'\n'b\\'c'"}, // the continuation keeps the escapes
		{"\"a\"\n'b'", "\"a\""},              // identifiers do not continue
		{"'a'\n-- c", "'a'"},
		{"'a'\n'b'\n'c'", "'a'\n'b'\n'c'"},
	} {
		var s Scanner
		i := s.Open(tc.src, 0)
		for {
			i = s.Scan(tc.src, i)
			if s.Inside() != None {
				break
			}
			n := s.Continue(tc.src, i)
			if n == 0 {
				break
			}
			i += n
		}
		if got := tc.src[:i]; got != tc.want {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestContinueAfterOtherTokens(t *testing.T) {
	var s Scanner
	src := "'a' /* c */\n'b'"
	i := s.Scan(src, s.Open(src, 0))
	if s.Continue(src, i) != 0 {
		t.Fatal("continued over a block comment")
	}
	i = strings.Index(src, "/*")
	i = s.Scan(src, i+s.Open(src, i))
	if n := s.Continue(src, i); n != 0 {
		t.Errorf("a block comment continued as a string: %d", n)
	}
}

func TestIdentAndNumber(t *testing.T) {
	for _, tc := range []struct {
		src, ident string
	}{
		{"abc def", "abc"},
		{"a$b$c x", "a$b$c"},
		{"_x1 y", "_x1"},
		{"éa(", "éa"},
	} {
		if got := tc.src[:IdentEnd(tc.src, 0)]; got != tc.ident {
			t.Errorf("IdentEnd(%q) = %q, want %q", tc.src, got, tc.ident)
		}
	}
	for _, tc := range []struct {
		src, num string
	}{
		{"42 x", "42"},
		{"1.5e3+1", "1.5e3"},
		{".5)", ".5"},
		{"1..2", "1"},
		{"1_000,", "1_000"},
		{"1__0", "1__0"}, // a trailing identifier: "__0"
		{"0x1F ", "0x1F"},
		{"123abc ", "123abc"},
		{"1E'x'", "1E"},
		{"1e+'x'", "1e"},
		{"1$a$", "1"},
	} {
		if got := tc.src[:NumberEnd(tc.src, 0)]; got != tc.num {
			t.Errorf("NumberEnd(%q) = %q, want %q", tc.src, got, tc.num)
		}
	}
}

func TestBody(t *testing.T) {
	words := func(text string) []string { return strings.Fields(text) }
	for _, tc := range []struct {
		text  string
		depth []int // after each word
	}{
		{"create function f begin select case when end end", []int{0, 0, 0, 1, 1, 2, 2, 1, 0}},
		{"CREATE OR REPLACE PROCEDURE p BEGIN END", []int{0, 0, 0, 0, 0, 1, 0}},
		{"create or replace function f begin", []int{0, 0, 0, 0, 0, 1}},
		{"select begin", []int{0, 0}},
		{"create table begin", []int{0, 0, 0}},
		{"create function case end", []int{0, 0, 0, 0}},
	} {
		var b Body
		for k, w := range words(tc.text) {
			b.Word(w, 0)
			if b.Depth() != tc.depth[k] {
				t.Errorf("%q: depth %d after %q, want %d", tc.text, b.Depth(), w, tc.depth[k])
			}
		}
	}
	var b Body
	b.Word("create", 0)
	b.Word("function", 0)
	b.Word("begin", 1) // inside parentheses
	if b.Depth() != 0 {
		t.Errorf("BEGIN inside parentheses opened a body")
	}
	b.Word("begin", 0)
	b.NextStatement()
	b.Word("select", 0)
	b.Word("end", 0)
	if b.Depth() != 1 {
		t.Errorf("a new statement's END closed the last one's body: depth %d", b.Depth())
	}
}

// scanAll scans src fed in chunks (each ending after a newline, as readers
// feed lines) and returns the ends of its quoted tokens and comments, and
// what the scanner is left inside.
func scanAll(src string, byLine bool) ([]int, Kind) {
	var s Scanner
	var ends []int
	base := 0
	for base < len(src) {
		chunk := src[base:]
		if byLine {
			if k := strings.IndexByte(chunk, '\n'); k >= 0 {
				chunk = chunk[:k+1]
			}
		}
		i := 0
		for i < len(chunk) {
			if s.Inside() != None {
				i = s.Scan(chunk, i)
				if s.Inside() == None {
					ends = append(ends, base+i)
				}
				continue
			}
			if n := s.Open(chunk, i); n > 0 {
				i += n
			} else if IsIdentStart(chunk[i]) {
				i = IdentEnd(chunk, i)
			} else {
				i++
			}
		}
		base += len(chunk)
	}
	return ends, s.Inside()
}

// FuzzChunks checks that scanning a text line by line finds the quotes and
// comments that scanning it whole does.
func FuzzChunks(f *testing.F) {
	for _, s := range []string{
		"select 'a\nb', E'c\\\nd' /* x\n/* y */\n*/ $t$\n$t$ -- z\n\"q\n\"",
		"E'\\\n'", "$$\n$$", "/*\n*/", "'\n'", "-- x\ny",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e1, k1 := scanAll(src, false)
		e2, k2 := scanAll(src, true)
		if k1 != k2 || len(e1) != len(e2) {
			t.Fatalf("whole: %v inside %v; by line: %v inside %v", e1, k1, e2, k2)
		}
		for i := range e1 {
			if e1[i] != e2[i] {
				t.Fatalf("whole: %v; by line: %v", e1, e2)
			}
		}
	})
}
