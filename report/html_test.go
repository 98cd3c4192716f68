package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

// chromiumPath finds Debian's chromium (or another Chromium or Chrome)
// for the headless tests. They fail rather than skip without it: the
// report's HTML must be checked in a real browser.
func chromiumPath(t *testing.T) string {
	t.Helper()
	const install = "install it with 'apt-get install -y chromium' (Debian), or set PGLAB_CHROMIUM to a Chromium or Chrome binary"
	if p := os.Getenv("PGLAB_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("PGLAB_CHROMIUM=%s: %v: %s", p, err, install)
		}
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("headless Chromium is needed to check the HTML report and was not found: " + install)
	return ""
}

// runChromium runs headless Chromium on a page with extra arguments and
// returns its standard output and error.
func runChromium(t *testing.T, bin, page string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0",
	}
	all = append(all, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleLine matches what Chromium logs for a page's console messages
// and uncaught errors.
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// wantCharts are the charts the fixture's studies must have, by title.
var wantCharts = []string{
	"Throughput by clients",
	"Latency percentiles by clients",
	"VACUUM time by case",
	"WAL written by VACUUM by case",
	"COPY TO time by row size",
	"Scan throughput",
	"Time for all updates by case",
}

// TestHTMLInChromium renders the fixture's report, opens it in headless
// Chromium and checks that the page loads without console messages, that
// every chart is in the page Chromium built, with marks drawn, and keeps
// screenshots (desktop and phone widths) in a directory the test logs.
func TestHTMLInChromium(t *testing.T) {
	bin := chromiumPath(t)
	d := loadFixture(t, fixtureStore(t), fixtureRunA)
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pglab-report-html-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("HTML report and screenshots kept in %s", dir)
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	dom, stderr := runChromium(t, bin, page, "--dump-dom", "--virtual-time-budget=2000")
	if msgs := consoleLine.FindAllString(stderr, -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the report:\n%s", strings.Join(msgs, "\n"))
	}
	if !strings.Contains(dom, "<h1>pglab report: run "+fixtureRunA+"</h1>") {
		t.Fatalf("the DOM Chromium built has no report title; it begins:\n%.500s", dom)
	}
	figures := figuresOf(t, dom)
	for _, title := range wantCharts {
		svg, ok := figures[title]
		if !ok {
			t.Errorf("chart %q missing from the DOM (charts: %v)", title, keys(figures))
			continue
		}
		checkSVG(t, title, svg)
	}
	if len(figures) != len(wantCharts) {
		t.Errorf("%d charts in the DOM, want %d: %v", len(figures), len(wantCharts), keys(figures))
	}
	if !strings.Contains(figures["Scan throughput"], `class="ceiling"`) {
		t.Errorf("scan throughput chart has no disk ceiling line")
	}

	for _, shot := range []struct {
		name string
		size string
	}{{"desktop.png", "1280,5200"}, {"phone.png", "390,9000"}} {
		path := filepath.Join(dir, shot.name)
		_, stderr := runChromium(t, bin, page, "--screenshot="+path, "--window-size="+shot.size)
		if msgs := consoleLine.FindAllString(stderr, -1); len(msgs) > 0 {
			t.Errorf("console messages while taking %s:\n%s", shot.name, strings.Join(msgs, "\n"))
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatalf("no screenshot %s: %v\n%s", shot.name, err, stderr)
		}
		if fi.Size() < 10000 {
			t.Errorf("screenshot %s has only %d bytes", shot.name, fi.Size())
		}
		t.Logf("screenshot: %s", path)
	}
}

// figuresOf returns the SVG of every chart in a DOM, by its caption.
func figuresOf(t *testing.T, dom string) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`(?s)<figure class="chart"><figcaption>(.*?)</figcaption>(<svg.*?</svg>)</figure>`)
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(dom, -1) {
		out[htmlUnescape(m[1])] = m[2]
	}
	return out
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'").Replace(s)
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkSVG checks that a chart is well-formed XML with a size, drawn
// marks (bars or lines with a size), and no number that is not one.
func checkSVG(t *testing.T, title, svg string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	marks, texts := 0, 0
	var viewBox string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("chart %q is not well-formed: %v", title, err)
			return
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
			if strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf") {
				t.Errorf("chart %q: <%s %s=%q>", title, se.Name.Local, a.Name.Local, a.Value)
			}
		}
		switch se.Name.Local {
		case "svg":
			viewBox = attr["viewBox"]
		case "rect":
			if attr["class"] == "bar" && attr["width"] != "" && attr["width"] != "0" {
				marks++
			}
		case "path":
			if attr["class"] == "series" && strings.Contains(attr["d"], "L") {
				marks++
			}
		case "text":
			texts++
		}
	}
	var w, h float64
	if _, err := fmt.Sscanf(viewBox, "0 0 %g %g", &w, &h); err != nil || w <= 0 || h <= 0 {
		t.Errorf("chart %q: viewBox %q", title, viewBox)
	}
	if marks == 0 {
		t.Errorf("chart %q draws no bars or lines", title)
	}
	if texts < 3 {
		t.Errorf("chart %q has %d texts (legend, ticks, labels expected)", title, texts)
	}
}

