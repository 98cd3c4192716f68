package sqltext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLexer(t *testing.T) {
	tests := []struct {
		src  string
		want []string // kind:text of the significant tokens
	}{
		{`SELECT 1`, []string{"ident:SELECT", "number:1"}},
		{`'it''s' E'a\'b' 'x'`, []string{`string:'it''s'`, `string:E'a\'b'`, `string:'x'`}},
		{`e'\\' 'y'`, []string{`string:e'\\'`, `string:'y'`}},
		{`$$a'b$$ $fn$ $$ $fn$`, []string{`string:$$a'b$$`, `string:$fn$ $$ $fn$`}},
		{`$1+$22`, []string{"param:$1", "op:+", "param:$22"}},
		{`"Quo""ted" U&"d\0061t"`, []string{`qident:"Quo""ted"`, `qident:U&"d\0061t"`}},
		{`a -- c'omment` + "\n" + `b`, []string{"ident:a", "comment:-- c'omment", "ident:b"}},
		{`a /* x /* nested */ 'y' */ b`, []string{"ident:a", "comment:/* x /* nested */ 'y' */", "ident:b"}},
		{`1e5 .5 1.5e-3 0x1F 0o17 0b101 1_000 5.`, []string{"number:1e5", "number:.5", "number:1.5e-3", "number:0x1F", "number:0o17", "number:0b101", "number:1_000", "number:5."}},
		{`a=-1`, []string{"ident:a", "op:=", "op:-", "number:1"}},
		{`a@-1`, []string{"ident:a", "op:@-", "number:1"}},
		{`x::int[]`, []string{"ident:x", "punct:::", "ident:int", "punct:[", "punct:]"}},
		{`B'101' X'1F' N'n' U&'\0041'`, []string{"string:B'101'", "string:X'1F'", "string:N'n'", `string:U&'\0041'`}},
		{`a$b$ $`, []string{"ident:a$b$", "other:$"}},
		{`'unterminated`, []string{"string:'unterminated"}},
		{`$q$ never closed`, []string{"string:$q$ never closed"}},
		{`/* open`, []string{"comment:/* open"}},
		{`a.b, t.*;`, []string{"ident:a", "punct:.", "ident:b", "punct:,", "ident:t", "punct:.", "op:*", "punct:;"}},
		{`a<=b =>c := 1`, []string{"ident:a", "op:<=", "ident:b", "op:=>", "ident:c", "punct::=", "number:1"}},
		{`x/*c*/=/*d*/1`, []string{"ident:x", "comment:/*c*/", "op:=", "comment:/*d*/", "number:1"}},
	}
	for _, tt := range tests {
		var got []string
		var joined strings.Builder
		for _, tok := range Tokens(tt.src) {
			joined.WriteString(tok.Text)
			if tok.Kind != Space {
				got = append(got, tok.Kind.String()+":"+tok.Text)
			}
		}
		if strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
			t.Errorf("Tokens(%q)\n got %q\nwant %q", tt.src, got, tt.want)
		}
		if joined.String() != tt.src {
			t.Errorf("Tokens(%q) do not give the text back: %q", tt.src, joined.String())
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"SELECT * FROM t WHERE id = 42", "select * from t where id = $1"},
		{"select *\n  from T -- why\n where ID = $1", "select * from t where id = $1"},
		{"SELECT count(*) FROM t WHERE a IN (1, 2, 3) AND b = 'x'", "select count(*) from t where a in (...) and b = $1"},
		{"select 1 where a in ($1,$2::int)", "select $1 where a in (...)"},
		{"select 1 where a in (select b from u)", "select $1 where a in (select b from u)"},
		{"select * from t where a = any(ARRAY[1,2,3])", "select * from t where a = any(array[...])"},
		{"update t set v = E'it\\'s', w = $x$a$x$ where k = -5", "update t set v = $1, w = $2 where k = $3"},
		{"select \"Mixed\", \"lower\" from \"t\"", `select "Mixed", lower from t`},
		{"insert into t values (1, NULL, true)", "insert into t values ($1, null, $2)"},
		{"select a - 1, a-1, -1, (-2), x::text from t", "select a - $1, a - $2, $3, ($4), x::text from t"},
		{"select 'a'\n'b'", "select $1"},
		{"BEGIN", "begin"},
		{"select interval '1 day', date '2024-01-01'", "select interval $1, date $2"},
		{"select 1; select 2", "select $1; select $2"},
		{"", ""},
	}
	for _, tt := range tests {
		got := Normalize(tt.sql)
		if got.Text != tt.want {
			t.Errorf("Normalize(%q).Text = %q, want %q", tt.sql, got.Text, tt.want)
		}
		if len(got.ID) != 16 {
			t.Errorf("Normalize(%q).ID = %q, want 16 hex digits", tt.sql, got.ID)
		}
	}
}

