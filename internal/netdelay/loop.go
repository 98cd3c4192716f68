package netdelay

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper's event loop: one thread, non-blocking sockets, epoll. Every
// chunk read is queued with its release time (its kernel receive timestamp
// plus the delay); a heap orders the releases of all connections. The loop
// sleeps until the next release less the timer's measured lateness (early)
// and less the time a write takes (lead), without spinning: on this kind
// of machine a wake-up costs tens of microseconds of CPU, and a spin the
// server's CPU. While the next release is nearer than the smallest delay,
// nothing that arrives can be due before it: the loop then sleeps without
// watching the sockets and reads what came, with its timestamps, when it
// wakes — one wake-up per release instead of one per arrival as well.

const (
	readSize = 64 << 10
	// maxQueued bytes per direction of a connection before reading from its
	// source pauses (the proxy's window); reading resumes below half.
	maxQueued = 4 << 20
	// releaseSlack releases chunks due this soon with the current batch.
	releaseSlack = 2 * time.Microsecond
	// maxEarly bounds how long before a release the loop wakes.
	maxEarly = 200 * time.Microsecond
	// maxBlindSleep bounds a sleep that does not watch the sockets (nor
	// the parent's requests and its closing).
	maxBlindSleep = 20 * time.Millisecond
	// maxLead bounds the write-time compensation.
	maxLead = 100 * time.Microsecond
)

type chunkKind uint8

const (
	kindData  chunkKind = iota
	kindEOF             // the source half-closed: shut the destination for writing
	kindReset           // the source failed: abort the connection
)

type chunk struct {
	due  int64
	kind chunkKind
	data []byte
}

// half is one direction of a connection: bytes read from src, held, then
// written to dst.
type half struct {
	c         *conn
	src, dst  int
	delay     int64
	q         []chunk // queued, in release order
	qhead     int
	queued    int    // bytes in q
	out       []byte // released but not yet written
	outBuf    []byte // the pooled buffer out is a part of, if it is one
	lastDue   int64
	notBefore int64 // arrival times before this count as this (handshake)
	readDone  bool  // src ended (EOF or error): read no more
	eofDue    bool  // an EOF was released: shut dst once out is written
	shut      bool  // dst shut for writing
	paused    bool  // reading paused: too much queued
	resetDue  bool  // a reset is queued
}

type conn struct {
	client, server int
	c2s, s2c       half
	connecting     bool
	masks          [2]uint32 // epoll interest of client, server
	watched        [2]bool   // whether client, server are in the epoll set
	dead           bool
}

func (h *half) pending() int { return h.queued + len(h.out) }

// event is one release: the head chunk of h is due at due.
type event struct {
	due int64
	seq uint64
	h   *half
}

type loop struct {
	cfg       helperConfig
	upstream  unix.Sockaddr
	family    int
	up, down  int64
	epfd      int
	lfd       int
	ctl, resp int
	conns     map[int]*conn // by either fd
	heap      []event
	seq       uint64
	base      time.Time
	wallOff   int64
	buf       []byte
	oob       []byte
	iov       unix.Iovec
	msg       unix.Msghdr
	events    []unix.EpollEvent
	early     int64
	sched     string
	accepted  int64
	chunks    int64
	bytes     int64
	late      lateHist
	ctlBuf    []byte
	noPwait2  bool
	lead      int64
	freeSmall [][]byte
	freeLarge [][]byte
}

func newLoop(cfg helperConfig, lfd, ctl, resp int) (*loop, error) {
	l := &loop{cfg: cfg, up: cfg.UpNS, down: cfg.DownNS, lfd: lfd, ctl: ctl, resp: resp,
		conns: map[int]*conn{}, base: time.Now(), buf: make([]byte, readSize), oob: make([]byte, 128),
		events: make([]unix.EpollEvent, 256), early: int64(50 * time.Microsecond)}
	if err := l.setUpstream(cfg.Upstream); err != nil {
		return nil, err
	}
	var err error
	if err := unix.SetNonblock(lfd, true); err != nil {
		return nil, fmt.Errorf("listener: %w", err)
	}
	l.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	for _, fd := range []int{lfd, ctl} {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return nil, fmt.Errorf("epoll_ctl: %w", err)
		}
	}
	l.sched = raisePriority()
	// Timers of this thread fire when asked, not up to 50 µs later.
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	return l, nil
}

