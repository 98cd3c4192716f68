package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// benchDB returns a DSN to a fresh database initialized with pglab bench -i.
func benchDB(t *testing.T, scale string) string {
	t.Helper()
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	r := run(t, "bench", "-i", "-s", scale, "-q", dsn)
	if r.code != 0 {
		t.Fatalf("bench -i: exit %d\n%s", r.code, r.stderr)
	}
	return dsn
}

// unreachable is a connection string nothing listens on: option errors must
// be reported before any connection is tried.
const unreachable = "host=127.0.0.1 port=1 dbname=x connect_timeout=2"

func TestBenchOptionErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-c", "x"}, `pglab: error: invalid value "x" for option -c/--clients`},
		{[]string{"-c", "0"}, `pglab: error: -c/--clients must be in range 1..2147483647`},
		{[]string{"-j", "0"}, `pglab: error: -j/--jobs must be in range 1..2147483647`},
		{[]string{"-t", "0"}, `pglab: error: -t/--transactions must be in range 1..2147483647`},
		{[]string{"-T", "-1"}, `pglab: error: -T/--time must be in range 1..2147483647`},
		{[]string{"-P", "x"}, `pglab: error: invalid value "x" for option -P/--progress`},
		{[]string{"-M", "fast"}, `pglab: error: invalid query mode (-M): "fast"`},
		{[]string{"-R", "0"}, `pglab: error: invalid rate limit: "0"`},
		{[]string{"-L", "-3"}, `pglab: error: invalid latency limit: "-3"`},
		{[]string{"-l", "--sampling-rate", "2"}, `pglab: error: invalid sampling rate: "2"`},
		{[]string{"--max-tries", "-1"}, `pglab: error: invalid number of maximum tries: "-1"`},
		{[]string{"-b", "nosuch"}, `pglab: error: no builtin script found for name "nosuch"`},
		{[]string{"-b", "s"}, `pglab: error: ambiguous builtin name: 2 builtin scripts found for prefix "s"`},
		{[]string{"-b", "tpcb-like@x"}, `pglab: error: invalid weight specification: @x`},
		{[]string{"-b", "tpcb-like@-1"}, `pglab: error: weight specification out of range (0 .. 2147483647): -1`},
		{[]string{"-b", "tpcb-like@0"}, `pglab: error: total script weight must not be zero`},
		{[]string{"-D", "novalue"}, `pglab: error: invalid variable definition: "novalue"`},
		{[]string{"-D", "=x"}, `pglab: error: invalid variable definition: "=x"`},
		{[]string{"-f", "/nonexistent/script.sql"}, `pglab: error: could not open file "/nonexistent/script.sql": No such file or directory`},
		{[]string{"-t", "10", "-T", "10"}, `pglab: error: specify either a number of transactions (-t) or a duration (-T), not both`},
		{[]string{"--sampling-rate", "0.5"}, `pglab: error: log sampling (--sampling-rate) is allowed only when logging transactions (-l)`},
		{[]string{"--aggregate-interval", "1"}, `pglab: error: log aggregation is allowed only when actually logging transactions`},
		{[]string{"--log-prefix", "x"}, `pglab: error: log file prefix (--log-prefix) is allowed only when logging transactions (-l)`},
		{[]string{"-l", "-T", "2", "--aggregate-interval", "3"}, `pglab: error: number of seconds for aggregation (3) must not be higher than test duration (2)`},
		{[]string{"-l", "-T", "3", "--aggregate-interval", "2"}, `pglab: error: duration (3) must be a multiple of aggregation interval (2)`},
		{[]string{"--progress-timestamp"}, `pglab: error: --progress-timestamp is allowed only under --progress`},
		{[]string{"--max-tries", "0"}, `pglab: error: an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)`},
		{[]string{"-i", "-S"}, `pglab: error: some of the specified options cannot be used in initialization (-i) mode`},
		{[]string{"-F", "50"}, `pglab: error: some of the specified options cannot be used in benchmarking mode`},
		{[]string{"-i", "-F", "5"}, `pglab: error: -F/--fillfactor must be in range 10..100`},
		{[]string{"-i", "--partition-method", "list"}, `pglab: error: invalid partition method, expecting "range" or "hash", got: "list"`},
		{[]string{"--random-seed", "soon"}, `pglab: error: unrecognized random seed option "soon"`},
		{[]string{"-z"}, `pglab bench: invalid option -- 'z'`},
		{[]string{"--frobnicate"}, `pglab bench: unrecognized option '--frobnicate'`},
		{[]string{"-c"}, `pglab bench: option requires an argument -- 'c'`},
		{[]string{"--client"}, `pglab bench: option '--client' requires an argument`},
		{[]string{"--no-vacuum=1"}, `pglab bench: option '--no-vacuum' doesn't allow an argument`},
		{[]string{"--s"}, `pglab bench: option '--s' is ambiguous`},
		{[]string{"-S", "a", "b"}, `pglab: error: too many command-line arguments (first is "b")`},
		{[]string{"--show-script", "nosuch"}, `pglab: error: no builtin script found for name "nosuch"`},
		{[]string{"--target", "no-such-instance-xyz"}, `pglab: error: --target no-such-instance-xyz: no managed instance of that name`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"bench"}, tc.args...)
			if joined := strings.Join(tc.args, " "); !strings.Contains(joined, " a b") && joined != "-c" && joined != "--client" {
				args = append(args, unreachable)
			}
			r := run(t, args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1 (stderr %q)", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			first := strings.SplitN(r.stderr, "\n", 2)[0]
			if !strings.HasPrefix(first, tc.want) {
				t.Errorf("first stderr line = %q, want prefix %q", first, tc.want)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Errorf("stack trace: %s", r.stderr)
			}
		})
	}
}

