package bench

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/pglab/pglab/bench/script"
	"golang.org/x/sys/unix"
)

// thread is one -j worker: an OS thread that owns some clients and runs
// their state machines, waiting on their sockets with epoll (or, on the TLS
// fallback path, a goroutine per client).
type thread struct {
	id      int
	r       *runner
	clients []*client
	raw     bool
	epfd    int
	events  []unix.EpollEvent

	chooseRng, throttleRng, sampleRng script.PRNG
	throttleTrigger                   int64

	stats       statsData
	scriptStats []statsData
	cmdStats    [][]cmdStats
	hist        *hdrhistogram.Histogram
	latencyLate int64

	tick       statsData
	tickHist   *hdrhistogram.Histogram
	nextReport int64
	tickNo     int

	connDuration int64
	benchStart   int64
	log          *txLog
	connectErr   error
	wakefd       int // eventfd that interrupts the epoll wait when the run stops
	cpu          int // the CPU the thread is pinned to, or -1
	blockMu      *sync.Mutex
}

func (t *thread) register(c *client) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c.id)}
	if err := unix.EpollCtl(t.epfd, unix.EPOLL_CTL_ADD, c.ln.fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

func (t *thread) armWrite(c *client, on bool) {
	if c.ln == nil || c.ln.fd < 0 {
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c.id)}
	if on {
		ev.Events |= unix.EPOLLOUT
	}
	_ = unix.EpollCtl(t.epfd, unix.EPOLL_CTL_MOD, c.ln.fd, &ev)
}

// readSocket reads what the socket has; it marks the connection lost on EOF
// or a hard error.
func (c *client) readSocket() {
	if c.inE == len(c.in) {
		if c.inS > 0 {
			copy(c.in, c.in[c.inS:c.inE])
			c.inE -= c.inS
			c.inS = 0
		} else {
			grown := make([]byte, 2*len(c.in))
			copy(grown, c.in[:c.inE])
			c.in = grown
		}
	}
	n, errno := rawRead(c.ln.fd, c.in[c.inE:])
	if errno != 0 {
		if errno == eagain || errno == syscall.EINTR {
			return
		}
		c.connLost = true
		c.lostMsg = lostText(errno)
		c.noteLost(errno)
		return
	}
	if n == 0 {
		c.connLost = true
		c.noteLost(io.EOF)
		return
	}
	c.inE += n
	c.onInput()
}

// wakeID marks the thread's eventfd in epoll events (client ids are >= 0).
const wakeID = -1

// runRaw is the epoll loop of a thread on the raw path.
func (t *thread) runRaw() {
	r := t.r
	base := 0
	if len(t.clients) > 0 {
		base = t.clients[0].id
	}
	index := make([]*client, len(t.clients))
	for _, c := range t.clients {
		index[c.id-base] = c
	}
	remains := len(t.clients)
	now := nowUS()
	nextDeadline := int64(1 << 62)
	for _, c := range t.clients {
		c.advance(&now)
		if c.wait == waitDone {
			remains--
			if r.clientEnded(c) {
				return
			}
		} else if c.wait == waitTime {
			nextDeadline = min(nextDeadline, c.deadline())
		}
	}
	for remains > 0 {
		if r.stopped() {
			for _, c := range t.clients {
				if c.wait != waitDone && c.ln != nil {
					c.ln.close()
					c.ln = nil
				}
			}
			return
		}
		now = nowUS()
		timeout := int64(-1)
		until := nextDeadline
		if t.nextReport > 0 && t.nextReport < until {
			until = t.nextReport
		}
		if until < 1<<62 {
			timeout = max(until-now, 0)
		}
		n, errno := epollWait(t.epfd, t.events, timeout)
		if errno != 0 {
			n = 0
		}
		now = nowUS()
		for i := 0; i < n; i++ {
			ev := &t.events[i]
			if ev.Fd == wakeID {
				continue // the run is stopping: seen at the top of the loop
			}
			c := index[int(ev.Fd)-base]
			if c == nil || c.ln == nil || c.wait == waitDone {
				continue
			}
			if ev.Events&unix.EPOLLOUT != 0 && c.wantWrite {
				if !c.flush() {
					c.connLost = true
				}
			}
			if ev.Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
				c.readSocket()
				if c.connLost && c.ln != nil && c.ln.fd >= 0 {
					// level-triggered: a dead socket would wake every wait
					// until the client notices (it may be sleeping)
					_ = unix.EpollCtl(t.epfd, unix.EPOLL_CTL_DEL, c.ln.fd, nil)
				}
			}
			if (c.state == csWaitResult || c.state == csWaitRollback) && (len(c.pend) == 0 || c.connLost) {
				c.advance(&now)
				if c.wait == waitDone {
					remains--
					if r.clientEnded(c) {
						return
					}
				} else if c.wait == waitTime {
					nextDeadline = min(nextDeadline, c.deadline())
				}
			}
		}
		if now >= nextDeadline {
			nextDeadline = 1 << 62
			for _, c := range t.clients {
				if c.wait != waitTime {
					continue
				}
				if c.deadline() <= now {
					c.advance(&now)
					if c.wait == waitDone {
						remains--
						if r.clientEnded(c) {
							return
						}
						continue
					}
				}
				if c.wait == waitTime {
					nextDeadline = min(nextDeadline, c.deadline())
				}
			}
		}
		if t.nextReport > 0 && now >= t.nextReport {
			t.publishTick(now)
		}
	}
}

func (c *client) deadline() int64 {
	if c.state == csThrottle {
		return c.txnSched
	}
	return c.sleepUntil
}

// runClientBlocking drives one client with blocking I/O on its net.Conn (the
// TLS fallback path).
func (t *thread) runClientBlocking(c *client, done func()) {
	defer done()
	r := t.r
	mu := t.blockMu
	now := nowUS()
	for {
		mu.Lock()
		c.advance(&now)
		mu.Unlock()
		switch c.wait {
		case waitDone:
			mu.Lock()
			r.clientEnded(c)
			mu.Unlock()
			return
		case waitTime:
			d := c.deadline() - nowUS()
			if d > 0 {
				sleepUS(d)
			}
		case waitSocket:
			if r.stopped() {
				c.ln.close()
				c.ln = nil
				return
			}
			if c.inE == len(c.in) {
				grown := make([]byte, 2*len(c.in))
				copy(grown, c.in[:c.inE])
				c.in = grown
			}
			n, err := c.ln.nc.Read(c.in[c.inE:])
			if n > 0 {
				mu.Lock()
				c.inE += n
				c.onInput()
				mu.Unlock()
			}
			if err != nil {
				c.connLost = true
				c.noteLost(err)
				var errno syscall.Errno
				if errors.As(err, &errno) {
					c.lostMsg = lostText(errno)
				}
			}
		}
		now = nowUS()
	}
}

// lostText is libpq's message for a failed read: a reset connection reads
// as the server closing it, anything else (a TCP timeout) names the error.
func lostText(errno syscall.Errno) string {
	if errno == syscall.ECONNRESET || errno == syscall.EPIPE {
		return ""
	}
	s := errno.Error()
	return "could not receive data from server: " + strings.ToUpper(s[:1]) + s[1:]
}
