package env

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pglab/pglab/internal/blockdev"
	"golang.org/x/sys/unix"
)

// Prefix starts the name of every cgroup pglab creates.
const Prefix = "pglab-"

// Cgroup is the cgroup one managed server runs in: one directory per v1
// hierarchy, or one cgroup v2 directory, holding the profile's limits. It
// is a pgserver.Placer: servers started with it are born inside.
type Cgroup struct {
	// Name is the directory name, "pglab-<pid>-<server>-<random>".
	Name string

	profile Profile
	layout  *Layout
	// dirs is the cgroup's directory for each controller pglab put it
	// under; v1 controllers sharing a hierarchy share a directory.
	dirs map[Controller]string
	// disk is the whole disk the io limits and counters are about.
	disk diskInfo
	// enforcement is one entry per machine limit of the profile.
	enforcement []Enforcement

	mu      sync.Mutex
	removed bool
}

// diskInfo is the disk behind a server's data directory.
type diskInfo struct {
	Dev    string // "MAJ:MIN" of the whole disk, "" when unknown
	Name   string // "vda", "nvme0n1"
	FSType string // the data directory's file system
	Err    error  // why the disk is unknown
}

// Options say where a server's cgroup is made.
type Options struct {
	// Server names the server (e.g. "pg17"); it is part of the cgroup's
	// name.
	Server string
	// DataDir is where the server's data will be, or a directory on the
	// same file system (the nearest existing parent is examined): its
	// whole disk is the one io limits apply to.
	DataDir string
	// Layout is the machine's cgroup layout; nil means Detect().
	Layout *Layout
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// New creates the cgroup of one server and writes the profile's machine
// limits into it; what became of each limit is in [Cgroup.Enforcement].
// The cgroup is made in every hierarchy pglab can use, also for a profile
// without limits, so that the server's counters can be read. It fails only
// when a directory that the layout says can be made cannot; a machine
// without cgroup access gives a Cgroup with no directory, every limit not
// enforced.
func New(p Profile, o Options) (*Cgroup, error) {
	l := o.Layout
	if l == nil {
		l = Detect()
	}
	var rnd [3]byte
	rand.Read(rnd[:])
	server := unsafeName.ReplaceAllString(o.Server, "_")
	if len(server) > 40 {
		server = server[:40]
	}
	cg := &Cgroup{
		Name:    fmt.Sprintf("%s%d-%s-%s", Prefix, os.Getpid(), server, hex.EncodeToString(rnd[:])),
		profile: p,
		layout:  l,
		dirs:    map[Controller]string{},
	}
	cg.disk = diskOf(o.DataDir)
	why := map[Controller]string{}
	for _, c := range Controllers {
		h := l.Hierarchies[c]
		if !h.Usable() {
			why[c] = h.Why
			continue
		}
		if h.Version == 2 {
			if err := enableController(h.Base, c); err != nil {
				why[c] = err.Error()
				continue
			}
		}
		dir := filepath.Join(h.Base, cg.Name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			cg.Remove()
			return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
		}
		cg.dirs[c] = dir
	}
	cg.enforcement = cg.apply(why)
	return cg, nil
}

// enableController makes a v2 controller available to the children of
// base (its cgroup.subtree_control).
func enableController(base string, c Controller) error {
	file := filepath.Join(base, "cgroup.subtree_control")
	if on := readControllers(file); contains(on, string(c)) {
		return nil
	}
	if err := os.WriteFile(file, []byte("+"+string(c)), 0); err != nil {
		if errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("cannot enable the %s controller in %s: that cgroup holds processes of its own (cgroup v2 allows controllers only in cgroups without them)", c, file)
		}
		return fmt.Errorf("cannot enable the %s controller in %s: %w", c, file, err)
	}
	return nil
}

