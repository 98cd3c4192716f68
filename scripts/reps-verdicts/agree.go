package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// outcome is one primary cell's outcome in a report.
type outcome struct {
	text   string // changed, same, unresolved
	dir    int    // +1 up, −1 down, 0 not called
	n      int
	called bool
}

// primaryOutcomes returns every primary change of a report by cell.
func primaryOutcomes(d *doc) map[string]outcome {
	out := map[string]outcome{}
	for _, s := range d.Studies {
		for _, m := range s.Metrics {
			if !m.Primary {
				continue
			}
			for _, c := range m.Changes {
				o := outcome{text: c.Outcome, n: c.N, called: c.Called}
				if c.Called && c.RatioEst != nil {
					o.dir = 1
					if *c.RatioEst < 1 {
						o.dir = -1
					}
				}
				out[cellKey(s.Name, m.Case, m.Metric, c.Target)] = o
			}
		}
	}
	return out
}

// agreement prints every primary cell's outcome under --reps auto (a)
// next to the fixed --reps 5 (b), with the share that agree and the
// direction flips.
func agreement(a, b *doc) {
	oa, ob := primaryOutcomes(a), primaryOutcomes(b)
	var keys []string
	for k := range oa {
		if _, ok := ob[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	agree, flips := 0, 0
	fmt.Printf("\nPrimary cells, --reps auto next to --reps 5\n\n| cell | auto | n | reps 5 | agree |\n|---|---|---|---|---|\n")
	for _, k := range keys {
		x, y := oa[k], ob[k]
		same := x.text == y.text && x.dir == y.dir
		if same {
			agree++
		}
		if x.dir != 0 && y.dir != 0 && x.dir != y.dir {
			flips++
		}
		fmt.Printf("| %s | %s%s | %d | %s%s | %s |\n", k, x.text, arrow(x.dir), x.n, y.text, arrow(y.dir), yes(same))
	}
	if len(keys) > 0 {
		fmt.Printf("\n%d of %d primary cells agree (%.1f %%; want ≥ 95 %%); %d flip direction (want 0).\n",
			agree, len(keys), 100*float64(agree)/float64(len(keys)), flips)
	}
}

func arrow(dir int) string {
	switch dir {
	case 1:
		return " ↑"
	case -1:
		return " ↓"
	}
	return ""
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// sampleLoad appends the 1-minute load average and the five busiest
// processes to path every minute until the returned stop is called.
func sampleLoad(path string) (stop func()) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			la, _ := os.ReadFile("/proc/loadavg")
			top, _ := exec.Command("ps", "-eo", "pcpu,comm", "--sort=-pcpu", "--no-headers").Output()
			lines := strings.SplitN(string(top), "\n", 6)
			fmt.Fprintf(f, "%s load %s top %s\n", time.Now().Format(time.RFC3339), strings.Fields(string(la) + " ?")[0],
				strings.Join(strings.Fields(strings.Join(lines[:min(5, len(lines))], " ; ")), " "))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait(); f.Close() }
}

// loadSummary prints the load average while the runs ran: median and
// range, from load.log.
func loadSummary(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	var loads []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 3 && fs[1] == "load" {
			if v, err := strconv.ParseFloat(fs[2], 64); err == nil {
				loads = append(loads, v)
			}
		}
	}
	if len(loads) == 0 {
		return
	}
	sort.Float64s(loads)
	fmt.Printf("\nMachine load while the runs ran (1-minute load average on 2 CPUs, %d samples): median %.1f, range %.1f–%.1f (load.log has the busiest processes of each minute).\n",
		len(loads), loads[len(loads)/2], loads[0], loads[len(loads)-1])
}
