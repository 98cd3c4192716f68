package pgnet

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Ways a connection is lost, as Lost words them.
const (
	// LostTerminated: the server ended the session with a FATAL or PANIC
	// message (SQLSTATE class 57P: shutdown, crash of another process,
	// unexpected postmaster exit; or any other fatal error).
	LostTerminated = "the server terminated the connection"
	// LostClosed: the connection ended without a word from the server
	// (end of file, reset, broken pipe, a connection pgconn closed).
	LostClosed = "the server closed the connection unexpectedly"
	// LostRefused: a new connection was refused (nothing listens any
	// more).
	LostRefused = "the server refused the connection"
	// LostStarting: the server refuses sessions while it shuts down,
	// starts or recovers (SQLSTATE 57P03).
	LostStarting = "the server is not accepting connections"
	// LostTimedOut: the peer stopped answering (TCP user timeout,
	// keepalives).
	LostTimedOut = "the server stopped answering (connection timed out)"
)

// Lost reports whether err means that the connection to the server is
// lost, and how (one of the Lost* texts). A cancelled or expired context
// is not a lost connection, whatever error it caused, nor is a login the
// server refuses (a FATAL other than 57P* while connecting). A refused or
// reset connection attempt is: the caller knows whether the server was
// there before (a reconnection, a further connection of a run) or never
// answered (the first connection: no lost server to name). It looks
// through wrapped errors, so the errors of pgconn, of the bench engine's
// raw sockets (syscall.Errno, io.EOF) and of pglab's packages wrapping
// them are classified alike.
func Lost(err error) (string, bool) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		var ce *pgconn.ConnectError
		switch {
		case pe.Code == "57P03":
			return LostStarting, true
		case strings.HasPrefix(pe.Code, "57P"):
			return LostTerminated, true
		case errors.As(err, &ce):
			// A refused login (password, role, database, too many
			// connections) is no lost server.
			return "", false
		case pe.Severity == "FATAL", pe.Severity == "PANIC":
			return LostTerminated, true
		}
		return "", false
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ECONNRESET, syscall.EPIPE, syscall.ECONNABORTED:
			return LostClosed, true
		case syscall.ECONNREFUSED:
			return LostRefused, true
		case syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH:
			return LostTimedOut, true
		}
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, net.ErrClosed):
		return LostClosed, true
	}
	return "", false
}

// LostError is an operation ended by a lost connection: it names the
// server, what was being done and how the connection was lost.
type LostError struct {
	// Server names the server: a managed instance's name and address, or
	// the address alone (see ServerName).
	Server string
	// Phase is what was being done, or "" when the error's context says.
	Phase string
	// How is one of the Lost* texts.
	How string
	// Err is the error the loss caused.
	Err error
}

// Error returns "lost the server NAME during PHASE: HOW: ERR".
func (e *LostError) Error() string {
	var b strings.Builder
	b.WriteString("lost the server " + e.Server)
	if e.Phase != "" {
		b.WriteString(" during " + e.Phase)
	}
	b.WriteString(": " + e.How)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the error the loss caused.
func (e *LostError) Unwrap() error { return e.Err }

// AsLost returns err wrapped in a *LostError naming server and phase when
// it means a lost connection (see Lost), else err unchanged. An error
// that already holds a *LostError is returned as it is.
func AsLost(server, phase string, err error) error {
	var le *LostError
	if errors.As(err, &le) {
		return err
	}
	how, ok := Lost(err)
	if !ok {
		return err
	}
	return &LostError{Server: server, Phase: phase, How: how, Err: err}
}

// ServerName names a server for messages: "NAME (ADDRESS)", or the
// address alone when name is "" or is the address. The address is
// host:port for TCP and the socket file for a Unix socket (host an
// absolute directory).
func ServerName(name, host string, port uint16) string {
	addr := ServerAddr(host, port)
	if name == "" || name == addr {
		return addr
	}
	return name + " (" + addr + ")"
}

// ConfigServerName is ServerName for the server a connection
// configuration points at (its first host).
func ConfigServerName(name string, cfg *pgconn.Config) string {
	return ServerName(name, cfg.Host, cfg.Port)
}

// ServerAddr is a server's address as ServerName shows it.
func ServerAddr(host string, port uint16) string {
	p := "5432"
	if port != 0 {
		p = strconv.Itoa(int(port))
	}
	if strings.HasPrefix(host, "/") {
		return filepath.Join(host, ".s.PGSQL."+p)
	}
	return net.JoinHostPort(host, p)
}
