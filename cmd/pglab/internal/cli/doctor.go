package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

func init() { register(90, newDoctorCmd) }

// check is one line of the doctor's report.
type check struct {
	name   string
	ok     bool
	detail string
}

func newDoctorCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Show what this machine can do: binaries, versions, cache drops, network namespaces, environment limits",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := env.Ctx
			w := env.Stdout
			fmt.Fprintf(w, "pglab doctor (%s/%s, %d CPUs, running as uid %d)\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), os.Geteuid())

			fmt.Fprintln(w, "PostgreSQL server binaries:")
			found := env.finder().All(ctx)
			if len(found) == 0 {
				fmt.Fprintln(w, "  none found; install some with 'pglab pg install 16 17 18'")
			}
			for _, b := range found {
				fmt.Fprintf(w, "  %-7s %-12s %s\n", b.Version, b.Source, b.Dir)
			}
			fmt.Fprintln(w)

			checks := []check{
				checkNPM(ctx),
				checkClient("psql"),
				checkClient("pgbench"),
				checkServerUser(),
				checkDir("binaries cache", pgserver.CacheDir()),
				checkDir("dataset cache", dataset.DefaultDir()),
				checkDir("named instances", pgserver.StateDir()),
				checkDir("throwaway instances", pgserver.TempRoot()),
				checkDropCaches(),
			}
			checks = append(checks, checkNetns(ctx)...)
			printChecks(w, checks)
			writeEnvChecks(w)
			return nil
		},
	}
}

func printChecks(w io.Writer, checks []check) {
	for _, c := range checks {
		mark := "yes"
		if !c.ok {
			mark = "no "
		}
		fmt.Fprintf(w, "  [%s] %-28s %s\n", mark, c.name, c.detail)
	}
}

func checkNPM(ctx context.Context) check {
	c := check{name: "install builds (npm)"}
	p, err := exec.LookPath("npm")
	if err != nil {
		c.detail = "npm not in PATH: 'pglab pg install' needs Node.js and npm"
		return c
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, p, "--version").Output()
	if err != nil {
		c.detail = fmt.Sprintf("%s --version failed: %v", p, err)
		return c
	}
	c.ok = true
	c.detail = fmt.Sprintf("npm %s (%s), package %s", strings.TrimSpace(string(out)), p, pgserver.NPMPackage())
	return c
}

func checkClient(name string) check {
	c := check{name: name + " (client)"}
	p, err := exec.LookPath(name)
	if err != nil {
		c.detail = "not in PATH (optional: pglab has its own client)"
		return c
	}
	out, _ := exec.Command(p, "--version").Output()
	c.ok = true
	c.detail = strings.TrimSpace(string(out))
	return c
}

func checkServerUser() check {
	c := check{name: "server user"}
	u, err := pgserver.LookupServerUser()
	if err != nil {
		c.detail = err.Error()
		return c
	}
	c.ok = true
	if u.Self {
		c.detail = fmt.Sprintf("servers run as you (%s)", u.Name)
	} else {
		c.detail = fmt.Sprintf("running as root: servers run as %s (uid %d)", u.Name, u.UID)
	}
	return c
}

// checkDir reports where a directory is and whether the server user can
// reach it.
func checkDir(what, dir string) check {
	c := check{name: what}
	p := dir
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		if p == filepath.Dir(p) {
			break
		}
		p = filepath.Dir(p)
	}
	if os.Geteuid() == 0 {
		for q := p; ; q = filepath.Dir(q) {
			st, err := os.Stat(q)
			if err == nil && st.Mode().Perm()&0o001 == 0 {
				c.detail = fmt.Sprintf("%s: %s is mode %04o, which the server user cannot traverse", dir, q, st.Mode().Perm())
				return c
			}
			if q == filepath.Dir(q) {
				break
			}
		}
	}
	c.ok = true
	c.detail = dir
	return c
}

// checkDropCaches tells whether the OS page cache can be dropped (for cold
// reads), and otherwise what pglab falls back to.
func checkDropCaches() check {
	c := check{name: "drop OS page cache"}
	const path = "/proc/sys/vm/drop_caches"
	if err := unix.Access(path, unix.W_OK); err != nil || os.Geteuid() != 0 {
		c.detail = "no (needs root and a writable " + path + "); cold runs evict relation files with posix_fadvise instead"
		return c
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		c.detail = fmt.Sprintf("no: %v; cold runs evict relation files with posix_fadvise instead", err)
		return c
	}
	f.Close()
	c.ok = true
	c.detail = "yes (root, " + path + " writable)"
	return c
}

// checkNetns creates and deletes a network namespace, and tries netem on
// its loopback, to tell whether added network delay can be simulated.
func checkNetns(ctx context.Context) []check {
	c := check{name: "network namespaces"}
	d := check{name: "added network delay (netem)"}
	ip, err := exec.LookPath("ip")
	if err != nil {
		c.detail = "no: the ip command (iproute2) is missing"
		d.detail = "no: needs network namespaces"
		return []check{c, d}
	}
	if os.Geteuid() != 0 {
		c.detail = "no: needs root"
		d.detail = "no: needs network namespaces"
		return []check{c, d}
	}
	name := fmt.Sprintf("pglab-doctor-%d", os.Getpid())
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(cctx, ip, "netns", "add", name).CombinedOutput(); err != nil {
		c.detail = fmt.Sprintf("no: ip netns add: %s", strings.TrimSpace(string(out)))
		d.detail = "no: needs network namespaces"
		return []check{c, d}
	}
	defer exec.Command(ip, "netns", "delete", name).Run()
	c.ok = true
	c.detail = "yes (ip netns add works)"
	tc, err := exec.LookPath("tc")
	if err != nil {
		d.detail = "no: the tc command (iproute2) is missing"
		return []check{c, d}
	}
	exec.CommandContext(cctx, ip, "-n", name, "link", "set", "lo", "up").Run()
	if out, err := exec.CommandContext(cctx, ip, "netns", "exec", name, tc, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms").CombinedOutput(); err != nil {
		d.detail = fmt.Sprintf("no: tc qdisc netem: %s (kernel module sch_netem missing?)", strings.TrimSpace(string(out)))
		return []check{c, d}
	}
	d.ok = true
	d.detail = "yes (tc netem on a namespace's loopback)"
	return []check{c, d}
}
