//go:build !linux

package env

import (
	"errors"
	"syscall"
)

// PrepareFork fails: cgroups are Linux's.
func (cg *Cgroup) PrepareFork(attr *syscall.SysProcAttr) (undo func() error, err error) {
	return func() error { return nil }, errors.New("cgroups exist on Linux only")
}
