package env

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/blockdev"
	"golang.org/x/sys/unix"
)

// Controller is a cgroup controller pglab uses.
type Controller string

// The controllers pglab uses, by their cgroup v2 names (v1 calls the io
// controller "blkio").
const (
	CPU    Controller = "cpu"
	Memory Controller = "memory"
	IO     Controller = "io"
)

// Controllers are the controllers pglab uses, in the order it reports them.
var Controllers = []Controller{CPU, Memory, IO}

// v1Name returns the controller's name in cgroup v1.
func (c Controller) v1Name() string {
	if c == IO {
		return "blkio"
	}
	return string(c)
}

// Hierarchy is where one controller is on this machine and whether pglab
// can create cgroups under it.
type Hierarchy struct {
	Controller Controller
	// Version is 1 or 2; 0 when the kernel has no such controller
	// mounted.
	Version int
	// Mount is the mount point of the hierarchy, e.g. /sys/fs/cgroup/memory
	// (v1) or /sys/fs/cgroup (v2).
	Mount string
	// Own is the directory of this process's cgroup in the hierarchy.
	Own string
	// Base is the directory under which pglab creates its cgroups: the
	// process's own cgroup on v1; on v2 the topmost cgroup above it that
	// this process may write (the root as root, a delegated cgroup
	// otherwise). Empty when pglab cannot create cgroups here; Why says
	// why.
	Base string
	Why  string

	root string // the mount's subtree root (mountinfo's root field)
}

// Usable reports whether pglab can create cgroups of this controller.
func (h *Hierarchy) Usable() bool { return h != nil && h.Base != "" }

// Layout is this machine's cgroup set-up as pglab sees it.
type Layout struct {
	// Hierarchies holds one entry per controller of Controllers.
	Hierarchies map[Controller]*Hierarchy
	// Unified is the cgroup2 mount point, if there is one, and
	// UnifiedControllers the controllers its root offers.
	Unified            string
	UnifiedControllers []string
	// Mode sums the layout up: "v2", "v1", "hybrid" (some of both), or
	// "none".
	Mode string
	// Root is true when pglab runs as root.
	Root bool

	unifiedRoot string // the cgroup2 mount's subtree root (mountinfo's root field)
}

// Detect reads the machine's cgroup layout: the cgroup mounts
// (/proc/self/mountinfo), this process's cgroups (/proc/self/cgroup), which
// controllers each offers, and whether pglab may create cgroups there.
func Detect() *Layout {
	mounts, merr := blockdev.System{}.Mounts()
	own, oerr := readProcCgroup("/proc/self/cgroup")
	l := layoutOf(mounts, own)
	l.Root = os.Geteuid() == 0
	if l.Unified != "" {
		l.UnifiedControllers = readControllers(filepath.Join(l.Unified, "cgroup.controllers"))
	}
	for _, c := range Controllers {
		h := l.Hierarchies[c]
		switch {
		case merr != nil:
			h.Why = merr.Error()
		case oerr != nil:
			h.Why = oerr.Error()
		case h.Version == 0 && l.Unified != "" && contains(l.UnifiedControllers, string(c)):
			h.Version, h.Mount, h.root = 2, l.Unified, l.unifiedRoot
			h.Own = dirIn(l.Unified, l.unifiedRoot, own["0:"])
		}
		if h.Why == "" {
			l.findBase(h)
		}
	}
	l.Mode = modeOf(l)
	return l
}

// procCgroup maps a /proc/self/cgroup line's controller list to the
// process's path: "4:memory" → "/a/b" is keyed by each controller name
// ("memory") and the v2 line by "0:".
type procCgroup map[string]string

func readProcCgroup(path string) (procCgroup, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading this process's cgroups: %w", err)
	}
	return parseProcCgroup(string(data)), nil
}

// parseProcCgroup parses /proc/PID/cgroup: "ID:controllers:path" lines; v2
// is "0::path".
func parseProcCgroup(text string) procCgroup {
	out := procCgroup{}
	for _, line := range strings.Split(text, "\n") {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctrls, path, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		if id == "0" && ctrls == "" {
			out["0:"] = path
			continue
		}
		for _, c := range strings.Split(ctrls, ",") {
			if c != "" {
				out[c] = path
			}
		}
	}
	return out
}

// layoutOf finds each controller's v1 hierarchy and the cgroup2 mount in a
// mount table; own is this process's /proc/self/cgroup.
func layoutOf(mounts []blockdev.Mount, own procCgroup) *Layout {
	l := &Layout{Hierarchies: map[Controller]*Hierarchy{}}
	for _, c := range Controllers {
		l.Hierarchies[c] = &Hierarchy{Controller: c}
	}
	for _, m := range mounts {
		switch m.FSType {
		case "cgroup2":
			if l.Unified == "" {
				l.Unified, l.unifiedRoot = m.Point, m.Root
			}
		case "cgroup":
			opts := strings.Split(m.SuperOptions, ",")
			for _, c := range Controllers {
				h := l.Hierarchies[c]
				if h.Version == 0 && contains(opts, c.v1Name()) {
					h.Version, h.Mount, h.root = 1, m.Point, m.Root
					h.Own = dirIn(m.Point, m.Root, own[c.v1Name()])
				}
			}
		}
	}
	return l
}

