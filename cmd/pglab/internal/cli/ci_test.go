package cli_test

// What a CI job is told: exit codes, JUnit XML, the GitHub job summary
// and annotations.

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglab/pglab/pgserver/pgtest"
)

// junitDoc is JUnit XML as CI systems read it (the schema of Ant's JUnit
// task); decoding is strict, and any element or attribute outside the
// schema lands in Other.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    *int     `xml:"tests,attr"`
	Failures *int     `xml:"failures,attr"`
	Errors   *int     `xml:"errors,attr"`
	Skipped  *int     `xml:"skipped,attr"`
	Time     *float64 `xml:"time,attr"`
	Suites   []struct {
		Name      string   `xml:"name,attr"`
		Tests     *int     `xml:"tests,attr"`
		Failures  *int     `xml:"failures,attr"`
		Errors    *int     `xml:"errors,attr"`
		Skipped   *int     `xml:"skipped,attr"`
		Time      *float64 `xml:"time,attr"`
		Timestamp string   `xml:"timestamp,attr"`
		Props     []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string   `xml:"name,attr"`
			ClassName string   `xml:"classname,attr"`
			Time      *float64 `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string     `xml:"system-out"`
			Other     []xml.Name `xml:",any"`
			OtherAttr []xml.Attr `xml:",any,attr"`
		} `xml:"testcase"`
		Other     []xml.Name `xml:",any"`
		OtherAttr []xml.Attr `xml:",any,attr"`
	} `xml:"testsuite"`
	Other []xml.Name `xml:",any"`
}

// readJUnit parses a JUnit file and checks it against the schema's
// structure and its counts against its test cases.
func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("JUnit file: %v", err)
	}
	var doc junitDoc
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, data)
	}
	if doc.Tests == nil || doc.Failures == nil || doc.Errors == nil || len(doc.Other) > 0 {
		t.Errorf("<testsuites>: counts %v %v %v, other elements %v", doc.Tests, doc.Failures, doc.Errors, doc.Other)
	}
	tests, failures, skipped := 0, 0, 0
	for _, s := range doc.Suites {
		if s.Name == "" || s.Tests == nil || s.Failures == nil || s.Errors == nil || s.Skipped == nil || s.Time == nil || len(s.Other)+len(s.OtherAttr) > 0 {
			t.Errorf("<testsuite %q> lacks a required attribute or holds others: %v %v", s.Name, s.Other, s.OtherAttr)
		}
		f, k := 0, 0
		for _, c := range s.Cases {
			if c.Name == "" || c.ClassName == "" || c.Time == nil || len(c.Other)+len(c.OtherAttr) > 0 {
				t.Errorf("<testcase %q classname=%q>: a required attribute missing, or others %v %v", c.Name, c.ClassName, c.Other, c.OtherAttr)
			}
			if c.Failure != nil {
				f++
			}
			if c.Skipped != nil {
				k++
			}
		}
		if s.Tests != nil && (*s.Tests != len(s.Cases) || *s.Failures != f || *s.Skipped != k) {
			t.Errorf("<testsuite %s> says %d tests, %d failures, %d skipped; it holds %d, %d, %d", s.Name, *s.Tests, *s.Failures, *s.Skipped, len(s.Cases), f, k)
		}
		tests, failures, skipped = tests+len(s.Cases), failures+f, skipped+k
	}
	if doc.Tests != nil && (*doc.Tests != tests || *doc.Failures != failures || *doc.Skipped != skipped) {
		t.Errorf("<testsuites> says %d tests, %d failures; its suites hold %d, %d", *doc.Tests, *doc.Failures, tests, failures)
	}
	return doc
}

// TestCompareFailOnJUnit is the CI contract on a comparison with a known
// regression: one version under two configurations, one of which makes
// VACUUM sleep (vacuum_cost_delay), so that VACUUM is a hundred times
// slower: no noise of a shared machine hides that. compare --fail-on regression --junit exits 3, its JUnit XML is
// valid and has the regression as a failure, the job summary and an
// ::error annotation are written in a GitHub Actions job; report and
// study say the same; a usage error exits 64 before anything runs.
func TestCompareFailOnJUnit(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	junit := filepath.Join(dir, "r.xml")
	summary := filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_ACTIONS", "true")
	vacuum := []string{"--studies", "vacuum", "--param", "vacuum.rows=1000", "--param", "vacuum.cases=95:index", "--reps", "10"}
	configs := []string{"--versions", "17", "--config", "fast:vacuum_cost_delay=0", "--config", "slow:vacuum_cost_delay=10ms,vacuum_cost_limit=10"}

	// Usage errors: 64, nothing run, nothing written.
	for _, bad := range [][]string{
		{"--fail-on", "slower"},
		{"--junit", filepath.Join(dir, "no", "such", "r.xml")},
		{"--reps", "six"},
	} {
		args := append(append(append([]string{"--quiet", "compare"}, configs...), vacuum...), "--store", store)
		assertUsageError(t, run(t, append(args, bad...)...), bad[0])
	}
	if _, err := os.Stat(store); err == nil {
		t.Fatalf("a usage error wrote the store")
	}

	args := append(append(append([]string{"--quiet", "compare"}, configs...), vacuum...),
		"--store", store, "--out", filepath.Join(dir, "report"), "--fail-on", "regression", "--junit", junit)
	r := run(t, args...)
	if r.code != 3 {
		t.Fatalf("compare with a regression: exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	const reg = "vacuum · 95 % updated, with index · VACUUM time: slow vs fast "
	if !strings.Contains(r.stderr, "pglab: regression: "+reg) || !strings.Contains(r.stderr, "pglab: 1 called regression (--fail-on regression)") {
		t.Errorf("stderr lacks the regression:\n%s", r.stderr)
	}
	escaped := strings.ReplaceAll(reg, "%", "%25") // a workflow command's escape
	if !strings.Contains(r.stderr, "::error title=pglab%3A regression in vacuum::"+escaped) {
		t.Errorf("no ::error annotation in a GitHub Actions job:\n%s", r.stderr)
	}
	doc := readJUnit(t, junit)
	if len(doc.Suites) != 1 || doc.Suites[0].Name != "vacuum" || *doc.Failures != 1 {
		t.Fatalf("JUnit: %+v", doc)
	}
	var failed []string
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed = append(failed, c.ClassName+" "+c.Name)
			if c.Failure.Type != "regression" || !strings.Contains(c.Failure.Message, "slower") {
				t.Errorf("failure %+v", c.Failure)
			}
		}
	}
	if len(failed) != 1 || failed[0] != "pglab.vacuum 95 % updated, with index · VACUUM time: slow vs fast" {
		t.Errorf("failed test cases %q", failed)
	}
	data, err := os.ReadFile(summary)
	if err != nil || !strings.HasPrefix(string(data), "## ") || !strings.Contains(string(data), "— 1 regression") ||
		!strings.Contains(string(data), "| regression | vacuum | 95 % updated, with index | VACUUM time | slow vs fast ") {
		t.Errorf("job summary: %v\n%s", err, data)
	}

	// report of the stored run: the same verdict, in every CI form.
	again := filepath.Join(dir, "again.xml")
	r = run(t, "report", "--store", store, "--fail-on", "regression", "--junit", again, "--out", filepath.Join(dir, "r.md"))
	if r.code != 3 || readJUnit(t, again).Suites[0].Cases[0].Failure == nil {
		t.Errorf("report --fail-on regression --junit: exit %d\n%s", r.code, r.stderr)
	}
	if sum, _ := os.ReadFile(summary); strings.Count(string(sum), "— 1 regression") != 2 {
		t.Errorf("report appended no job summary:\n%s", sum)
	}
	r = run(t, "report", "--store", store, "--format", "github")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "::warning title=pglab%3A regression in vacuum::"+escaped) || !strings.Contains(r.stdout, "\n## ") {
		t.Errorf("report --format github: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if sum, _ := os.ReadFile(summary); strings.Count(string(sum), "— 1 regression") != 2 {
		t.Errorf("report --format github appended the summary it printed")
	}
	r = run(t, "report", "--store", store, "--format", "junit")
	if r.code != 0 || !strings.Contains(r.stdout, `<failure message=`) {
		t.Errorf("report --format junit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestStudyFailOn: study has --fail-on and --junit too: two instances of
// 'pglab pg start', one with VACUUM's cost delay.
func TestStudyFailOn(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", pgtest.TempDir(t))
	dir := t.TempDir()
	for _, a := range [][]string{{"--name", "fast"}, {"--name", "slow", "--set", "vacuum_cost_delay=10ms", "--set", "vacuum_cost_limit=10"}} {
		if r := run(t, append([]string{"--quiet", "pg", "start", "--versions", "17"}, a...)...); r.code != 0 {
			t.Fatalf("pg start: %s", r.stderr)
		}
	}
	t.Cleanup(func() { run(t, "--quiet", "pg", "stop", "--all", "--remove") })
	junit := filepath.Join(dir, "s.xml")
	r := run(t, "--quiet", "study", "vacuum", "--target", "fast", "--target", "slow", "--param", "rows=1000", "--param", "cases=95:index",
		"--reps", "16", "--store", filepath.Join(dir, "s.db"), "--fail-on", "regression", "--junit", junit)
	if r.code != 3 || !strings.Contains(r.stderr, "pglab: regression: vacuum · 95 % updated, with index · VACUUM time: slow vs fast") {
		t.Fatalf("study --fail-on regression: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if doc := readJUnit(t, junit); *doc.Failures != 1 || !strings.HasPrefix(doc.Name, "pglab ") {
		t.Errorf("study's JUnit: %+v", doc)
	}
	assertUsageError(t, run(t, "--quiet", "study", "vacuum", "--target", "fast", "--fail-on", "faster"), "--fail-on")
}
