package serve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// MinTokenLen is the shortest token accepted: a token is all that stands
// between the network and the runs.
const MinTokenLen = 16

// CheckAddr checks --addr and --token: a token is needed for any address
// but loopback, and must be MinTokenLen characters or more. It returns the
// host to listen on and whether it is a loopback address.
func CheckAddr(addr, token string) (string, bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", false, fmt.Errorf("--addr %s: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback && token == "" {
		where := host
		if where == "" {
			where = "every address"
		}
		return "", false, fmt.Errorf("--addr %s would serve the runs beyond this machine (%s): give --token (every request must then carry it), or listen on 127.0.0.1", addr, where)
	}
	if token != "" && len(token) < MinTokenLen {
		return "", false, fmt.Errorf("--token is too short: use at least %d characters, e.g. $(openssl rand -hex 16)", MinTokenLen)
	}
	return host, loopback, nil
}

// URL is the address to open in a browser of a server listening on a,
// asked for host. The token is not in it: the user has it.
func URL(a net.Addr, host string, loopback bool) string {
	_, port, _ := net.SplitHostPort(a.String())
	name := host
	switch {
	case loopback && name != "localhost":
		name = "127.0.0.1"
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			name = "[::1]"
		}
	case name == "" || name == "0.0.0.0" || name == "::":
		if hn, err := os.Hostname(); err == nil {
			name = hn
		}
	case strings.Contains(name, ":"):
		name = "[" + name + "]"
	}
	return "http://" + name + ":" + port + "/"
}

// Run serves h on ln until ctx is cancelled, then shuts down within a
// few seconds.
func Run(ctx context.Context, ln net.Listener, h http.Handler, logger *log.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          logger,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-done
	return nil
}
