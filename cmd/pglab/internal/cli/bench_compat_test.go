package cli_test

// The compatibility suite: the same command lines and scripts run through
// pglab bench and the real pgbench (Debian's pgbench 15 on this machine)
// against the same server, comparing exit codes, error messages, summary
// lines, values computed by scripts (debug() output, \gset results) and the
// rows the runs change. pgbench 15 differs from 17/18 in a few places (-d is
// --debug there, no \syncpipeline or --exit-on-abort, a different per-script
// block and "NaN%" when nothing ran), so the suite avoids those.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// pgbenchPath finds Debian's pgbench (installed by .ci/run).
func pgbenchPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/lib/postgresql/15/bin/pgbench", "/usr/lib/postgresql/17/bin/pgbench"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench not found: install postgresql-client-15 (as .ci/run does)")
	}
	return p
}

// runPgbench runs the real pgbench and returns its result with its
// messages spelled as pglab spells them ("pglab: error: ..."), so that the
// two can be compared line for line.
func runPgbench(t *testing.T, args ...string) result {
	t.Helper()
	path := pgbenchPath(t)
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=2")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run pgbench: %v", err)
	}
	s := errb.String()
	s = strings.ReplaceAll(s, path+": ", "pglab bench: ")
	s = strings.ReplaceAll(s, `Try "pgbench --help"`, `Try "pglab bench --help"`)
	s = strings.ReplaceAll(s, "pgbench: ", "pglab: ")
	return result{code: code, stdout: out.String(), stderr: s}
}

func TestCompatOptionErrors(t *testing.T) {
	dir := pgtest.TempDir(t)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badExpr := write("bad_expr.sql", "\\set x 1 +\n")
	badMeta := write("bad_meta.sql", "select 1;\n\\nosuch 1\n")
	badIf := write("bad_if.sql", "\\if 1\n\\else\n\\else\n\\endif\n")
	badSleep := write("bad_sleep.sql", "\\sleep 1 2 3\n")
	badFunc := write("bad_func.sql", "\\set x nosuch(1)\n")
	empty := write("empty.sql", "\n-- only a comment\n")
	cases := [][]string{
		{"-c", "x"}, {"-c", "0"}, {"-c", "3x"}, {"-c", " 7z"}, {"-j", "-1"}, {"-t", "0"}, {"-T", "0"},
		{"-P", "0"}, {"-s", "0"}, {"-s", "abc"}, {"-M", "fast"}, {"-R", "0"}, {"-R", "x"}, {"-L", "0"},
		{"-l", "--sampling-rate", "0"}, {"-l", "--sampling-rate", "1.5"}, {"--aggregate-interval", "0"},
		{"--max-tries", "-5"}, {"-b", "nosuch"}, {"-b", "s"}, {"-b", "tpcb@x"}, {"-b", "tpcb@-1"},
		{"-b", "tpcb@0"}, {"-b", "si@0", "-b", "se@0"}, {"-D", "foo"}, {"-D", "=x"}, {"-D", "x="},
		{"-f", "/nonexistent.sql"}, {"-t", "10", "-T", "10"}, {"--sampling-rate", "0.5"},
		{"-l", "--sampling-rate", "0.5", "--aggregate-interval", "1"}, {"--aggregate-interval", "1"},
		{"--log-prefix", "x"}, {"-l", "-T", "2", "--aggregate-interval", "3"},
		{"-l", "-T", "3", "--aggregate-interval", "2"}, {"--progress-timestamp"}, {"--max-tries", "0"},
		{"-i", "-S"}, {"-i", "-c", "2"}, {"-F", "50"}, {"-I", "dtg"}, {"--foreign-keys"},
		{"-i", "-F", "5"}, {"-i", "-I", ""}, {"-i", "-I", "dtx"}, {"-i", "--partition-method", "list"},
		{"-i", "--partition-method", "hash"}, {"-i", "--partitions", "-1"},
		{"--random-seed", "soon"}, {"-z"}, {"--frobnicate"}, {"--no-vacuum=1"}, {"--s"},
		{"-S", "db1", "db2"}, {"--show-script", "nosuch"}, {"--show-script=t"}, {"-b", "list"},
		{"-f", badExpr}, {"-f", badMeta}, {"-f", badIf}, {"-f", badSleep}, {"-f", badFunc}, {"-f", empty},
		{"-f", badExpr + "@2"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append(append([]string{}, args...), "-h", "127.0.0.1", "-p", "1")
			want := runPgbench(t, full...)
			got := run(t, append([]string{"bench"}, full...)...)
			if got.code != want.code {
				t.Errorf("exit %d, pgbench %d", got.code, want.code)
			}
			if got.stderr != want.stderr {
				t.Errorf("stderr differs\npglab:\n%s\npgbench:\n%s", got.stderr, want.stderr)
			}
			if got.stdout != want.stdout {
				t.Errorf("stdout differs\npglab:\n%s\npgbench:\n%s", got.stdout, want.stdout)
			}
		})
	}
}