// raisePriority gives the calling thread a real-time class (or a better
// nice value) when the system permits, so that a release is not queued
// behind the server's and the load's processes on a busy machine.
func raisePriority() string {
	param := struct{ prio int32 }{10}
	if _, _, e := syscall.RawSyscall(unix.SYS_SCHED_SETSCHEDULER, 0, unix.SCHED_FIFO, uintptr(unsafe.Pointer(&param))); e == 0 {
		return "SCHED_FIFO"
	}
	if unix.Setpriority(unix.PRIO_PROCESS, 0, -10) == nil {
		return "nice -10"
	}
	return "normal"
}

// setUpstream sets the address new connections go to (ip:port).
func (l *loop) setUpstream(upstream string) error {
	addr, err := net.ResolveTCPAddr("tcp", upstream)
	if err != nil {
		return fmt.Errorf("upstream %q: %w", upstream, err)
	}
	if ip4 := addr.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: addr.Port}
		copy(sa.Addr[:], ip4)
		l.upstream, l.family = sa, unix.AF_INET
	} else {
		sa := &unix.SockaddrInet6{Port: addr.Port}
		copy(sa.Addr[:], addr.IP.To16())
		l.upstream, l.family = sa, unix.AF_INET6
	}
	return nil
}

func (l *loop) now() int64 { return int64(time.Since(l.base)) }

// run serves until the control pipe closes.
func (l *loop) run() error {
	// No chunk read later can be due sooner than this after now.
	minDelay := min(l.up, l.down)
	for {
		t := time.Now()
		now := int64(t.Sub(l.base))
		l.wallOff = t.UnixNano() - now
		// A chunk is written lead before it is due (the write's own
		// time); and once within early of that, at once: sleeping
		// for less would wake later than the due time.
		l.releaseDue(now + l.early + l.lead)
		// Take what is ready without sleeping.
		n, _, err := l.wait(0)
		if err != nil {
			return err
		}
		if l.handleAll(n) {
			return nil
		}
		if n > 0 {
			continue
		}
		if len(l.heap) == 0 {
			n, _, err := l.wait(-1)
			if err != nil {
				return err
			}
			if l.handleAll(n) {
				return nil
			}
			continue
		}
		now = l.now()
		wait := l.heap[0].due - l.lead - now
		if wait <= l.early {
			continue // within the wake-up margin: released at the top
		}
		sleep := wait - l.early
		if wait <= minDelay-l.lead && wait <= int64(maxBlindSleep) {
			// Whatever arrives meanwhile is due after the head (its kernel
			// timestamp keeps its arrival time): sleep without watching
			// the sockets, one wake-up instead of one per arrival.
			if l.nanosleep(sleep) {
				l.learnLateness(l.now() - (now + sleep))
			}
			continue
		}
		n, timedOut, err := l.wait(sleep)
		if err != nil {
			return err
		}
		if timedOut {
			l.learnLateness(l.now() - (now + sleep))
		}
		if l.handleAll(n) {
			return nil
		}
	}
}

// handleAll serves n epoll events; it reports whether the helper must stop.
func (l *loop) handleAll(n int) bool {
	for _, ev := range l.events[:n] {
		if stop := l.handle(int(ev.Fd), ev.Events); stop {
			l.closeAll()
			return true
		}
	}
	return false
}

// nanosleep sleeps for ns nanoseconds (a raw system call, as in wait); it
// reports whether the whole time was slept.
func (l *loop) nanosleep(ns int64) bool {
	ts := unix.NsecToTimespec(ns)
	_, _, e := syscall.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return e == 0
}

// learnLateness moves early towards the timer's median lateness: a
// wake-up that came later than early raises it a microsecond, one that
// did not lowers it. Releases are then centred on their due times without
// spinning (a spin costs the CPU the server needs).
func (l *loop) learnLateness(late int64) {
	const step = int64(time.Microsecond)
	if late > l.early {
		l.early += step
	} else {
		l.early -= step
	}
	l.early = min(max(l.early, 0), int64(maxEarly))
}

