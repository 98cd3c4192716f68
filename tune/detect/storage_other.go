//go:build !unix

package detect

import (
	"errors"

	"github.com/pglab/pglab/tune"
)

// Storage reports an error: finding the disk of a directory needs a Unix
// device number and Linux's sysfs.
func (h Host) Storage(dir string) (kind tune.Storage, source string, err error) {
	return "", "", errors.New("finding the disk of " + dir + " works on Linux only")
}
