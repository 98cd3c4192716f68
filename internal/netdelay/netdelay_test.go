package netdelay

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// echoServer answers each line with the same line.
func echoServer(t *testing.T) string {
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
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(t *testing.T, addr string, n int) time.Duration {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
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

func TestDelayAddsToRoundTrip(t *testing.T) {
	up := echoServer(t)
	p, err := Start(up, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rt := roundTrip(t, p.Addr(), 20)
	// Two one-way delays of 5 ms: at least 10 ms per round trip.
	if rt < 10*time.Millisecond {
		t.Fatalf("round trip through a 5 ms proxy took %v, want >= 10ms", rt)
	}
}

func TestContentAndOrderKept(t *testing.T) {
	up := echoServer(t)
	p, err := Start(up, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB, several chunks
	go func() { c.Write([]byte(want)); c.(*net.TCPConn).CloseWrite() }()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got %d bytes, want %d identical bytes", len(got), len(want))
	}
}

func TestCloseEndsConnections(t *testing.T) {
	up := echoServer(t)
	p, err := Start(up, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roundTrip(t, p.Addr(), 1)
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after Close")
	}
}
