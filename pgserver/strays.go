package pgserver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/hostcheck"
)

// Strays are the processes of one of pglab's instances that no live
// postmaster owns: the children of a postmaster that died (a parallel
// worker whose leader was killed waits for ever), and every process of an
// instance whose directory was removed.
type Strays struct {
	// Dir is the instance directory: StateDir()/NAME for a named
	// instance, TempRoot()/pglab-… for a throwaway one.
	Dir string
	// Name is a named instance's name, "" for a throwaway one.
	Name string
	// Removed says the instance directory is gone.
	Removed bool
	// Procs are the stray processes.
	Procs []Process
}

// FindStrays lists the stray processes of pglab's instances: named ones
// (under StateDir()) and throwaway ones (under TempRoot(), in a directory
// named pglab-…), removed ones included.
func FindStrays() ([]Strays, error) {
	su, err := LookupServerUser()
	if err != nil {
		return nil, err
	}
	procs, err := postgresProcesses(su.UID)
	if err != nil {
		return nil, err
	}
	byPID := make(map[int]Process, len(procs))
	for _, p := range procs {
		byPID[p.PID] = p
	}
	state, tmp := realPath(StateDir()), realPath(TempRoot())
	groups := map[string]*Strays{}
	for _, p := range procs {
		dir, name, ok := instanceOf(p.Cwd, state, tmp)
		if !ok || !stray(p, byPID) {
			continue
		}
		g := groups[dir]
		if g == nil {
			_, err := os.Stat(dir)
			g = &Strays{Dir: dir, Name: name, Removed: os.IsNotExist(err)}
			groups[dir] = g
		}
		g.Procs = append(g.Procs, p)
	}
	out := make([]Strays, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Dir < out[b].Dir })
	return out, nil
}

// instanceOf returns the instance directory of a process whose working
// directory is an instance's data directory (DIR/data), and the named
// instance's name.
func instanceOf(cwd, state, tmp string) (dir, name string, ok bool) {
	if filepath.Base(cwd) != "data" {
		return "", "", false
	}
	dir = filepath.Dir(cwd)
	if filepath.Dir(dir) == state {
		return dir, filepath.Base(dir), true
	}
	rel, err := filepath.Rel(tmp, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", "", false
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return dir, "", strings.HasPrefix(first, "pglab-")
}

// stray reports whether p is attached to no live postmaster: its
// directory was removed, or it is a postmaster's child whose parent is no
// live postgres process of the same directory.
func stray(p Process, byPID map[int]Process) bool {
	if p.Deleted {
		return true
	}
	if !p.child() {
		return false
	}
	parent, ok := byPID[p.PPID]
	return !ok || parent.Cwd != p.Cwd || parent.Deleted
}

// String describes the strays in one line, with how to end them.
func (s Strays) String() string {
	what := "throwaway instance " + s.Dir
	if s.Name != "" {
		what = "instance " + s.Name
	}
	if s.Removed {
		what += " (removed)"
	}
	parts := make([]string, len(s.Procs))
	pids := make([]string, len(s.Procs))
	for k, p := range s.Procs {
		where := p.Cwd
		if p.Deleted {
			where += " (deleted)"
		}
		parts[k] = fmt.Sprintf("%d (%s; parent %d, working directory %s)", p.PID, p.Cmd, p.PPID, where)
		pids[k] = strconv.Itoa(p.PID)
	}
	hint := "end them with 'pglab pg stop " + s.Name + "'"
	if s.Name == "" {
		hint = "end them with 'kill -KILL " + strings.Join(pids, " ") + "'"
	}
	return fmt.Sprintf("%s: %s not attached to a live postmaster: %s; %s", what, plural(len(s.Procs)), strings.Join(parts, ", "), hint)
}

// WriteStrays writes a paragraph naming the stray processes of pglab's
// instances (see FindStrays), and nothing when there are none.
func WriteStrays(w io.Writer) error {
	strays, err := FindStrays()
	if err != nil {
		return err
	}
	if len(strays) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nstray processes of pglab's instances:")
	for _, s := range strays {
		if _, err := fmt.Fprintf(w, "  %s\n", s); err != nil {
			return err
		}
	}
	return nil
}

// StrayChecks are the doctor's lines on stray processes of pglab's
// instances: one saying there are none, or one per instance with strays.
func StrayChecks() []hostcheck.Check {
	const name = "stray server processes"
	strays, err := FindStrays()
	if err != nil {
		return []hostcheck.Check{{Name: name, Detail: err.Error()}}
	}
	if len(strays) == 0 {
		return []hostcheck.Check{{Name: name, OK: true, Detail: "none: every process of pglab's instances belongs to a live postmaster"}}
	}
	checks := make([]hostcheck.Check, len(strays))
	for k, s := range strays {
		checks[k] = hostcheck.Check{Name: name, Detail: s.String()}
	}
	return checks
}