// TestHTMLSelfContained checks that the page fetches nothing: no script,
// no external style sheet, font, image or link to another site.
func TestHTMLSelfContained(t *testing.T) {
	d := loadFixture(t, fixtureStore(t), fixtureRunA, fixtureRunB)
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url(", "src=", `href="http`, "@font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	// The only absolute URL is SVG's namespace name, which is never fetched.
	for _, u := range regexp.MustCompile(`https?://[^"'\s<]+`).FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("the page refers to %s", u)
		}
	}
	if !strings.Contains(page, `<meta name="viewport" content="width=device-width, initial-scale=1">`) {
		t.Error("no viewport meta tag: the page would not fit a phone")
	}
	if !strings.Contains(page, "overflow-x: auto") {
		t.Error("tables do not scroll sideways on narrow screens")
	}
}

// TestHTMLEscapes checks that text from the store (target names, case
// labels, outcomes, notes) cannot add markup to the page or its charts.
func TestHTMLEscapes(t *testing.T) {
	evil := `<script>alert(1)</script>`
	var ms []results.Measurement
	for rep := 1; rep <= 3; rep++ {
		for _, tg := range []string{"pg16", evil} {
			ms = append(ms, results.Measurement{Target: tg, Study: "vacuum", Case: map[string]string{"update_pct": evil, "index": "yes"}, Rep: rep,
				Metric: "elapsed_ms", Value: float64(100 * rep), Unit: "ms", Direction: results.DirectionLower})
		}
	}
	d := &runs.Dataset{
		Targets:      []results.Target{{Name: "pg16", Conn: evil}, {Name: evil, ServerVersion: evil, Settings: []results.Setting{{Name: evil, Value: evil}}}},
		Measurements: ms,
		Notes: []runs.Note{
			{Study: "vacuum", Case: map[string]string{"update_pct": evil, "index": "yes"}, Target: evil, Text: `<img src=x onerror=alert(2)>`},
			{Study: "probe", Case: map[string]string{"p": "1"}, Target: "pg16", Text: evil, Outcome: true},
		},
		Studies: []runs.StudyInfo{{Name: "vacuum", Title: evil, Cases: []runs.CaseInfo{{Name: evil, Labels: map[string]string{"update_pct": evil, "index": "yes"}}}}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") || strings.Contains(page, "<img") {
		t.Errorf("text from the store made markup:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the escaped text is missing")
	}
	figures := figuresOf(t, page)
	if len(figures) != 1 {
		t.Errorf("%d charts, want the VACUUM time chart", len(figures))
	}
	for title, svg := range figures {
		checkSVG(t, title, svg)
	}
}