func TestCompatConnectionErrors(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	port := itoa(inst.Port())
	cases := [][]string{
		{"-n", "-S", "-t", "1", "-h", "127.0.0.1", "-p", "1", "x"},
		{"-n", "-S", "-t", "1", "-h", "/nonexistent-socket-dir", "x"},
		{"-n", "-S", "-t", "1", "-h", "127.0.0.1", "-p", port, "-U", inst.User(), "dbname=postgres password=wrong"},
		{"-n", "-S", "-t", "1", "-h", "127.0.0.1", "-p", port, "-U", "no_such_role_x", "dbname=postgres password=x"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want := runPgbench(t, args...)
			got := run(t, append([]string{"bench"}, args...)...)
			if got.code != want.code || got.stderr != want.stderr {
				t.Errorf("exit %d, pgbench %d\npglab:\n%s\npgbench:\n%s", got.code, want.code, got.stderr, want.stderr)
			}
		})
	}
}

// comparedSummary are the summary lines that must be the same for runs of
// the same transactions (times and rates differ).
var comparedSummary = []string{
	"transaction type:", "scaling factor:", "partition method:", "partitions:", "query mode:",
	"number of clients:", "number of threads:", "maximum number of tries:",
	"number of transactions per client:", "number of transactions actually processed:",
	"number of failed transactions:", "duration:",
}

func summaryShape(out string) []string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		for _, p := range comparedSummary {
			if strings.HasPrefix(l, p) && !strings.Contains(l, "NaN") {
				keep = append(keep, l)
			}
		}
		// the lines whose numbers vary must still be there
		for _, p := range []string{"latency average = ", "latency stddev = ", "initial connection time = ", "tps = ", "rate limit schedule lag: "} {
			if strings.HasPrefix(l, p) {
				keep = append(keep, p+"…")
			}
		}
	}
	return keep
}

func sortedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, "starting vacuum") || strings.HasPrefix(l, "pglab: setting random seed") {
			continue
		}
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

