package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// doc is what the tables read of a report.json.
type doc struct {
	AA     bool `json:"aa"`
	Family *struct {
		Comparisons    int `json:"comparisons"`
		RawSignificant int `json:"raw_significant"`
		Called         int `json:"called"`
		ExactCalled    int `json:"exact_called"`
		// A paired family (absent in older reports): the measures'
		// own tests and how many measures changed.
		MeasureTests    int `json:"measure_tests"`
		MeasuresChanged int `json:"measures_changed"`
	} `json:"family"`
	Runs []struct {
		ID   string `json:"id"`
		Time *struct {
			WallMS     float64     `json:"wall_ms"`
			MeasuredMS float64     `json:"measured_ms"`
			SetupMS    float64     `json:"setup_ms"`
			ResetMS    float64     `json:"reset_ms"`
			WaitMS     float64     `json:"wait_ms"`
			ServersMS  float64     `json:"servers_ms"`
			Studies    []studyTime `json:"studies"`
		} `json:"time"`
	} `json:"runs"`
	Repetitions *struct {
		Studies []struct {
			Study string `json:"study"`
			Cases []struct {
				Name   string `json:"name"`
				N      int    `json:"n"`
				Reason string `json:"reason"`
			} `json:"cases"`
		} `json:"studies"`
	} `json:"repetitions"`
	Studies []struct {
		Name  string `json:"name"`
		Cases []struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"cases"`
		Noise   []noise `json:"noise"`
		Metrics []struct {
			Case    string `json:"case"`
			Metric  string `json:"metric"`
			Primary bool   `json:"primary"`
			Changes []struct {
				Target   string   `json:"target"`
				Outcome  string   `json:"outcome"`
				Called   bool     `json:"called"`
				Verdict  string   `json:"verdict"`
				RatioEst *float64 `json:"ratio_estimate"`
				N        int      `json:"n"`
				P        *float64 `json:"p"`
				RawP     *float64 `json:"raw_p"`
				InFamily bool     `json:"in_family"`
			} `json:"changes"`
		} `json:"metrics"`
	} `json:"studies"`
}

// noise is what the tables read of a study's noise statement (one per
// target compared with the baseline; absent in older reports).
type noise struct {
	Target        string   `json:"target"`
	ForeignMedian *float64 `json:"foreign_cpu_median_percent"`
	ForeignMax    *float64 `json:"foreign_cpu_max_percent"`
	Disturbed     []string `json:"disturbed_rounds"`
}

type studyTime struct {
	Study      string  `json:"study"`
	WallMS     float64 `json:"wall_ms"`
	MeasuredMS float64 `json:"measured_ms"`
	ResetMS    float64 `json:"reset_ms"`
	WaitMS     float64 `json:"wait_ms"`
}

// load reads dir/name/report.json.
func load(dir, name string) (*doc, error) {
	b, err := os.ReadFile(filepath.Join(dir, name, "report.json"))
	if err != nil {
		return nil, err
	}
	var d doc
	return &d, json.Unmarshal(b, &d)
}

// tables prints every table the reports in dir allow.
func tables(dir string) error {
	aaTable(dir)
	for _, name := range []string{"seed-cold", "seed-warm", "seed-reps5"} {
		if d, err := load(dir, name); err == nil {
			timeTable(name, d)
			repsTable(name, d)
		}
	}
	a, errA := load(dir, "seed-warm")
	if errA != nil {
		a, errA = load(dir, "seed-cold")
	}
	b, errB := load(dir, "seed-reps5")
	if errA == nil && errB == nil {
		agreement(a, b)
	}
	verdictTable(dir)
	loadSummary(filepath.Join(dir, "load.log"))
	return nil
}

// aaTable prints one row per A/A run: tests, raw p ≤ α, calls, primary
// cells called, repetitions per case.
func aaTable(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "aa*", "report.json"))
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	fmt.Printf("\n| run | took | tests | p ≤ 0.05 (sequential p / last look's p) | called (BH + floor) | exact differ | cases at n=8 / 10 (other) |\n|---|---|---|---|---|---|---|\n")
	clean, most := 0, 0
	for _, f := range names {
		run := filepath.Base(filepath.Dir(f))
		d, err := load(dir, run)
		if err != nil || d.Family == nil {
			fmt.Printf("| %s | – | (no report: %v) | | | | |\n", run, err)
			continue
		}
		calls := d.Family.Called + d.Family.ExactCalled
		if calls == 0 {
			clean++
		}
		most = max(most, calls)
		fmt.Printf("| %s | %s | %d | %d / %d | %d | %d | %s |\n", run, took(d), d.Family.Comparisons, d.Family.RawSignificant, lastLookSignificant(d),
			d.Family.Called, d.Family.ExactCalled, caseCounts(d))
	}
	fmt.Printf("\nA/A: %d of %d reports call nothing (want ≥ 9 of 10); the most calls in one report: %d (want ≤ 1).\n", clean, len(names), most)
}

// took is a report's whole-run time.
func took(d *doc) string {
	if len(d.Runs) == 0 || d.Runs[0].Time == nil {
		return "–"
	}
	return dur(d.Runs[0].Time.WallMS)
}

// caseCounts counts the cases by repetitions: "20 / 4 (0)".
func caseCounts(d *doc) string {
	if d.Repetitions == nil {
		return "fixed"
	}
	count := map[int]int{}
	for _, s := range d.Repetitions.Studies {
		for _, c := range s.Cases {
			count[c.N]++
		}
	}
	other := 0
	for n, k := range count {
		if n != 8 && n != 10 {
			other += k
		}
	}
	return fmt.Sprintf("%d / %d (%d)", count[8], count[10], other)
}

// timeTable prints where a run's time went per study.
func timeTable(name string, d *doc) {
	if len(d.Runs) == 0 || d.Runs[0].Time == nil {
		return
	}
	t := d.Runs[0].Time
	fmt.Printf("\n%s (run %s): took %s, measured %s, set-up %s, resets %s, waiting %s, servers %s\n\n| study | took | measured | set-up | resets | waiting |\n|---|---|---|---|---|---|\n",
		name, d.Runs[0].ID, dur(t.WallMS), dur(t.MeasuredMS), dur(t.SetupMS), dur(t.ResetMS), dur(t.WaitMS), dur(t.ServersMS))
	for _, s := range t.Studies {
		setup := max(0, s.WallMS-s.MeasuredMS-s.ResetMS-s.WaitMS)
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", s.Study, dur(s.WallMS), dur(s.MeasuredMS), dur(setup), dur(s.ResetMS), dur(s.WaitMS))
	}
}

// repsTable prints the repetitions per case of a run under --reps auto.
func repsTable(name string, d *doc) {
	if d.Repetitions == nil {
		return
	}
	fmt.Printf("\n%s: repetitions per case\n\n| study | case | n | stopped because |\n|---|---|---|---|\n", name)
	for _, s := range d.Repetitions.Studies {
		for _, c := range s.Cases {
			fmt.Printf("| %s | %s | %d | %s |\n", s.Study, c.Name, c.N, c.Reason)
		}
	}
}

// dur formats milliseconds as "1 h 2 min", "12 min 36 s", "45 s".
func dur(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond)).Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case m > 0:
		return fmt.Sprintf("%d min %d s", m, s)
	}
	return fmt.Sprintf("%d s", s)
}

// cellKey names a primary cell: study · case · metric · target.
func cellKey(study, c, metric, target string) string {
	return strings.Join([]string{study, c, metric, target}, " · ")
}

// lastLookSignificant counts the family's tests whose p over all their
// repetitions (the last look, before the factor of the looks) is ≤ 0.05.
func lastLookSignificant(d *doc) int {
	k := 0
	for _, s := range d.Studies {
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				p := c.RawP
				if p == nil {
					p = c.P
				}
				if c.InFamily && p != nil && *p <= 0.05 {
					k++
				}
			}
		}
	}
	return k
}
