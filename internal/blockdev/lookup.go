package blockdev

import "fmt"

// Location is what holds a directory.
type Location struct {
	Path string // the directory, absolute, symlinks resolved
	Dev  Dev    // its st_dev: the device number of the file system holding it
	// Mount is the mount that holds Path (see [MountOf]); it is the zero
	// Mount when MountErr says why none was found.
	Mount    Mount
	MountErr error
}

// BlockDevice returns the block device under the location: Dev when that is
// one (its major number is not 0), else the mount's source when that is a
// block device node (btrfs and some others give files an anonymous st_dev).
// It fails for a file system without a block device (tmpfs, overlay, NFS…).
func (l Location) BlockDevice() (Dev, error) {
	if l.Dev.Major != 0 {
		return l.Dev, nil
	}
	if l.MountErr != nil {
		return Dev{}, fmt.Errorf("no block device behind device %s: %w", l.Dev, l.MountErr)
	}
	if dev, ok := sourceDevice(l.Mount.Source); ok {
		return dev, nil
	}
	return Dev{}, fmt.Errorf("it is on %s (%s), not on a block device", l.Mount.Source, l.Mount.FSType)
}
