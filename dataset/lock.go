package dataset

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// entryLock is an flock on an entry's lock file: shared while a process
// uses the entry (clones it), exclusive while one builds or removes it.
type entryLock struct {
	f    *os.File
	path string
}

// lockPoll is how often a lock another process holds is tried again (a
// blocking flock could not be cancelled).
const lockPoll = 50 * time.Millisecond

// tryLock takes the lock if it is free; ok is false when another process
// holds a conflicting one.
func tryLock(path string, how int) (*entryLock, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("dataset lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("dataset lock %s: %w", path, err)
	}
	if !samePath(f, path) {
		// Removed (or replaced) since it was opened: try the new one.
		f.Close()
		return tryLock(path, how)
	}
	return &entryLock{f: f, path: path}, true, nil
}

// samePath reports whether path still names the open file f.
func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	if err1 != nil || err2 != nil {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Ino == sb.Ino && sa.Dev == sb.Dev
}

// remove deletes the lock file while holding it exclusively, then
// unlocks: a process that opened the old file sees it is gone.
func (l *entryLock) remove() error {
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	l.unlock()
	return err
}

// unlock releases the lock (closing the file releases the flock).
func (l *entryLock) unlock() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
