package cli_test

// The network stops answering mid-run. The server is reached through two
// network namespaces made by the test and joined by a veth pair: pglab runs
// in the client namespace, a TCP relay listens in the server namespace and
// forwards to a managed server on the host's loopback. Neither namespace
// has any other interface or route, so no packet can leave them. Taking
// the server side's link down makes the network stop answering without
// any error reaching the client: only pglab's TCP user timeout and
// keepalives can end the wait.

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pglab/pglab/results"
	"golang.org/x/sys/unix"
)

// netLab is a pair of namespaces and the relay into the server one.
type netLab struct {
	t                  *testing.T
	clientNS, serverNS string
	serverIf           string
	addr               string // relay address in the server namespace
}

func ipCmd(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// newNetLab makes the namespaces and a relay to upstream (host:port on
// this namespace's loopback). Everything is removed when the test ends.
func newNetLab(t *testing.T, upstream string) *netLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("network namespaces need root (pglab's tests run as root in CI)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("the ip command (iproute2) is missing: apt-get install iproute2")
	}
	var b [3]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	// 198.18.0.0/15 is reserved for network benchmark tests (RFC 2544);
	// these addresses exist only inside the two namespaces.
	subnet := fmt.Sprintf("198.18.%d.%d", b[0], b[1]&0xfc)
	base := strings.TrimSuffix(subnet, fmt.Sprintf(".%d", b[1]&0xfc))
	cAddr := fmt.Sprintf("%s.%d", base, int(b[1]&0xfc)+1)
	sAddr := fmt.Sprintf("%s.%d", base, int(b[1]&0xfc)+2)
	l := &netLab{t: t, clientNS: "pglabc" + id, serverNS: "pglabs" + id, serverIf: "pgls" + id}
	clientIf := "pglc" + id
	ipCmd(t, "netns", "add", l.clientNS)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", l.clientNS).Run() })
	ipCmd(t, "netns", "add", l.serverNS)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", l.serverNS).Run() })
	cMAC := fmt.Sprintf("02:70:67:%02x:%02x:01", b[0], b[1])
	sMAC := fmt.Sprintf("02:70:67:%02x:%02x:02", b[0], b[1])
	ipCmd(t, "link", "add", clientIf, "address", cMAC, "netns", l.clientNS, "type", "veth",
		"peer", "name", l.serverIf, "address", sMAC, "netns", l.serverNS)
	// Permanent neighbour entries: when the link goes down, packets are
	// still sent and vanish (no ARP failure turns into "no route to host").

	ipCmd(t, "-n", l.clientNS, "addr", "add", cAddr+"/30", "dev", clientIf)
	ipCmd(t, "-n", l.serverNS, "addr", "add", sAddr+"/30", "dev", l.serverIf)
	ipCmd(t, "-n", l.clientNS, "link", "set", clientIf, "up")
	ipCmd(t, "-n", l.serverNS, "link", "set", l.serverIf, "up")
	ipCmd(t, "-n", l.clientNS, "link", "set", "lo", "up")
	ipCmd(t, "-n", l.serverNS, "link", "set", "lo", "up")
	ipCmd(t, "-n", l.clientNS, "neigh", "replace", sAddr, "lladdr", sMAC, "dev", clientIf, "nud", "permanent")
	ipCmd(t, "-n", l.serverNS, "neigh", "replace", cAddr, "lladdr", cMAC, "dev", l.serverIf, "nud", "permanent")

	ln := listenInNetns(t, "/run/netns/"+l.serverNS, sAddr+":5432")
	l.addr = ln.Addr().String()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.DialTimeout("tcp", upstream, 5*time.Second)
			if err != nil {
				down.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, down, up)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(up, down); up.Close() }()
			go func() { defer wg.Done(); io.Copy(down, up); down.Close() }()
		}
	}()
	return l
}

// listenInNetns opens a TCP listener inside the network namespace at
// nsPath: a locked OS thread switches to it for the socket call only.
func listenInNetns(t *testing.T, nsPath, addr string) net.Listener {
	t.Helper()
	type res struct {
		l   net.Listener
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			ch <- res{nil, err}
			return // the thread ends with the goroutine
		}
		defer orig.Close()
		ns, err := os.Open(nsPath)
		if err != nil {
			ch <- res{nil, err}
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- res{nil, fmt.Errorf("setns: %w", err)}
			return
		}
		l, err := net.Listen("tcp", addr)
		if unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		} // else the locked thread is discarded when this goroutine ends
		ch <- res{l, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatalf("listen in %s: %v", nsPath, r.err)
	}
	return r.l
}