func TestFingerprintGroups(t *testing.T) {
	same := [][]string{
		{"select * from t where id = 1", "SELECT *\n\tFROM t\n\tWHERE id = $1 -- trailing", "select/**/* from \"t\" where ID=-7"},
		{"select * from t where a in (1)", "select * from t where a in (1,2,3,4)", "select * from t where a in ($1, $2)"},
		{"insert into t (a) values ('x')", "insert into t (a) values ($$y$$)", "INSERT INTO t (a) VALUES (E'\\n')"},
	}
	for _, group := range same {
		want := Normalize(group[0]).ID
		for _, sql := range group[1:] {
			if got := Normalize(sql).ID; got != want {
				t.Errorf("%q and %q: fingerprints %s and %s, want the same", group[0], sql, want, got)
			}
		}
	}
	differ := [][2]string{
		{"select a from t", "select b from t"},
		{"select a from t", `select "A" from t`},
		{"select a from t where x is null", "select a from t where x = 1"},
		{"select a from t where x in (1, 2)", "select a from t where x in (1, y)"},
	}
	for _, p := range differ {
		if Normalize(p[0]).ID == Normalize(p[1]).ID {
			t.Errorf("%q and %q share a fingerprint", p[0], p[1])
		}
	}
}

func TestRedactPasswords(t *testing.T) {
	tests := []struct {
		sql, want string
		params    []int
	}{
		{"ALTER ROLE bob PASSWORD 'secret'", "ALTER ROLE bob PASSWORD 'xxxxx'", nil},
		{"create user x with encrypted password E'a\\'b' valid until 'infinity'", "create user x with encrypted password 'xxxxx' valid until 'infinity'", nil},
		{"alter role bob password $1", "alter role bob password $1", []int{1}},
		{"select password from t", "select password from t", nil},
		{"select 1", "select 1", nil},
	}
	for _, tt := range tests {
		got, params, _ := RedactPasswords(tt.sql)
		if got != tt.want || len(params) != len(tt.params) || (len(params) > 0 && params[0] != tt.params[0]) {
			t.Errorf("RedactPasswords(%q) = %q %v, want %q %v", tt.sql, got, params, tt.want, tt.params)
		}
	}
}

func TestIsCopyFromStdin(t *testing.T) {
	tests := map[string]bool{
		"COPY t FROM STDIN":                          true,
		"copy t (a, b) from stdin with (format csv)": true,
		"select 1; copy t from stdin":                true,
		"COPY t TO STDOUT":                           false,
		"copy t from '/tmp/x'":                       false,
		"select 'copy t from stdin'":                 false,
		"select stdin from copy":                     false,
	}
	for sql, want := range tests {
		if got := IsCopyFromStdin(sql); got != want {
			t.Errorf("IsCopyFromStdin(%q) = %v, want %v", sql, got, want)
		}
	}
}

// respace rebuilds sql from its tokens with every run of white space
// replaced by another one (always holding a newline, so that adjacent
// string constants stay legal).
func respace(sql string) string {
	var b strings.Builder
	for _, tok := range Tokens(sql) {
		if tok.Kind == Space {
			b.WriteString("\n \t ")
		} else {
			b.WriteString(tok.Text)
		}
	}
	return b.String()
}

func FuzzFingerprint(f *testing.F) {
	for _, s := range []string{
		"select * from t where id = $1", "SELECT 'it''s' , E'\\'' FROM \"T\" -- x",
		"insert into t values ($$a$$, $q$b$q$, 1e5, .5, 0x1f)", "/* a /* b */ */ select a in (1,2)",
		"select array[1,2]::int[]", "a=-1", "U&'\\0041' U&\"x\"", "select 1;\n\tselect 'x'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		fp := Normalize(sql)
		if len(fp.ID) != 16 {
			t.Fatalf("ID %q", fp.ID)
		}
		if utf8.ValidString(sql) && !utf8.ValidString(fp.Text) {
			t.Fatalf("normalised text of valid UTF-8 is not: %q", fp.Text)
		}
		if again := Normalize(sql); again != fp {
			t.Fatalf("not deterministic: %v then %v", fp, again)
		}
		if other := Normalize(respace(sql)); other.ID != fp.ID {
			t.Fatalf("white space changed the fingerprint:\n%q → %s %q\n%q → %s %q", sql, fp.ID, fp.Text, respace(sql), other.ID, other.Text)
		}
		RedactPasswords(sql)
		IsCopyFromStdin(sql)
	})
}
