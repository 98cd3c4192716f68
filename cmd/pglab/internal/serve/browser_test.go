package serve

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds Debian's Chromium for the browser test. The test fails
// rather than skips without it: the pages must work in a real browser.
func chromium(t *testing.T) string {
	t.Helper()
	const install = "install it with 'apt-get install -y chromium' (Debian; .ci/run does), or set PGLAB_CHROMIUM to a Chromium or Chrome binary"
	if p := os.Getenv("PGLAB_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("PGLAB_CHROMIUM=%s: %v: %s", p, err, install)
		}
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the browser test needs Chromium, which was not found: " + install)
	return ""
}

// browser starts headless Chromium for one test; it is ended with the
// test.
func browser(t *testing.T) (context.Context, *pageErrors) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	errs := &pageErrors{}
	// Subscribe before the first page, and read in the background.
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				// Script errors, Content-Security-Policy violations,
				// failed loads.
				errs.add(string(m.Type) + ": " + m.Text)
			}
		}
	}()
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc() // ends the browser process
		<-done
	})
	return ctx, errs
}

// pageErrors collects what the browser reported as wrong.
type pageErrors struct {
	mu   sync.Mutex
	list []string
}

func (p *pageErrors) add(s string) {
	p.mu.Lock()
	p.list = append(p.list, s)
	p.mu.Unlock()
}

func (p *pageErrors) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.list...)
}

// verdictJS reads the change columns ("pg17 vs pg16") of the comparison's
// tables.
const verdictJS = `(() => {
  const out = [];
  document.querySelectorAll('#comparison table').forEach(t => {
    if (!t.tHead) return;
    const cols = [];
    Array.from(t.tHead.rows[0].cells).forEach((th, i) => { if (th.textContent.includes(' vs ')) cols.push(i); });
    Array.from(t.tBodies[0] ? t.tBodies[0].rows : []).forEach(r => cols.forEach(i => { if (r.cells[i]) out.push(r.cells[i].textContent.trim()); }));
  });
  return out;
})()`

// TestBrowserCompare drives Chromium as a user does: open /, tick two
// runs, press compare, read the comparison's verdict cells; then sort the
// runs table by a click, and check that no page raised a script error or
// broke the content security policy.
func TestBrowserCompare(t *testing.T) {
	path := fixtureStore(t)
	h := newTestHandler(t, path, Options{Hosts: loopbackHosts})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, errs := browser(t)
	shots := t.TempDir()
	if dir := os.Getenv("PGLAB_SERVE_SHOTS"); dir != "" {
		shots = dir
	}

	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, name), buf, 0o644)
		})
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#runs")),
		chromedp.Click(chromedp.CSS(`input[name="run"][value="`+runCompare+`"]`)),
		chromedp.Click(chromedp.CSS(`input[name="run"][value="`+runTPS+`"]`)),
		shot("index.png"),
		chromedp.Click(chromedp.CSS("#compare")),
		chromedp.WaitVisible(chromedp.CSS("#comparison")),
		shot("compare.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](verdictJS))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(loc)
	if err != nil || u.Path != "/compare" || u.Query().Get("runs") != runTPS+","+runCompare {
		t.Errorf("compare landed on %s, want /compare?runs=%s,%s", loc, runTPS, runCompare)
	}
	if len(verdicts) == 0 {
		t.Fatal("no verdict cells in the comparison")
	}
	withP := 0
	for _, v := range verdicts {
		if strings.Contains(v, "p=") {
			withP++
		}
		if v == "" {
			t.Error("an empty verdict cell")
		}
	}
	if withP == 0 {
		t.Errorf("no verdict cell carries a p-value: %q", verdicts)
	}
	t.Logf("%d verdict cells, %d with p-values, e.g. %q", len(verdicts), withP, verdicts[0])

	// Sorting: the runs page lists the newest first; a click on
	// "started" sorts the oldest first, a second click reverses it.
	attr := func(sel string) string {
		v, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), "data-run"))
		if err != nil {
			t.Fatal(err)
		}
		return v.Value
	}
	started := chromedp.CSS("#runs thead th:nth-child(5)")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#runs")), chromedp.Click(started)); err != nil {
		t.Fatal(err)
	}
	first := attr("#runs tbody tr:first-child")
	if err := chromedp.Do(ctx, chromedp.Click(started)); err != nil {
		t.Fatal(err)
	}
	again := attr("#runs tbody tr:first-child")
	if first != runCompare || again != runLive {
		t.Errorf("sorted by start: first %s then %s, want %s then %s", first, again, runCompare, runLive)
	}

	// The run page with its charts, in the browser.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/runs/"+runCompare), chromedp.WaitVisible(chromedp.CSS("#evidence")), shot("run.png")); err != nil {
		t.Fatal(err)
	}
	for name, sel := range map[string]string{"progress.png": "#evidence .charts figure", "latency.png": "#evidence figure.wide"} {
		buf, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("screenshot of %s: %v", sel, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	charts, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("#evidence svg path.series")))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) == 0 {
		t.Error("the run page's evidence has no chart lines")
	}
	if e := errs.get(); len(e) > 0 {
		t.Errorf("the browser reported: %s", strings.Join(e, "; "))
	}
	t.Logf("screenshots in %s", shots)
}
