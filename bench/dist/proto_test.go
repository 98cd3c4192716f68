package dist

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pglab/pglab/bench"
)

// fakeWorker speaks the protocol by hand, to test what the coordinator
// does with workers that misbehave.
type fakeWorker struct {
	t *testing.T
	c *conn
}

func dialFake(t *testing.T, addr, version, token string) *fakeWorker {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	w := &fakeWorker{t: t, c: newConn(nc)}
	t.Cleanup(w.c.close)
	f, err := w.c.recv(0)
	if err != nil || f.Type != msgChallenge {
		t.Fatalf("challenge: %v %v", f.Type, err)
	}
	var ch challengeMsg
	if err := decode(f, &ch); err != nil {
		t.Fatal(err)
	}
	if err := w.c.send(msgHello, helloMsg{Protocol: Protocol, Version: version, Name: "fake", Index: -1, MAC: mac(token, ch.Nonce)}); err != nil {
		t.Fatal(err)
	}
	return w
}

// next returns the next frame other than a heartbeat.
func (w *fakeWorker) next() frame {
	w.t.Helper()
	for {
		f, err := w.c.recv(0)
		if err != nil {
			w.t.Fatalf("recv: %v", err)
		}
		if f.Type != msgHeartbeat {
			return f
		}
	}
}

func listen(t *testing.T, opts Options) *Coordinator {
	t.Helper()
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.Version == "" {
		opts.Version = "v1"
	}
	c, err := Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(nil) })
	return c
}

func TestRefusesAnotherVersion(t *testing.T) {
	c := listen(t, Options{Workers: 2, JoinTimeout: 10 * time.Second})
	w := dialFake(t, c.Addr().String(), "v2", "")
	if f := w.next(); f.Type != msgRefuse {
		t.Fatalf("got %q, want refuse", f.Type)
	}
	start := time.Now()
	err := c.Accept(context.Background())
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "runs pglab v2, this coordinator pglab v1") {
		t.Fatalf("Accept: %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("the refusal took %v to end the run", time.Since(start))
	}
}

func TestToken(t *testing.T) {
	if _, err := Listen(Options{Listen: "0.0.0.0:0", Workers: 1, Version: "v1"}); err == nil || !strings.Contains(err.Error(), "--token") {
		t.Fatalf("a non-loopback coordinator without a token: %v", err)
	}
	c := listen(t, Options{Workers: 1, Token: "right", JoinTimeout: 10 * time.Second})
	bad := dialFake(t, c.Addr().String(), "v1", "wrong")
	if f := bad.next(); f.Type != msgRefuse {
		t.Fatalf("wrong token: got %q, want refuse", f.Type)
	}
	none := dialFake(t, c.Addr().String(), "v1", "")
	if f := none.next(); f.Type != msgRefuse {
		t.Fatalf("no token: got %q, want refuse", f.Type)
	}
	dialFake(t, c.Addr().String(), "v1", "right")
	if err := c.Accept(context.Background()); err != nil {
		t.Fatalf("the worker with the right token was not admitted: %v", err)
	}
	late := dialFake(t, c.Addr().String(), "v1", "right")
	if f := late.next(); f.Type != msgRefuse {
		t.Fatalf("a worker beyond --expect-workers: got %q, want refuse", f.Type)
	}
}

// TestNeverReady: a worker that joins but never becomes ready fails the
// run at the ready timeout, and the other worker is told to stop.
func TestNeverReady(t *testing.T) {
	c := listen(t, Options{Workers: 2, ReadyTimeout: time.Second})
	a := dialFake(t, c.Addr().String(), "v1", "")
	b := dialFake(t, c.Addr().String(), "v1", "")
	if err := c.Accept(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := bench.DefaultConfig()
	cfg.Clients = 4
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(context.Background(), cfg)
		done <- err
	}()
	f := a.next()
	if f.Type != msgAssign {
		t.Fatalf("got %q, want assign", f.Type)
	}
	var m assignMsg
	if err := decode(f, &m); err != nil {
		t.Fatal(err)
	}
	var share bench.Config
	if err := json.Unmarshal(m.Config, &share); err != nil {
		t.Fatal(err)
	}
	if err := a.c.send(msgReady, readyMsg{Run: m.Run, Fingerprint: fingerprint(share), Scale: 1}); err != nil {
		t.Fatal(err)
	}
	b.next() // its assignment, never answered
	start := time.Now()
	err := <-done
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "(fake) not ready within 1s") {
		t.Fatalf("Run: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the ready timeout took %v", d)
	}
	if f := a.next(); f.Type != msgStop {
		t.Errorf("the ready worker got %q, want stop", f.Type)
	}
}

// TestRefusesAnotherScript: a worker whose ready names another
// configuration (another script, another build's Config) is refused.
func TestRefusesAnotherScript(t *testing.T) {
	c := listen(t, Options{Workers: 1})
	a := dialFake(t, c.Addr().String(), "v1", "")
	if err := c.Accept(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(context.Background(), bench.DefaultConfig())
		done <- err
	}()
	var m assignMsg
	if err := decode(a.next(), &m); err != nil {
		t.Fatal(err)
	}
	var share bench.Config
	_ = json.Unmarshal(m.Config, &share)
	share.Scripts[0].Text += "\n-- changed\n"
	_ = a.c.send(msgReady, readyMsg{Run: m.Run, Fingerprint: fingerprint(share), Scale: 1})
	err := <-done
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "another configuration or script") {
		t.Fatalf("Run: %v", err)
	}
}

