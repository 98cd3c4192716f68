package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/pgnet"
	"golang.org/x/sys/unix"
)

// link is one established, authenticated connection taken away from pgconn:
// either a raw non-blocking socket (fd >= 0) driven by a thread's epoll loop,
// or, for TLS, the net.Conn that pgconn negotiated (fd < 0), driven by a
// goroutine with blocking reads (the slower fallback path).
type link struct {
	fd            int
	nc            net.Conn
	serverVersion string
	serverNum     int
	txStatus      byte
}

// dial connects with pgconn (libpq conventions: PG* variables, .pgpass,
// service files, TLS) and hijacks the connection; keepConn keeps the
// net.Conn (the goroutine path) instead of taking the raw socket.
func dial(ctx context.Context, cfg *pgconn.Config, keepConn bool) (*link, error) {
	pc, err := pgconn.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return nil, err
	}
	num := serverVersionNum(pc)
	l := &link{fd: -1, serverVersion: pc.ParameterStatus("server_version"), serverNum: num, txStatus: 'I'}
	if !keepConn {
		fd, ok, err := pgnet.TakeSocket(ctx, pc)
		if err != nil {
			pc.Close(ctx)
			return nil, err
		}
		if ok {
			l.fd = fd
			return l, nil
		}
	}
	// TLS, or the goroutine path asked for: the net.Conn pgconn negotiated.
	if l.nc, err = pgnet.TakeConn(ctx, pc); err != nil {
		pc.Close(ctx)
		return nil, err
	}
	return l, nil
}

func serverVersionNum(pc *pgconn.PgConn) int {
	v := pc.ParameterStatus("server_version")
	major, minor := 0, 0
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		major = major*10 + int(v[i]-'0')
		i++
	}
	if i < len(v) && v[i] == '.' {
		i++
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			minor = minor*10 + int(v[i]-'0')
			i++
		}
	}
	if major >= 10 {
		return major*10000 + minor
	}
	return major*10000 + minor*100
}

// ensureConn turns a raw socket back into a net.Conn, for the goroutine
// path (a thread whose connections are not all raw runs them all there).
func (l *link) ensureConn() error {
	if l.nc != nil || l.fd < 0 {
		return nil
	}
	if err := unix.SetNonblock(l.fd, false); err != nil {
		return err
	}
	f := os.NewFile(uintptr(l.fd), "postgres")
	nc, err := net.FileConn(f)
	f.Close()
	l.fd = -1
	if err != nil {
		return fmt.Errorf("take over connection: %w", err)
	}
	l.nc = nc
	return nil
}

// close sends Terminate and closes the connection.
func (l *link) close() {
	bye := appendTerminate(nil)
	if l.fd >= 0 {
		_, _ = unix.Write(l.fd, bye)
		unix.Close(l.fd)
		l.fd = -1
	} else if l.nc != nil {
		_, _ = l.nc.Write(bye)
		l.nc.Close()
		l.nc = nil
	}
}

// connError words a connection failure as libpq does, e.g.
// `connection to server at "127.0.0.1", port 1 failed: Connection refused`
// followed by libpq's hint line, or the server's FATAL message.
func connError(err error) string {
	var ce *pgconn.ConnectError
	where := ""
	socket := false
	if errors.As(err, &ce) && ce.Config != nil {
		host, port := ce.Config.Host, ce.Config.Port
		if strings.HasPrefix(host, "/") {
			socket = true
			where = fmt.Sprintf("connection to server on socket \"%s/.s.PGSQL.%d\" failed: ", host, port)
		} else if host != "" {
			where = fmt.Sprintf("connection to server at \"%s\", port %d failed: ", host, port)
		}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return where + pe.Severity + ":  " + pe.Message
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		text := errno.Error()
		text = strings.ToUpper(text[:1]) + text[1:]
		switch {
		case errno == syscall.ECONNREFUSED && !socket, errno == syscall.EHOSTUNREACH:
			return where + text + "\n\tIs the server running on that host and accepting TCP/IP connections?"
		case (errno == syscall.ENOENT || errno == syscall.ECONNREFUSED) && socket:
			return where + text + "\n\tIs the server running locally and accepting connections on that socket?"
		}
		return where + text
	}
	if where != "" && ce != nil {
		inner := ce.Unwrap()
		for {
			next := errors.Unwrap(inner)
			if next == nil {
				break
			}
			inner = next
		}
		return where + inner.Error()
	}
	return err.Error()
}