// diskOf finds the whole disk under a directory (or its nearest existing
// parent).
func diskOf(dir string) diskInfo {
	if dir == "" {
		return diskInfo{Err: errors.New("no data directory given")}
	}
	for {
		if _, err := os.Stat(dir); err == nil || dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	sys := blockdev.System{}
	loc, err := sys.Lookup(dir)
	if err != nil {
		return diskInfo{Err: err}
	}
	d := diskInfo{FSType: loc.Mount.FSType}
	dev, err := loc.BlockDevice()
	if err != nil {
		d.Err = fmt.Errorf("the data directory %s: %w", dir, err)
		return d
	}
	disk, err := sys.WholeDisk(dev)
	if err != nil {
		d.Err = err
		return d
	}
	whole, err := disk.Dev()
	if err != nil {
		d.Err = err
		return d
	}
	d.Dev, d.Name = whole.String(), disk.Name
	return d
}

// apply writes the profile's limits and returns what became of each;
// why holds the reason a controller is unavailable.
func (cg *Cgroup) apply(why map[Controller]string) []Enforcement {
	m := cg.profile.Machine
	var out []Enforcement
	for _, s := range cg.profile.Settings() {
		if !IsMachineKey(s.Key) {
			continue
		}
		e := Enforcement{Key: s.Key, Value: s.Value, Status: NotEnforced}
		c := controllerOf(s.Key)
		h := cg.layout.Hierarchies[c]
		switch {
		case cg.dirs[c] == "":
			e.Why = why[c]
		case c == IO && cg.disk.Dev == "":
			e.Why = fmt.Sprintf("no disk to limit: %v", cg.disk.Err)
		default:
			e = cg.enforceKey(e, h.Version)
		}
		if e.Status != NotEnforced {
			caveats(&e, h.Version, cg.dirs[Memory] != "" && cg.layout.Hierarchies[Memory].Version == 2 && cg.dirs[Memory] == cg.dirs[IO], cg.disk.FSType, m)
		}
		out = append(out, e)
	}
	return out
}

// enforceKey performs the writes of one key (they were planned for the
// whole machine; a key's writes are those naming it, plus set-up writes of
// its controller) and checks what the files read back.
func (cg *Cgroup) enforceKey(e Enforcement, version int) Enforcement {
	plan := planV1(cg.profile.Machine, cg.disk.Dev)
	if version == 2 {
		plan = planV2(cg.profile.Machine, cg.disk.Dev)
	}
	c := controllerOf(e.Key)
	var hows, mechs []string
	for _, w := range plan {
		if w.ctrl != c {
			continue
		}
		mine := contains(w.keys, e.Key)
		if !mine && len(w.keys) > 0 {
			continue
		}
		path := filepath.Join(cg.dirs[c], w.file)
		if err := writeChecked(path, w.value); err != nil {
			if w.optional && errors.Is(err, os.ErrNotExist) {
				continue
			}
			e.Status, e.Why = NotEnforced, err.Error()
			return e
		}
		if mine {
			hows = append(hows, fmt.Sprintf("cgroup v%d %s = %s", version, w.file, w.value))
			mechs = append(mechs, fmt.Sprintf("cgroup v%d %s", version, w.file))
		}
	}
	e.Status = Enforced
	e.How, e.Mechanism = strings.Join(hows, ", "), strings.Join(mechs, ", ")
	if c == IO && cg.disk.Name != "" {
		e.How += fmt.Sprintf(" on %s, the data directory's disk", cg.disk.Name)
		e.Mechanism += " on " + cg.disk.Name
	}
	return e
}

// writeChecked writes a cgroup file (once: a second write of the same
// io.max line is harmless, but a per-device v1 file takes one rule per
// write) and checks that it reads back what was written.
func writeChecked(path, value string) error {
	if got, err := os.ReadFile(path); err == nil && fields(string(got), value) {
		return nil
	}
	if err := os.WriteFile(path, []byte(value), 0); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	if !fields(string(got), value) {
		return fmt.Errorf("wrote %q to %s but it reads %q", value, path, strings.TrimSpace(string(got)))
	}
	return nil
}

// Profile returns the profile the cgroup holds.
func (cg *Cgroup) Profile() Profile { return cg.profile }

// Enforcement returns what became of each machine limit of the profile.
func (cg *Cgroup) Enforcement() []Enforcement {
	return append([]Enforcement(nil), cg.enforcement...)
}

// Dir returns the cgroup's directory for a controller, or "".
func (cg *Cgroup) Dir(c Controller) string { return cg.dirs[c] }

// Dirs returns the cgroup's distinct directories, sorted.
func (cg *Cgroup) Dirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range cg.dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// Empty reports whether the cgroup has no directory at all (no cgroup
// access on this machine).
func (cg *Cgroup) Empty() bool { return len(cg.dirs) == 0 }

// Disk returns the name of the disk the io limits apply to ("" when
// unknown).
func (cg *Cgroup) Disk() string { return cg.disk.Name }

// Procs returns the processes in the cgroup (from the first of its
// directories; every directory holds the same ones).
func (cg *Cgroup) Procs() ([]int, error) {
	dirs := cg.Dirs()
	if len(dirs) == 0 {
		return nil, nil
	}
	return readPids(filepath.Join(dirs[0], "cgroup.procs"))
}

func readPids(path string) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// Remove deletes the cgroup's directories. Its server must have stopped:
// processes still inside after a grace period (a backend of a killed
// postmaster) are killed first. Removing twice is a no-op.
func (cg *Cgroup) Remove() error {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.removed {
		return nil
	}
	var errs []error
	for _, dir := range cg.Dirs() {
		if err := removeDir(dir, 5*time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	cg.removed = len(errs) == 0
	return errors.Join(errs...)
}

// removeDir removes one cgroup directory, waiting up to grace for its
// processes to leave and killing those that do not.
func removeDir(dir string, grace time.Duration) error {
	deadline := time.Now().Add(grace)
	killed := false
	for {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			if killed {
				return fmt.Errorf("remove cgroup %s: processes are still inside", dir)
			}
			pids, _ := readPids(filepath.Join(dir, "cgroup.procs"))
			for _, pid := range pids {
				if pid != os.Getpid() {
					unix.Kill(pid, unix.SIGKILL)
				}
			}
			killed, deadline = true, time.Now().Add(grace)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
