package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareAA runs an A/A comparison: two identical managed servers a
// and b of one version; the report says it is one, and its JSON carries
// "aa", the family and each change's outcome.
func TestCompareAA(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	r := run(t, "--quiet", "compare", "--aa", "--versions", "17", "--studies", "vacuum,copy-errors", "--reps", "2",
		"--param", "vacuum.rows=1000", "--param", "vacuum.cases=95:index",
		"--store", filepath.Join(dir, "r.db"), "--out", out, "--fail-on", "regression")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"| vacuum | VACUUM time |", "A/A run: the targets are identical servers", "| a | b |"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, r.stdout)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AA                 bool     `json:"aa"`
		ExpectedFalseCalls *float64 `json:"expected_false_calls"`
		Family             *struct {
			Comparisons int `json:"comparisons"`
			Called      int `json:"called"`
		} `json:"family"`
		Targets []struct {
			Name          string `json:"name"`
			ServerVersion string `json:"server_version"`
		} `json:"targets"`
		Studies []struct {
			Name    string `json:"name"`
			Metrics []struct {
				Metric  string `json:"metric"`
				Changes []struct {
					Outcome    string   `json:"outcome"`
					Called     bool     `json:"called"`
					Q          *float64 `json:"q"`
					MDEPercent *float64 `json:"mde_percent"`
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"studies"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.AA || doc.Family == nil || doc.ExpectedFalseCalls == nil {
		t.Fatalf("report.json: aa %v, family %v, expected_false_calls %v", doc.AA, doc.Family, doc.ExpectedFalseCalls)
	}
	if len(doc.Targets) != 2 || doc.Targets[0].Name != "a" || doc.Targets[1].Name != "b" || doc.Targets[0].ServerVersion != doc.Targets[1].ServerVersion {
		t.Errorf("targets %+v: want a and b of one version", doc.Targets)
	}
	// Two repetitions per side cannot call anything.
	outcomes := map[string]int{}
	for _, s := range doc.Studies {
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				outcomes[c.Outcome]++
				if c.Called {
					t.Errorf("%s %s called with 2 repetitions", s.Name, m.Metric)
				}
			}
		}
	}
	if outcomes["unresolved"]+outcomes["same"] == 0 || outcomes[""] > 0 {
		t.Errorf("outcomes %v: want same and unresolved, none empty", outcomes)
	}
}