// learnWrite keeps lead, a moving average of how long a write to a
// socket takes: on loopback the write runs the receiver's TCP input and
// wakes it, a hop a direct connection does not have, so chunks are
// released that much before their due time.
func (l *loop) learnWrite(d int64) {
	l.lead += (d - l.lead) / 16
	l.lead = min(max(l.lead, 0), int64(maxLead))
}

// wait is epoll_pwait2 with a timeout in nanoseconds (-1: none, 0: poll),
// or epoll_wait in whole milliseconds, rounded down, on kernels before 5.11.
// It returns the number of events and whether the timeout expired.
func (l *loop) wait(timeout int64) (int, bool, error) {
	for {
		var n uintptr
		var e syscall.Errno
		if !l.noPwait2 {
			var tsp uintptr
			var ts unix.Timespec
			if timeout >= 0 {
				ts = unix.NsecToTimespec(timeout)
				tsp = uintptr(unsafe.Pointer(&ts))
			}
			// A raw system call: the runtime does not see this thread
			// block, so it does not hand its P to another thread and back
			// (and spin threads looking for work) around every wait. Its
			// preemption signal interrupts the wait when it needs the
			// thread (EINTR).
			n, _, e = syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), tsp, 0, 0)
			if e == syscall.ENOSYS {
				l.noPwait2 = true
				continue
			}
		} else {
			ms := int64(-1)
			if timeout >= 0 {
				ms = timeout / int64(time.Millisecond)
			}
			n, _, e = syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(ms), 0, 0)
		}
		switch e {
		case 0:
			return int(n), n == 0, nil
		case syscall.EINTR:
			return 0, false, nil
		default:
			return 0, false, fmt.Errorf("epoll_wait: %w", e)
		}
	}
}

// handle serves one epoll event; it reports whether the helper must stop.
func (l *loop) handle(fd int, evs uint32) bool {
	switch fd {
	case l.ctl:
		return l.control()
	case l.lfd:
		l.acceptAll()
		return false
	}
	c := l.conns[fd]
	if c == nil || c.dead {
		return false
	}
	k := 0 // index of fd in c.masks
	if fd != c.client {
		k = 1
	}
	if k == 1 && c.connecting {
		if evs&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return false
		}
		if soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soerr != 0 {
			l.abort(c) // the server refused: the client sees a reset
			return false
		}
		c.connecting = false
	}
	// The half that reads fd, and the half that writes to it.
	rd, wr := &c.c2s, &c.s2c
	if k == 1 {
		rd, wr = &c.s2c, &c.c2s
	}
	gone := evs&(unix.EPOLLHUP|unix.EPOLLERR) != 0
	if !rd.readDone && (gone || evs&unix.EPOLLIN != 0 && !rd.paused) {
		l.readFrom(rd)
	}
	if !c.dead && evs&unix.EPOLLOUT != 0 {
		l.flush(wr)
	}
	if !c.dead && gone && rd.readDone {
		if evs&unix.EPOLLERR != 0 && !rd.resetDue {
			// A reset after the source's EOF: it travels like the EOF did.
			rd.resetDue = true
			l.enqueue(rd, chunk{kind: kindReset}, l.now())
		}
		// Nothing more to read from fd, and epoll would report the hang-up
		// for ever: stop watching it; writes to it still fail or succeed.
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fd, nil)
		c.watched[k] = false
	}
	if !c.dead {
		l.update(c)
	}
	return false
}

func (l *loop) acceptAll() {
	for {
		fd, _, err := unix.Accept4(l.lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return // EAGAIN, or an aborted connection: nothing to do
		}
		l.newConn(fd)
	}
}

