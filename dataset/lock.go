package dataset

import (
	"context"
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

// lockPoll is how often a blocked lock is tried again (a blocking flock
// could not be cancelled).
const lockPoll = 50 * time.Millisecond

// lockFile takes an flock of kind how (unix.LOCK_SH or LOCK_EX) on path,
// creating the file, waiting until ctx ends. It returns how long it
// waited for another holder. A lock file removed by its holder while this
// process waited for it is opened again: the lock is always on the file
// the path names.
func lockFile(ctx context.Context, path string, how int) (*entryLock, time.Duration, error) {
	start := time.Now()
	for {
		l, ok, err := tryLock(path, how)
		if err != nil {
			return nil, time.Since(start), err
		}
		if ok {
			return l, time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return nil, time.Since(start), fmt.Errorf("wait for dataset lock %s: %w", path, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

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

// relock changes the lock's kind (shared ↔ exclusive), waiting; another
// process may take the lock in between (flock converts non-atomically),
// so the caller checks the entry again afterwards.
func (l *entryLock) relock(ctx context.Context, how int) (time.Duration, error) {
	start := time.Now()
	for {
		err := unix.Flock(int(l.f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			return time.Since(start), nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return time.Since(start), fmt.Errorf("dataset lock %s: %w", l.path, err)
		}
		select {
		case <-ctx.Done():
			return time.Since(start), fmt.Errorf("wait for dataset lock %s: %w", l.path, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
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
