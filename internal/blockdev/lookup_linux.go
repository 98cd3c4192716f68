package blockdev

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Lookup finds what holds dir, which must exist: its device number and the
// mount it is on. It fails only when dir cannot be examined; a mount table
// that cannot be read, or lists no mount holding dir, leaves Mount empty
// and sets MountErr.
func (s System) Lookup(dir string) (Location, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return Location{}, &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	path, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("finding what holds %s: %w", dir, err)
	}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	loc := Location{Path: path, Dev: Dev{unix.Major(st.Dev), unix.Minor(st.Dev)}}
	mounts, err := s.Mounts()
	if err != nil {
		loc.MountErr = err
		return loc, nil
	}
	m, ok := MountOf(mounts, path, loc.Dev)
	if !ok {
		loc.MountErr = fmt.Errorf("no mount in %s holds %s", filepath.Join(s.ProcRoot(), "self", "mountinfo"), path)
		return loc, nil
	}
	loc.Mount = m
	return loc, nil
}

// DevOf returns the device a path stands for: a block device node's own
// number, or for anything else the device of the file system holding it.
func DevOf(path string) (Dev, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Dev{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		return Dev{unix.Major(st.Rdev), unix.Minor(st.Rdev)}, nil
	}
	return Dev{unix.Major(st.Dev), unix.Minor(st.Dev)}, nil
}

// sourceDevice returns the device number of a mount source that is a block
// device node under /dev/.
func sourceDevice(source string) (Dev, bool) {
	var st unix.Stat_t
	if !strings.HasPrefix(source, "/dev/") || unix.Stat(source, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return Dev{}, false
	}
	return Dev{unix.Major(st.Rdev), unix.Minor(st.Rdev)}, true
}
