package bench

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Where the raw-path threads run.
//
// On a machine whose cores the client shares with the server, most of the
// kernel time of a run goes to waking processes on the other core: a client
// thread that sends a query to a backend running on another CPU wakes it
// with an inter-processor interrupt and preempts whatever runs there, and
// the backend's reply does the same the other way. When each thread and
// the backends of its clients share one CPU, those wake-ups are local,
// there are no such interrupts, and the kernel time per transaction drops
// by a third (measured with 2 cores, -c 8 -j 2: 0.004 against 0.006-0.008
// ms of system time per transaction; tps +15-25 %). Which layout a run gets
// is otherwise left to chance: the scheduler keeps a backend where it last
// ran unless a CPU falls idle, so the layout at the start of the run mostly
// stays for the whole run (pgbench gets the shared layout in some runs and
// not in others, which is much of its run-to-run variance).
//
// So, when there are at least as many CPUs as threads (and at least two
// threads, and connections are kept: not under -C), the engine:
//   - locks each thread's goroutine to its OS thread and pins that thread
//     to a CPU of its own (a goroutine that changed OS thread after each of
//     the runtime's preemptions would look to the kernel like a new waker
//     each time);
//   - after every client has connected, hands the connections to the
//     clients so that each thread gets those whose backend last ran on the
//     thread's CPU, as SO_INCOMING_CPU reports it (on a local server the
//     CPU that processed the last received packet is the one the backend
//     sent it from). The connections are fresh and alike (nothing is
//     prepared yet), so which client holds which one is invisible;
//   - starts the threads together: each spins until all have arrived, so
//     that no CPU is idle when the first queries wake the backends (a
//     backend woken while another CPU is idle moves there).
//
// Config.NoPin or $PGLAB_BENCH_NOPIN=1 turns this off.

// EnvNoPin names the environment variable that, set to 1, keeps the
// engine's threads unpinned (as Config.NoPin).
const EnvNoPin = "PGLAB_BENCH_NOPIN"

// pinPlan returns the CPU each of n raw-path threads is pinned to, or nil
// when they stay free: fewer than two threads, fewer allowed CPUs than
// threads, or pinning turned off.
func pinPlan(n int, noPin bool) []int {
	if noPin || os.Getenv(EnvNoPin) == "1" || n < 2 {
		return nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	cpus := make([]int, 0, n)
	for cpu := 0; cpu < len(set)*64 && len(cpus) < n; cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) < n {
		return nil
	}
	return cpus
}

// pin locks the calling goroutine to its OS thread and binds the thread to
// cpu. It reports whether the thread is pinned and returns the function
// that undoes it: the thread's former CPU set restored, then the lock
// released, so that the thread goes back to the runtime's pool instead of
// ending with the goroutine. A thread must not end: a child process started
// from it with a parent-death signal (a managed server in the same process)
// would receive that signal.
func pin(cpu int) (bool, func()) {
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return false, func() {}
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return false, func() {}
	}
	return true, func() {
		if unix.SchedSetaffinity(0, &old) != nil {
			// The thread would keep a one-CPU set: let it end with its
			// goroutine rather than hand it back to the pool.
			return
		}
		runtime.UnlockOSThread()
	}
}

// incomingCPU is the CPU that processed the last packet received on fd,
// or -1 when the kernel does not say (Unix sockets, nothing received).
func incomingCPU(fd int) int {
	cpu, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_INCOMING_CPU)
	if err != nil {
		return -1
	}
	return cpu
}

// placeLinks redistributes the initial connections of the pinned raw-path
// threads among their clients, so that as many clients as possible talk
// to a backend on their thread's CPU (see assignLinks).
func placeLinks(threads []*thread) {
	var clients []*client
	var threadCPU, linkCPU []int
	for _, t := range threads {
		if !t.raw || t.cpu < 0 {
			continue
		}
		for _, c := range t.clients {
			if c.ln == nil || c.ln.fd < 0 {
				return
			}
			clients = append(clients, c)
			threadCPU = append(threadCPU, t.cpu)
			linkCPU = append(linkCPU, incomingCPU(c.ln.fd))
		}
	}
	if len(clients) < 2 {
		return
	}
	links := make([]*link, len(clients))
	for i, c := range clients {
		links[i] = c.ln
	}
	for i, j := range assignLinks(threadCPU, linkCPU) {
		clients[i].ln = links[j]
	}
}

// assignLinks decides which link each client gets: client i runs on CPU
// threadCPU[i] and holds link i, whose backend runs on linkCPU[i] (-1:
// unknown). A link on its client's CPU stays; the other clients take a
// free link on their CPU; the remaining ones keep their own link if it is
// free, else take any free one. The result is a permutation: client i gets
// link result[i].
func assignLinks(threadCPU, linkCPU []int) []int {
	n := len(threadCPU)
	got := make([]int, n)
	taken := make([]bool, n)
	for i := range got {
		got[i] = -1
		if linkCPU[i] == threadCPU[i] {
			got[i] = i
			taken[i] = true
		}
	}
	for i := range got {
		if got[i] >= 0 {
			continue
		}
		for j := range linkCPU {
			if !taken[j] && linkCPU[j] == threadCPU[i] {
				got[i] = j
				taken[j] = true
				break
			}
		}
	}
	for i := range got {
		if got[i] >= 0 {
			continue
		}
		if !taken[i] {
			got[i] = i
			taken[i] = true
			continue
		}
		for j := range taken {
			if !taken[j] {
				got[i] = j
				taken[j] = true
				break
			}
		}
	}
	return got
}

// registerAll adds the sockets of every raw-path thread's clients to the
// thread's epoll set.
func registerAll(threads []*thread) error {
	for _, t := range threads {
		if !t.raw {
			continue
		}
		for _, c := range t.clients {
			if c.ln == nil {
				continue
			}
			if err := t.register(c); err != nil {
				return &SetupError{Msg: fmt.Sprintf("client %d: %v", c.id, err)}
			}
		}
	}
	return nil
}

// startTogether holds a pinned thread, spinning, until every pinned
// raw-path thread has got here (at most 100 ms, or until the run stops).
func (t *thread) startTogether() {
	r := t.r
	r.started.Add(1)
	deadline := nowUS() + 100000
	for r.started.Load() < r.pinnedRaw && !r.stopped() && nowUS() < deadline {
	}
}
