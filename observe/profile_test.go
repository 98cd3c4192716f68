package observe

import (
	"strings"
	"testing"
)

// perfScriptOut is perf script's output of a system-wide recording, as
// perf 6.1 prints it (-F pid,period,event,ip,sym,dso --show-task-events
// --no-inline): the forks perf writes for the processes alive at its
// start, samples of the server (postmaster 100, backend 9001, a backend
// forked while it ran, 9002) and of another process (777), one of each
// event.
const perfScriptOut = `    0 PERF_RECORD_FORK(1:1):(0:0)
    0 PERF_RECORD_FORK(100:100):(1:1)
    0 PERF_RECORD_COMM: postgres:100/100
    0 PERF_RECORD_FORK(9001:9001):(100:100)
    0 PERF_RECORD_FORK(777:777):(1:1)
  9001    1001001                 cpu-clock/freq=249/:      5596b861c196 CopyAttributeOutText (/pg/bin/postgres)
  9001    2002002                 cpu-clock/freq=249/:  ffffffff813aecd3 finish_task_switch.isra.0 ([kernel.kallsyms])
   777    1001001                 cpu-clock/freq=249/:            1790ab go_thing (/usr/bin/other)
   100 PERF_RECORD_FORK(9002:9002):(100:100)
  9002    1001001                 cpu-clock/freq=249/:            1790ab [unknown] (/pg/lib/libcrypto.so.1.1)
  9001   10101010 cpu-clock/freq=49,call-graph=dwarf,stack-size=16384/: 
	          21c196 CopyAttributeOutText (/pg/bin/postgres)
	          21c7b1 CopyOneRowTo (/pg/bin/postgres)
	          104f89 main (/pg/bin/postgres)

   777   10101010 cpu-clock/freq=49,call-graph=dwarf,stack-size=16384/: 
	          21c196 go_thing (/usr/bin/other)

  9001   10101010 cpu-clock/freq=49,call-graph=dwarf,stack-size=16384/: 
	          21c196 CopyAttributeOutText (/pg/bin/postgres)
	          21c7b1 CopyOneRowTo (/pg/bin/postgres)
	          104f89 main (/pg/bin/postgres)

`

// TestParsePerfScript: only the server's samples count — the
// postmaster's descendants by the forks, a process forked during the
// recording too; self time per function from the periods of the first
// event, unnamed code by its file, stacks folded root first under the
// process's kind.
func TestParsePerfScript(t *testing.T) {
	p, err := parsePerfScript(strings.NewReader(perfScriptOut), 100, map[int]string{100: "postmaster", 9001: "client backend"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 3 || p.SampledMS != 4.004004 || p.OtherSamples != 1 {
		t.Errorf("samples %d (%d others), %.6f ms; want 3 (1), 4.004004", p.Samples, p.OtherSamples, p.SampledMS)
	}
	var got []string
	for _, f := range p.Functions {
		got = append(got, f.Name)
	}
	if want := "finish_task_switch.isra.0 CopyAttributeOutText [libcrypto.so.1.1]"; strings.Join(got, " ") != want {
		t.Errorf("functions %q, want %q", got, want)
	}
	if p.Processes["client backend"] != 2 || p.Processes["postgres"] != 1 {
		t.Errorf("processes %v", p.Processes)
	}
	if want := "client backend;main;CopyOneRowTo;CopyAttributeOutText 2\n"; string(p.Folded()) != want || p.StackSamples != 2 {
		t.Errorf("folded %q (%d samples), want %q", p.Folded(), p.StackSamples, want)
	}
	ms := p.Metrics()
	if m, ok := Find(ms, CPUFnPrefix+"CopyAttributeOutText"); !ok || m.Value != 1.001001 {
		t.Errorf("metrics %+v", ms)
	}
}

// TestKindOfTitle: process titles of 13–18 name their kind.
func TestKindOfTitle(t *testing.T) {
	for title, want := range map[string]string{
		"postgres: checkpointer":                             "checkpointer",
		"postgres: main: background writer":                  "background writer",
		"postgres: autovacuum worker pglab":                  "autovacuum worker",
		"postgres: parallel worker for PID 123":              "parallel worker",
		"postgres: postgres pglab 127.0.0.1(40000) COPY":     "client backend",
		"postgres: postgres pglab [local] idle":              "client backend",
		"/var/cache/pglab/postgres/17.10/bin/postgres -D /x": "",
		"": "",
	} {
		if got := kindOfTitle(title); got != want {
			t.Errorf("kindOfTitle(%q) = %q, want %q", title, got, want)
		}
	}
}
