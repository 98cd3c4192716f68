package env

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// staleDepth bounds how deep CleanStale looks below a hierarchy's mount
// point: pglab's cgroups sit in the creating process's own cgroup (v1) or
// under the topmost writable one (v2), a few levels down.
const staleDepth = 8

// CleanStale removes the cgroups a pglab that is gone left behind (killed
// with SIGKILL, or a machine crash between start and stop): directories
// named "pglab-<pid>-…" anywhere in the layout's hierarchies whose creator
// process no longer exists and which hold no process. A running server's
// cgroup always holds its postmaster, and a cgroup being set up belongs to
// a live process, so neither is touched. It returns the directories it
// removed.
func CleanStale(l *Layout) []string {
	var removed []string
	eachPglabCgroup(l, func(dir string) {
		if staleCgroup(dir) && removeDir(dir, 0) == nil {
			removed = append(removed, dir)
		}
	})
	return removed
}

// eachPglabCgroup calls fn for every pglab cgroup in the layout's
// hierarchies (each mount once).
func eachPglabCgroup(l *Layout, fn func(dir string)) {
	seen := map[string]bool{}
	for _, root := range append(mountsOf(l), l.Unified) {
		if root != "" && !seen[root] {
			seen[root] = true
			walkCgroups(root, 0, fn)
		}
	}
}

// walkCgroups calls fn for every pglab cgroup directory under dir.
func walkCgroups(dir string, depth int, fn func(string)) {
	if depth > staleDepth {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), Prefix) {
			fn(sub)
			continue // pglab makes no cgroups inside its own
		}
		walkCgroups(sub, depth+1, fn)
	}
}

// OwnerPID returns the creating process's id from a pglab cgroup name
// "pglab-<pid>-…", or 0.
func OwnerPID(name string) int {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return 0
	}
	num, _, _ := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(num)
	if err != nil {
		return 0
	}
	return pid
}

func staleCgroup(dir string) bool {
	owner := OwnerPID(filepath.Base(dir))
	if owner == 0 || pidAlive(owner) {
		return false
	}
	pids, err := readPids(filepath.Join(dir, "cgroup.procs"))
	return err == nil && len(pids) == 0
}

// Owned lists the pglab cgroups that process pid created and that still
// exist, in every hierarchy of the layout: what a test checks to prove
// that nothing was left behind.
func Owned(l *Layout, pid int) []string {
	var out []string
	eachPglabCgroup(l, func(dir string) {
		if OwnerPID(filepath.Base(dir)) == pid {
			out = append(out, dir)
		}
	})
	return out
}

func mountsOf(l *Layout) []string {
	var out []string
	for _, c := range Controllers {
		if h := l.Hierarchies[c]; h.Mount != "" {
			out = append(out, h.Mount)
		}
	}
	return out
}