func TestBenchScriptErrors(t *testing.T) {
	dir := pgtest.TempDir(t)
	cases := []struct {
		name, text, want string
	}{
		{"expr.sql", "\\set x 1 +\n", "/expr.sql:1: syntax error in command \"set\""},
		{"meta.sql", "\\frobnicate\n", `/meta.sql:1: invalid command in command "frobnicate"`},
		{"if.sql", "\\if 1\nselect 1;\n", `pglab: error: condition error in script "`},
		{"sleep.sql", "\\sleep 1 xs\n", "/sleep.sql:1: unrecognized time unit, must be us, ms or s (xs) in command \"sleep\""},
		{"empty.sql", "-- nothing\n", `pglab: error: empty command list for script "`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(t, "bench", "-f", path, unreachable)
			if r.code != 1 {
				t.Errorf("exit %d, want 1 (stderr %q)", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr = %q, want %q", r.stderr, tc.want)
			}
		})
	}
}

func TestBenchListAndShowScript(t *testing.T) {
	r := run(t, "bench", "-b", "list")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "Available builtin scripts:\n") || !strings.Contains(r.stderr, "    tpcb-like: <builtin: TPC-B (sort of)>") {
		t.Errorf("-b list: exit %d stderr %q", r.code, r.stderr)
	}
	r = run(t, "bench", "--show-script=se")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\n") {
		t.Errorf("--show-script: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestBenchConnectionErrors(t *testing.T) {
	r := run(t, "bench", "-n", "-S", "-t", "1", unreachable)
	if r.code != 1 || !strings.Contains(r.stderr, "pglab: error: could not create connection for setup") {
		t.Errorf("unreachable: exit %d stderr %q", r.code, r.stderr)
	}
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	r = run(t, "bench", "-n", "-S", "-t", "1", "-h", "127.0.0.1", "-p", itoa(inst.Port()), "-U", inst.User(),
		"host=127.0.0.1 dbname=postgres password=wrong-password")
	if r.code != 1 || !strings.Contains(r.stderr, "password authentication failed") ||
		!strings.Contains(r.stderr, "could not create connection for setup") {
		t.Errorf("wrong password: exit %d stderr %q", r.code, r.stderr)
	}
	dsn := pgtest.CreateDB(t, inst)
	r = run(t, "bench", "-n", "-S", "-t", "1", dsn)
	if r.code != 1 || !strings.Contains(r.stderr, `pglab: error: could not count number of branches: ERROR:  relation "pgbench_branches" does not exist`) ||
		!strings.Contains(r.stderr, `Perhaps you need to do initialization ("pgbench -i") in database`) {
		t.Errorf("no tables: exit %d stderr %q", r.code, r.stderr)
	}
}

func itoa(n int) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func summaryValue(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimPrefix(l, prefix)
		}
	}
	t.Fatalf("no %q line in\n%s", prefix, out)
	return ""
}

