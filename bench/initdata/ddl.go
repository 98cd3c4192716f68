package initdata

import (
	"fmt"
	"strconv"
	"strings"
)

// The statements below are pgbench's, character for character, so that the
// server sees (and logs) the same DDL.

// DropStatement is step d: pgbench drops its four tables in one statement
// (and nothing else: partitions of pgbench_accounts go with it).
const DropStatement = "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

// TruncateStatement empties the four tables before a load (steps g, G).
const TruncateStatement = "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

// tableDDL is pgbench's ddlinfo: a table and its columns for 32-bit and
// 64-bit account ids.
type tableDDL struct {
	name       string
	smallCols  string
	bigCols    string
	fillfactor bool
}

// pgbench creates the tables in this order.
var tableDDLs = []tableDDL{
	{"pgbench_history",
		"tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
		"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)",
		false},
	{"pgbench_tellers",
		"tid int not null,bid int,tbalance int,filler char(84)",
		"tid int not null,bid int,tbalance int,filler char(84)",
		true},
	{"pgbench_accounts",
		"aid    int not null,bid int,abalance int,filler char(84)",
		"aid bigint not null,bid int,abalance int,filler char(84)",
		true},
	{"pgbench_branches",
		"bid int not null,bbalance int,filler char(88)",
		"bid int not null,bbalance int,filler char(88)",
		true},
}

// quoteIdent quotes an identifier as PQescapeIdentifier does.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// CreateTableStatements returns step t's statements, in pgbench's order:
// the four tables, then the partitions of pgbench_accounts if any, as the
// pgbench of the server's version (libpq's PQserverVersion number) writes
// them. They differ in one place: with --unlogged-tables and partitions,
// pgbench 17 makes all four tables unlogged; PostgreSQL 18 refuses
// unlogged partitioned tables, and pgbench 18 then makes only the
// partitions unlogged (the four tables stay logged).
func CreateTableStatements(o Options, serverVersion int) []string {
	method := o.partitionMethod()
	unlogged := o.UnloggedTables
	if serverVersion >= 180000 && method != PartitionNone {
		unlogged = false
	}
	var out []string
	for _, d := range tableDDLs {
		var b strings.Builder
		b.WriteString("create")
		if unlogged {
			b.WriteString(" unlogged")
		}
		cols := d.smallCols
		if o.scale() >= BigAIDScale {
			cols = d.bigCols
		}
		fmt.Fprintf(&b, " table %s(%s)", d.name, cols)
		if method != PartitionNone && d.name == "pgbench_accounts" {
			fmt.Fprintf(&b, " partition by %s (aid)", method)
		} else if d.fillfactor {
			fmt.Fprintf(&b, " with (fillfactor=%d)", o.fillfactor())
		}
		if o.Tablespace != "" {
			b.WriteString(" tablespace " + quoteIdent(o.Tablespace))
		}
		out = append(out, b.String())
	}
	return append(out, PartitionStatements(o)...)
}

// PartitionStatements returns the statements creating the partitions of
// pgbench_accounts (part of step t), or nil without partitions.
func PartitionStatements(o Options) []string {
	method := o.partitionMethod()
	if method == PartitionNone {
		return nil
	}
	unlogged := ""
	if o.UnloggedTables {
		unlogged = " unlogged"
	}
	n := int64(o.Partitions)
	size := (AccountsPerScale*int64(o.scale()) + n - 1) / n
	out := make([]string, 0, o.Partitions)
	for p := int64(1); p <= n; p++ {
		var b strings.Builder
		fmt.Fprintf(&b, "create%s table pgbench_accounts_%d\n  partition of pgbench_accounts\n  for values ", unlogged, p)
		if method == PartitionRange {
			b.WriteString("from (")
			if p == 1 {
				b.WriteString("minvalue")
			} else {
				b.WriteString(strconv.FormatInt((p-1)*size+1, 10))
			}
			b.WriteString(") to (")
			if p < n {
				b.WriteString(strconv.FormatInt(p*size+1, 10))
			} else {
				b.WriteString("maxvalue")
			}
			b.WriteString(")")
		} else {
			fmt.Fprintf(&b, "with (modulus %d, remainder %d)", n, p-1)
		}
		fmt.Fprintf(&b, " with (fillfactor=%d)", o.fillfactor())
		out = append(out, b.String())
	}
	return out
}

// ServerSideStatements returns step G's inserts (run after the truncate,
// in one transaction).
func ServerSideStatements(o Options) []string {
	s := int64(o.scale())
	return []string{
		fmt.Sprintf("insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, %d) as bid", BranchesPerScale*s),
		fmt.Sprintf("insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 from generate_series(1, %d) as tid", TellersPerScale, TellersPerScale*s),
		fmt.Sprintf("insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, 0, '' from generate_series(1, %d) as aid", AccountsPerScale, AccountsPerScale*s),
	}
}

// VacuumStatements are step v's statements, in pgbench's order.
var VacuumStatements = []string{
	"vacuum analyze pgbench_branches",
	"vacuum analyze pgbench_tellers",
	"vacuum analyze pgbench_accounts",
	"vacuum analyze pgbench_history",
}

// PrimaryKeyStatements returns step p's statements, in pgbench's order.
func PrimaryKeyStatements(o Options) []string {
	out := []string{
		"alter table pgbench_branches add primary key (bid)",
		"alter table pgbench_tellers add primary key (tid)",
		"alter table pgbench_accounts add primary key (aid)",
	}
	if o.IndexTablespace != "" {
		for i := range out {
			out[i] += " using index tablespace " + quoteIdent(o.IndexTablespace)
		}
	}
	return out
}

// ForeignKeyStatements are step f's statements, in pgbench's order.
var ForeignKeyStatements = []string{
	"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
	"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
}