// cut makes the server namespace stop answering: its side of the link
// goes down, so the client's packets vanish without an error.
func (l *netLab) cut() {
	ipCmd(l.t, "-n", l.serverNS, "link", "set", l.serverIf, "down")
}

// dsnVia rewrites a managed server's DSN to go through the relay, with
// extra libpq parameters.
func (l *netLab) dsnVia(dsn string, extra string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		l.t.Fatal(err)
	}
	u.Host = l.addr
	q := u.Query()
	for _, kv := range strings.Split(extra, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// startInNetns runs pglab inside the client namespace.
func (l *netLab) startPglab(t *testing.T, env []string, args ...string) *proc {
	return startProc(t, env, append([]string{"ip", "netns", "exec", l.clientNS, pglabBinary(t)}, args...)...)
}

// TestNetFaultStopsAnswering cuts the link under a running `pglab bench -T`,
// a study on a user's server and a connection attempt: pglab gives up after
// its TCP user timeout (2 s here, from the DSN) with a message naming the
// timeout, instead of hanging, and the study's run is stored as failed.
func TestNetFaultStopsAnswering(t *testing.T) {
	e := newFaultEnv(t)
	dsn := startInstance(t, "net")
	if r := run(t, "bench", "-i", "-s", "1", "-q", "--target", "net"); r.code != 0 {
		t.Fatalf("bench -i: %s", r.stderr)
	}
	u, _ := url.Parse(dsn)
	timeouts := "tcp_user_timeout=2000&keepalives_idle=1&keepalives_interval=1"

	t.Run("bench", func(t *testing.T) {
		l := newNetLab(t, u.Host)
		p := l.startPglab(t, e.vars(), "bench", "-T", "300", "-c", "4", "-j", "2", "-P", "1", l.dsnVia(dsn, timeouts))
		p.waitStderr(`progress: 1\.0 s`, 30*time.Second)
		l.cut()
		assertTimedOut(t, p, "bench", 30*time.Second, 2, "aborted clients")
	})

	t.Run("connect", func(t *testing.T) {
		l := newNetLab(t, u.Host)
		l.cut()
		p := l.startPglab(t, e.vars(), "bench", "-t", "1", l.dsnVia(dsn, timeouts))
		assertTimedOut(t, p, "connect", 30*time.Second, 1, "")
	})

	t.Run("study", func(t *testing.T) {
		l := newNetLab(t, u.Host)
		store := filepath.Join(t.TempDir(), "r.db")
		p := l.startPglab(t, e.vars(), "study", "commit", "--param", "updates=20000", "--param", "rows=3000",
			"--target", "far="+l.dsnVia(dsn, timeouts), "--store", store)
		// Generous: on a loaded machine the first repetition through the
		// relay has taken close to 90 s.
		waitForMeasurements(t, store, 5, 180*time.Second)
		l.cut()
		assertTimedOut(t, p, "study", 60*time.Second, 1, "")
		rec, ms := storedRun(t, store)
		if rec.Status != results.StatusFailed || len(ms) < 5 {
			t.Errorf("stored run %s with %d measurements, want failed with those made before", rec.Status, len(ms))
		}
	})
}

// assertTimedOut waits for pglab to exit after the link went down and
// checks the exit code (why says what it means), that a message names the
// timeout, and that there is one error line.
func assertTimedOut(t *testing.T, p *proc, what string, limit time.Duration, want int, why string) {
	t.Helper()
	code, took := p.exit(limit)
	t.Logf("%s: exit %d %v after the link went down", what, code, took)
	stderr := p.stderr.String()
	t.Logf("stderr:\n%s", stderr)
	if code != want {
		if why != "" {
			why = " (" + why + ")"
		}
		t.Errorf("exit code %d, want %d%s; stderr:\n%s", code, want, why, stderr)
	}
	if !strings.Contains(stderr, "timed out") {
		t.Errorf("no message names the timeout; stderr:\n%s", stderr)
	}
	assertOneErrorLine(t, stderr)
}
