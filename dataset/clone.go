package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Method is how a directory tree is cloned.
type Method string

// The clone methods, fastest first. Auto picks the first one the file
// system supports.
const (
	Auto Method = ""
	// Reflink shares the source's blocks (FICLONE): constant time per
	// file on Btrfs, XFS with reflink, bcachefs; ext4 refuses it.
	Reflink Method = "reflink"
	// CopyFileRange copies inside the kernel (copy_file_range): every
	// byte is read and written, but never through user space.
	CopyFileRange Method = "copy_file_range"
	// PlainCopy reads and writes through a user-space buffer.
	PlainCopy Method = "copy"
)

// CloneOptions tune Clone.
type CloneOptions struct {
	// Method forces a method; Auto tries reflink, then copy_file_range,
	// then a plain copy, per file system.
	Method Method
	// Workers copy files in parallel (0: the number of CPUs, at least 4:
	// a data directory's many small files wait on the disk, not the CPU).
	Workers int
	// Sync writes every copied file's data to disk before Clone returns
	// (sync_file_range, without the journal commits of fsync: a clone
	// needs no durability), so that no write-back of the copy falls into
	// a later measured step.
	Sync bool
	// Skip, when set, leaves out files and directories whose path
	// relative to the source it accepts.
	Skip func(rel string) bool
}

// CloneStats say what a clone did.
type CloneStats struct {
	// Method is the method that copied the files (the slowest one used,
	// when a fallback happened for some files).
	Method  Method
	Files   int
	Bytes   int64
	Elapsed time.Duration
}

// Clone copies the directory tree src to dst, which must not exist:
// directories, regular files and symbolic links, with their modes and,
// when running as root, their owners. On error dst is removed.
func Clone(src, dst string, opts CloneOptions) (st CloneStats, err error) {
	start := time.Now()
	if _, err := os.Lstat(dst); err == nil {
		return st, fmt.Errorf("clone %s: %s exists", src, dst)
	}
	files, err := makeTree(src, dst, opts.Skip)
	defer func() {
		if err != nil {
			os.RemoveAll(dst)
		}
	}()
	if err != nil {
		return st, err
	}
	st, err = copyFiles(files, opts)
	if err != nil {
		return st, err
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// fileJob is one regular file to copy.
type fileJob struct {
	src, dst string
	size     int64
	mode     fs.FileMode
	uid, gid int
}

// makeTree creates dst's directories and symbolic links and returns the
// regular files to copy, largest first (so that workers finish together).
func makeTree(src, dst string, skip func(string) bool) ([]fileJob, error) {
	var files []fileJob
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		uid, gid := owner(info)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil {
				return fmt.Errorf("clone: %w", err)
			}
			return chownAsRoot(target, uid, gid, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return fmt.Errorf("clone: %w", err)
			}
			return chownAsRoot(target, uid, gid, 0)
		case info.Mode().IsRegular():
			files = append(files, fileJob{src: path, dst: target, size: info.Size(), mode: info.Mode().Perm(), uid: uid, gid: gid})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", src, err)
	}
	sortLargestFirst(files)
	return files, nil
}

func sortLargestFirst(files []fileJob) {
	slices.SortStableFunc(files, func(a, b fileJob) int { return cmp.Compare(b.size, a.size) })
}

func owner(info fs.FileInfo) (uid, gid int) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid)
	}
	return -1, -1
}

// chownAsRoot gives path the source's owner when running as root (the
// server user's data directory stays the server user's), and sets the
// mode again (a directory's mode was cut by the umask).
func chownAsRoot(path string, uid, gid int, mode fs.FileMode) error {
	if os.Geteuid() == 0 && uid >= 0 {
		if err := os.Lchown(path, uid, gid); err != nil {
			return fmt.Errorf("clone: %w", err)
		}
	}
	if mode != 0 {
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("clone: %w", err)
		}
	}
	return nil
}