// TestLostWorker: a worker whose connection closes mid-run fails the run
// at once, with nothing merged.
func TestLostWorker(t *testing.T) {
	c := listen(t, Options{Workers: 2})
	a := dialFake(t, c.Addr().String(), "v1", "")
	b := dialFake(t, c.Addr().String(), "v1", "")
	if err := c.Accept(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := bench.DefaultConfig()
	cfg.Clients = 2
	done := make(chan error, 1)
	var out *Outcome
	go func() {
		var err error
		out, err = c.Run(context.Background(), cfg)
		done <- err
	}()
	for _, w := range []*fakeWorker{a, b} {
		var m assignMsg
		if err := decode(w.next(), &m); err != nil {
			t.Fatal(err)
		}
		var share bench.Config
		_ = json.Unmarshal(m.Config, &share)
		_ = w.c.send(msgReady, readyMsg{Run: m.Run, Fingerprint: fingerprint(share), Scale: 1})
	}
	for _, w := range []*fakeWorker{a, b} {
		if f := w.next(); f.Type != msgStart {
			t.Fatalf("got %q, want start", f.Type)
		}
	}
	start := time.Now()
	b.c.close()
	err := <-done
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "(fake) lost: connection closed") {
		t.Fatalf("Run: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the lost worker was seen after %v", d)
	}
	if out == nil || out.Result != nil {
		t.Errorf("a failed run passed off a merged result: %+v", out)
	}
	if f := a.next(); f.Type != msgStop {
		t.Errorf("the other worker got %q, want stop", f.Type)
	}
}

// TestNoPasswordOnTheWire: the share sent to a worker carries the
// connection settings without the DSN's password.
func TestNoPasswordOnTheWire(t *testing.T) {
	c := listen(t, Options{Workers: 1})
	a := dialFake(t, c.Addr().String(), "v1", "")
	if err := c.Accept(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := bench.DefaultConfig()
	cfg.DBName = "postgres://u:topsecret@db.example/bench?sslmode=require"
	cfg.ConnString = "host=db.example password=topsecret2 user=u"
	go c.Run(context.Background(), cfg)
	f := a.next()
	if f.Type != msgAssign {
		t.Fatalf("got %q", f.Type)
	}
	if strings.Contains(string(f.Body), "topsecret") {
		t.Fatalf("the assignment carries the password: %s", f.Body)
	}
	if !strings.Contains(string(f.Body), "db.example") {
		t.Fatalf("the assignment lost the connection settings: %s", f.Body)
	}
}

// TestIntervalsAndResultsMerge: two workers' intervals and results go
// through the wire encoding and come out merged: the -P line counts both
// workers' transactions, the summary their sum, the percentiles those of
// one histogram of every sample; without -P nothing is printed but the
// series is kept.
func TestIntervalsAndResultsMerge(t *testing.T) {
	for _, progress := range []time.Duration{time.Second, 0} {
		var stderr strings.Builder
		c := listen(t, Options{Workers: 2, Stderr: &syncWriter{w: &stderr}})
		ws := []*fakeWorker{dialFake(t, c.Addr().String(), "v1", ""), dialFake(t, c.Addr().String(), "v1", "")}
		if err := c.Accept(context.Background()); err != nil {
			t.Fatal(err)
		}
		cfg := bench.DefaultConfig()
		cfg.Clients, cfg.Transactions, cfg.Progress, cfg.Quiet, cfg.NoVacuum = 4, 5, progress, false, true
		type ret struct {
			out *Outcome
			err error
		}
		done := make(chan ret, 1)
		go func() {
			out, err := c.Run(context.Background(), cfg)
			done <- ret{out, err}
		}()
		shares := make([]bench.Config, 2)
		runID := 0
		for i, w := range ws {
			var m assignMsg
			if err := decode(w.next(), &m); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(m.Config, &shares[i])
			runID = m.Run
			_ = w.c.send(msgReady, readyMsg{Run: m.Run, Fingerprint: fingerprint(shares[i]), Scale: 1, ServerVersion: "17.0"})
		}
		all, _ := bench.NewFigures(&cfg)
		for i, w := range ws {
			if f := w.next(); f.Type != msgStart {
				t.Fatalf("got %q", f.Type)
			}
			fig, _ := bench.NewFigures(&shares[i])
			for k := 0; k < 10; k++ {
				v := int64(100*(i+1) + k*37)
				_ = fig.Hist.RecordValue(v)
				_ = all.Hist.RecordValue(v)
			}
			fig.Stats = bench.Stats{Count: 10, Latency: bench.Series{Count: 10, Min: 100, Max: 500, Sum: 3000, Sum2: 1e6}}
			fig.Scripts[0] = fig.Stats
			fig.BenchUS, fig.ConnectUS = 1000000, 2000
			h, _ := bench.EncodeHist(fig.Hist)
			_ = w.c.send(msgInterval, intervalMsg{Run: runID, No: 1, ElapsedUS: 1000000, Stats: fig.Stats, Hist: h})
			_ = w.c.send(msgResult, resultMsg{Run: runID, Figures: fig, Hist: h, AbortThread: -1})
		}
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		res := r.out.Result
		if res.Transactions != 20 || res.Clients != 4 || res.Threads != 2 || len(res.Progress) != 1 || res.Progress[0].TPS != 20 {
			t.Errorf("-P %v: transactions %d clients %d threads %d progress %+v", progress, res.Transactions, res.Clients, res.Threads, res.Progress)
		}
		if !res.Histogram.Equals(all.Hist) || res.LatencyP99Ms != float64(all.Hist.ValueAtQuantile(99))/1000 {
			t.Errorf("-P %v: merged histogram or p99 differ (p99 %v)", progress, res.LatencyP99Ms)
		}
		printed := strings.Contains(stderr.String(), "progress: 1.0 s, 20.0 tps")
		if printed != (progress > 0) {
			t.Errorf("-P %v: stderr %q", progress, stderr.String())
		}
		c.Close(nil)
	}
}

// syncWriter serializes writes to a strings.Builder.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
