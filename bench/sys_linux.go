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

// epollWaitNow polls without blocking.
func epollWaitNow(epfd int, events []unix.EpollEvent) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	return int(n), e
}

var noPwait2 bool

// epollWait blocks up to us microseconds (-1: no limit), with epoll_pwait2's
// fine timeout where the kernel has it (pgbench's ppoll waits in
// microseconds too; whole milliseconds would make -R schedules late).
func epollWait(epfd int, events []unix.EpollEvent, us int64) (int, error) {
	if us < 0 {
		return unix.EpollWait(epfd, events, -1)
	}
	if !noPwait2 {
		ts := unix.NsecToTimespec(us * 1000)
		n, _, e := syscall.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
		if e == 0 {
			return int(n), nil
		}
		if e != syscall.ENOSYS {
			return 0, e
		}
		noPwait2 = true
	}
	return unix.EpollWait(epfd, events, int((us+999)/1000))
}