// dirIn is the directory of cgroup path (as /proc/self/cgroup gives it,
// from the hierarchy's root) under a mount of the hierarchy's subtree
// root; "" when the mount does not show that cgroup.
func dirIn(point, root, path string) string {
	if path == "" {
		return ""
	}
	rel := path
	if root != "" && root != "/" {
		r, ok := strings.CutPrefix(path, root)
		if !ok || (r != "" && r[0] != '/') {
			return ""
		}
		rel = r
	}
	return filepath.Join(point, rel)
}

func modeOf(l *Layout) string {
	v1, v2 := 0, 0
	for _, h := range l.Hierarchies {
		switch h.Version {
		case 1:
			v1++
		case 2:
			v2++
		}
	}
	switch {
	case v1 > 0 && v2 > 0:
		return "hybrid"
	case v1 > 0:
		return "v1"
	case v2 > 0:
		return "v2"
	}
	return "none"
}

// findBase sets where pglab creates cgroups of h, or why it cannot.
func (l *Layout) findBase(h *Hierarchy) {
	switch {
	case h.Version == 0 && l.Unified != "":
		h.Why = fmt.Sprintf("the kernel offers no %s controller: it is in no cgroup v1 hierarchy and not in %s", h.Controller, filepath.Join(l.Unified, "cgroup.controllers"))
		return
	case h.Version == 0:
		h.Why = fmt.Sprintf("no cgroup hierarchy with the %s controller is mounted", h.Controller)
		return
	case h.Own == "":
		h.Why = fmt.Sprintf("this process's %s cgroup is not visible under %s", h.Controller, h.Mount)
		return
	}
	if h.Version == 1 {
		// v1 allows processes in inner cgroups: pglab's cgroups nest in
		// its own, keeping whatever limits it runs under.
		if writable(h.Own) && writable(filepath.Join(h.Own, "tasks")) {
			h.Base = h.Own
			return
		}
		h.Why = noAccess(h.Own, l.Root)
		return
	}
	// v2: a controller can be enabled for children only in a cgroup
	// without processes of its own (the root is exempt), so pglab's
	// cgroups go under the topmost cgroup above its own that it may
	// write: the root as root, a delegated subtree's top otherwise. A
	// move needs write access to cgroup.procs of the common ancestor,
	// which that cgroup is.
	for dir := h.Mount; ; {
		if writable(dir) && writable(filepath.Join(dir, "cgroup.procs")) && writable(filepath.Join(dir, "cgroup.subtree_control")) {
			h.Base = dir
			return
		}
		if dir == h.Own {
			break
		}
		rel, err := filepath.Rel(dir, h.Own)
		if err != nil || strings.HasPrefix(rel, "..") {
			break
		}
		dir = filepath.Join(dir, strings.SplitN(rel, string(filepath.Separator), 2)[0])
	}
	h.Why = noAccess(h.Own, l.Root)
}

func noAccess(dir string, root bool) string {
	if root {
		return fmt.Sprintf("no write access to %s even as root (a read-only cgroup mount, as containers have by default)", dir)
	}
	return fmt.Sprintf("no write access to %s: pglab needs root, or a cgroup delegated to uid %d (e.g. systemd-run --user --scope -p Delegate=yes pglab …)", dir, os.Geteuid())
}

func writable(path string) bool { return unix.Access(path, unix.W_OK) == nil }

func readControllers(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Summary is one line saying what the layout is, for `pglab doctor`:
// "cgroup v1 (cpu, memory, blkio); cgroup2 at /sys/fs/cgroup/unified
// without those controllers".
func (l *Layout) Summary() string {
	var parts []string
	for _, v := range []int{2, 1} {
		var names []string
		mount := ""
		for _, c := range Controllers {
			if h := l.Hierarchies[c]; h.Version == v {
				name := string(c)
				if v == 1 {
					name = c.v1Name()
				}
				names = append(names, name)
				mount = h.Mount
			}
		}
		if len(names) == 0 {
			continue
		}
		if v == 2 {
			parts = append(parts, fmt.Sprintf("cgroup v2 at %s (%s)", mount, strings.Join(names, ", ")))
		} else {
			parts = append(parts, fmt.Sprintf("cgroup v1 (%s)", strings.Join(names, ", ")))
		}
	}
	if l.Mode == "v1" && l.Unified != "" {
		offered := "no controllers"
		if len(l.UnifiedControllers) > 0 {
			offered = "only " + strings.Join(l.UnifiedControllers, ", ")
		}
		parts = append(parts, fmt.Sprintf("cgroup2 at %s with %s", l.Unified, offered))
	}
	if len(parts) == 0 {
		return "no cgroup controllers found"
	}
	return strings.Join(parts, "; ")
}

// pidAlive reports whether a process exists.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// readKeyed reads a "key value" per line file (cpu.stat, memory.stat).
func readKeyed(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, sc.Err()
}
