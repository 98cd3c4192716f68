package serve

import (
	"context"
	"crypto/sha256"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pglab/pglab/results"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/")

// get serves one request and returns the response and its body.
func get(t testing.TB, h http.Handler, target string, mod ...func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1:8080"
	for _, m := range mod {
		m(req)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// TestPagesGolden renders the three pages (and the error page) over the
// fixture and compares them with testdata/*.html; go test -update
// rewrites them.
func TestPagesGolden(t *testing.T) {
	path := fixtureStore(t)
	h := newTestHandler(t, path, Options{Hosts: loopbackHosts})
	for _, c := range []struct {
		golden, path string
		code         int
	}{
		{"index.html", "/", 200},
		{"index-filtered.html", "/?study=tps&version=17&status=done", 200},
		{"run-compare.html", "/runs/" + runCompare, 200},
		{"run-copy-errors.html", "/runs/" + runCopy, 200},
		{"run-running.html", "/runs/" + runLive, 200},
		{"compare.html", "/compare?runs=" + runCompare + "," + runTPS, 200},
		{"not-found.html", "/runs/20200101-000000-ffff", 404},
	} {
		t.Run(c.golden, func(t *testing.T) {
			res, body := get(t, h, c.path)
			if res.StatusCode != c.code {
				t.Fatalf("GET %s: %d, want %d\n%s", c.path, res.StatusCode, c.code, body)
			}
			body = strings.ReplaceAll(body, path, "/STORE/results.db")
			if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("GET %s: Content-Type %q", c.path, ct)
			}
			golden := filepath.Join("testdata", c.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if body != string(want) {
				t.Errorf("GET %s differs from %s (go test -update rewrites it); first difference near:\n%s", c.path, golden, firstDiff(string(want), body))
			}
		})
	}
}

// firstDiff shows the lines around the first difference of two texts.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + x + "\n got: " + y
		}
	}
	return "(none)"
}

// fileHash is the SHA-256 of a file; a file that does not exist hashes
// as an empty one (SQLite readers of a WAL-mode store create an empty
// -wal file when there is none).
func fileHash(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return string(sum[:])
}

var linkRE = regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)

// TestCrawl follows every link from / (pages, downloads, artefacts, style
// sheets, the script, the compare form), finds none broken, no page with
// the fixture's password, and the store file byte-identical afterwards.
func TestCrawl(t *testing.T) {
	path := fixtureStore(t)
	before, beforeWAL := fileHash(t, path), fileHash(t, path+"-wal")
	h := newTestHandler(t, path, Options{Hosts: loopbackHosts})
	seen := map[string]bool{}
	queue := []string{"/"}
	// The runs page's form sends the ticked runs as repeated ?run=.
	queue = append(queue, "/compare?run="+runCompare+"&run="+runTPS, "/compare?run="+runCopy+"&run="+runLive+"&run="+runFailed)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		res, body := get(t, h, p)
		for res.StatusCode == http.StatusSeeOther {
			loc := res.Header.Get("Location")
			res, body = get(t, h, loc)
		}
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d %s", p, res.StatusCode, firstLine(body))
			continue
		}
		if strings.Contains(body, fixtureSecret) {
			t.Errorf("GET %s shows the password", p)
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
			u, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
			if err != nil {
				t.Errorf("%s: bad link %q", p, m[1])
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				t.Errorf("%s links outside the server: %s", p, m[1])
				continue
			}
			if u.Path == "" { // a fragment of the same page
				continue
			}
			if u.Path == "/compare" && u.RawQuery == "" {
				continue // the form's action; its submissions are crawled above
			}
			queue = append(queue, u.RequestURI())
		}
	}
	if len(seen) < 30 {
		t.Errorf("crawled only %d addresses", len(seen))
	}
	if fileHash(t, path) != before || fileHash(t, path+"-wal") != beforeWAL {
		t.Error("serving changed the store's file")
	}
	t.Logf("crawled %d addresses", len(seen))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// TestPageContents checks what the pages must say.