// copyFiles copies the files with opts.Workers goroutines.
func copyFiles(files []fileJob, opts CloneOptions) (CloneStats, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = max(4, runtime.NumCPU())
	}
	jobs := make(chan fileJob)
	var (
		mu    sync.Mutex
		st    = CloneStats{Method: opts.Method}
		first error
		next  = &methodState{m: opts.Method, forced: opts.Method != Auto}
	)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				m, err := copyFile(j, next, opts.Sync)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				st.Files++
				st.Bytes += j.size
				if j.size > 0 {
					st.Method = slower(st.Method, m)
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range files {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed {
			break
		}
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if st.Method == Auto {
		st.Method = next.get() // only empty files: the method a copy would use
	}
	return st, first
}

// methodState is the method to try first, shared by a clone's workers:
// once the file system refuses one, the others skip it.
type methodState struct {
	mu     sync.Mutex
	m      Method
	forced bool
}

func (s *methodState) get() Method {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m
}

// refused records that the file system cannot do m.
func (s *methodState) refused(m Method) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slower(s.m, m) == m {
		switch m {
		case Reflink:
			s.m = CopyFileRange
		case CopyFileRange:
			s.m = PlainCopy
		}
	}
}

// slower returns the slower of two methods (the one a report must name).
func slower(a, b Method) Method {
	rank := map[Method]int{Auto: 0, Reflink: 1, CopyFileRange: 2, PlainCopy: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// copyFile copies one file with the first method the file system
// supports, from the shared state's on, and returns the method used.
func copyFile(j fileJob, next *methodState, flush bool) (Method, error) {
	in, err := os.Open(j.src)
	if err != nil {
		return Auto, fmt.Errorf("clone: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(j.dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, j.mode)
	if err != nil {
		return Auto, fmt.Errorf("clone: %w", err)
	}
	used := Auto
	if j.size > 0 {
		used, err = copyData(in, out, j.size, next)
	}
	if err == nil && flush && used != Reflink && j.size > 0 {
		err = writeOut(out)
	}
	if err == nil && os.Geteuid() == 0 && j.uid >= 0 {
		err = out.Chown(j.uid, j.gid)
	}
	if err == nil {
		err = out.Chmod(j.mode) // the umask may have cut it
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return used, fmt.Errorf("clone %s: %w", j.src, err)
	}
	return used, nil
}

// writeOut writes a file's dirty pages to disk and waits for them
// (sync_file_range: no journal commit, a clone needs no durability, only
// that no write-back of it falls into a later measured step).
func writeOut(f *os.File) error {
	err := unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	if unsupported(err) {
		return f.Sync()
	}
	return err
}

// copyData fills out with in's size bytes: FICLONE, copy_file_range, then
// plain reads and writes, from next's method on; a method the file
// system refuses is not tried again by this clone.
func copyData(in, out *os.File, size int64, next *methodState) (Method, error) {
	m := next.get()
	if m == Auto || m == Reflink {
		err := unix.IoctlFileClone(int(out.Fd()), int(in.Fd()))
		if err == nil {
			return Reflink, nil
		}
		if next.forced || !unsupported(err) {
			return Reflink, fmt.Errorf("FICLONE: %w", err)
		}
		next.refused(Reflink)
		m = CopyFileRange
	}
	if m == CopyFileRange {
		err := copyRange(in, out, size)
		if err == nil {
			return CopyFileRange, nil
		}
		if next.forced || !unsupported(err) {
			return CopyFileRange, fmt.Errorf("copy_file_range: %w", err)
		}
		next.refused(CopyFileRange)
		if err := resetFile(out); err != nil {
			return PlainCopy, err
		}
	}
	buf := make([]byte, 1<<20)
	// Plain reads and writes, without io.Copy's own copy_file_range.
	_, err := io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, buf)
	return PlainCopy, err
}

// copyRange copies size bytes with copy_file_range, in chunks of 1 GiB.
func copyRange(in, out *os.File, size int64) error {
	var inOff, outOff int64
	for inOff < size {
		n, err := unix.CopyFileRange(int(in.Fd()), &inOff, int(out.Fd()), &outOff, int(min(size-inOff, 1<<30)), 0)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("copy_file_range: the source ended at %d of %d bytes", inOff, size)
		}
	}
	return nil
}

func resetFile(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// unsupported reports whether err means "this file system (pair) cannot
// do that": the next method is tried.
func unsupported(err error) bool {
	return errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EXDEV) ||
		errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EBADF)
}

// syncPath flushes one file or directory.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
