//go:build unix

package detect

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestMountDevice(t *testing.T) {
	proc := t.TempDir()
	write(t, filepath.Join(proc, "self", "mountinfo"),
		"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"+
			"90 27 0:45 / /var/lib/x rw,relatime shared:5 - overlay overlay rw,lowerdir=/a\n")
	h := Host{Proc: proc}
	if _, _, err := h.mountDevice(0, 45); err == nil || err.Error() != "it is on overlay (overlay), not on a block device" {
		t.Errorf("overlay mount: err = %v", err)
	}
	if _, _, err := h.mountDevice(0, 46); err == nil || !strings.Contains(err.Error(), "device 0:46 is not in") {
		t.Errorf("unknown device: err = %v", err)
	}
}
