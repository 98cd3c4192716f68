package script

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The values in this file were recorded from pgbench 15.18 (Debian) against
// a local PostgreSQL 15 server; the script language, the random generator
// and the seeding are the same in pgbench 17 and 18.

const refScriptA = `\set u random(1, 1000000)
\set e random_exponential(1, 1000000, 3.5)
\set g random_gaussian(1, 1000000, 2.5)
\set z random_zipfian(1, 1000000, 1.07)
\set h hash(:u)
\set p permute(:u, 1000000)
\set d random(1, 1000000) / 7.0
INSERT INTO ref(client, script, u, e, g, z, h, p, ds, d, x) VALUES (:client_id, 'A', :u, :e, :g, :z, :h, :p, :default_seed, :d, ':d');
`

const refScriptB = `\set u random(-5000, 5000)
\set z random_zipfian(1, 100, 2.5)
INSERT INTO ref(client, script, u, z) VALUES (:client_id, 'B', :u, :z);
`

// refRow is "client|script|u|e|g|z|h|p|ds|d" as psql printed the table
// filled by pgbench, in the order each client inserted its rows.
func refSQL(row string) string {
	f := strings.Split(row, "|")
	if f[1] == "B" {
		return fmt.Sprintf("INSERT INTO ref(client, script, u, z) VALUES (%s, 'B', %s, %s);", f[0], f[2], f[5])
	}
	return fmt.Sprintf("INSERT INTO ref(client, script, u, e, g, z, h, p, ds, d, x) VALUES (%s, 'A', %s, %s, %s, %s, %s, %s, %s, %s, '%s');",
		f[0], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[9])
}

// runClients runs nclients clients, each in its own thread when threads
// equals nclients (so the script choice sequence is deterministic), and
// returns each client's SQL in order.
func runClients(t *testing.T, seed uint64, nclients, nthreads, ntx int, weights []int, defines []string, texts ...string) [][]string {
	t.Helper()
	syms := NewSymbols()
	var scripts []*Script
	for i, text := range texts {
		s, err := Parse(fmt.Sprintf("s%d.sql", i), text, syms)
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, s)
	}
	base := NewVariables(syms)
	for _, d := range defines {
		name, value, err := ParseDefine(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := base.DefineString("option", name, value); err != nil {
			t.Fatal(err)
		}
	}
	rr := DeriveRunRandom(seed, nclients, nthreads, base.IsDefined("default_seed"))
	var total int64
	for _, w := range weights {
		total += int64(w)
	}
	out := make([][]string, nclients)
	for c := 0; c < nclients; c++ {
		vars := base.Clone()
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(vars.DefineInt("startup", "scale", 1))
		must(vars.DefineInt("startup", "client_id", int64(c)))
		if rr.HasDefaultSeed {
			must(vars.DefineInt("startup", "default_seed", rr.DefaultSeed))
		}
		must(vars.DefineInt("startup", "random_seed", int64(seed)))
		rng := rr.Clients[c]
		env := &Env{Vars: vars, Rand: &rng, Debug: &bytes.Buffer{}}
		choose := &rr.Threads[c*nthreads/nclients].Choose
		for i := 0; i < ntx; i++ {
			k := ChooseScript(choose, weights, total)
			env.Script = k
			sqls, err := runOnce(scripts[k], env)
			if err != nil {
				t.Fatal(err)
			}
			out[c] = append(out[c], sqls...)
		}
	}
	return out
}

func checkClients(t *testing.T, got [][]string, rows []string) {
	t.Helper()
	var want [][]string
	for _, r := range rows {
		c := int(r[0] - '0')
		for len(want) <= c {
			want = append(want, nil)
		}
		want[c] = append(want[c], refSQL(r))
	}
	if len(got) != len(want) {
		t.Fatalf("got %d clients, want %d", len(got), len(want))
	}
	for c := range want {
		if len(got[c]) != len(want[c]) {
			t.Errorf("client %d: got %d statements, want %d", c, len(got[c]), len(want[c]))
			continue
		}
		for i := range want[c] {
			if got[c][i] != want[c][i] {
				t.Errorf("client %d statement %d:\n got %s\nwant %s", c, i, got[c][i], want[c][i])
			}
		}
	}
}

