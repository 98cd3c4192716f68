// Package buildinfo holds the version of the pglab binary.
package buildinfo

import "runtime/debug"

// Version is pglab's release version. It may be overridden at link time with
// -ldflags "-X github.com/pglab/pglab/internal/buildinfo.Version=v1.2.3".
var Version = "0.1.0-dev"

// String returns the version followed by the VCS revision when the binary
// was built from a checkout, e.g. "0.1.0-dev (3f2a9c1, modified)".
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev == "" {
		return Version
	}
	return Version + " (" + rev + dirty + ")"
}
