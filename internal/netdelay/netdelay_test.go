package netdelay

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// echoServer answers every byte with the same byte; on the client's EOF it
// half-closes too.
func echoServer(t *testing.T) string {
	t.Helper()
	return server(t, func(c net.Conn) {
		io.Copy(c, c)
		c.(*net.TCPConn).CloseWrite()
	})
}

// server runs serve on every connection of a new loopback listener.
func server(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T, opts Options) *Proxy {
	t.Helper()
	p, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c.(*net.TCPConn)
}

func pingPong(t *testing.T, c net.Conn, n int) time.Duration {
	t.Helper()
	r := bufio.NewReader(c)
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := c.Write([]byte("ping\n")); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil || line != "ping\n" {
			t.Fatalf("echo: %q %v", line, err)
		}
	}
	return time.Since(start) / time.Duration(n)
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Upstream: "127.0.0.1:1", RTT: -time.Millisecond},
		{Upstream: "127.0.0.1:1", Up: -1},
		{Upstream: "127.0.0.1:1", RTT: time.Hour},
		{Upstream: "no such host:x", RTT: time.Millisecond},
	} {
		if p, err := Start(o); err == nil {
			p.Close()
			t.Errorf("Start(%+v) succeeded", o)
		}
	}
}

func TestDelayIsAtLeastTheRoundTrip(t *testing.T) {
	p := start(t, Options{Upstream: echoServer(t), RTT: 4 * time.Millisecond})
	if p.RTT() != 4*time.Millisecond {
		t.Fatalf("RTT() = %v", p.RTT())
	}
	c := dial(t, p.Addr())
	pingPong(t, c, 1) // the handshake's round trip
	if rt := pingPong(t, c, 20); rt < 4*time.Millisecond {
		t.Fatalf("round trip through a 4 ms proxy took %v", rt)
	}
}

func TestOneWayDelays(t *testing.T) {
	p := start(t, Options{Upstream: echoServer(t), Up: 3 * time.Millisecond, Down: time.Millisecond, NoHandshake: true})
	if up, down := p.Delays(); up != 3*time.Millisecond || down != time.Millisecond || p.RTT() != 4*time.Millisecond {
		t.Fatalf("Delays() = %v, %v", up, down)
	}
	c := dial(t, p.Addr())
	if rt := pingPong(t, c, 10); rt < 4*time.Millisecond {
		t.Fatalf("round trip through 3 ms + 1 ms took %v", rt)
	}
}

func TestHandshakeCostsARoundTrip(t *testing.T) {
	p := start(t, Options{Upstream: echoServer(t), RTT: 10 * time.Millisecond})
	t0 := time.Now()
	c := dial(t, p.Addr())
	pingPong(t, c, 1)
	if d := time.Since(t0); d < 20*time.Millisecond {
		t.Fatalf("connect and first exchange took %v, want >= 2 round trips of 10ms", d)
	}
}

func TestContentAndOrderKept(t *testing.T) {
	p := start(t, Options{Upstream: echoServer(t), RTT: 2 * time.Millisecond})
	c := dial(t, p.Addr())
	want := make([]byte, 8<<20) // several windows' worth: reading pauses and resumes
	rand.Read(want)
	go func() {
		c.Write(want)
		c.CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want %d identical bytes", len(got), len(want))
	}
}