func (l *loop) newConn(cfd int) {
	sfd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		resetClose(cfd)
		return
	}
	for _, fd := range []int{cfd, sfd} {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}
	connecting := false
	if err := unix.Connect(sfd, l.upstream); err != nil {
		if err != unix.EINPROGRESS {
			unix.Close(sfd)
			resetClose(cfd)
			return
		}
		connecting = true
	}
	now := l.now()
	c := &conn{client: cfd, server: sfd, connecting: connecting}
	c.c2s = half{c: c, src: cfd, dst: sfd, delay: l.up}
	c.s2c = half{c: c, src: sfd, dst: cfd, delay: l.down}
	if l.cfg.Handshake {
		c.c2s.notBefore = now + l.up + l.down
	}
	l.conns[cfd], l.conns[sfd] = c, c
	for k, fd := range []int{cfd, sfd} {
		ev := unix.EpollEvent{Events: 0, Fd: int32(fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.abort(c)
			return
		}
		c.masks[k], c.watched[k] = 0, true
	}
	l.accepted++
	l.update(c)
}

// update sets the epoll interest of both sockets from the state.
func (l *loop) update(c *conn) {
	want := [2]uint32{}
	if !c.c2s.readDone && !c.c2s.paused {
		want[0] |= unix.EPOLLIN
	}
	if len(c.s2c.out) > 0 {
		want[0] |= unix.EPOLLOUT
	}
	if !c.connecting && !c.s2c.readDone && !c.s2c.paused {
		want[1] |= unix.EPOLLIN
	}
	if c.connecting || len(c.c2s.out) > 0 {
		want[1] |= unix.EPOLLOUT
	}
	for k, fd := range []int{c.client, c.server} {
		if c.watched[k] && want[k] != c.masks[k] {
			ev := unix.EpollEvent{Events: want[k], Fd: int32(fd)}
			unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, fd, &ev)
			c.masks[k] = want[k]
		}
	}
}

// readFrom reads what h's source has and queues it.
func (l *loop) readFrom(h *half) {
	n, arrived, errno := l.recv(h.src)
	switch {
	case errno == unix.EAGAIN || errno == unix.EINTR:
		return
	case errno != 0:
		h.readDone = true
		h.resetDue = true
		l.enqueue(h, chunk{kind: kindReset}, l.now())
	case n == 0:
		h.readDone = true
		l.enqueue(h, chunk{kind: kindEOF}, l.now())
	default:
		data := l.alloc(n)
		copy(data, l.buf[:n])
		l.bytes += int64(n)
		l.enqueue(h, chunk{kind: kindData, data: data}, arrived)
		if h.pending() >= maxQueued {
			h.paused = true
		}
	}
}

// recv reads into l.buf with the kernel's receive timestamp of the data
// (when it reached the socket), converted to the loop's clock.
func (l *loop) recv(fd int) (int, int64, syscall.Errno) {
	l.iov.Base = &l.buf[0]
	l.iov.SetLen(len(l.buf))
	l.msg = unix.Msghdr{Iov: &l.iov, Iovlen: 1, Control: &l.oob[0]}
	l.msg.SetControllen(len(l.oob))
	r, _, e := syscall.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&l.msg)), 0)
	now := l.now()
	if e != 0 {
		return 0, now, e
	}
	arrived := now
	if ts, ok := l.timestamp(); ok {
		// Clamp: a wall clock step must not hold or rush a chunk.
		if t := ts - l.wallOff; t <= now && t > now-int64(time.Second) {
			arrived = t
		}
	}
	return int(r), arrived, 0
}

// timestamp returns the SO_TIMESTAMPNS control message's wall time.
func (l *loop) timestamp() (int64, bool) {
	oob := l.oob[:l.msg.Controllen]
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		clen := int(h.Len)
		if clen < unix.SizeofCmsghdr || clen > len(oob) {
			return 0, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS && clen >= unix.SizeofCmsghdr+16 {
			d := oob[unix.SizeofCmsghdr:]
			sec := int64(binary.NativeEndian.Uint64(d[0:8]))
			nsec := int64(binary.NativeEndian.Uint64(d[8:16]))
			return sec*1e9 + nsec, true
		}
		oob = oob[cmsgAlign(clen):]
	}
	return 0, false
}

func cmsgAlign(n int) int { return (n + 7) &^ 7 }

