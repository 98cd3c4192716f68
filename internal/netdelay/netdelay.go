// Package netdelay is a TCP proxy on the loopback interface that adds a
// round trip between clients and a server, to stand for a network farther
// away than loopback (seed 003's "pgbench from another host", seed 004's
// cloud commits) where netem is not available.
//
// Each chunk of bytes is held until its own arrival time (the kernel's
// receive timestamp) plus the one-way delay of its direction, so a stream
// is pipelined rather than slowed once per chunk, and a request/response
// exchange pays the round trip once. Order and content are kept; a
// half-close (FIN) and a reset travel with the same delay as the data
// before them; a new connection's first bytes also wait one round trip
// (the TCP handshake a real network would have cost).
//
// Go timers and goroutine hand-offs cost hundreds of microseconds on a
// loaded small machine, more than the 0.1 ms round trips this proxy must
// express. The proxy therefore runs in a helper process of its own (this
// same executable re-executed; see the package's init), as one OS thread
// with a real-time scheduling class where permitted, non-blocking sockets
// and epoll with nanosecond timeouts, waking a little before each release
// time (its measured timer lateness) and spinning the rest. The measuring
// process's scheduler and garbage collector never delay a release.
//
// [Proxy.Probe] measures the round trip actually added, on PostgreSQL
// connections: that measured value, not the setting, is what a report
// states.
package netdelay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options describe a proxy.
type Options struct {
	// Upstream is the server's host:port.
	Upstream string
	// RTT is the round trip added: half of it client to server, half server
	// to client, unless Up or Down is set.
	RTT time.Duration
	// Up and Down, when either is non-zero, are the one-way delays
	// client→server and server→client instead of RTT/2 each.
	Up, Down time.Duration
	// NoHandshake leaves a new connection's first bytes without the round
	// trip of the TCP handshake.
	NoHandshake bool
}

// MaxRTT is the largest round trip a proxy accepts.
const MaxRTT = 10 * time.Second

func (o Options) oneWay() (up, down time.Duration, err error) {
	if o.RTT < 0 || o.Up < 0 || o.Down < 0 {
		return 0, 0, fmt.Errorf("netdelay: negative delay")
	}
	up, down = o.Up, o.Down
	if up == 0 && down == 0 {
		up = o.RTT / 2
		down = o.RTT - up
	}
	if up+down > MaxRTT {
		return 0, 0, fmt.Errorf("netdelay: round trip %v is over the limit of %v", up+down, MaxRTT)
	}
	return up, down, nil
}

// Proxy forwards connections from its loopback address to Upstream with
// the delay added. Close it to stop the helper process and every
// connection.
type Proxy struct {
	opts     Options
	up, down time.Duration
	addr     *net.TCPAddr

	cmd    *exec.Cmd
	ctl    *os.File // the helper's stdin: requests; closing it stops the helper
	resp   *bufio.Reader
	stderr *limitedBuffer
	done   chan struct{}

	mu      sync.Mutex // serialises requests and Close
	closed  bool
	waitErr error
}

// helperEnv carries the helper's configuration; its presence makes the
// executable run as a proxy helper (see init).
const helperEnv = "PGLAB_NETDELAY_HELPER"

// helperConfig is what the parent passes to the helper.
type helperConfig struct {
	Upstream  string `json:"upstream"` // ip:port
	UpNS      int64  `json:"up_ns"`
	DownNS    int64  `json:"down_ns"`
	Handshake bool   `json:"handshake"`
}