func TestPageContents(t *testing.T) {
	h := newTestHandler(t, fixtureStore(t), Options{Hosts: loopbackHosts})
	for _, c := range []struct {
		path string
		want []string
		not  []string
	}{
		{"/", []string{runCompare, runTPS, runCopy, runFailed, runLive, "pg16 (16.4), pg17 (17.2)", "copy-errors", "running for 1 h 0 min", "41 min 7 s", "lab1", `name="run"`, "5 runs"}, nil},
		{"/?study=copy-errors", []string{runCopy, "1 of 5 runs match"}, []string{runCompare + "</a>"}},
		{"/?version=15", []string{runFailed}, []string{runCopy + "</a>"}},
		{"/?status=running", []string{runLive}, []string{runCopy + "</a>"}},
		{"/?q=db.example", []string{runFailed}, []string{runCopy + "</a>"}},
		{"/runs/" + runCopy, []string{"skipping row due to data type incompatibility", "3 rows loaded, 1 skipped", "copy-output", "/runs/" + runCopy + "/report.md"}, nil},
		{"/runs/" + runCompare, []string{"Transactions per second — tps · 5 clients", "Latency distribution — tps · 20 clients", "p99.99", "WAL usage: 132745 records", "shared_buffers", "256MB", "rep 5", "environment SPEC"}, nil},
		{"/runs/" + runLive, []string{`http-equiv="refresh"`, "2 of 5 case repetitions measured", "still running"}, nil},
		{"/runs/" + runFailed, []string{"server closed the connection unexpectedly", "primary_conninfo"}, []string{fixtureSecret}},
		{"/compare?runs=" + runCompare + "," + runTPS, []string{
			"What differs between the setups", "setting shared_buffers", "1GB", "setting wal_compression", "lz4",
			"wal_fpi_per_tx", "Measured in some runs only", "p=", "a1b2/pg17 vs pg16", "~"}, nil},
	} {
		res, body := get(t, h, c.path)
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d", c.path, res.StatusCode)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", c.path, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(body, w) {
				t.Errorf("GET %s has %q", c.path, w)
			}
		}
	}
	// The differences come before the comparison.
	_, body := get(t, h, "/compare?runs="+runCompare+","+runTPS)
	if i, j := strings.Index(body, "What differs"), strings.Index(body, `id="comparison"`); i < 0 || j < 0 || i > j {
		t.Error("the setup differences do not come first")
	}
}

// TestRequests checks status codes, redirects, methods and downloads.
func TestRequests(t *testing.T) {
	h := newTestHandler(t, fixtureStore(t), Options{Hosts: loopbackHosts})
	for _, c := range []struct {
		method, path string
		code         int
		header, want string
	}{
		{"GET", "/runs/nope", 404, "", ""},
		{"GET", "/runs/2026", 400, "", ""}, // ambiguous prefix
		{"GET", "/runs/BAD", 400, "", ""},
		{"GET", "/nowhere", 404, "", ""},
		{"GET", "/compare", 400, "", ""},
		{"GET", "/compare?runs=" + runCopy, 400, "", ""},
		{"GET", "/compare?runs=" + runCopy + "," + runCopy, 400, "", ""},
		{"GET", "/compare?runs=" + runCopy + ",nope", 404, "", ""},
		{"GET", "/compare?run=" + runCopy + "&run=" + runTPS, 303, "Location", "/compare?runs=" + runCopy + "," + runTPS},
		{"POST", "/", 405, "Allow", "GET, HEAD"},
		{"DELETE", "/runs/" + runCopy, 405, "", ""},
		{"HEAD", "/", 200, "", ""},
		{"GET", "/runs/" + runCopy + "/report.md", 200, "Content-Disposition", `attachment; filename="pglab-` + runCopy + `.md"`},
		{"GET", "/runs/" + runCopy + "/report.json", 200, "Content-Type", "application/json"},
		{"GET", "/runs/" + runCopy + "/report.csv", 200, "Content-Type", "text/csv; charset=utf-8"},
		{"GET", "/runs/" + runCopy + "/report.html", 200, "Content-Type", "text/html; charset=utf-8"},
		{"GET", "/runs/" + runCopy + "/report.txt", 404, "", ""},
		{"GET", "/runs/" + runCopy + "/artefacts/1", 404, "", ""}, // another run's
		{"GET", "/runs/" + runCopy + "/artefacts/x", 404, "", ""},
		{"GET", "/static/report.css", 200, "Content-Type", "text/css; charset=utf-8"},
		{"GET", "/static/sort.js", 200, "", ""},
		{"GET", "/", 200, "Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		req.Host = "localhost:8080"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, rec.Code, c.code, firstLine(rec.Body.String()))
			continue
		}
		if c.header != "" && rec.Header().Get(c.header) != c.want {
			t.Errorf("%s %s: %s %q, want %q", c.method, c.path, c.header, rec.Header().Get(c.header), c.want)
		}
	}
	// The markdown download is what pglab report writes.
	_, md := get(t, h, "/runs/"+runCopy+"/report.md")
	if !strings.HasPrefix(md, "# pglab report: run "+runCopy) {
		t.Errorf("report.md starts %q", firstLine(md))
	}
}

