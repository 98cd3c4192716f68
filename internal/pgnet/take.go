package pgnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"
)

// TakeConn takes an established connection away from pgconn for direct
// use of its net.Conn (pc is closed for pgconn afterwards). pgconn starts a
// background reader when one of its writes takes over 15 ms (a loaded
// machine deschedules it that long); stopped, its goroutine may still be
// blocked in a read of the socket and would swallow the answer to the
// first message sent on the taken connection, so the reader is drained
// and stopped first (SyncConn).
func TakeConn(ctx context.Context, pc *pgconn.PgConn) (net.Conn, error) {
	if err := pc.SyncConn(ctx); err != nil {
		return nil, fmt.Errorf("take over connection: %w", err)
	}
	hc, err := pc.Hijack()
	if err != nil {
		return nil, fmt.Errorf("take over connection: %w", err)
	}
	return hc.Conn, nil
}

// TakeSocket takes pc's socket away from pgconn and from the Go runtime's
// poller, for raw system calls: it returns a duplicate of the descriptor,
// close-on-exec and non-blocking, and closes the runtime's own. ok is
// false, and pc untouched, when the connection is not a plain socket (TLS).
func TakeSocket(ctx context.Context, pc *pgconn.PgConn) (fd int, ok bool, err error) {
	sc, isSock := pc.Conn().(syscall.Conn)
	if !isSock {
		return -1, false, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, false, nil
	}
	nc, err := TakeConn(ctx, pc)
	if err != nil {
		return -1, false, err
	}
	fd = -1
	var dupErr error
	ctlErr := raw.Control(func(d uintptr) { fd, dupErr = unix.Dup(int(d)) })
	// Closing the runtime's descriptor removes it from the netpoller; the
	// duplicate keeps the socket open.
	nc.Close()
	if err := errors.Join(ctlErr, dupErr); err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return -1, false, fmt.Errorf("take over connection: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, false, fmt.Errorf("take over connection: %w", err)
	}
	return fd, true, nil
}