func TestBenchRunModes(t *testing.T) {
	dsn := benchDB(t, "1")
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			r := run(t, "bench", "-c", "4", "-j", "2", "-t", "25", "-M", mode, dsn)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if got := summaryValue(t, r.stdout, "number of transactions actually processed: "); got != "100/100" {
				t.Errorf("processed %q, want 100/100", got)
			}
			if got := summaryValue(t, r.stdout, "query mode: "); got != mode {
				t.Errorf("query mode %q", got)
			}
			if !strings.Contains(r.stdout, "latency percentiles: p50 = ") {
				t.Errorf("no percentiles line:\n%s", r.stdout)
			}
			if r.stderr != "starting vacuum...end.\n" {
				t.Errorf("stderr = %q", r.stderr)
			}
		})
	}
	conn := pgtest.Connect(t, dsn)
	if n := pgtest.QueryString(t, conn, "select count(*) from pgbench_history"); n != "100" {
		t.Errorf("history rows after the prepared run = %s, want 100 (vacuum truncates it before each run)", n)
	}
	if s := pgtest.QueryString(t, conn, "select ((select sum(abalance) from pgbench_accounts) = (select sum(bbalance) from pgbench_branches))::text"); s != "true" {
		t.Errorf("sum(abalance) != sum(bbalance)")
	}
}

func TestBenchJSONAndProgress(t *testing.T) {
	dsn := benchDB(t, "1")
	r := run(t, "bench", "-n", "-S", "-c", "2", "-T", "2", "-P", "1", "--json", dsn)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"tps", "latency_p50_ms", "latency_p99_ms", "failed", "conn_ms", "transactions"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if doc["transactions"].(float64) <= 0 {
		t.Errorf("no transactions: %v", doc["transactions"])
	}
	prog, _ := doc["progress"].([]any)
	if len(prog) != 1 {
		t.Errorf("progress ticks = %d, want 1 for -T 2 -P 1", len(prog))
	}
}

func TestBenchLogs(t *testing.T) {
	dsn := benchDB(t, "1")
	dir := pgtest.TempDir(t)
	prefix := filepath.Join(dir, "tx")
	r := run(t, "bench", "-n", "-S", "-c", "2", "-j", "2", "-t", "5", "-l", "--log-prefix", prefix, dsn)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(prefix + ".*")
	if len(files) != 2 {
		t.Fatalf("log files %v, want 2 (one per thread)", files)
	}
	lines := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if len(strings.Fields(l)) != 6 {
				t.Errorf("log line %q: want 6 fields", l)
			}
			lines++
		}
	}
	if lines != 10 {
		t.Errorf("%d log lines, want 10", lines)
	}
}

func TestBenchAbortExitCodes(t *testing.T) {
	dsn := benchDB(t, "1")
	dir := pgtest.TempDir(t)
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("select 1;\nselect * from no_such_table;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "bench", "-n", "-c", "2", "-t", "3", "-f", bad, dsn)
	if r.code != 2 || !strings.HasSuffix(r.stderr, "pglab: error: Run was aborted; the above results are incomplete.\n") {
		t.Errorf("aborted run: exit %d stderr %q", r.code, r.stderr)
	}
	if got := summaryValue(t, r.stdout, "number of transactions actually processed: "); got != "0/6" {
		t.Errorf("processed %q, want 0/6", got)
	}
	r = run(t, "bench", "-n", "-c", "2", "-t", "3", "--exit-on-abort", "-f", bad, dsn)
	if r.code != 2 || !strings.Contains(r.stderr, "pglab: error: Run was aborted due to an error in thread 0\n") {
		t.Errorf("--exit-on-abort: exit %d stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "number of transactions") {
		t.Errorf("--exit-on-abort printed a summary:\n%s", r.stdout)
	}
	r = run(t, "bench", "-n", "-S", "-t", "3", "-d", dsn)
	if r.code != 0 {
		t.Errorf("-d DSN (pgbench 17's --dbname): exit %d stderr %q", r.code, r.stderr)
	}
	r = run(t, "bench", "-n", "-S", "-t", "3", "--dbname="+dsn, "--debug")
	if r.code != 0 || !strings.Contains(r.stderr, "pglab: debug: client 0 sending SELECT abalance") {
		t.Errorf("--debug: exit %d stderr %q", r.code, r.stderr)
	}
}
