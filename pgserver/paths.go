package pgserver

import (
	"os"
	"path/filepath"
)

// DatasetCacheEnv names the environment variable that moves the dataset
// cache (package dataset, beside the builds; pgserver/pgtest gives tests
// one of their own through it).
const DatasetCacheEnv = "PGLAB_DATASET_CACHE"

// CacheDir returns the directory holding installed PostgreSQL builds, one
// subdirectory per release: $XDG_CACHE_HOME/pglab/postgres, else
// ~/.cache/pglab/postgres. As root without XDG_CACHE_HOME it is
// /var/cache/pglab/postgres, because root's home (mode 0700) cannot be
// traversed by the unprivileged user the servers run as.
func CacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "pglab", "postgres")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/pglab/postgres"
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "pglab", "postgres")
	}
	return filepath.Join(os.TempDir(), "pglab-cache", "postgres")
}

// StateDir returns the directory holding named instances (those started by
// `pglab pg start`): $XDG_STATE_HOME/pglab/instances, else
// ~/.local/state/pglab/instances; as root without XDG_STATE_HOME,
// /var/lib/pglab/instances.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "pglab", "instances")
	}
	if os.Geteuid() == 0 {
		return "/var/lib/pglab/instances"
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "pglab", "instances")
	}
	return filepath.Join(os.TempDir(), "pglab-state", "instances")
}

// TempRoot returns the directory under which throwaway instances are
// created: $PGLAB_TMPDIR if set, else the system temporary directory.
func TempRoot() string {
	if d := os.Getenv("PGLAB_TMPDIR"); d != "" {
		return d
	}
	return os.TempDir()
}
