package bench

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The hot path reads and writes non-blocking sockets with raw system calls
// (no scheduler hand-off around them: they never block), and waits in
// epoll_wait, which does block and so goes through the ordinary syscall path
// unless a zero timeout is asked for.

const eagain = syscall.EAGAIN

func rawRead(fd int, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func rawWrite(fd int, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

var noPwait2 bool

// epollWait blocks up to us microseconds (-1: no limit), with epoll_pwait2's
// fine timeout where the kernel has it (pgbench's ppoll waits in
// microseconds too; whole milliseconds would make -R schedules late).
//
// The wait is a raw system call: the runtime does not see the thread
// block, so it does not hand the thread's P to another thread and back
// around every wait (measured as thousands of futex and nanosleep calls per
// second and twice pgbench's kernel time). The engine raises GOMAXPROCS so
// that the run's other goroutines still have a P; the runtime's preemption
// signal interrupts the wait (EINTR) when it needs the thread.
func epollWait(epfd int, events []unix.EpollEvent, us int64) (int, syscall.Errno) {
	if !noPwait2 {
		var tsp uintptr
		var ts unix.Timespec
		if us >= 0 {
			ts = unix.NsecToTimespec(us * 1000)
			tsp = uintptr(unsafe.Pointer(&ts))
		}
		n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), tsp, 0, 0)
		if e != syscall.ENOSYS {
			return int(n), e
		}
		noPwait2 = true
	}
	ms := -1
	if us >= 0 {
		ms = int((us + 999) / 1000)
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(ms), 0, 0)
	return int(n), e
}
