package script

import "testing"

// The splitting cases below were checked against pgbench 15.18: with
// --debug it prints each command as sent ("client 0 sending ..."); the
// expected texts are those lines, up to the first command the server
// rejected (the rest of each script is covered by the other scripts).

const splitScript = `-- leading comment
select 1; select 2;
select 'a;b' as x;
select $$a;b$$;
select $x$a;$$b$x$;
select /* ; */ 3;
select /* /* nested ; */ */ 4;
select 5 -- comment ;
  + 1;
select E'a\';b';
select 'a'
'b';
select 6 \; select 7;
create or replace function pg_temp.f() returns int language sql begin atomic select 1; select 2; end;
select 8::int, :v::int, ':v', 1 as ":v";
select 9 as "a;b", array[1,2], 1e5, .5, 1.e3;
select U&'d\0061t\+000061';
  select (1
  + 2);
select 10 as "x""y"; select 11 /* c */
;
select :{?v} as t, 12;
\set w 5
select :w + 1, :w::text, ::int, :::w, :nosuch::int is null;
select 13 \gset
select 14 as a, 15 as b \gset pre_
select :pre_a + :pre_b;
SELECT 16
`

// splitScriptExtended is splitScript without its compound "\;" statement,
// which extended mode cannot send.
const splitScriptExtended = `-- leading comment
select 1; select 2;
select 'a;b' as x;
select $$a;b$$;
select $x$a;$$b$x$;
select /* ; */ 3;
select /* /* nested ; */ */ 4;
select 5 -- comment ;
  + 1;
select E'a\';b';
select 'a'
'b';
create or replace function pg_temp.f() returns int language sql begin atomic select 1; select 2; end;
select 8::int, :v::int, ':v', 1 as ":v";
select 9 as "a;b", array[1,2], 1e5, .5, 1.e3;
select U&'d\0061t\+000061';
  select (1
  + 2);
select 10 as "x""y"; select 11 /* c */
;
select :{?v} as t, 12;
\set w 5
select :w + 1, :w::text, ::int, :::w, :nosuch::int is null;
select 13 \gset
select 14 as a, 15 as b \gset pre_
select :pre_a + :pre_b;
SELECT 16
`

const splitScript2 = `select 9 as "a;b", array[1,2], 1e5, .5, 1.e3;
select U&'d\0061t\+000061';
  select (1
  + 2);
select 10 as "x""y"; select 11 /* c */
;
select :{?v} as t, 12;
\set w 5
select :w + 1, :w::text, :nosuch::int is null, :w:w;
select 13 \gset
select 14 as a, 15 as b \gset pre_
select :pre_a + :pre_b;
SELECT 16
`

func TestSplitLikePgbench(t *testing.T) {
	cases := []struct {
		name     string
		text     string
		extended bool
		want     []string
	}{
		{"simple", splitScript, false, []string{
			"select 1;",
			"select 2;",
			"select 'a;b' as x;",
			"select $$a;b$$;",
			"select $x$a;$$b$x$;",
			"select /* ; */ 3;",
			"select /* /* nested ; */ */ 4;",
			"select 5 -- comment ;\n  + 1;",
			"select E'a\\';b';",
			"select 'a'\n'b';",
			"select 6 ; select 7;",
			"create or replace function pg_temp.f() returns int language sql begin atomic select 1; select 2; end;",
			"select 8::int, 5::int, '5', 1 as \"5\";",
			"select 9 as \"a;b\", array[1,2], 1e5, .5, 1.e3;",
			"select U&'d\\0061t\\+000061';",
			"select (1\n  + 2);",
			"select 10 as \"x\"\"y\";",
			"select 11 /* c */\n;",
			"select FALSE as t, 12;",
			"select 5 + 1, 5::text, ::int, :::w, null::int is null;",
		}},
		{"extended", splitScriptExtended, true, []string{
			"select 1;",
			"select 2;",
			"select 'a;b' as x;",
			"select $$a;b$$;",
			"select $x$a;$$b$x$;",
			"select /* ; */ 3;",
			"select /* /* nested ; */ */ 4;",
			"select 5 -- comment ;\n  + 1;",
			"select E'a\\';b';",
			"select 'a'\n'b';",
			"create or replace function pg_temp.f() returns int language sql begin atomic select 1; select 2; end;",
			"select 8::int, $1::int, '$2', 1 as \"$3\";",
		}},
		{"simple 2", splitScript2, false, []string{
			"select 9 as \"a;b\", array[1,2], 1e5, .5, 1.e3;",
			"select U&'d\\0061t\\+000061';",
			"select (1\n  + 2);",
			"select 10 as \"x\"\"y\";",
			"select 11 /* c */\n;",
			"select FALSE as t, 12;",
			"select 5 + 1, 5::text, :nosuch::int is null, 55;",
		}},
		{"extended 2", splitScript2, true, []string{
			"select 9 as \"a;b\", array[1,2], 1e5, .5, 1.e3;",
			"select U&'d\\0061t\\+000061';",
			"select (1\n  + 2);",
			"select 10 as \"x\"\"y\";",
			"select 11 /* c */\n;",
			"select FALSE as t, 12;",
			"select $1 + 1, $2::text, $3::int is null, $4$5;",
		}},
	}
	for _, c := range cases {
		s, err := Parse("s.sql", c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		env, _ := newClient(t, s, 1, "v=5", "nosuch=null")
		if c.name == "simple 2" || c.name == "extended 2" {
			env, _ = newClient(t, s, 1, "v=5")
		}
		var got []string
		for i, cmd := range s.Commands {
			env.Command = i
			switch {
			case cmd.Type == SQLCommand && c.extended:
				got = append(got, cmd.ParamSQL())
			case cmd.Type == SQLCommand:
				got = append(got, string(cmd.AppendSQL(nil, env.Vars)))
			case cmd.Meta == MetaSet:
				if err := cmd.ExecSet(env); err != nil {
					t.Fatal(err)
				}
			}
		}
		if len(got) < len(c.want) {
			t.Fatalf("%s: %d SQL commands, want at least %d", c.name, len(got), len(c.want))
		}
		for i, w := range c.want {
			if got[i] != w {
				t.Errorf("%s: command %d:\n got %q\nwant %q", c.name, i, got[i], w)
			}
		}
	}
}