func TestCompatScripts(t *testing.T) {
	inst := pgtest.Shared(t, pgtest.DefaultVersion())
	dsn := pgtest.CreateDB(t, inst)
	dir := pgtest.TempDir(t)
	conn := pgtest.Connect(t, dsn)
	for _, q := range []string{
		"create table kv(k int primary key, v int)",
		"insert into kv select g, 0 from generate_series(1, 10) g",
		"create table rows_pglab(client int, n int, v bigint, d double precision, s text)",
		"create table rows_pgbench(client int, n int, v bigint, d double precision, s text)",
	} {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	scripts := map[string]string{
		"expressions.sql": `\set a random(1, 1000)
\set b random_exponential(1, 100, 2.5)
\set c random_gaussian(1, 100, 4)
\set d random_zipfian(1, 100, 1.5)
\set h hash(:a, 5432) + hash_fnv1a(:a) + permute(:a, 1000, 7)
\set x debug(:a) + debug(:b) + debug(:c) + debug(:d) + debug(:h)
\set f debug(sqrt(:a) * pi() / 3.0)
\set g debug(greatest(:a, :b, 7) - least(:c, :d) * abs(-3) % 5)
\set i debug(case when :a > 500 then int(:a / 2.5) else double(:a) end)
\set j debug(:a > 500 and :b < 50 or not (:c = 10))
\set k debug(:a << 3 | :b & 7 # 2)
`,
		"gset.sql": `\set a random(1, 10)
select :a as x, :a * 2 as y, 'text' || :a as z \gset r_
\set s debug(:r_x + :r_y)
select 1 as one \; select 2 as two, 3 as three \aset
\set t debug(:one + :two + :three)
`,
		"branches.sql": `\set a random(0, 9)
\if :a < 3
\set r debug(1)
\elif :a < 6
\set r debug(2)
\if :a = 4
\set q debug(40)
\else
\set q debug(41)
\endif
\else
\set r debug(3)
\endif
`,
		"rows.sql": `\set v random(-1000000000, 1000000000)
\set d random(1, 1000) / 7.0
insert into rows_:tag values (:client_id, :r, :v, :d, 'c' || :client_id);
\set r :r + 1
update kv set v = v + :v % 100 where k = :client_id + 1;
`,
		"shell.sql": `\setshell n echo 17
\set m debug(:n * 2)
\shell true
\sleep 2 ms
\sleep :n us
`,
		"errors_div.sql": `\set a random(1, 3)
\set b debug(:a)
\set c 10 / (:a - :a)
`,
		"errors_sql.sql": `select 1;
select no_such_column from kv;
`,
		"errors_gset.sql": `select k from kv \gset
`,
		"open_tx.sql": `begin;
select 1;
`,
		"overflow.sql": `\set a 9223372036854775807
\set b :a + 1
`,
		"undefined.sql": `\set a :nosuch + 1
`,
		"setshell_bad.sql": `\setshell n echo nope
`,
	}
	for name, text := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type runCase struct {
		script string
		args   []string
	}
	var cases []runCase
	for _, s := range []string{"expressions.sql", "gset.sql", "branches.sql", "shell.sql", "errors_div.sql",
		"errors_sql.sql", "errors_gset.sql", "open_tx.sql", "overflow.sql", "undefined.sql", "setshell_bad.sql"} {
		for _, m := range []string{"simple", "extended", "prepared"} {
			cases = append(cases, runCase{s, []string{"-M", m}})
		}
	}
	cases = append(cases,
		runCase{"expressions.sql", []string{"-c", "3", "-j", "1", "-t", "7"}},
		runCase{"branches.sql", []string{"-c", "2", "-t", "20", "-D", "default_seed=11"}},
		runCase{"expressions.sql", []string{"-D", "a=5", "-D", "scale=3", "-t", "2", "-r"}},
	)
	for _, tc := range cases {
		t.Run(tc.script+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"-n", "--random-seed=4242", "-t", "4", "-f", filepath.Join(dir, tc.script)}, tc.args...)
			args = append(args, dsn)
			want := runPgbench(t, args...)
			got := run(t, append([]string{"bench"}, args...)...)
			if got.code != want.code {
				t.Errorf("exit %d, pgbench %d\npglab stderr:\n%s\npgbench stderr:\n%s", got.code, want.code, got.stderr, want.stderr)
			}
			if g, w := strings.Join(sortedLines(got.stderr), "\n"), strings.Join(sortedLines(want.stderr), "\n"); g != w {
				t.Errorf("stderr differs\npglab:\n%s\npgbench:\n%s", g, w)
			}
			if g, w := strings.Join(summaryShape(got.stdout), "\n"), strings.Join(summaryShape(want.stdout), "\n"); g != w {
				t.Errorf("summary differs\npglab:\n%s\npgbench:\n%s", g, w)
			}
		})
	}

	// Rows written by the same seeded script must be the same.
	rowsScript := filepath.Join(dir, "rows.sql")
	for _, tag := range []string{"pglab", "pgbench"} {
		args := []string{"-n", "--random-seed=99", "-c", "3", "-j", "1", "-t", "5", "-D", "tag=" + tag, "-D", "r=0", "-M", "simple", "-f", rowsScript, dsn}
		var r result
		if tag == "pglab" {
			r = run(t, append([]string{"bench"}, args...)...)
		} else {
			r = runPgbench(t, args...)
		}
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", tag, r.code, r.stderr)
		}
	}
	q := func(tbl string) string {
		return pgtest.QueryString(t, conn, "select string_agg(format('%s/%s/%s/%s/%s', client, n, v, d, s), ',' order by client, n) from "+tbl)
	}
	if a, b := q("rows_pglab"), q("rows_pgbench"); a != b || a == "" {
		t.Errorf("rows differ:\npglab   %s\npgbench %s", a, b)
	}
}

var (
	numberRe = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)
	spacesRe = regexp.MustCompile(` {2,}`)
)

