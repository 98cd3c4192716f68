package pgnet

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"
)

func TestParse(t *testing.T) {
	t.Setenv(EnvUserTimeout, "")
	o, err := Parse(nil)
	if err != nil || o.UserTimeout != DefaultUserTimeout || !o.Keepalives || o.KeepaliveIdle != DefaultKeepaliveIdle {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	o, err = Parse(map[string]string{"tcp_user_timeout": "2500", "keepalives_idle": "1", "keepalives_interval": "2", "keepalives_count": "3"})
	if err != nil || o.UserTimeout != 2500*time.Millisecond || o.KeepaliveIdle != time.Second || o.KeepaliveInterval != 2*time.Second || o.KeepaliveCount != 3 {
		t.Fatalf("%+v %v", o, err)
	}
	if o, _ := Parse(map[string]string{"keepalives": "0"}); o.Keepalives {
		t.Errorf("keepalives=0 left them on")
	}
	for _, bad := range []map[string]string{
		{"tcp_user_timeout": "-1"}, {"tcp_user_timeout": "soon"}, {"keepalives": "yes"},
		{"keepalives_idle": "1.5"}, {"keepalives_interval": "-3"}, {"keepalives_count": "x"},
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	t.Setenv(EnvUserTimeout, "5s")
	if o, err := Parse(nil); err != nil || o.UserTimeout != 5*time.Second {
		t.Errorf("env 5s: %+v %v", o, err)
	}
	t.Setenv(EnvUserTimeout, "700")
	if o, err := Parse(nil); err != nil || o.UserTimeout != 700*time.Millisecond {
		t.Errorf("env 700: %+v %v", o, err)
	}
	if o, err := Parse(map[string]string{"tcp_user_timeout": "0"}); err != nil || o.UserTimeout != 0 {
		t.Errorf("DSN beats env: %+v %v", o, err)
	}
	t.Setenv(EnvUserTimeout, "never")
	if _, err := Parse(nil); err == nil || !strings.Contains(err.Error(), EnvUserTimeout) {
		t.Errorf("bad env: %v", err)
	}
}

// TestConfigureSetsSocketOptions dials a local listener through a
// configured pgconn.Config and reads the options back from the socket.
func TestConfigureSetsSocketOptions(t *testing.T) {
	t.Setenv(EnvUserTimeout, "")
	cfg, err := pgconn.ParseConfig("host=127.0.0.1 port=1 user=u dbname=d tcp_user_timeout=1234 keepalives_idle=7 application_name=x")
	if err != nil {
		t.Fatal(err)
	}
	if err := Configure(cfg); err != nil {
		t.Fatal(err)
	}
	for _, k := range params {
		if _, ok := cfg.RuntimeParams[k]; ok {
			t.Errorf("%s still sent to the server", k)
		}
	}
	if cfg.RuntimeParams["application_name"] != "x" {
		t.Errorf("other parameters lost: %v", cfg.RuntimeParams)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cfg.DialFunc(ctx, "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, _ := c.(syscall.Conn).SyscallConn()
	var uto, idle, ka int
	raw.Control(func(fd uintptr) {
		uto, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
		idle, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
		ka, _ = unix.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
	})
	if uto != 1234 || idle != 7 || ka != 1 {
		t.Errorf("TCP_USER_TIMEOUT %d (want 1234), TCP_KEEPIDLE %d (want 7), SO_KEEPALIVE %d (want 1)", uto, idle, ka)
	}
}

func TestConfigureBadValue(t *testing.T) {
	cfg, err := pgconn.ParseConfig("host=127.0.0.1 user=u keepalives=maybe")
	if err != nil {
		t.Fatal(err)
	}
	if err := Configure(cfg); err == nil || !strings.Contains(err.Error(), "keepalives") {
		t.Errorf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"30000", "0", "-1", "10s", "1h", "", "9999999999999", "1000000h", "1e3", " 5 "} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, uto, idle string) {
		o, err := Parse(map[string]string{"tcp_user_timeout": uto, "keepalives_idle": idle, "keepalives_count": idle})
		if err == nil && (o.UserTimeout < 0 || o.KeepaliveIdle < 0 || o.KeepaliveCount < 0) {
			t.Errorf("negative option accepted: %+v", o)
		}
	})
}

func TestParseTooLong(t *testing.T) {
	if _, err := Parse(map[string]string{"tcp_user_timeout": "1000000h"}); err == nil {
		t.Errorf("a user timeout beyond the socket option's range was accepted")
	}
}
