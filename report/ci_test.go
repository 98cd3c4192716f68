package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// xmlNode is an element of a parsed XML document.
type xmlNode struct {
	Name     string
	Attrs    map[string]string
	Children []*xmlNode
	Text     string
}

// parseXML parses data with encoding/xml's strict decoder into a tree.
func parseXML(data []byte) (*xmlNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{Name: t.Name.Local, Attrs: map[string]string{}}
			for _, a := range t.Attr {
				n.Attrs[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("a second root element <%s>", n.Name)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

// junitSchema is the structure of the JUnit XML schema CI systems read
// (Ant's JUnit task, as Jenkins' junit-10.xsd writes it down): for each
// element, its required and optional attributes (those marked int are
// whole numbers, time ones decimal seconds) and the children it may have.
var junitSchema = map[string]struct {
	required, optional []string
	children           []string
}{
	"testsuites": {optional: []string{"name", "time:time", "tests:int", "failures:int", "errors:int", "skipped:int", "disabled:int"}, children: []string{"testsuite"}},
	"testsuite": {required: []string{"name", "tests:int"}, optional: []string{"failures:int", "errors:int", "skipped:int", "disabled:int", "time:time", "timestamp", "hostname", "id", "package"},
		children: []string{"properties", "testcase", "system-out", "system-err"}},
	"properties": {children: []string{"property"}},
	"property":   {required: []string{"name", "value"}},
	"testcase":   {required: []string{"name"}, optional: []string{"classname", "time:time", "assertions", "status"}, children: []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"failure":    {optional: []string{"message", "type"}},
	"error":      {optional: []string{"message", "type"}},
	"skipped":    {optional: []string{"message"}},
	"system-out": {},
	"system-err": {},
}

// checkJUnit checks a JUnit document against junitSchema and its counts
// against its test cases; it returns the failures' and skipped cases'
// names.
func checkJUnit(t *testing.T, data []byte) (failed, skipped []string) {
	t.Helper()
	root, err := parseXML(data)
	if err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, data)
	}
	if root.Name != "testsuites" {
		t.Fatalf("root element <%s>, want <testsuites>", root.Name)
	}
	var walk func(n *xmlNode)
	walk = func(n *xmlNode) {
		s, ok := junitSchema[n.Name]
		if !ok {
			t.Errorf("element <%s> is not in the JUnit schema", n.Name)
			return
		}
		allowed := map[string]string{}
		for _, a := range append(append([]string(nil), s.required...), s.optional...) {
			name, kind, _ := strings.Cut(a, ":")
			allowed[name] = kind
		}
		for _, a := range s.required {
			name, _, _ := strings.Cut(a, ":")
			if _, ok := n.Attrs[name]; !ok {
				t.Errorf("<%s> lacks its attribute %s", n.Name, name)
			}
		}
		for name, v := range n.Attrs {
			kind, ok := allowed[name]
			switch {
			case !ok:
				t.Errorf("<%s> has attribute %s, not in the schema", n.Name, name)
			case kind == "int":
				if i, err := strconv.Atoi(v); err != nil || i < 0 {
					t.Errorf("<%s %s=%q>: not a count", n.Name, name, v)
				}
			case kind == "time":
				if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 {
					t.Errorf("<%s %s=%q>: not seconds", n.Name, name, v)
				}
			}
		}
		for _, c := range n.Children {
			found := false
			for _, want := range s.children {
				found = found || c.Name == want
			}
			if !found {
				t.Errorf("<%s> inside <%s>: not allowed there", c.Name, n.Name)
			}
			walk(c)
		}
	}
	walk(root)
	var tests, failures, skips int
	for _, suite := range root.Children {
		var st, sf, ss int
		for _, tc := range suite.Children {
			if tc.Name != "testcase" {
				continue
			}
			st++
			for _, c := range tc.Children {
				switch c.Name {
				case "failure":
					sf++
					failed = append(failed, tc.Attrs["classname"]+" "+tc.Attrs["name"])
				case "skipped":
					ss++
					skipped = append(skipped, tc.Attrs["classname"]+" "+tc.Attrs["name"])
				}
			}
		}
		want := fmt.Sprintf("%d %d %d", st, sf, ss)
		if got := suite.Attrs["tests"] + " " + suite.Attrs["failures"] + " " + suite.Attrs["skipped"]; got != want {
			t.Errorf("suite %s counts tests, failures, skipped %s; its cases %s", suite.Attrs["name"], got, want)
		}
		tests, failures, skips = tests+st, failures+sf, skips+ss
	}
	want := fmt.Sprintf("%d %d %d", tests, failures, skips)
	if got := root.Attrs["tests"] + " " + root.Attrs["failures"] + " " + root.Attrs["skipped"]; got != want {
		t.Errorf("testsuites counts %s; its suites %s", got, want)
	}
	return failed, skipped
}

// TestJUnit: a report as JUnit XML is valid against the schema's
// structure, has a test case per cell compared, a failure per called
// regression and a skipped case per unresolved cell.
func TestJUnit(t *testing.T) {
	path := fixtureStore(t)
	for _, refs := range [][]string{{fixtureRunA, fixtureRunB}, {fixtureRunB, fixtureRunA}} {
		d := loadFixture(t, path, refs...)
		cells, err := Cells(d)
		if err != nil {
			t.Fatal(err)
		}
		count := map[Verdict]int{}
		for _, c := range cells {
			count[c.Verdict]++
		}
		var b bytes.Buffer
		if err := Write(&b, d, JUnit); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
			t.Errorf("no XML declaration: %.80s", b.String())
		}
		failed, skipped := checkJUnit(t, b.Bytes())
		regs, err := Regressions(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(failed) != len(regs) || len(skipped) != count[Unresolved] || strings.Count(b.String(), "<testcase ") != len(cells) {
			t.Errorf("%v: %d failures for %d regressions, %d skipped for %d unresolved, of %d cells", refs, len(failed), len(regs), len(skipped), count[Unresolved], len(cells))
		}
		if len(cells) < 20 || count[Same] == 0 || count[Improvement] == 0 {
			t.Errorf("%v: cells %d, verdicts %v", refs, len(cells), count)
		}
		if refs[0] == fixtureRunB && len(regs) == 0 {
			t.Errorf("run B as the baseline: no regression among %v", count)
		}
		for _, f := range failed {
			if !strings.HasPrefix(f, "pglab.") {
				t.Errorf("failure %q: classname is not pglab.STUDY", f)
			}
		}
	}
}

// TestGitHub: the step summary counts the verdicts and lists the called
// changes; the annotations are workflow commands, one per regression,
// their text escaped.
func TestGitHub(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunB, fixtureRunA)
	regs, err := Regressions(d)
	if err != nil || len(regs) == 0 {
		t.Fatalf("regressions %v %v", regs, err)
	}
	var b bytes.Buffer
	if err := WriteGitHub(&b, d, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	for i, r := range regs {
		l := lines[i]
		if !strings.HasPrefix(l, "::error title=pglab%3A regression in ") || !strings.Contains(l, "::"+strings.ReplaceAll(r, "%", "%25")) {
			t.Errorf("annotation %d = %q, want the escaped %q", i, l, r)
		}
	}
	if strings.HasPrefix(lines[len(regs)], "::") {
		t.Errorf("more annotations than regressions: %q", lines[len(regs)])
	}
	head := fmt.Sprintf("— %d regression", len(regs))
	for _, want := range []string{head, " compared: ", "| regression | ", "<details><summary>", "</details>"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := WriteGitHub(&b, d, false); err != nil || !strings.HasPrefix(b.String(), "::warning title=") {
		t.Errorf("without --fail-on: %v %.80s", err, b.String())
	}
	b.Reset()
	if err := WriteGitHubSummary(&b, d); err != nil || strings.Contains(b.String(), "::") || !strings.HasPrefix(b.String(), "## ") {
		t.Errorf("the summary alone: %v %.80s", err, b.String())
	}
}
