// Package coldcache empties the operating system's page cache, for cold
// reads: the whole cache where allowed (root, /proc/sys/vm/drop_caches),
// or the cached pages of given files (posix_fadvise DONTNEED).
package coldcache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// DropCachesPath is the kernel's control file for dropping caches.
const DropCachesPath = "/proc/sys/vm/drop_caches"

// CanDropAll reports whether the whole page cache can be dropped: root with
// a writable DropCachesPath.
func CanDropAll() bool {
	if os.Geteuid() != 0 {
		return false
	}
	return unix.Access(DropCachesPath, unix.W_OK) == nil
}

// DropAll writes dirty pages out (sync) and drops the page cache, dentries
// and inodes of the whole machine, as `sync; echo 3 > drop_caches` does.
func DropAll() error {
	unix.Sync()
	if err := os.WriteFile(DropCachesPath, []byte("3\n"), 0o200); err != nil {
		return fmt.Errorf("drop page cache: %w", err)
	}
	return nil
}

// EvictFiles writes each file's dirty pages out and asks the kernel to
// drop its cached pages (posix_fadvise DONTNEED). Files that do not exist
// are skipped. It returns the number of bytes of the files it evicted.
func EvictFiles(paths []string) (int64, error) {
	var total int64
	for _, p := range paths {
		n, err := evict(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

func evict(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	fd := int(f.Fd())
	if err := unix.Fdatasync(fd); err != nil && !errors.Is(err, unix.EBADF) && !errors.Is(err, unix.EINVAL) {
		return 0, fmt.Errorf("evict %s: fdatasync: %w", path, err)
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return 0, fmt.Errorf("evict %s: posix_fadvise: %w", path, err)
	}
	return st.Size(), nil
}

// RelationFiles lists a relation's files under dataDir given its
// pg_relation_filepath (e.g. "base/16384/16385"): the main fork's segments
// (.1, .2, …) and the fsm and vm forks.
func RelationFiles(dataDir, relPath string) []string {
	base := filepath.Join(dataDir, relPath)
	out := []string{base, base + "_fsm", base + "_vm"}
	for i := 1; ; i++ {
		seg := fmt.Sprintf("%s.%d", base, i)
		if _, err := os.Stat(seg); err != nil {
			break
		}
		out = append(out, seg)
	}
	return out
}

// Resident returns how many bytes of path are in the page cache (mincore).
func Resident(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() == 0 {
		return 0, nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap %s: %w", path, err)
	}
	defer unix.Munmap(data)
	page := os.Getpagesize()
	vec := make([]byte, (len(data)+page-1)/page)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, fmt.Errorf("mincore %s: %w", path, errno)
	}
	var n int64
	for _, v := range vec {
		if v&1 != 0 {
			n += int64(page)
		}
	}
	if n > st.Size() {
		n = st.Size()
	}
	return n, nil
}

// WriteBack writes out the dirty pages of the file system that holds dir
// (syncfs), so that the kernel's write-back of earlier work does not run
// during what is measured next.
func WriteBack(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("write back dirty pages: %w", err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("write back dirty pages of %s: syncfs: %w", dir, err)
	}
	return nil
}
