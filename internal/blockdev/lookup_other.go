//go:build !linux

package blockdev

import "errors"

// errNotLinux is what the stat-based look-ups report off Linux.
var errNotLinux = errors.New("finding the block device of a path works on Linux only")

// Lookup reports an error: it works on Linux only.
func (s System) Lookup(dir string) (Location, error) {
	return Location{}, errNotLinux
}

// DevOf reports an error: it works on Linux only.
func DevOf(path string) (Dev, error) {
	return Dev{}, errNotLinux
}

func sourceDevice(source string) (Dev, bool) {
	return Dev{}, false
}
