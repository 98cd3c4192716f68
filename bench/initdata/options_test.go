package initdata

import (
	"errors"
	"strings"
	"testing"
)

func TestEffectiveSteps(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "dtgvp"},
		{Options{NoVacuum: true}, "dtg p"},
		{Options{ForeignKeys: true}, "dtgvpf"},
		{Options{Steps: "vdtvgv", NoVacuum: true, ForeignKeys: true}, " dt g f"},
		{Options{Steps: "fdt", ForeignKeys: true}, "fdt"},
		{Options{Steps: "G"}, "G"},
	} {
		if got := c.o.EffectiveSteps(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

func TestParseSteps(t *testing.T) {
	for _, s := range []string{"d", "dtgGvpf", " d t ", "ppp", "gG"} {
		if got, err := ParseSteps(s); err != nil || got != s {
			t.Errorf("%q: %q, %v", s, got, err)
		}
	}
	_, err := ParseSteps("dtX")
	var e *Error
	if !errors.As(err, &e) || e.Format("pgbench") != "pgbench: error: unrecognized initialization step \"X\"\npgbench: detail: Allowed step characters are: \"dtgGvpf\".\n" {
		t.Errorf("dtX: %v", err)
	}
	if _, err := ParseSteps(""); err == nil || err.Error() != "no initialization steps specified" {
		t.Errorf("empty: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, ""},
		{Options{Scale: 5, Fillfactor: 10, Partitions: 3, PartitionMethod: PartitionHash}, ""},
		{Options{Partitions: 2}, ""},
		{Options{Steps: "dq"}, `unrecognized initialization step "q"`},
		{Options{Scale: -1}, "-s/--scale must be in range 1..2147483647"},
		{Options{Fillfactor: 9}, "-F/--fillfactor must be in range 10..100"},
		{Options{Fillfactor: 101}, "-F/--fillfactor must be in range 10..100"},
		{Options{Partitions: -2}, "--partitions must be in range 0..2147483647"},
		{Options{PartitionMethod: PartitionRange}, "--partition-method requires greater than zero --partitions"},
	} {
		err := c.o.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{Notice: "ERROR:  bad row\nDETAIL:  why", Messages: []string{"first", "PQendcopy failed\n"}, Detail: "d", Hint: "h"}
	want := "ERROR:  bad row\nDETAIL:  why\nprog: error: first\nprog: error: PQendcopy failed\nprog: detail: d\nprog: hint: h\n"
	if got := e.Format("prog"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if e.Error() != "PQendcopy failed\n" {
		t.Errorf("Error() = %q", e.Error())
	}
}

// TestStatements checks the DDL against the texts in pgbench's source
// (initCreateTables, createPartitions, initCreatePKeys).
func TestStatements(t *testing.T) {
	got := CreateTableStatements(Options{Scale: 20000, Fillfactor: 90, Tablespace: `my "ts"`}, 170000)
	if want := `create table pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84)) with (fillfactor=90) tablespace "my ""ts"""`; got[2] != want {
		t.Errorf("accounts: %s", got[2])
	}
	if want := `create table pgbench_history(tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)) tablespace "my ""ts"""`; got[0] != want {
		t.Errorf("history: %s", got[0])
	}
	got = CreateTableStatements(Options{Partitions: 3, UnloggedTables: true, Scale: 1}, 180000)
	if len(got) != 7 {
		t.Fatalf("%d statements", len(got))
	}
	for i, want := range []string{
		"create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))",
		"create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
		"create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) partition by range (aid)",
		"create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
		"create unlogged table pgbench_accounts_1\n  partition of pgbench_accounts\n  for values from (minvalue) to (33335) with (fillfactor=100)",
		"create unlogged table pgbench_accounts_2\n  partition of pgbench_accounts\n  for values from (33335) to (66669) with (fillfactor=100)",
		"create unlogged table pgbench_accounts_3\n  partition of pgbench_accounts\n  for values from (66669) to (maxvalue) with (fillfactor=100)",
	} {
		if got[i] != want {
			t.Errorf("statement %d:\n%s\nwant\n%s", i, got[i], want)
		}
	}
	// pgbench 17 made the partitioned tables unlogged too.
	got = CreateTableStatements(Options{Partitions: 3, UnloggedTables: true, Scale: 1}, 170010)
	if !strings.HasPrefix(got[2], "create unlogged table pgbench_accounts(") || !strings.HasPrefix(got[0], "create unlogged table pgbench_history(") {
		t.Errorf("pgbench 17 unlogged partitioned: %s / %s", got[0], got[2])
	}
	got = PartitionStatements(Options{Partitions: 2, PartitionMethod: PartitionHash})
	if !strings.HasSuffix(got[1], "for values with (modulus 2, remainder 1) with (fillfactor=100)") {
		t.Errorf("hash partition: %s", got[1])
	}
	if pk := PrimaryKeyStatements(Options{IndexTablespace: "x"}); pk[2] != `alter table pgbench_accounts add primary key (aid) using index tablespace "x"` {
		t.Errorf("pk: %s", pk[2])
	}
}