// enqueue queues c on h for release at arrival + h's delay, never before a
// chunk queued earlier on h.
func (l *loop) enqueue(h *half, c chunk, arrived int64) {
	due := max(arrived, h.notBefore) + h.delay
	due = max(due, h.lastDue)
	h.lastDue = due
	c.due = due
	h.q = append(h.q, c)
	h.queued += len(c.data)
	l.seq++
	l.push(event{due: due, seq: l.seq, h: h})
}

// releaseDue releases every chunk due by now (+ releaseSlack).
func (l *loop) releaseDue(limit int64) {
	limit += int64(releaseSlack)
	for len(l.heap) > 0 && l.heap[0].due <= limit {
		ev := l.pop()
		h := ev.h
		if h.c.dead || h.qhead >= len(h.q) {
			continue
		}
		c := h.q[h.qhead]
		h.q[h.qhead] = chunk{}
		h.qhead++
		if h.qhead == len(h.q) {
			h.q, h.qhead = h.q[:0], 0
		}
		h.queued -= len(c.data)
		l.release(h, c)
		if !h.c.dead {
			l.update(h.c)
		}
	}
}

func (l *loop) release(h *half, c chunk) {
	switch c.kind {
	case kindReset:
		l.abort(h.c)
		return
	case kindEOF:
		h.eofDue = true
	case kindData:
		l.late.add(l.now() - (c.due - l.lead))
		l.chunks++
		if len(h.out) == 0 {
			h.out = c.data // written by flush, the buffer freed once written
			h.outBuf = c.data
		} else {
			h.out = append(h.out, c.data...)
			l.free(c.data)
		}
	}
	l.flush(h)
}

// flush writes what h has released; it shuts h's destination once an
// EOF is due and everything before it is written.
func (l *loop) flush(h *half) {
	if h.c.connecting && h == &h.c.c2s {
		return
	}
	for len(h.out) > 0 {
		t0 := l.now()
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(h.dst), uintptr(unsafe.Pointer(&h.out[0])), uintptr(len(h.out)))
		if e == 0 {
			l.learnWrite(l.now() - t0)
		}
		if e == unix.EAGAIN {
			break
		}
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			l.abort(h.c)
			return
		}
		h.out = h.out[n:]
	}
	if len(h.out) == 0 {
		if h.outBuf != nil {
			l.free(h.outBuf)
			h.outBuf = nil
		}
		h.out = nil
		if h.eofDue && !h.shut {
			unix.Shutdown(h.dst, unix.SHUT_WR)
			h.shut = true
		}
	}
	if h.paused && h.pending() < maxQueued/2 {
		h.paused = false
	}
	if h.c.c2s.shut && h.c.s2c.shut {
		l.finish(h.c)
	}
}

// finish closes a connection whose two directions are over.
func (l *loop) finish(c *conn) {
	if c.dead {
		return
	}
	c.dead = true
	for _, fd := range []int{c.client, c.server} {
		delete(l.conns, fd)
		unix.Close(fd)
	}
}

// abort closes both sockets with a reset: a failure on one side reaches
// the other as one.
func (l *loop) abort(c *conn) {
	if c.dead {
		return
	}
	c.dead = true
	for _, fd := range []int{c.client, c.server} {
		delete(l.conns, fd)
		resetClose(fd)
	}
}

func resetClose(fd int) {
	unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	unix.Close(fd)
}

func (l *loop) closeAll() {
	seen := map[*conn]bool{}
	for _, c := range l.conns {
		if !seen[c] {
			seen[c] = true
			l.abort(c)
		}
	}
	unix.Close(l.lfd)
}

func (l *loop) openConns() int64 { return int64(len(l.conns) / 2) }

