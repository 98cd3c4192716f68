// Package hostcheck tells what this machine offers a PostgreSQL lab, one
// line each, for 'pglab doctor': commands on the PATH, whether the OS page
// cache can be dropped, whether network namespaces and netem work,
// whether a directory can be reached by another user, whether a thread may
// run at real-time priority. Each check says yes or no and why.
package hostcheck

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Check is one line of the doctor's report.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Print writes checks as "  [yes] name   detail" lines.
func Print(w io.Writer, checks []Check) {
	for _, c := range checks {
		mark := "yes"
		if !c.OK {
			mark = "no "
		}
		fmt.Fprintf(w, "  [%s] %-28s %s\n", mark, c.Name, c.Detail)
	}
}

// NPM checks for npm, which installs the PostgreSQL builds of pkg.
func NPM(ctx context.Context, pkg string) Check {
	c := Check{Name: "install builds (npm)"}
	p, err := exec.LookPath("npm")
	if err != nil {
		c.Detail = "npm not in PATH: 'pglab pg install' needs Node.js and npm"
		return c
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, p, "--version").Output()
	if err != nil {
		c.Detail = fmt.Sprintf("%s --version failed: %v", p, err)
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("npm %s (%s), package %s", strings.TrimSpace(string(out)), p, pkg)
	return c
}

// Client checks for an optional client program (psql, pgbench) and its
// version.
func Client(name string) Check {
	c := Check{Name: name + " (client)"}
	p, err := exec.LookPath(name)
	if err != nil {
		c.Detail = "not in PATH (optional: pglab has its own client)"
		return c
	}
	out, _ := exec.Command(p, "--version").Output()
	c.OK = true
	c.Detail = strings.TrimSpace(string(out))
	return c
}

// Dir reports where a directory is and, as root, whether another user
// (the server's) can traverse the way to it.
func Dir(what, dir string) Check {
	c := Check{Name: what}
	p := dir
	for {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			break
		}
		p = filepath.Dir(p)
	}
	if os.Geteuid() == 0 {
		for q := p; ; q = filepath.Dir(q) {
			st, err := os.Stat(q)
			if err == nil && st.Mode().Perm()&0o001 == 0 {
				c.Detail = fmt.Sprintf("%s: %s is mode %04o, which the server user cannot traverse", dir, q, st.Mode().Perm())
				return c
			}
			if q == filepath.Dir(q) {
				break
			}
		}
	}
	c.OK = true
	c.Detail = dir
	return c
}

// DropCaches tells whether the OS page cache can be dropped (for cold
// reads), and otherwise what pglab falls back to.
func DropCaches() Check {
	c := Check{Name: "drop OS page cache"}
	const path = "/proc/sys/vm/drop_caches"
	if err := unix.Access(path, unix.W_OK); err != nil || os.Geteuid() != 0 {
		c.Detail = "no (needs root and a writable " + path + "); cold runs evict relation files with posix_fadvise instead"
		return c
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		c.Detail = fmt.Sprintf("no: %v; cold runs evict relation files with posix_fadvise instead", err)
		return c
	}
	f.Close()
	c.OK = true
	c.Detail = "yes (root, " + path + " writable)"
	return c
}

// Netns creates and deletes a network namespace, and tries netem on its
// loopback, to tell whether added network delay can be simulated by the
// kernel.
func Netns(ctx context.Context) []Check {
	c := Check{Name: "network namespaces"}
	d := Check{Name: "added network delay (netem)"}
	ip, err := exec.LookPath("ip")
	switch {
	case err != nil:
		c.Detail, d.Detail = "no: the ip command (iproute2) is missing", "no: needs network namespaces"
		return []Check{c, d}
	case os.Geteuid() != 0:
		c.Detail, d.Detail = "no: needs root", "no: needs network namespaces"
		return []Check{c, d}
	}
	name := fmt.Sprintf("pglab-doctor-%d", os.Getpid())
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(cctx, ip, "netns", "add", name).CombinedOutput(); err != nil {
		c.Detail = fmt.Sprintf("no: ip netns add: %s", strings.TrimSpace(string(out)))
		d.Detail = "no: needs network namespaces"
		return []Check{c, d}
	}
	defer exec.Command(ip, "netns", "delete", name).Run()
	c.OK = true
	c.Detail = "yes (ip netns add works)"
	tc, err := exec.LookPath("tc")
	if err != nil {
		d.Detail = "no: the tc command (iproute2) is missing"
		return []Check{c, d}
	}
	exec.CommandContext(cctx, ip, "-n", name, "link", "set", "lo", "up").Run()
	if out, err := exec.CommandContext(cctx, ip, "netns", "exec", name, tc, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms").CombinedOutput(); err != nil {
		d.Detail = fmt.Sprintf("no: tc qdisc netem: %s (kernel module sch_netem missing?)", strings.TrimSpace(string(out)))
		return []Check{c, d}
	}
	d.OK = true
	d.Detail = "yes (tc netem on a namespace's loopback)"
	return []Check{c, d}
}

// RealTimeAllowed reports whether this process may give a thread the
// SCHED_FIFO class: as root, or with an RLIMIT_RTPRIO above zero.
func RealTimeAllowed() bool {
	if os.Geteuid() == 0 {
		return true
	}
	var lim unix.Rlimit
	return unix.Getrlimit(unix.RLIMIT_RTPRIO, &lim) == nil && lim.Cur > 0
}
