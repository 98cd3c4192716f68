package redact

import (
	"reflect"
	"strings"
	"testing"
)

func TestDSN(t *testing.T) {
	tests := []struct{ in, want string }{
		// URLs
		{"postgres://alice:s3cret@db.example:5432/lab", "postgres://alice:xxxxx@db.example:5432/lab"},
		{"postgresql://alice:s3cret@db/lab?sslmode=require", "postgresql://alice:xxxxx@db/lab?sslmode=require"},
		{"POSTGRES://alice:s3cret@db/lab", "POSTGRES://alice:xxxxx@db/lab"},
		{"postgres://alice@db/lab", "postgres://alice@db/lab"},
		{"postgres://db/lab", "postgres://db/lab"},
		{"postgres://alice:@db/lab", "postgres://alice:@db/lab"},
		{"postgres://:s3cret@db/lab", "postgres://:xxxxx@db/lab"},
		{"postgres://alice:p%40ss%2Fw@db/lab", "postgres://alice:xxxxx@db/lab"},
		// unescaped '@', '?' and '/' in the password
		{"postgres://alice:p@ss@db/lab", "postgres://alice:xxxxx@db/lab"},
		{"postgres://alice:p?ss@db/lab", "postgres://alice:xxxxx@db/lab"},
		{"postgres://alice:pa/ss@db/lab", "postgres://alice:xxxxx@db/lab"},
		// several hosts
		{"postgres://alice:s3cret@h1:5432,h2:5433/lab?target_session_attrs=any",
			"postgres://alice:xxxxx@h1:5432,h2:5433/lab?target_session_attrs=any"},
		// password in the query
		{"postgres://db/lab?user=alice&password=s3cret&sslmode=disable",
			"postgres://db/lab?user=alice&password=xxxxx&sslmode=disable"},
		{"postgres://db/lab?password=s3cret", "postgres://db/lab?password=xxxxx"},
		{"postgres://db/lab?sslpassword=keypass&password=s3cret#frag",
			"postgres://db/lab?sslpassword=xxxxx&password=xxxxx#frag"},
		{"postgres://a:b@db/lab?PASSWORD=s3cret", "postgres://a:xxxxx@db/lab?PASSWORD=xxxxx"},
		// key=value
		{"host=db user=alice password=s3cret dbname=lab", "host=db user=alice password=xxxxx dbname=lab"},
		{"password=s3cret", "password=xxxxx"},
		{"host=db password = s3cret port=5432", "host=db password = xxxxx port=5432"},
		{"host=db password='s3 cr\\'et' port=5432", "host=db password='xxxxx' port=5432"},
		{"host=db password='unterminated secret", "host=db password='xxxxx"},
		{"host=db password=s3\\ cret port=5432", "host=db password=xxxxx port=5432"},
		{"host=db sslpassword=keypass sslmode=verify-full", "host=db sslpassword=xxxxx sslmode=verify-full"},
		{"host=db\tpassword=s3cret\nuser=u", "host=db\tpassword=xxxxx\nuser=u"},
		{"host=db PASSWORD=s3cret", "host=db PASSWORD=xxxxx"},
		{"host=db password=", "host=db password="},
		{"host=db passfile=/home/a/.pgpass", "host=db passfile=/home/a/.pgpass"},
		{"host=db user=password", "host=db user=password"},
		// nothing to hide
		{"", ""},
		{"lab", "lab"},
		{"host=/var/run/postgresql dbname=lab", "host=/var/run/postgresql dbname=lab"},
	}
	for _, tt := range tests {
		if got := DSN(tt.in); got != tt.want {
			t.Errorf("DSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`failed to connect to postgres://bob:hunter2@10.0.0.1/x: refused`,
			`failed to connect to postgres://bob:xxxxx@10.0.0.1/x: refused`},
		{`primary_conninfo = 'host=p user=r password=hunter2 application_name=s'`,
			`primary_conninfo = 'host=p user=r password=xxxxx application_name=s'`},
		{`two: postgres://a:one@h/d and postgres://b:two@h/d`,
			`two: postgres://a:xxxxx@h/d and postgres://b:xxxxx@h/d`},
		{`PGPASSWORD=hunter2 pglab study tps`, `PGPASSWORD=xxxxx pglab study tps`},
		{`see https://example.com/docs for help`, `see https://example.com/docs for help`},
		{`password authentication failed for user "bob"`, `password authentication failed for user "bob"`},
		{`db_passwd="hunter 2" ok`, `db_passwd="xxxxx" ok`},
		{`https://user:tok@git.example/r.git`, `https://user:xxxxx@git.example/r.git`},
		// A password that looks like a URL is still a password's value.
		{`password=a://b@c`, `password=xxxxx`},
		{`host=h password='a://b@c' user=u`, `host=h password='xxxxx' user=u`},
		{`password="x y://z" then https://u:p@h/`, `password="xxxxx" then https://u:xxxxx@h/`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestArgs(t *testing.T) {
	in := []string{
		"pglab", "compare",
		"--target", "a=postgres://u:secret1@h/db",
		"--target=b=host=h password=secret2 dbname=x",
		"--store", "postgres://u:secret3@h/results?sslmode=disable",
		"--password", "secret4",
		"--db-passwd", "secret5",
		"--password=secret6",
		"password=secret7",
		"-c", "10",
	}
	orig := append([]string(nil), in...)
	got := Args(in)
	want := []string{
		"pglab", "compare",
		"--target", "a=postgres://u:xxxxx@h/db",
		"--target=b=host=h password=xxxxx dbname=x",
		"--store", "postgres://u:xxxxx@h/results?sslmode=disable",
		"--password", "xxxxx",
		"--db-passwd", "xxxxx",
		"--password=xxxxx",
		"password=xxxxx",
		"-c", "10",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RedactArgs:\n got %q\nwant %q", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Errorf("RedactArgs modified its input: %q", in)
	}
	for _, a := range got {
		if strings.Contains(a, "secret") {
			t.Errorf("a secret survived: %q", a)
		}
	}
	if Args(nil) != nil {
		t.Error("Args(nil) is not nil")
	}
	// A password flag at the end has no value to hide.
	if got := Args([]string{"x", "--password"}); !reflect.DeepEqual(got, []string{"x", "--password"}) {
		t.Errorf("trailing flag: %q", got)
	}
}
