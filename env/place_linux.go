//go:build linux

package env

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// PrepareFork places the process about to be forked in the cgroup. pgserver
// calls it on the OS thread that forks the postmaster, locked to its
// goroutine, right before the fork, and calls undo on that thread right
// after it, whether the fork succeeded or not; an error from undo means
// the thread could not leave the cgroup and must not run anything else
// (pgserver then lets it end with its goroutine). Children are born in the
// cgroups of the thread that forks them, so the postmaster and every
// process it forks run inside from their first instruction:
//
//   - cgroup v2: attr asks for clone3 with CLONE_INTO_CGROUP
//     (SysProcAttr.UseCgroupFD), the child created in the cgroup;
//   - cgroup v1: the thread itself enters the cgroup in each hierarchy
//     (its id written to the tasks file) and undo moves it back to where
//     it was. Nothing else runs on a locked thread in between.
func (cg *Cgroup) PrepareFork(attr *syscall.SysProcAttr) (undo func() error, err error) {
	var v1, v2 []string
	seen := map[string]bool{}
	for _, c := range Controllers {
		dir := cg.dirs[c]
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		if cg.layout.Hierarchies[c].Version == 2 {
			v2 = append(v2, dir)
		} else {
			v1 = append(v1, dir)
		}
	}
	var undos []func() error
	undo = func() error {
		var first error
		for k := len(undos) - 1; k >= 0; k-- {
			if err := undos[k](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	none := func() error { return nil }
	if len(v2) > 0 {
		fd, err := unix.Open(v2[0], unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return none, fmt.Errorf("open cgroup %s: %w", v2[0], err)
		}
		attr.UseCgroupFD, attr.CgroupFD = true, fd
		undos = append(undos, func() error { return unix.Close(fd) })
	}
	if len(v1) > 0 {
		tid := unix.Gettid()
		here, err := readProcCgroup(fmt.Sprintf("/proc/self/task/%d/cgroup", tid))
		if err != nil {
			undo()
			return none, err
		}
		for _, c := range Controllers {
			dir := cg.dirs[c]
			h := cg.layout.Hierarchies[c]
			if dir == "" || h.Version != 1 || !seen[dir] {
				continue
			}
			seen[dir] = false // each hierarchy once
			back := dirIn(h.Mount, h.root, here[c.v1Name()])
			if back == "" {
				undo()
				return none, fmt.Errorf("cannot tell which %s cgroup this thread is in", c)
			}
			if err := moveTask(dir, tid); err != nil {
				undo()
				return none, err
			}
			undos = append(undos, func() error { return moveTask(back, tid) })
		}
	}
	return undo, nil
}

// moveTask moves one thread into a v1 cgroup.
func moveTask(dir string, tid int) error {
	path := filepath.Join(dir, "tasks")
	if err := os.WriteFile(path, []byte(strconv.Itoa(tid)), 0); err != nil {
		return fmt.Errorf("move the forking thread into cgroup %s: %w", dir, err)
	}
	return nil
}