// pgbench -n -c 3 -j 3 -t 6 --random-seed=12345 -f a.sql@2 -f b.sql@1
func TestPgbenchSeededWeightedScripts(t *testing.T) {
	rows := []string{
		"0|A|453054|179312|488825|3504|2174081708550350103|333344|-7414508434323253986|43924.1428571429",
		"0|B|-709|||2||||",
		"0|A|663887|93331|400140|20|-6755276113651860536|71504|-7414508434323253986|120368.714285714",
		"0|A|701434|80106|460652|190|5000158529919453009|936606|-7414508434323253986|113365.714285714",
		"0|A|712371|101420|223360|11|6421091630808591077|771435|-7414508434323253986|98997.7142857143",
		"0|A|508586|86748|507518|3|-8727049527968432262|379863|-7414508434323253986|50435.2857142857",
		"1|B|-504|||1||||",
		"1|B|-1378|||1||||",
		"1|A|215083|57009|154938|206|5721561705172626742|785637|-7414508434323253986|116073.714285714",
		"1|A|747544|35635|504925|67861|2250135596873568409|811790|-7414508434323253986|141962.142857143",
		"1|B|1183|||1||||",
		"1|B|2526|||1||||",
		"2|B|-1432|||1||||",
		"2|B|4825|||2||||",
		"2|B|5|||1||||",
		"2|A|521427|551242|487174|102|6195186287595331274|52386|-7414508434323253986|141530.285714286",
		"2|B|-4221|||1||||",
		"2|A|956216|106207|471480|5100|4197308904318691616|614140|-7414508434323253986|112846.571428571",
	}
	got := runClients(t, 12345, 3, 3, 6, []int{2, 1}, nil, refScriptA, refScriptB)
	checkClients(t, got, rows)
}

// pgbench -n -c 3 -j 1 -t 3 --random-seed=987654321 -Ddefault_seed=7 -f a.sql
func TestPgbenchSeededClientsDefaultSeed(t *testing.T) {
	rows := []string{
		"0|A|424142|201150|668311|1|3436503316400647210|775123|7|43089",
		"0|A|450985|842231|297279|410315|-1179962444351867809|526917|7|110085",
		"0|A|15148|354753|410293|2114|3427402082042068632|108958|7|142505.142857143",
		"1|A|141205|223628|645299|25470|-3607066706643049181|514541|7|139414.857142857",
		"1|A|234934|159817|586690|10|-9126516998252681015|258510|7|105839.857142857",
		"1|A|775885|78361|845998|1155|3558205485359632211|403198|7|136017.142857143",
		"2|A|238593|570713|255019|64311|-7900403877658412507|837545|7|140947.571428571",
		"2|A|536371|33637|352922|6672|7639641041953593623|881953|7|120848.571428571",
		"2|A|502044|901912|799996|35|-7088901844250038434|544660|7|6535.42857142857",
	}
	got := runClients(t, 987654321, 3, 1, 3, []int{1}, []string{"default_seed=7"}, refScriptA)
	checkClients(t, got, rows)
}

// pgbench -n -t 1 -Dx0=0x10 '-Dx1= 5' -Dx2=1e10 -Dx3=YES -Dx4=nO -Dx5=Of
// -Dx6=NuLL -Dx7=inf -Dx8=-nan -Dx9=.5e1, stderr.
func TestPgbenchDebugValues(t *testing.T) {
	exprs := []string{
		"1.0/0", "-1.0/0", "0.0/0", "sqrt(-1.0)", "ln(-1.0)", "ln(0.0)", "0.0 * -1", "int(-0.5)",
		"int(2.5)", "int(3.5)", "1e308 * 10", "pow(-8, 1.0/3)", "exp(1000)", "5 % -3", "-5 % 3",
		"-7 / 2", "1 << 64", "1 << -1", "-8 >> 1", "~5", "abs(-9223372036854775807 - 1)", "1.0/3",
		"2.0/3*1e20", "123456789.123456789", "1e-5", "0.0001", "greatest(1, 2.5, 0)", "least(3, 2, 7)",
		"debug(null) is null", ":x0", ":x1", ":x2", ":x3", ":x4", ":x5", ":x6", ":x7", ":x8", ":x9",
		"mod(-226, 19)", "hash_fnv1a(-1, 0)", "hash_murmur2(-1, 0)", "hash_fnv1a(1234567890123, -5)",
		"hash_murmur2(1234567890123, -5)", "permute(12345, 1000003, 42)", "permute(-1, 10, 0)", "pi()",
		"exp(1.0)", "abs(TRUE)", "abs(FALSE)", "abs(1 = 1)", "random_gaussian(0, 10, 0.0/0)",
		"random_exponential(0, 10, 0.0/0)",
	}
	want := `double Infinity
double -Infinity
double NaN
double NaN
double NaN
double -Infinity
double -0
int 0
int 2
int 4
double Infinity
double NaN
double Infinity
int 2
int -2
int -3
int 1
int -9223372036854775808
int -4
int -6
int -9223372036854775808
double 0.333333333333333
double 6.66666666666667e+19
double 123456789.123457
double 1e-05
double 0.0001
double 2.5
int 2
null
boolean true
double 16
int 5
double 10000000000
boolean true
boolean false
boolean false
null
double Infinity
double NaN
double 5
int -17
int -8289690350564177859
int 4219408603045787357
int -2477512558113999027
int 6184401339448856079
int 646311
int 8
double 3.14159265358979
double 2.71828182845905
double 4.94065645841247e-324
double 0
double 4.94065645841247e-324
int -9223372036854775808
int -9223372036854775808
`
	var text strings.Builder
	for _, e := range exprs {
		fmt.Fprintf(&text, "\\set a debug(%s)\n", e)
	}
	s, err := Parse("c.sql", text.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	env, out := newClient(t, s, 1, "x0=0x10", "x1= 5", "x2=1e10", "x3=YES", "x4=nO", "x5=Of", "x6=NuLL",
		"x7=inf", "x8=-nan", "x9=.5e1")
	if _, err := runOnce(s, env); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if _, rest, ok := strings.Cut(line, "): "); ok {
			got.WriteString(rest)
		}
	}
	if got.String() != want {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(want, "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d: got %q, want %q", i+1, g, w)
			}
		}
	}
}

