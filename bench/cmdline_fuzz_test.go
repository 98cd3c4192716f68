package bench

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzCommandLine feeds the pgbench command-line parser (getopt_long, C's
// atoi/atof, pgbench's integer, init-step, weight, protocol and seed
// parsers, the cross-option checks) with fuzzed command lines: no panic;
// either a result whose Config validates, or a *UsageError whose text is
// pgbench-style lines.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"-c 10 -j 2 -T 60 -P 5 -M prepared mydb", "-i -s 100 -I dtGvpf --partitions=10 --partition-method=hash",
		"-nS -c4 -t1000", "--rate=100 -L 5 --max-tries=0 -T 10", "-b select-only@2 -D a=1",
		"--random-seed=rand --sampling-rate=0.01 -l --log-prefix=p", "-- -c 1", "--cl 3", "--pro 1", "-c", "--time",
		"-c 99999999999999999999", "-c -1", "-R 1e400", "-L nan", "-I xyz", "--partition-method=list", "-b tpcb@",
		"--random-seed=0x", "-M carrier", "--json --target=a=b", "-?", "--max-tries=-5", "-T 0", "--s", "--st x",
	} {
		f.Add(s)
	}
	extra := []ExtraOption{{Long: "json", Set: func(string) error { return nil }},
		{Long: "store", Arg: true, Set: func(string) error { return nil }}}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 || strings.Contains(line, "-f") || strings.Contains(line, "--fi") {
			return // files are not the parser's concern here
		}
		env := ParseEnv{Stderr: io.Discard, Getenv: func(string) string { return "" }, Extra: extra}
		cl, err := ParseCommandLine(strings.Fields(line), env)
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("%q: error %T %v is not a UsageError", line, err, err)
			}
			if !strings.HasPrefix(ue.Text, "pglab") || !strings.HasSuffix(ue.Text, "\n") {
				t.Fatalf("%q: error text %q", line, ue.Text)
			}
			return
		}
		if cl.Action == ActionRun {
			if err := cl.Config.Validate(); err != nil {
				t.Fatalf("%q: parsed config does not validate: %v", line, err)
			}
			if cl.Config.Clients < 1 || cl.Config.Threads < 1 || len(cl.Config.Scripts) == 0 {
				t.Fatalf("%q: config %+v", line, cl.Config)
			}
		}
	})
}