func TestManyConnections(t *testing.T) {
	p := start(t, Options{Upstream: echoServer(t), RTT: time.Millisecond})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := net.Dial("tcp", p.Addr())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			r := bufio.NewReader(c)
			for k := 0; k < 50; k++ {
				msg := fmt.Sprintf("conn %d message %d %s\n", i, k, strings.Repeat("x", i*k))
				if _, err := c.Write([]byte(msg)); err != nil {
					errs <- err
					return
				}
				line, err := r.ReadString('\n')
				if err != nil || line != msg {
					errs <- fmt.Errorf("conn %d: got %q, %v", i, line, err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := p.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Accepted != 64 || st.Chunks < 64*50*2 || st.Sched == "" {
		t.Fatalf("stats %+v: want 64 connections and at least 6400 chunks", st)
	}
}

func TestHalfCloseEachWay(t *testing.T) {
	// The server reads to EOF, then answers and closes: the client's
	// half-close must reach it, and its answer must still come back.
	up := server(t, func(c net.Conn) {
		data, _ := io.ReadAll(c)
		c.Write([]byte(fmt.Sprintf("read %d bytes", len(data))))
	})
	p := start(t, Options{Upstream: up, RTT: 2 * time.Millisecond})
	c := dial(t, p.Addr())
	c.Write([]byte("hello"))
	c.CloseWrite()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "read 5 bytes" {
		t.Fatalf("got %q, %v", got, err)
	}

	// The server half-closes first; the client can still send.
	up2 := server(t, func(c net.Conn) {
		c.Write([]byte("bye"))
		c.(*net.TCPConn).CloseWrite()
		data, _ := io.ReadAll(c)
		if string(data) != "late words" {
			panic(fmt.Sprintf("server read %q", data))
		}
	})
	p2 := start(t, Options{Upstream: up2, RTT: 2 * time.Millisecond})
	c2 := dial(t, p2.Addr())
	got, err = io.ReadAll(c2)
	if err != nil || string(got) != "bye" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := c2.Write([]byte("late words")); err != nil {
		t.Fatal(err)
	}
	c2.CloseWrite()
	waitFor(t, func() bool { st, _ := p2.Stats(); return st.Open == 0 }, "the connection to close once both sides are done")
}

// TestResetReachesTheClient: the server resets its connection and the
// client's read says so. The server resets once the client's dial has
// returned: on a loaded machine the proxy could carry the reset back
// before the dialling goroutine had checked its connect, which then
// failed with "connection reset by peer".
func TestResetReachesTheClient(t *testing.T) {
	connected := make(chan struct{})
	up := server(t, func(c net.Conn) {
		<-connected
		c.Write([]byte("x"))
		c.(*net.TCPConn).SetLinger(0)
	})
	p := start(t, Options{Upstream: up, RTT: time.Millisecond})
	c := dial(t, p.Addr())
	close(connected)
	_, err := io.ReadAll(c)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read after the server's reset: %v, want ECONNRESET", err)
	}
}

func TestUpstreamRefused(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	p := start(t, Options{Upstream: addr, RTT: time.Millisecond})
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		return // reset before the client's connect completed: also a failure
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	c.Write([]byte("hello"))
	if _, err := io.ReadAll(c); err == nil {
		t.Fatal("a connection to a refused upstream ended cleanly")
	}
}

func TestCloseStopsEverything(t *testing.T) {
	p, err := Start(Options{Upstream: echoServer(t), RTT: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	pingPong(t, c, 1)
	pid := p.PID()
	done := make(chan error)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not return")
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Fatalf("helper %d still exists after Close", pid)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after Close")
	}
	if _, err := net.Dial("tcp", p.Addr()); err == nil {
		t.Fatal("proxy port still accepts after Close")
	}
	if p.Err() != nil || p.Close() != nil {
		t.Fatal("a closed proxy reports an error")
	}
}

func TestHelperDeathIsReported(t *testing.T) {
	p := start(t, Options{Upstream: echoServer(t), RTT: time.Millisecond})
	syscall.Kill(p.PID(), syscall.SIGKILL)
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed after the helper died")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "helper") {
		t.Fatalf("Err() = %v", err)
	}
	if _, err := p.Stats(); err == nil {
		t.Fatal("Stats of a dead helper succeeded")
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSetUpstream(t *testing.T) {
	a := server(t, func(c net.Conn) { c.Write([]byte("a")) })
	b := server(t, func(c net.Conn) { c.Write([]byte("b")) })
	p := start(t, Options{Upstream: a, RTT: time.Millisecond})
	read := func() string {
		c := dial(t, p.Addr())
		got, _ := io.ReadAll(c)
		return string(got)
	}
	if got := read(); got != "a" {
		t.Fatalf("first upstream answered %q", got)
	}
	if err := p.SetUpstream(b); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "b" || p.Upstream() != b {
		t.Fatalf("after SetUpstream: %q, Upstream() = %s", got, p.Upstream())
	}
	if err := p.SetUpstream("no such host:x"); err == nil {
		t.Fatal("SetUpstream to a bad address succeeded")
	}
}