// Run-time errors of "\set i <expr>" as pgbench 15 reports them, with
// -Dfoo=bla -Dbadtrue=trueXXX -Dmaxint=9223372036854775807
// -Dminint=-9223372036854775808 -Dbig=9223372036854775808 -Dhuge=1e400
// '-Dspaces=  ' -Dplus=+ and a variable "empty" set to the empty string by \gset.
func TestPgbenchRuntimeErrors(t *testing.T) {
	cases := []struct{ expr, msg string }{
		{"int(1E32)", "double to int overflow for 100000000000000005366162204393472.000000"},
		{"int(0.0/0)", "double to int overflow for NaN"},
		{"int(-1.0/0)", "double to int overflow for -Infinity"},
		{"random_gaussian(0, 10, 1.0)", "gaussian parameter must be at least 2.000000 (not 1.000000)"},
		{"random_gaussian(1, 10, -1.0/0)", "gaussian parameter must be at least 2.000000 (not -Infinity)"},
		{"random_exponential(0, 10, 0.0)", "exponential parameter must be greater than zero (not 0.000000)"},
		{"random_exponential(1, 10, -1.0/0)", "exponential parameter must be greater than zero (not -Infinity)"},
		{"random_zipfian(0, 10, 1)", "zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
		{"random_zipfian(0, 10, 1000000)", "zipfian parameter must be in range [1.001, 1000] (not 1000000.000000)"},
		{"random(5,3)", "empty range given to random"},
		{"random(:minint, :maxint)", "random range is too large"},
		{":minint / -1", "bigint div out of range"},
		{"(1<<62) + (1<<62)", "bigint add out of range"},
		{"2 * (1<<62)", "bigint mul out of range"},
		{"0 - (1<<62) - (1<<62) - (1<<62)", "bigint sub out of range"},
		{"1/0", "division by zero"},
		{"1 % 0", "division by zero"},
		{"permute(0, 0)", "permute size parameter must be greater than zero"},
		{":foo + 1", `malformed variable "foo" value: "bla"`},
		{":badtrue or true", `malformed variable "badtrue" value: "trueXXX"`},
		{":nosuch", `undefined variable "nosuch"`},
		{"NOT 0.0", "cannot coerce double to boolean"},
		{"TRUE + 2", "cannot coerce boolean to int"},
		{"ln(TRUE)", "cannot coerce boolean to double"},
		{"random(FALSE, TRUE)", "cannot coerce boolean to int"},
		{":empty + 1", ""},
		{":big + 1", `value "9223372036854775808" is out of range for type bigint`},
		{":huge + 1", `malformed variable "huge" value: "1e400"`},
		{"least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "too many function arguments, maximum is 16"},
		{":spaces + 1", `invalid input syntax for type bigint: "  "`},
		{":plus + 1", `invalid input syntax for type bigint: "+"`},
		{"1 AND TRUE", "cannot coerce int to boolean"},
	}
	for _, c := range cases {
		s, err := Parse("e.sql", "\\set i "+c.expr+"\n", nil)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		env, _ := newClient(t, s, 1, "foo=bla", "badtrue=trueXXX", "maxint=9223372036854775807",
			"minint=-9223372036854775808", "big=9223372036854775808", "huge=1e400", "spaces=  ", "plus=+")
		if slot, ok := s.Symbols.Lookup("empty"); ok {
			env.Vars.SetString(slot, "")
		}
		err = s.Commands[0].ExecSet(env)
		var ee *ExecError
		if !asExecError(err, &ee) {
			t.Errorf("%s: error %v, want an *ExecError", c.expr, err)
			continue
		}
		if ee.Detail != c.msg {
			t.Errorf("%s: detail %q, want %q", c.expr, ee.Detail, c.msg)
		}
		if got, want := ee.AbortMessage(0, 1, 0), "client 0 aborted in command 1 (set) of script 0; evaluation of meta-command failed"; got != want {
			t.Errorf("%s: abort line %q, want %q", c.expr, got, want)
		}
	}
}

func asExecError(err error, target **ExecError) bool {
	e, ok := err.(*ExecError)
	if ok {
		*target = e
	}
	return ok
}

// pgbench -n -t 2 --random-seed=2718281828 with extreme ranges and
// parameters, stderr.
func TestPgbenchSeededExtremes(t *testing.T) {
	text := `\set a debug(random(0, 9223372036854775806))
\set a debug(random(-4611686018427387904, 4611686018427387902))
\set a debug(random_exponential(1, 9223372036854775806, 0.001))
\set a debug(random_exponential(1, 10, 1000))
\set a debug(random_gaussian(-1000000000000, 1000000000000, 2.0))
\set a debug(random_gaussian(1, 10, 1e9))
\set a debug(random_zipfian(1, 9223372036854775806, 1.001))
\set a debug(random_zipfian(1, 1000000000, 1000))
\set a debug(random_zipfian(5, 5, 2))
\set a debug(random(7, 7))
\set a debug(permute(123456789, 9223372036854775807, -1))
\set a debug(hash(-9223372036854775808, 9223372036854775807))
\set a debug(random(1, 2) + random(1, 2) * 10 + random(1, 2) * 100 + random(1, 2) * 1000)
`
	want := []int64{
		7533246363613585482, -1495074032002982952, 899733178144225025, 1, 293789804293, 5, 4661094210377943,
		1, 5, 7, 8807841387574324298, 8800816955714355153, 2121,
		8346562182706102037, -1221832347857009662, 265461237432730785, 1, -16972342068, 6, 10842912,
		1, 5, 7, 8807841387574324298, 8800816955714355153, 2121,
	}
	s, err := Parse("x.sql", text, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, out := newClient(t, s, 2718281828)
	for tx := 0; tx < 2; tx++ {
		if _, err := runOnce(s, env); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var v int64
		if _, err := fmt.Sscanf(line[strings.Index(line, "int "):], "int %d", &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, v)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// pgbench -n -t 2000 --random-seed=31337 with every distribution, some with
// extreme parameters, recorded in testdata (one line per transaction). All
// values must be equal, except that the exponential draw over almost the
// whole int64 range (column f) may differ by one ULP of the double it is
// computed as: at that magnitude a glibc result within its 0.52 ULP but not
// correctly rounded shows (once in these 2000 rows).
func TestPgbenchSeededDistributionsAtVolume(t *testing.T) {
	text := `\set a random_exponential(1, 1000000, 2.5)
\set b random_gaussian(1, 1000000, 2.5)
\set c random_zipfian(1, 1000000, 1.07)
\set d random_zipfian(1, 9223372036854775806, 1.001)
\set e random_gaussian(-1000000000000000, 1000000000000000, 2.0)
\set f random_exponential(1, 9223372036854775806, 0.01)
\set g random_zipfian(1, 100, 3.5)
\set h random(1, 9223372036854775806)
SELECT :a, :b, :c, :d, :e, :f, :g, :h;
`
	want, err := os.ReadFile("testdata/pgbench15_distributions_seed31337.txt")
	if err != nil {
		t.Fatal(err)
	}
	wantRows := strings.Split(strings.TrimSpace(string(want)), "\n")
	s, err := Parse("v.sql", text, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := newClient(t, s, 31337)
	ulpDiffs := 0
	for tx, row := range wantRows {
		sqls, err := runOnce(s, env)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Fields(strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(sqls[0], "SELECT "), ";"), ",", ""))
		exp := strings.Fields(row)
		for col := range exp {
			if got[col] == exp[col] {
				continue
			}
			g, _ := strconv.ParseInt(got[col], 10, 64)
			w, _ := strconv.ParseInt(exp[col], 10, 64)
			if col == 5 && math.Abs(float64(g)-float64(w)) <= ulp(float64(w)) {
				ulpDiffs++
				continue
			}
			t.Errorf("row %d column %c: %s, pgbench %s", tx+1, 'a'+col, got[col], exp[col])
		}
	}
	if len(wantRows) != 2000 || ulpDiffs > 1 {
		t.Errorf("%d rows, %d one-ULP differences", len(wantRows), ulpDiffs)
	}
}

func ulp(f float64) float64 { return math.Nextafter(math.Abs(f), math.Inf(1)) - math.Abs(f) }
