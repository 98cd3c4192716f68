//go:build !linux

package results

func collectPlatform(h *Host, dir string) {
	if dir != "" {
		h.Disk.Path = dir
	}
}
