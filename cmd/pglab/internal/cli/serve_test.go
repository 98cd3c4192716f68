package cli_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeBadInput: every refusal of pglab serve is one line and exit 64;
// an address beyond loopback without a token is one of them. A taken port
// is a failure (exit 1).
func TestServeBadInput(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	if r := run(t, "--quiet", "runs", "--store", store); r.code != 64 {
		t.Fatalf("runs on a missing store: exit %d", r.code)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:8080"}, "--addr 0.0.0.0:8080 would serve the runs beyond this machine (0.0.0.0): give --token"},
		{[]string{"--addr", ":8080"}, "would serve the runs beyond this machine (every address): give --token"},
		{[]string{"--addr", "[::]:8080"}, "give --token"},
		{[]string{"--addr", "192.0.2.1:8080"}, "give --token"},
		{[]string{"--addr", "0.0.0.0:8080", "--token", "short"}, "--token is too short"},
		{[]string{"--addr", "localhost"}, "--addr localhost: want HOST:PORT"},
		{[]string{"--store", store}, "no results store at " + store},
		{[]string{"extra"}, "serve takes no arguments"},
	} {
		args := append([]string{"serve"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--store") {
			args = append(args, "--store", store)
		}
		assertUsageError(t, run(t, args...), c.want)
	}
	// A taken port: one line too (a store must exist to get that far).
	ok := filepath.Join(t.TempDir(), "ok.db")
	if r := run(t, "--quiet", "study", "copy-errors", "--versions", "17", "--store", ok); r.code != 0 {
		t.Fatalf("study copy-errors: %s", r.stderr)
	}
	assertOneLineError(t, run(t, "serve", "--store", ok, "--addr", busy.Addr().String()), "listen on "+busy.Addr().String())
}

// servedProcess is a pglab serve running in its own process.
type servedProcess struct {
	cmd  *exec.Cmd
	base string
	out  *bufio.Reader
}

// startServe starts pglab serve on a free loopback port and waits for its
// address line.
func startServe(t *testing.T, store string) *servedProcess {
	t.Helper()
	cmd := exec.Command(pglabBinary(t), "serve", "--store", store, "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &servedProcess{cmd: cmd, out: bufio.NewReader(stdout)}
	t.Cleanup(func() { p.stop(t) })
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("pglab serve printed no address: %v", err)
	}
	m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	if m == "" {
		t.Fatalf("pglab serve's first line: %q", line)
	}
	p.base = strings.TrimSuffix(m, "/")
	return p
}

// stop ends the server with Ctrl-C, as a user does.
func (p *servedProcess) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
		t.Error("pglab serve did not stop within 10 s of SIGINT")
	}
}

func (p *servedProcess) get(t *testing.T, path string) (int, string) {
	t.Helper()
	res, err := http.Get(p.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func hashFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// runID runs a study with --json and returns its run's ID.
func runID(t *testing.T, args ...string) string {
	t.Helper()
	r := run(t, append([]string{"--quiet", "study"}, append(args, "--json")...)...)
	if r.code != 0 {
		t.Fatalf("study %v: exit %d: %s", args, r.code, r.stderr)
	}
	var doc struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.RunID == "" {
		t.Fatalf("study %v: no run_id: %v", args, err)
	}
	return doc.RunID
}

// TestServeRealRuns is the "done when": a store holding a
// copy-errors run and two vacuum runs (16 and 17), made by real studies
// on managed servers at tiny sizes, served by two pglab serve processes
// at once: / lists the three, the copy-errors run's page shows the COPY
// transcript's notice, the comparison of the vacuum runs shows p-values,
// the calls of its family, that the runs were not interleaved and the
// setup differences, and the store's bytes are unchanged by serving. Then a tps study writes to the store while both serve it, and
// its page shows the progress series and the latency distribution of its
// stored HDR histogram.
func TestServeRealRuns(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lab.db")
	copyRun := runID(t, "copy-errors", "--versions", "17", "--store", store)
	vacuum := func(v string) string {
		return runID(t, "vacuum", "--versions", v, "--reps", "4", "--param", "rows=5000", "--param", "cases=95:index", "--store", store)
	}
	vac16, vac17 := vacuum("16"), vacuum("17")

	before := hashFile(t, store)
	a, b := startServe(t, store), startServe(t, store)
	for _, p := range []*servedProcess{a, b} {
		code, body := p.get(t, "/")
		if code != 200 {
			t.Fatalf("GET /: %d", code)
		}
		for _, id := range []string{copyRun, vac16, vac17} {
			if !strings.Contains(body, `href="/runs/`+id+`"`) {
				t.Errorf("/ does not list run %s", id)
			}
		}
	}
	code, body := a.get(t, "/runs/"+copyRun)
	if code != 200 || !strings.Contains(body, "skipping row due to data type incompatibility") {
		t.Errorf("/runs/%s (%d) does not show the COPY transcript's notice", copyRun, code)
	}
	code, body = b.get(t, "/compare?runs="+vac16+","+vac17)
	if code != 200 {
		t.Fatalf("compare: %d", code)
	}
	for _, want := range []string{"What differs between the setups", "server version", "16.", "17.", "p=", "not interleaved", "pg17 vs pg16", "VACUUM time"} {
		if !strings.Contains(body, want) {
			t.Errorf("/compare?runs=%s,%s lacks %q", vac16, vac17, want)
		}
	}
	// VACUUM time is tested; its WAL, which repeats exactly run after run
	// at this size, is compared exactly (counted only when it differs).
	// Runs compared after the fact share no rounds: no measure is tested
	// on its own.
	if line := familyLine(body); !regexp.MustCompile(`Calls: [12] comparisons?;`).MatchString(line) {
		t.Errorf("/compare?runs=%s,%s: the family's calls: %s", vac16, vac17, line)
	}
	// Every link of the three pages answers.
	for _, page := range []string{"/", "/runs/" + copyRun, "/runs/" + vac16} {
		_, body := a.get(t, page)
		for _, m := range regexp.MustCompile(`href="(/[^"#]*)"`).FindAllStringSubmatch(body, -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			if code, _ := a.get(t, link); code != 200 {
				t.Errorf("%s links to %s: %d", page, link, code)
			}
		}
	}
	if hashFile(t, store) != before {
		t.Error("serving changed the store's file")
	}

	// A study writing to the store while both serve it.
	tps := runID(t, "tps", "--versions", "17", "--reps", "1", "--param", "clients=2", "--param", "duration=3s", "--param", "scale=1", "--store", store)
	code, body = b.get(t, "/runs/"+tps)
	if code != 200 {
		t.Fatalf("/runs/%s: %d", tps, code)
	}
	for _, want := range []string{"Transactions per second", "Latency distribution", "p99.99", "pgbench-summary"} {
		if !strings.Contains(body, want) {
			t.Errorf("/runs/%s lacks %q", tps, want)
		}
	}
	if _, body := a.get(t, "/?study=tps"); !strings.Contains(body, tps) {
		t.Errorf("the first server does not list the new run %s", tps)
	}
}

// familyLine returns the "Calls: …" line of a page, for a failure's message.
func familyLine(body string) string {
	if i := strings.Index(body, "Calls:"); i >= 0 {
		line, _, _ := strings.Cut(body[i:], "\n")
		return line
	}
	return "(no Calls: line)"
}