// shapes returns the distinct lines of s with every number replaced by N,
// leaving out lines pgbench 15 and 17/18 print differently and pglab's own
// additions.
func shapes(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, "pgbench (") || strings.HasPrefix(l, "latency percentiles:") ||
			strings.HasPrefix(l, "pglab: setting random seed") {
			continue
		}
		l = numberRe.ReplaceAllString(l, "N")
		// pgbench 15 separates -r columns by two spaces, 18 by one
		l = spacesRe.ReplaceAllString(l, " ")
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// TestCompatOutputShapes runs the builtins with the options that change
// pgbench's output (-P, -R, -L, -C, --max-tries, --failures-detailed, -l,
// --aggregate-interval) through both programs and compares the shape of
// every line of stdout, stderr and the logs.
func TestCompatOutputShapes(t *testing.T) {
	dsn := benchDB(t, "1")
	dir := pgtest.TempDir(t)
	cases := [][]string{
		{"-S", "-c", "2", "-T", "2", "-P", "1"},
		{"-S", "-c", "2", "-j", "2", "-T", "2", "-P", "1", "-R", "200", "-L", "20"},
		{"-N", "-c", "2", "-t", "20", "--max-tries", "3", "--failures-detailed"},
		{"-S", "-C", "-c", "2", "-t", "10"},
		{"-S", "-M", "prepared", "-c", "3", "-j", "3", "-t", "10", "-R", "500", "-s", "7"},
		{"-b", "se@3", "-b", "si@1", "-c", "2", "-t", "30", "--random-seed", "7"},
		{"-S", "-c", "2", "-t", "10", "-l"},
		{"-S", "-c", "2", "-t", "10", "-l", "-R", "300", "--max-tries", "2"},
		{"-S", "-c", "2", "-T", "2", "-l", "--aggregate-interval", "1"},
		{"-v", "-S", "-t", "5"},
		{"-S", "-c", "2", "-T", "2", "-P", "1", "--progress-timestamp"},
		{"-S", "-c", "2", "-t", "50", "-l", "--sampling-rate", "0.5"},
		{"-S", "-M", "extended", "-c", "2", "-t", "10", "-r"},
		{"-b", "tpcb@2", "-b", "se@1", "-c", "2", "-t", "10", "-r", "--max-tries", "2"},
	}
	for i, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var logs [2]string
			var res [2]result
			for k, prog := range []string{"pglab", "pgbench"} {
				prefix := filepath.Join(dir, prog+itoa(i))
				full := append(append([]string{}, args...), "--log-prefix", prefix, dsn)
				if !strings.Contains(strings.Join(args, " "), "-l") {
					full = append(append([]string{}, args...), dsn)
				}
				if prog == "pglab" {
					res[k] = run(t, append([]string{"bench"}, full...)...)
				} else {
					res[k] = runPgbench(t, full...)
				}
				files, _ := filepath.Glob(prefix + ".*")
				for _, f := range files {
					data, _ := os.ReadFile(f)
					logs[k] += string(data)
				}
			}
			got, want := res[0], res[1]
			if got.code != want.code {
				t.Errorf("exit %d, pgbench %d\n%s", got.code, want.code, got.stderr)
			}
			// pgbench 15 prints the per-script block on one line ("N transactions
			// (N% of total, tps = N)"); 17/18 split it in two.
			wantOut := strings.ReplaceAll(strings.Join(shapes(want.stdout), "\n"),
				" - N transactions (N% of total, tps = N)", " - N transactions (N% of total)\n - number of transactions actually processed: N (tps = N)")
			wantLines := strings.Split(wantOut, "\n")
			sort.Strings(wantLines)
			if g, w := strings.Join(shapes(got.stdout), "\n"), strings.Join(wantLines, "\n"); g != w {
				t.Errorf("stdout shapes differ\npglab:\n%s\npgbench:\n%s", g, w)
			}
			if g, w := strings.Join(shapes(got.stderr), "\n"), strings.Join(shapes(want.stderr), "\n"); g != w {
				t.Errorf("stderr shapes differ\npglab:\n%s\npgbench:\n%s", g, w)
			}
			if g, w := strings.Join(shapes(logs[0]), "\n"), strings.Join(shapes(logs[1]), "\n"); g != w {
				t.Errorf("log shapes differ\npglab:\n%s\npgbench:\n%s", g, w)
			}
		})
	}
}
