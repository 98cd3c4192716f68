package results

import (
	"os"
	"runtime"
)

// CollectHost describes the machine pglab runs on, with the disk under dir
// (the data directory of a managed server, or any directory whose disk
// matters; empty for none). It does its best: what cannot be found out is
// left empty, and it never fails. On systems other than Linux it fills only
// the host name, OS, architecture and CPU count.
func CollectHost(dir string) Host {
	h := Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	collectPlatform(&h, dir)
	return h
}