// Start listens on a free port of 127.0.0.1 and starts the helper process
// that forwards each connection to opts.Upstream with the delay added. It
// returns once the helper is ready.
func Start(opts Options) (*Proxy, error) {
	up, down, err := opts.oneWay()
	if err != nil {
		return nil, err
	}
	raddr, err := net.ResolveTCPAddr("tcp", opts.Upstream)
	if err != nil {
		return nil, fmt.Errorf("netdelay: upstream %q: %w", opts.Upstream, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("netdelay: find this executable to run the helper: %w", err)
	}
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, fmt.Errorf("netdelay: listen: %w", err)
	}
	lnFile, err := ln.File()
	addr := ln.Addr().(*net.TCPAddr)
	ln.Close()
	if err != nil {
		return nil, fmt.Errorf("netdelay: listener: %w", err)
	}
	defer lnFile.Close()
	cfg, _ := json.Marshal(helperConfig{
		Upstream: raddr.String(), UpNS: int64(up), DownNS: int64(down),
		Handshake: !opts.NoHandshake && up+down > 0,
	})
	p := &Proxy{opts: opts, up: up, down: down, addr: addr, stderr: &limitedBuffer{max: 8 << 10}, done: make(chan struct{})}
	if err := p.spawn(exe, string(cfg), lnFile); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Proxy) spawn(exe, cfg string, ln *os.File) error {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("netdelay: pipe: %w", err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return fmt.Errorf("netdelay: pipe: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"="+cfg)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ctlR, respW, p.stderr
	cmd.ExtraFiles = []*os.File{ln}
	// Its own process group: a terminal's Ctrl-C reaches pglab, which
	// closes the proxy when it is done with it. The helper ends by itself
	// when its stdin closes, which also happens when this process dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	ctlR.Close()
	respW.Close()
	if err != nil {
		ctlW.Close()
		respR.Close()
		return fmt.Errorf("netdelay: start helper: %w", err)
	}
	p.cmd, p.ctl, p.resp = cmd, ctlW, bufio.NewReader(respR)
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		respR.Close()
		close(p.done)
	}()
	ready := make(chan error, 1)
	go func() {
		line, err := p.resp.ReadString('\n')
		switch {
		case err != nil:
			ready <- fmt.Errorf("netdelay: helper exited before it was ready%s", p.stderrTail())
		case strings.TrimSpace(line) != "ready":
			ready <- fmt.Errorf("netdelay: helper: %s", strings.TrimSpace(strings.TrimPrefix(line, "error:")))
		default:
			ready <- nil
		}
	}()
	select {
	case err = <-ready:
	case <-time.After(10 * time.Second):
		err = fmt.Errorf("netdelay: helper not ready after 10s%s", p.stderrTail())
	}
	if err != nil {
		p.Close()
		return err
	}
	return nil
}

func (p *Proxy) stderrTail() string {
	s := strings.TrimSpace(p.stderr.String())
	if s == "" {
		return ""
	}
	return ": " + s
}

// Addr returns the proxy's address (127.0.0.1:port).
func (p *Proxy) Addr() string { return p.addr.String() }

// Host returns the proxy's IP address as text.
func (p *Proxy) Host() string { return p.addr.IP.String() }

// Port returns the proxy's port.
func (p *Proxy) Port() uint16 { return uint16(p.addr.Port) }

// Upstream returns the address new connections are forwarded to.
func (p *Proxy) Upstream() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opts.Upstream
}

// RTT returns the round trip asked for (up + down); what was achieved is
// measured by Probe.
func (p *Proxy) RTT() time.Duration { return p.up + p.down }

// Delays returns the one-way delays client→server and server→client.
func (p *Proxy) Delays() (up, down time.Duration) { return p.up, p.down }

// PID returns the helper process's id.
func (p *Proxy) PID() int { return p.cmd.Process.Pid }

// Done is closed when the helper process has exited (after Close, or if it
// died).
func (p *Proxy) Done() <-chan struct{} { return p.done }

// Err returns why the helper ended when it ended by itself, or nil while
// it runs or after Close.
func (p *Proxy) Err() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	return fmt.Errorf("netdelay: helper (pid %d) exited: %v%s", p.cmd.Process.Pid, p.waitErr, p.stderrTail())
}

