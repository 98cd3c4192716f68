package observe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// procStat is what the server CPU sampler takes from /proc/PID/stat.
type procStat struct {
	ppid int
	// utime, stime: the process's own CPU; cutime, cstime: that of the
	// children it has waited for (reaped), their own reaped children
	// included. Clock ticks.
	utime, stime, cutime, cstime uint64
	// starttime is when the process started, in clock ticks since boot:
	// with the PID, it tells a process from a later one given the same PID.
	starttime uint64
}

// parseProcStat parses /proc/PID/stat: "pid (comm) state ppid … utime
// stime cutime cstime … starttime …" (proc(5); fields 4, 14–17, 22). The
// command name may hold spaces and parentheses, so the fields are counted
// from its last ')'.
func parseProcStat(data []byte) (procStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("stat %q: no command name", trim(data))
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state): field n is f[n-3].
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("stat %q: %d fields after the command name", trim(data), len(f))
	}
	var v [6]int64
	for k, n := range []int{4, 14, 15, 16, 17, 22} {
		x, err := strconv.ParseInt(string(f[n-3]), 10, 64)
		if err != nil || x < 0 {
			return procStat{}, fmt.Errorf("stat field %d %q: not a count", n, f[n-3])
		}
		v[k] = x
	}
	return procStat{ppid: int(v[0]), utime: uint64(v[1]), stime: uint64(v[2]),
		cutime: uint64(v[3]), cstime: uint64(v[4]), starttime: uint64(v[5])}, nil
}

// ppidOf returns field 4 of a /proc/PID/stat without parsing the rest
// (the children's scan reads every process's).
func ppidOf(data []byte) (int, bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+4 > len(data) {
		return 0, false
	}
	rest := data[i+2:] // "S 123 …"
	_, rest, ok := bytes.Cut(rest, []byte(" "))
	if !ok {
		return 0, false
	}
	field, _, _ := bytes.Cut(rest, []byte(" "))
	n, err := strconv.Atoi(string(field))
	return n, err == nil
}

// parseSchedstat parses /proc/PID/schedstat: "run wait timeslices", the
// time on a CPU and the time waiting on a run queue in nanoseconds, and
// the number of times it ran.
func parseSchedstat(data []byte) (run, wait uint64, err error) {
	f := bytes.Fields(data)
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("schedstat %q: want run and wait times", trim(data))
	}
	if run, err = strconv.ParseUint(string(f[0]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("schedstat %q: %w", trim(data), err)
	}
	if wait, err = strconv.ParseUint(string(f[1]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("schedstat %q: %w", trim(data), err)
	}
	return run, wait, nil
}

// postmasterPID reads the postmaster's PID from the first line of
// DATADIR/postmaster.pid.
func postmasterPID(dataDir string) (int, error) {
	path := filepath.Join(dataDir, "postmaster.pid")
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("find the server's processes: %w", err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	pid, err := strconv.Atoi(string(bytes.TrimSpace(line)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("find the server's processes: %s: first line %q is not a PID", path, trim(line))
	}
	return pid, nil
}

// checkPostmaster makes sure that pid is the server of dataDir: the
// postmaster works in its data directory (/proc/PID/cwd). A PID from
// another PID namespace (a server in a container) or a stale
// postmaster.pid names another process, or none. Not knowing (no such
// link, no permission) is not an error: the reads that follow will fail
// if the process is not there.
func checkPostmaster(root string, pid int, dataDir string) error {
	cwd, err := os.Stat(root + "/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return nil
	}
	dir, err := os.Stat(dataDir)
	if err != nil {
		return fmt.Errorf("find the server's processes: %w", err)
	}
	if !os.SameFile(cwd, dir) {
		return fmt.Errorf("find the server's processes: PID %d of %s works elsewhere (a server in another PID namespace, or a stale file)", pid, filepath.Join(dataDir, "postmaster.pid"))
	}
	return nil
}

// trim shortens a file's content for an error message.
func trim(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// atClkTck is the ELF auxiliary vector's AT_CLKTCK entry.
const atClkTck = 17

// clockTick is the unit of /proc's clock ticks (USER_HZ): the kernel
// hands its frequency to every process as AT_CLKTCK in the auxiliary
// vector, which is what the C library's sysconf(_SC_CLK_TCK) returns; read
// here through unix.Auxv. 100 Hz (10 ms) when the vector has none, the
// value of every Linux architecture Go supports.
var clockTick = sync.OnceValue(func() time.Duration {
	return tickOf(unix.Auxv())
})

// tickOf finds AT_CLKTCK in an auxiliary vector.
func tickOf(auxv [][2]uintptr, err error) time.Duration {
	if err == nil {
		for _, kv := range auxv {
			if kv[0] == atClkTck && kv[1] > 0 {
				return time.Second / time.Duration(kv[1])
			}
		}
	}
	return time.Second / 100
}