// control reads requests from the parent; EOF means stop.
func (l *loop) control() bool {
	var b [256]byte
	n, err := unix.Read(l.ctl, b[:])
	if err == unix.EAGAIN || err == unix.EINTR {
		return false
	}
	if n <= 0 {
		return true
	}
	l.ctlBuf = append(l.ctlBuf, b[:n]...)
	for {
		i := indexByte(l.ctlBuf, '\n')
		if i < 0 {
			return false
		}
		req := string(l.ctlBuf[:i])
		l.ctlBuf = l.ctlBuf[i+1:]
		switch {
		case req == "stats":
			l.answerStats()
		case strings.HasPrefix(req, "upstream "):
			if err := l.setUpstream(strings.TrimPrefix(req, "upstream ")); err != nil {
				l.answer("error: " + err.Error())
			} else {
				l.answer("ok")
			}
		default:
			l.answer("error: unknown request " + strconv.Quote(req))
		}
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func (l *loop) answerStats() {
	st := Stats{Sched: l.sched, Accepted: l.accepted, Open: l.openConns(), Chunks: l.chunks, Bytes: l.bytes,
		EarlyUS: float64(l.early) / 1e3, LeadUS: float64(l.lead) / 1e3}
	st.Releases, st.LateP50US, st.LateP99US, st.LateMaxUS, st.LateMeanUS = l.late.summary()
	l.late = lateHist{}
	line, _ := json.Marshal(st)
	l.answer(string(line))
}

// answer writes one line to the parent.
func (l *loop) answer(s string) {
	line := []byte(s + "\n")
	for len(line) > 0 {
		n, err := unix.Write(l.resp, line)
		if err != nil && err != unix.EINTR {
			return
		}
		line = line[max(n, 0):]
	}
}

// alloc returns a buffer for n bytes from the free lists.
func (l *loop) alloc(n int) []byte {
	if n <= 2048 {
		if k := len(l.freeSmall); k > 0 {
			b := l.freeSmall[k-1]
			l.freeSmall = l.freeSmall[:k-1]
			return b[:n]
		}
		return make([]byte, n, 2048)
	}
	if k := len(l.freeLarge); k > 0 {
		b := l.freeLarge[k-1]
		l.freeLarge = l.freeLarge[:k-1]
		return b[:n]
	}
	return make([]byte, n, readSize)
}

func (l *loop) free(b []byte) {
	switch cap(b) {
	case 2048:
		if len(l.freeSmall) < 4096 {
			l.freeSmall = append(l.freeSmall, b[:0])
		}
	case readSize:
		if len(l.freeLarge) < 64 {
			l.freeLarge = append(l.freeLarge, b[:0])
		}
	}
}

// The release heap, ordered by due time then by queueing order.

func (l *loop) less(i, j int) bool {
	a, b := &l.heap[i], &l.heap[j]
	return a.due < b.due || (a.due == b.due && a.seq < b.seq)
}

func (l *loop) push(e event) {
	l.heap = append(l.heap, e)
	i := len(l.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !l.less(i, p) {
			break
		}
		l.heap[i], l.heap[p] = l.heap[p], l.heap[i]
		i = p
	}
}

func (l *loop) pop() event {
	top := l.heap[0]
	last := len(l.heap) - 1
	l.heap[0] = l.heap[last]
	l.heap[last] = event{}
	l.heap = l.heap[:last]
	i := 0
	for {
		a, b := 2*i+1, 2*i+2
		m := i
		if a < len(l.heap) && l.less(a, m) {
			m = a
		}
		if b < len(l.heap) && l.less(b, m) {
			m = b
		}
		if m == i {
			return top
		}
		l.heap[i], l.heap[m] = l.heap[m], l.heap[i]
		i = m
	}
}

// lateHist counts release lateness in microseconds, -64 µs .. 8 ms.
type lateHist struct {
	n       int64
	sum     int64
	max     int64
	buckets [8256]int64
}

func (h *lateHist) add(ns int64) {
	us := ns / 1000
	h.n++
	h.sum += ns
	if ns > h.max {
		h.max = ns
	}
	i := min(max(us+64, 0), int64(len(h.buckets)-1))
	h.buckets[i]++
}

func (h *lateHist) summary() (n int64, p50, p99, maxUS, mean float64) {
	if h.n == 0 {
		return 0, 0, 0, 0, 0
	}
	q := func(p float64) float64 {
		want := int64(p * float64(h.n))
		var acc int64
		for i, c := range h.buckets {
			acc += c
			if acc > want {
				return float64(i - 64)
			}
		}
		return float64(len(h.buckets) - 64)
	}
	return h.n, q(0.5), q(0.99), float64(h.max) / 1e3, float64(h.sum) / float64(h.n) / 1e3
}