// TestHostHeader refuses requests that name another host (DNS
// rebinding): a page of evil.example whose name resolves to 127.0.0.1.
func TestHostHeader(t *testing.T) {
	h := newTestHandler(t, fixtureStore(t), Options{Hosts: append(loopbackHosts, "127.0.0.1")})
	for host, code := range map[string]int{
		"127.0.0.1:8080": 200, "localhost:8080": 200, "[::1]:8080": 200, "LOCALHOST": 200,
		"evil.example": 421, "evil.example:8080": 421, "127.0.0.1.evil.example:8080": 421, "": 421,
	} {
		res, _ := get(t, h, "/", func(r *http.Request) { r.Host = host })
		if res.StatusCode != code {
			t.Errorf("Host %q: %d, want %d", host, res.StatusCode, code)
		}
	}
}

// TestToken requires the token on every request: a ?token= link sets
// the cookie and redirects to the page without it; a Bearer header works
// too; anything else is refused.
func TestToken(t *testing.T) {
	const tok = "0123456789abcdef0123"
	h := newTestHandler(t, fixtureStore(t), Options{Token: tok})
	for _, p := range []string{"/", "/runs/" + runCopy, "/static/report.css", "/runs/" + runCopy + "/report.md"} {
		if res, body := get(t, h, p); res.StatusCode != 401 || strings.Contains(body, runCopy+"</a>") {
			t.Errorf("GET %s without the token: %d", p, res.StatusCode)
		}
	}
	res, _ := get(t, h, "/runs/"+runCopy+"?token=wrong")
	if res.StatusCode != 401 {
		t.Errorf("wrong token: %d", res.StatusCode)
	}
	res, _ = get(t, h, "/runs/"+runCopy+"?token="+tok)
	if res.StatusCode != 303 || res.Header.Get("Location") != "/runs/"+runCopy {
		t.Fatalf("token link: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == cookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", cookie)
	}
	if res, _ := get(t, h, "/runs/"+runCopy, func(r *http.Request) { r.AddCookie(cookie) }); res.StatusCode != 200 {
		t.Errorf("with the cookie: %d", res.StatusCode)
	}
	if res, _ := get(t, h, "/", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }); res.StatusCode != 200 {
		t.Errorf("with the header: %d", res.StatusCode)
	}
	if res, _ := get(t, h, "/", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }); res.StatusCode != 401 {
		t.Errorf("with a wrong header: %d", res.StatusCode)
	}
	// With a token any host name may reach the server (it cannot know
	// them all); the token stops a rebinding page.
	if res, _ := get(t, h, "/", func(r *http.Request) { r.Host = "lab1.example:8080"; r.Header.Set("Authorization", "Bearer "+tok) }); res.StatusCode != 200 {
		t.Errorf("another host with the token: %d", res.StatusCode)
	}
}

// TestNewRefusesWritableStore: the handler only serves stores opened
// read-only, so that serving cannot write.
func TestNewRefusesWritableStore(t *testing.T) {
	st, err := results.Open(context.Background(), fixtureStore(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := New(Options{Store: st}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("New over a writable store: %v", err)
	}
}
