package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/pglab/pglab/report/runs"
)

// The JUnit XML of a report, as CI systems read it (Jenkins, GitLab,
// GitHub's test reporters; the schema of Ant's JUnit task): <testsuites>
// with one <testsuite> per study and one <testcase> per cell compared
// (Cells). A regression is a <failure type="regression">; an unresolved
// cell is <skipped> (not established either way); same, an improvement or
// another called change pass.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties *junitPropList  `xml:"properties,omitempty"`
		Cases      []junitTestCase `xml:"testcase"`
	}
	junitPropList struct {
		Props []junitProp `xml:"property"`
	}
	junitProp struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitTestCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure"`
		Skipped   *junitProblem `xml:"skipped"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes report d as JUnit XML: a test suite per study, a test
// case per cell compared, a failure per called regression.
func WriteJUnit(w io.Writer, d *runs.Dataset) error {
	cells, err := Cells(d)
	if err != nil {
		return err
	}
	doc := junitSuites{Name: "pglab", Time: "0"}
	if d.Run.ID != "" {
		doc.Name = "pglab " + d.Run.ID
	}
	suites := map[string]*junitSuite{}
	var order []string
	for _, c := range cells {
		s := suites[c.Study]
		if s == nil {
			s = &junitSuite{Name: c.Study, Time: "0"}
			if !d.Run.StartedAt.IsZero() {
				s.Timestamp = d.Run.StartedAt.UTC().Format("2006-01-02T15:04:05")
			}
			if d.Run.ID != "" {
				s.Properties = &junitPropList{[]junitProp{{"run", d.Run.ID}}}
			}
			suites[c.Study] = s
			order = append(order, c.Study)
		}
		tc := junitTestCase{Name: fmt.Sprintf("%s · %s: %s vs %s", c.Case, c.Metric, c.Target, c.Baseline),
			ClassName: "pglab." + c.Study, Time: "0", SystemOut: string(c.Verdict) + ": " + c.Text}
		s.Tests++
		switch c.Verdict {
		case Regression:
			tc.Failure = &junitProblem{Message: c.Text, Type: string(Regression), Text: c.String()}
			s.Failures++
		case Unresolved:
			why := "unresolved: " + c.Text
			if c.Text == "?" {
				why = "unresolved: a side has no measurement"
			}
			tc.Skipped = &junitProblem{Message: why}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
	}
	for _, name := range order {
		s := suites[name]
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}
