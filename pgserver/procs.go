package pgserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Process is one process of a managed instance, as Linux's /proc shows it.
//
// A postmaster's children (backends, background and parallel workers)
// each call setsid(): none shares the postmaster's process group or
// session, and when the postmaster dies they are reparented to 1 (or a
// subreaper). What marks them as the instance's is their working
// directory, the data directory, which the kernel shows as
// "PATH (deleted)" once it was removed.
type Process struct {
	PID  int
	PPID int
	PGID int
	SID  int
	UID  int
	// Cmd is the command line: a postmaster's ("/…/postgres -D DIR") or,
	// for a postmaster's child, its title ("postgres: parallel worker for
	// PID 18258").
	Cmd string
	// Cwd is the working directory; Deleted says it was removed.
	Cwd     string
	Deleted bool
	// start is the process's start time (clock ticks after boot): with
	// the PID it names one process, whatever reuses the PID later.
	start uint64
}

// String names the process as messages show it: "18300 (postgres:
// parallel worker for PID 18258)".
func (p Process) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Cmd) }

// child reports whether the process is a postmaster's child (its title
// starts "postgres: "), not a program run directly (a postmaster, a
// settings probe, initdb's bootstrap backend).
func (p Process) child() bool { return strings.HasPrefix(p.Cmd, "postgres: ") }

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// realPath makes p absolute with symbolic links resolved, as the kernel
// shows working directories; the part of p that does not exist (a removed
// instance) is kept as written.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs
	}
	return filepath.Join(realPath(parent), filepath.Base(abs))
}

// cutDeleted strips the " (deleted)" the kernel appends to the link of a
// removed file or directory.
func cutDeleted(link string) (string, bool) {
	return strings.CutSuffix(link, " (deleted)")
}

// readStat reads a live process's /proc/PID/stat (zombies are none: ok
// is false): its PID, parents, group, session and start time.
func readStat(pid int) (p Process, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return p, false
	}
	// pid (comm) state ppid pgrp session ...: comm may hold anything.
	j := bytes.LastIndexByte(stat, ')')
	if j < 0 {
		return p, false
	}
	f := strings.Fields(string(stat[j+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return p, false
	}
	p.PID = pid
	p.PPID, _ = strconv.Atoi(f[1])
	p.PGID, _ = strconv.Atoi(f[2])
	p.SID, _ = strconv.Atoi(f[3])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, true
}

// readProcess reads a live postgres process run by uid (zombies, exiting
// processes and other programs are none: ok is false).
func readProcess(pid, uid int) (p Process, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	p, ok = readStat(pid)
	if !ok {
		return p, false
	}
	exe, err := os.Readlink(dir + "/exe")
	if exe, _ = cutDeleted(exe); err != nil || filepath.Base(exe) != "postgres" {
		return p, false
	}
	if p.UID = procUID(dir); p.UID != uid {
		return p, false
	}
	cwd, err := os.Readlink(dir + "/cwd")
	if err != nil {
		return p, false
	}
	p.Cwd, p.Deleted = cutDeleted(cwd)
	cmdline, _ := os.ReadFile(dir + "/cmdline")
	p.Cmd = strings.TrimSpace(strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "))
	return p, true
}

// procUID reads the real uid from a /proc/PID directory's status, -1 when
// unreadable.
func procUID(dir string) int {
	f, err := os.Open(dir + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				uid, err := strconv.Atoi(fs[0])
				if err == nil {
					return uid
				}
			}
			break
		}
	}
	return -1
}

// postgresProcesses lists the live postgres processes run by uid, this
// process aside.
func postgresProcesses(uid int) ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	self := os.Getpid()
	var out []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if p, ok := readProcess(pid, uid); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// scope says which processes are an instance's: its data directory, its
// instance directory and its postmaster as recorded (alive or not).
type scope struct {
	// dataDir and instDir are resolved as the kernel shows working
	// directories; arg is the data directory as given to postgres -D.
	dataDir, instDir, arg string
	pm                    int
}

// holds reports whether p is of the instance: its working directory, its
// "-D" argument or one of its open files is in the data directory, or it
// is in the recorded postmaster's process group or session with its
// working directory in the instance directory (a PID that named a group
// of this instance names no other while any process of that group
// lives; the directory check guards against a group started afresh under
// the same number).
func (s scope) holds(p Process) bool {
	switch {
	case under(p.Cwd, s.dataDir):
		return true
	case s.pm > 0 && (p.PGID == s.pm || p.SID == s.pm) && under(p.Cwd, s.instDir):
		return true
	case strings.Contains(p.Cmd+" ", " -D "+s.arg+" "):
		return true
	}
	return openFileUnder(p.PID, s.dataDir)
}

