package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// tinyCompareParams make every study of compare run in seconds: one
// repetition, the smallest sizes that still exercise each study's steps.
var tinyCompareParams = []string{
	"--reps", "1",
	"--param", "commit.rows=200", "--param", "commit.updates=200",
	"--param", "commit.tx_modes=autocommit", "--param", "commit.protocols=simple",
	"--param", "copy-out.tables=200", "--param", "copy-out.rows=100", "--param", "copy-out.shared_buffers=128MB",
	"--param", "seqscan.scale=1", "--param", "seqscan.modes=warm",
	"--param", "tps.clients=2", "--param", "tps.duration=1s", "--param", "tps.scale=1",
	"--param", "vacuum.rows=1000", "--param", "vacuum.cases=95:index",
}

// TestEveryStudyOnPG13 runs every study of compare on PostgreSQL 13, the
// oldest supported version, beside 18: settings 13 does not have
// (track_wal_io_timing) are left out with a note, and figures 13 cannot
// give (pg_stat_wal's, VACUUM VERBOSE's WAL usage) are "–" with a footnote
// saying why.
func TestEveryStudyOnPG13(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	args := append([]string{"--quiet", "compare", "--versions", "13,18", "--quick", "--store", filepath.Join(dir, "r.db"), "--out", out}, tinyCompareParams...)
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, st := range []string{"commit", "copy-errors", "copy-out", "seqscan", "tps", "vacuum"} {
		sec := section(text, "## "+st+" ")
		if sec == "" {
			t.Errorf("report.md has no section for %s", st)
			continue
		}
		if !strings.Contains(sec, "| pg13 | pg18 |") {
			t.Errorf("%s: no table with a pg13 column:\n%s", st, sec)
		}
	}
	for _, want := range []string{
		"track_wal_io_timing=on left out: PostgreSQL 13",
		"PostgreSQL 13 has no pg_stat_wal (new in 14)",
		"VACUUM VERBOSE of PostgreSQL 13 prints no buffer usage (15+)",
		"ERROR: option \"on_error\" not recognized",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// The terminal shows the primary tables; the file keeps every table.
	if !strings.Contains(text, "### Further metrics") || strings.Contains(r.stdout, "### Further metrics") {
		t.Errorf("further metrics: in report.md %v, on the terminal %v; want only in the file",
			strings.Contains(text, "### Further metrics"), strings.Contains(r.stdout, "### Further metrics"))
	}
	if !strings.Contains(r.stdout, "Left out here (--details shows them)") || !strings.Contains(r.stdout, "## Summary") || !strings.Contains(r.stdout, "## Setup") {
		t.Errorf("terminal output lacks the summary, the setup or the left-out line:\n%s", r.stdout)
	}
	// The split of wall time, per study and for the whole run.
	if !regexp.MustCompile(`- \*\*Time:\*\* measured steps: [0-9.]+ s of `).MatchString(text) || !strings.Contains(text, "| vacuum | ") || !strings.Contains(text, "| whole run | ") {
		t.Errorf("report.md lacks the split of wall time:\n%s", section(text, "## Setup"))
	}
	// pg13's cell of a figure it lacks: "–" with a footnote mark.
	if !regexp.MustCompile(`\| – [¹²³⁴⁵⁶⁷⁸⁹⁰]+ \| \S`).MatchString(section(text, "## commit ")) {
		t.Errorf("commit: no pg13 cell '– ¹':\n%s", section(text, "## commit "))
	}

	var doc struct {
		Studies []struct {
			Name  string `json:"name"`
			Notes []struct {
				Target string `json:"target"`
				Metric string `json:"metric"`
				Text   string `json:"text"`
			} `json:"notes"`
		} `json:"studies"`
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range doc.Studies {
		for _, n := range s.Notes {
			if s.Name == "commit" && n.Target == "pg13" && n.Metric == "wal_syncs" && strings.Contains(n.Text, "pg_stat_wal") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("report.json: no commit note on pg13's wal_syncs")
	}
}

// TestTuneOnPG13 runs the tune study (two configurations of one version)
// on 13: PGTune's settings for 13 must all start.
func TestTuneOnPG13(t *testing.T) {
	r := run(t, "--quiet", "study", "tune", "--versions", "13", "--reps", "1", "--param", "transactions=20", "--param", "clients=2",
		"--json", "--store", filepath.Join(t.TempDir(), "r.db"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Targets []struct {
			Name string `json:"name"`
		} `json:"targets"`
		Measurements []struct {
			Target string `json:"target"`
			Metric string `json:"metric"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	tps := map[string]bool{}
	for _, m := range doc.Measurements {
		if m.Metric == "tps" {
			tps[m.Target] = true
		}
	}
	if len(doc.Targets) != 2 || !tps["default"] || !tps["tuned"] {
		t.Errorf("targets %v, tps measured on %v; want default and tuned", doc.Targets, tps)
	}
}

// section returns the part of a Markdown report from the heading that
// starts with head to the next heading of the same level.
func section(md, head string) string {
	i := strings.Index(md, "\n"+head)
	if i < 0 {
		return ""
	}
	rest := md[i+1:]
	level := strings.SplitN(head, " ", 2)[0] + " "
	if j := strings.Index(rest[len(head):], "\n"+level); j >= 0 {
		return rest[:len(head)+j]
	}
	return rest
}

// TestVacuumFullPageImagesNote runs VACUUM after a CHECKPOINT
// (checkpoint_before=true): every page it changes gets a full-page image,
// and study --json carries the note saying so, keyed to study, case and
// target.
func TestVacuumFullPageImagesNote(t *testing.T) {
	r := run(t, "--quiet", "study", "vacuum", "--versions", pgtest.DefaultVersion(), "--reps", "1", "--param", "rows=40000",
		"--param", "cases=95:noindex", "--param", "checkpoint_before=true", "--json", "--store", filepath.Join(t.TempDir(), "r.db"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Notes []struct {
			Study  string            `json:"study"`
			Target string            `json:"target"`
			Case   map[string]string `json:"case"`
			Rep    int               `json:"rep"`
			Text   string            `json:"text"`
		} `json:"notes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, n := range doc.Notes {
		if strings.Contains(n.Text, "full-page images") {
			if n.Study != "vacuum" || n.Target != "pg"+pgtest.DefaultVersion() || n.Case["update_pct"] != "95" || n.Case["index"] != "no" || n.Rep != 1 {
				t.Errorf("note not keyed to study, case, target and repetition: %+v", n)
			}
			if !strings.Contains(n.Text, "checkpoint_before=true") {
				t.Errorf("note %q does not name checkpoint_before", n.Text)
			}
			return
		}
	}
	t.Errorf("no full-page image note in %+v", doc.Notes)
}
