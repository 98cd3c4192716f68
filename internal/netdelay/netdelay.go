// Package netdelay is a TCP proxy on the loopback interface that adds a
// fixed one-way delay to every byte in each direction, to simulate a
// network farther away than loopback (seed 004's local-versus-cloud gap)
// where netem cannot be used. Order and content are kept; a round trip
// through the proxy takes 2 × Delay longer.
package netdelay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy forwards connections from its loopback address to Upstream.
type Proxy struct {
	// Upstream is the host:port connections are forwarded to.
	Upstream string
	// Delay is added to each direction.
	Delay time.Duration

	ln     net.Listener
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// Start listens on a free port of 127.0.0.1 and forwards each accepted
// connection to upstream with delay added each way.
func Start(upstream string, delay time.Duration) (*Proxy, error) {
	if delay < 0 {
		return nil, fmt.Errorf("netdelay: negative delay %v", delay)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netdelay: listen: %w", err)
	}
	p := &Proxy{Upstream: upstream, Delay: delay, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's address (127.0.0.1:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port returns the proxy's port.
func (p *Proxy) Port() uint16 { return uint16(p.ln.Addr().(*net.TCPAddr).Port) }

// Close stops accepting, closes every forwarded connection and waits for
// the proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var d net.Dialer
			up, err := d.DialContext(ctx, "tcp", p.Upstream)
			cancel()
			if err != nil {
				return
			}
			if !p.track(up) {
				return
			}
			defer p.untrack(up)
			var inner sync.WaitGroup
			inner.Add(2)
			go func() { defer inner.Done(); p.pump(up, c); closeWrite(up) }()
			go func() { defer inner.Done(); p.pump(c, up); closeWrite(c) }()
			inner.Wait()
		}()
	}
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}

// chunk is data read at a moment, to be written Delay later.
type chunk struct {
	due  time.Time
	data []byte
}

// pump copies src to dst, holding each chunk until Delay after it arrived.
func (p *Proxy) pump(dst, src net.Conn) {
	if p.Delay == 0 {
		io.Copy(dst, src)
		return
	}
	queue := make(chan chunk, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range queue {
			if d := time.Until(ch.due); d > 0 {
				time.Sleep(d)
			}
			if _, err := dst.Write(ch.data); err != nil {
				for range queue {
				}
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			queue <- chunk{due: time.Now().Add(p.Delay), data: append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.Close()
			}
			break
		}
	}
	close(queue)
	<-done
}
