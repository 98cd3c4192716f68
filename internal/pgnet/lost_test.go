package pgnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestLost(t *testing.T) {
	fatal := func(code, msg string) error {
		return &pgconn.PgError{Severity: "FATAL", Code: code, Message: msg}
	}
	for _, c := range []struct {
		name string
		err  error
		want string // "" = not lost
	}{
		{"nil", nil, ""},
		{"unexpected postmaster exit", fatal("57P01", "terminating connection due to unexpected postmaster exit"), LostTerminated},
		{"administrator command", fatal("57P01", "terminating connection due to administrator command"), LostTerminated},
		{"crash of another process", fatal("57P02", "terminating connection because of crash of another server process"), LostTerminated},
		{"shutting down", fatal("57P03", "the database system is shutting down"), LostStarting},
		{"parallel worker's postmaster gone", fatal("XX000", "postmaster exited during a parallel transaction"), LostTerminated},
		{"wrapped FATAL", fmt.Errorf("update rows: %w", fatal("57P01", "x")), LostTerminated},
		{"ERROR", &pgconn.PgError{Severity: "ERROR", Code: "23505", Message: "duplicate key"}, ""},
		{"query canceled", &pgconn.PgError{Severity: "ERROR", Code: "57014", Message: "canceling statement due to user request"}, ""},
		{"EOF", io.EOF, LostClosed},
		{"unexpected EOF wrapped", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), LostClosed},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, LostClosed},
		{"broken pipe", syscall.EPIPE, LostClosed},
		{"pgconn closed", fmt.Errorf("exec: %w", pgconn.ErrConnClosed), LostClosed},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, LostRefused},
		{"timed out", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ETIMEDOUT)}, LostTimedOut},
		{"cancelled", fmt.Errorf("read: %w: %w", context.Canceled, io.EOF), ""},
		{"deadline", context.DeadlineExceeded, ""},
		{"other", errors.New("no such table"), ""},
		{"ENOENT", syscall.ENOENT, ""},
	} {
		how, ok := Lost(c.err)
		if how != c.want || ok != (c.want != "") {
			t.Errorf("%s: Lost(%v) = %q, %v; want %q", c.name, c.err, how, ok, c.want)
		}
	}
}

// TestLostLogin: a server that refuses a login with a FATAL is no lost
// server; one that is shutting down (57P03) is.
func TestLostLogin(t *testing.T) {
	for _, c := range []struct {
		code, msg, want string
	}{
		{"28P01", "password authentication failed for user \"x\"", ""},
		{"3D000", "database \"x\" does not exist", ""},
		{"53300", "sorry, too many clients already", ""},
		{"57P03", "the database system is shutting down", LostStarting},
	} {
		addr := refusingServer(t, c.code, c.msg)
		_, err := pgconn.Connect(context.Background(), "postgres://x@"+addr+"/x?sslmode=disable&connect_timeout=10")
		if err == nil {
			t.Fatalf("%s: connected", c.code)
		}
		if how, _ := Lost(err); how != c.want {
			t.Errorf("%s: Lost(%v) = %q, want %q", c.code, err, how, c.want)
		}
	}
}

// refusingServer listens on 127.0.0.1 and answers one startup message
// with a FATAL error.
func refusingServer(t *testing.T, code, msg string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var hdr [4]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		n := int(hdr[0])<<24 | int(hdr[1])<<16 | int(hdr[2])<<8 | int(hdr[3])
		if _, err := io.ReadFull(c, make([]byte, n-4)); err != nil {
			return
		}
		body := []byte("SFATAL\x00VFATAL\x00C" + code + "\x00M" + msg + "\x00\x00")
		l := len(body) + 4
		c.Write(append([]byte{'E', byte(l >> 24), byte(l >> 16), byte(l >> 8), byte(l)}, body...))
	}()
	return ln.Addr().String()
}

func TestAsLost(t *testing.T) {
	cause := fmt.Errorf("commit: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to unexpected postmaster exit"})
	err := AsLost(ServerName("ki", "127.0.0.1", 5433), "client-side generate (commit)", cause)
	want := "lost the server ki (127.0.0.1:5433) during client-side generate (commit): the server terminated the connection: " +
		"commit: FATAL: terminating connection due to unexpected postmaster exit (SQLSTATE 57P01)"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if !errors.Is(err, cause) {
		t.Errorf("the cause is not wrapped")
	}
	// Wrapped once only.
	again := AsLost("other", "", fmt.Errorf("study: %w", err))
	var le *LostError
	if !errors.As(again, &le) || le.Server != "ki (127.0.0.1:5433)" {
		t.Errorf("wrapped twice: %v", again)
	}
	plain := errors.New("syntax error")
	if AsLost("x", "", plain) != plain {
		t.Errorf("an error that is no lost connection was changed")
	}
}

func TestServerName(t *testing.T) {
	for _, c := range []struct {
		name, host string
		port       uint16
		want       string
	}{
		{"pg17", "127.0.0.1", 5433, "pg17 (127.0.0.1:5433)"},
		{"", "db.example.com", 0, "db.example.com:5432"},
		{"", "::1", 5432, "[::1]:5432"},
		{"ks", "/tmp/sock", 6000, "ks (/tmp/sock/.s.PGSQL.6000)"},
		{"127.0.0.1:5432", "127.0.0.1", 5432, "127.0.0.1:5432"},
	} {
		if got := ServerName(c.name, c.host, c.port); got != c.want {
			t.Errorf("ServerName(%q, %q, %d) = %q, want %q", c.name, c.host, c.port, got, c.want)
		}
	}
}

// TestPeerTimeout: the kernel's ETIMEDOUT (TCP user timeout, keepalives)
// is a lost peer whose Timeout is false (pgconn's background reader drops
// errors whose Timeout is true); a deadline's timeout is left alone.
func TestPeerTimeout(t *testing.T) {
	kernel := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ETIMEDOUT)}
	err := peerTimeout(kernel)
	var ne net.Error
	if !errors.As(err, &ne) || ne.Timeout() {
		t.Errorf("peerTimeout(%v): Timeout() true or no net.Error", kernel)
	}
	if err.Error() != kernel.Error() || !errors.Is(err, syscall.ETIMEDOUT) {
		t.Errorf("peerTimeout changed the error: %v", err)
	}
	if how, _ := Lost(err); how != LostTimedOut {
		t.Errorf("Lost = %q, want %q", how, LostTimedOut)
	}
	deadline := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	if got := peerTimeout(deadline); got != deadline {
		t.Errorf("a deadline's timeout was changed: %v", got)
	}
	// Connections dialled for pgconn keep their socket reachable for
	// TakeSocket.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o, _ := Parse(nil)
	c, err := o.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(syscall.Conn); !ok {
		t.Errorf("%T is no syscall.Conn", c)
	}
}