// Stats are the helper's counters since it started, and the lateness of
// its releases since the previous Stats call.
type Stats struct {
	// Sched is the helper thread's scheduling: "SCHED_FIFO", "nice -10" or
	// "normal" (what the operating system permitted).
	Sched string `json:"sched"`
	// Accepted is the number of connections accepted; Open those still
	// open.
	Accepted int64 `json:"accepted"`
	Open     int64 `json:"open"`
	// Chunks and Bytes released, both directions.
	Chunks int64 `json:"chunks"`
	Bytes  int64 `json:"bytes"`
	// Releases counts the chunks in the lateness figures, which are how
	// long after its due time each chunk was written, in microseconds.
	Releases   int64   `json:"releases"`
	LateP50US  float64 `json:"late_p50_us"`
	LateP99US  float64 `json:"late_p99_us"`
	LateMaxUS  float64 `json:"late_max_us"`
	LateMeanUS float64 `json:"late_mean_us"`
	// EarlyUS is how long before a release time the helper currently asks
	// to be woken (its measured timer lateness).
	EarlyUS float64 `json:"early_us"`
	// LeadUS is how long before its due time a chunk is written: the
	// measured time of a write, a hop a direct connection does not have.
	LeadUS float64 `json:"lead_us"`
	// CPUSeconds is the helper's CPU time (user + system) so far.
	CPUSeconds float64 `json:"cpu_s"`
}

// Stats asks the helper for its counters.
func (p *Proxy) Stats() (Stats, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var st Stats
	if p.closed {
		return st, errors.New("netdelay: proxy closed")
	}
	select {
	case <-p.done:
		return st, fmt.Errorf("netdelay: helper (pid %d) exited%s", p.cmd.Process.Pid, p.stderrTail())
	default:
	}
	if _, err := p.ctl.Write([]byte("stats\n")); err != nil {
		return st, fmt.Errorf("netdelay: ask helper: %w", err)
	}
	line, err := p.resp.ReadBytes('\n')
	if err != nil {
		return st, fmt.Errorf("netdelay: helper's answer: %w", err)
	}
	if err := json.Unmarshal(line, &st); err != nil {
		return st, fmt.Errorf("netdelay: helper's answer %q: %w", bytes.TrimSpace(line), err)
	}
	st.CPUSeconds = processCPU(p.cmd.Process.Pid)
	return st, nil
}

// SetUpstream points new connections at another address (a server that
// came back on another port); open connections keep theirs.
func (p *Proxy) SetUpstream(upstream string) error {
	raddr, err := net.ResolveTCPAddr("tcp", upstream)
	if err != nil {
		return fmt.Errorf("netdelay: upstream %q: %w", upstream, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("netdelay: proxy closed")
	}
	if _, err := p.ctl.Write([]byte("upstream " + raddr.String() + "\n")); err != nil {
		return fmt.Errorf("netdelay: tell helper: %w", err)
	}
	line, err := p.resp.ReadString('\n')
	if err != nil {
		return fmt.Errorf("netdelay: helper's answer: %w", err)
	}
	if line = strings.TrimSpace(line); line != "ok" {
		return fmt.Errorf("netdelay: helper: %s", strings.TrimPrefix(line, "error: "))
	}
	p.opts.Upstream = upstream
	return nil
}

// Close stops the helper: every forwarded connection is closed and the
// listening port released. It returns once the helper has exited.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.done
		return nil
	}
	p.closed = true
	p.ctl.Close()
	p.mu.Unlock()
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
	}
	p.cmd.Process.Kill()
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("netdelay: helper (pid %d) did not exit", p.cmd.Process.Pid)
	}
}

// processCPU returns a process's CPU seconds, all threads, from their
// schedstat (nanoseconds on the CPU), or 0.
func processCPU(pid int) float64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var ns int64
	for _, t := range tasks {
		data, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			v, _ := strconv.ParseInt(f[0], 10, 64)
			ns += v
		}
	}
	return float64(ns) / 1e9
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
