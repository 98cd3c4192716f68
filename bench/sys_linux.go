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

// epollWait blocks up to msec milliseconds (-1: no limit).
func epollWait(epfd int, events []unix.EpollEvent, msec int) (int, error) {
	return unix.EpollWait(epfd, events, msec)
}
