package initdata

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgbenchColumns are the columns of the tables `pgbench -i` creates (and
// its drop step drops), in order.
var pgbenchColumns = map[string]string{
	"pgbench_accounts": "aid,bid,abalance,filler",
	"pgbench_branches": "bid,bbalance,filler",
	"pgbench_history":  "tid,bid,aid,delta,mtime,filler",
	"pgbench_tellers":  "tid,bid,tbalance,filler",
}

// ForeignTables returns the tables that the drop step ('d') would drop
// but that pgbench did not make: a table of one of its four names,
// found through the search_path as pgbench's unqualified DROP finds it,
// whose columns are not pgbench's. It returns nil when the server cannot be
// reached (the init step then reports that as pgbench does).
func ForeignTables(ctx context.Context, cfg *pgconn.Config) []string {
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgconn.ConnectConfig(cctx, cfg.Copy())
	if err != nil {
		return nil
	}
	defer conn.Close(context.Background())
	const q = `SELECT n.nspname || '.' || c.relname, c.relname,
	       string_agg(a.attname, ',' ORDER BY a.attnum)
	  FROM unnest(ARRAY['pgbench_accounts', 'pgbench_branches', 'pgbench_history', 'pgbench_tellers']) AS t(name)
	  JOIN pg_class c ON c.oid = to_regclass(t.name)
	  JOIN pg_namespace n ON n.oid = c.relnamespace
	  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	 GROUP BY 1, 2 ORDER BY 1`
	rr := conn.ExecParams(cctx, q, nil, nil, nil, nil).Read()
	if rr.Err != nil {
		return nil
	}
	var out []string
	for _, row := range rr.Rows {
		qualified, name, cols := string(row[0]), string(row[1]), string(row[2])
		if pgbenchColumns[name] != cols {
			out = append(out, fmt.Sprintf("%s (%s)", qualified, strings.ReplaceAll(cols, ",", ", ")))
		}
	}
	return out
}