// openFileUnder reports whether process pid has a file open in dir.
func openFileUnder(pid int, dir string) bool {
	fds := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(fds)
	if err != nil {
		return false
	}
	for _, e := range ents {
		link, err := os.Readlink(fds + "/" + e.Name())
		if err != nil {
			continue
		}
		if path, _ := cutDeleted(link); under(path, dir) {
			return true
		}
	}
	return false
}

// find lists the processes of the instance run by uid.
func (s scope) find(uid int) ([]Process, error) {
	all, err := postgresProcesses(uid)
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, p := range all {
		if s.holds(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// endProcesses sends SIGKILL to each process still the one listed (same
// PID and start time, still of the instance) and waits up to limit until
// they are gone. It returns those it signalled; the error names any left.
func endProcesses(s scope, uid int, procs []Process, limit time.Duration) ([]Process, error) {
	var ended []Process
	for _, p := range procs {
		if signalSame(s, uid, p) {
			ended = append(ended, p)
		}
	}
	deadline := time.Now().Add(limit)
	for {
		var left []string
		for _, p := range ended {
			if sameAlive(p) {
				left = append(left, p.String())
			}
		}
		if len(left) == 0 {
			return ended, nil
		}
		if time.Now().After(deadline) {
			return ended, fmt.Errorf("processes still running %s after SIGKILL: %s", limit, strings.Join(left, ", "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sameAlive reports whether p still runs (not reaped, no zombie) as the
// same process. A process that is exiting has lost its executable and
// working directory already but runs until it is a zombie.
func sameAlive(p Process) bool {
	cur, ok := readStat(p.PID)
	return ok && cur.start == p.start
}

// signalSame sends SIGKILL to p through a pidfd opened before checking
// that the PID still names the same process of the instance, so that a
// PID reused in between is never signalled. It reports whether p was
// signalled.
func signalSame(s scope, uid int, p Process) bool {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if errors.Is(err, unix.ENOSYS) {
		fd = -1 // Linux before 5.3: check, then kill
	} else if err != nil {
		return false // gone
	}
	if fd >= 0 {
		defer unix.Close(fd)
	}
	cur, ok := readProcess(p.PID, uid)
	if !ok || cur.start != p.start || !s.holds(cur) {
		return false
	}
	if fd < 0 {
		return unix.Kill(p.PID, unix.SIGKILL) == nil
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil
}

// describe lists processes as messages show them.
func describe(procs []Process) string {
	parts := make([]string, len(procs))
	for k, p := range procs {
		parts[k] = p.String()
	}
	return strings.Join(parts, ", ")
}

// plural returns "1 process" or "n processes".
func plural(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}

// leftoversLimit bounds the wait for processes ended with SIGKILL.
const leftoversLimit = 10 * time.Second

// scope returns what marks the instance's processes.
func (i *Instance) scope() scope {
	i.mu.Lock()
	pm := i.lastPM
	i.mu.Unlock()
	if pm == 0 {
		pm = pmPID(i.dataDir())
	}
	return scope{dataDir: realPath(i.dataDir()), instDir: realPath(i.dir), arg: i.dataDir(), pm: pm}
}

// Processes returns the live processes of the instance, its postmaster
// included: postgres processes run by the server user whose working
// directory, "-D" argument or open files are in its data directory
// (removed or not), or that are in its postmaster's process group or
// session with their working directory in the instance directory.
func (i *Instance) Processes() ([]Process, error) {
	return i.scope().find(i.user.UID)
}

// Ended returns the processes that Stop, Close and Destroy of this
// Instance ended with SIGKILL after the postmaster was gone.
func (i *Instance) Ended() []Process {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Process(nil), i.ended...)
}

// SetProgress sets where the instance's progress lines go (for an
// instance opened with OpenNamed, which has none): among them, what Stop
// ended.
func (i *Instance) SetProgress(f func(string)) { i.opts.Progress = f }

// endLeftovers ends every process of the instance once its postmaster is
// gone (none is the instance's to keep), says which and records them.
func (i *Instance) endLeftovers() error {
	s := i.scope()
	procs, err := s.find(i.user.UID)
	if err != nil || len(procs) == 0 {
		return err
	}
	ended, err := endProcesses(s, i.user.UID, procs, leftoversLimit)
	if len(ended) > 0 {
		i.mu.Lock()
		i.ended = append(i.ended, ended...)
		i.mu.Unlock()
		pm := "its postmaster"
		if s.pm > 0 {
			pm = fmt.Sprintf("its postmaster (PID %d)", s.pm)
		}
		i.say("instance %s: ended %s that outlived %s: %s", i.name, plural(len(ended)), pm, describe(ended))
	}
	if err != nil {
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	return nil
}

// isPostmaster reports whether pid is a live process of the instance (the
// PID in postmaster.pid of a server killed long ago may name another
// process since).
func (i *Instance) isPostmaster(pid int) bool {
	p, ok := readProcess(pid, i.user.UID)
	return ok && i.scope().holds(p)
}
