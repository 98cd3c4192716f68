package cli

import (
	"strings"
	"testing"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/initdata"
	"github.com/pglab/pglab/bench/script"
)

// FuzzBenchOptions feeds pglab bench's option parsing (getopt_long, C's
// atoi/atof, pgbench's integer, init-step, weight, protocol and seed
// parsers) with fuzzed command lines: no panic, every parsed option is one
// of the table's, and an option that takes an argument got one.
func FuzzBenchOptions(f *testing.F) {
	for _, s := range []string{
		"-c 10 -j 2 -T 60 -P 5 -M prepared mydb", "-i -s 100 -I dtGvpf --partitions=10 --partition-method=hash",
		"-nS -c4 -t1000", "--rate=100 -L 5 --max-tries=0 -T 10", "-f x.sql@3 -b select-only@2 -D a=1",
		"--random-seed=rand --sampling-rate=0.01 -l --log-prefix=p", "-- -c 1", "--cl 3", "--pro 1", "-c", "--time",
		"-c 99999999999999999999", "-c -1", "-R 1e400", "-L nan", "-I xyz", "--partition-method=list", "-b tpcb@",
		"--random-seed=0x", "-M carrier", "--json --target=a=b", "-?", "--max-tries=-5", "-T 0",
	} {
		f.Add(s)
	}
	ids := map[string]bool{}
	for _, o := range benchOpts {
		ids[o.id] = true
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 {
			return
		}
		args := strings.Fields(line)
		opts, _, err := getoptLong(args)
		if err != nil {
			if !strings.Contains(err.Error(), "option") {
				t.Errorf("%q: getopt error %q names no option", line, err)
			}
			return
		}
		for _, o := range opts {
			if !ids[o.id] {
				t.Fatalf("%q: unknown option id %q", line, o.id)
			}
			// The value parsers each option uses.
			cAtoi(o.arg)
			cAtof(o.arg)
			initdata.ParseInt(o.arg, "-c/--clients", 1, 1<<31-1)
			switch o.id {
			case "I":
				initdata.ParseSteps(o.arg)
			case "partition-method":
				initdata.ParsePartitionMethod(o.arg)
			case "b", "f":
				script.SplitWeight(o.arg)
			case "M":
				bench.ParseQueryMode(o.arg)
			case "random-seed":
				script.ParseRandomSeed(o.arg)
			case "D":
				if name, val, ok := strings.Cut(o.arg, "="); ok && name != "" && val != "" {
					script.NewVariables(script.NewSymbols()).DefineString("option", name, val)
				}
			}
		}
	})
}
