package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/pgserver"
)

// DefaultLimit is the cache's size limit when PGLAB_CACHE_LIMIT is not
// set: room for the seed-size datasets of three versions (about 12 GB
// each).
const DefaultLimit int64 = 40 << 30

// LimitEnv names the environment variable that sets the cache's size
// limit ("40GB", "500MB", "0" for none).
const LimitEnv = "PGLAB_CACHE_LIMIT"

// DirEnv names the environment variable that moves the dataset cache.
const DirEnv = pgserver.DatasetCacheEnv

// DefaultDir returns the dataset cache: $PGLAB_DATASET_CACHE, else beside
// the PostgreSQL builds: $XDG_CACHE_HOME/pglab/datasets,
// ~/.cache/pglab/datasets, and as root /var/cache/pglab/datasets (a
// directory the unprivileged server user can traverse: entries are built
// by servers running as that user).
func DefaultDir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(pgserver.CacheDir()), "datasets")
}

// LimitFromEnv returns the limit PGLAB_CACHE_LIMIT sets, or DefaultLimit.
func LimitFromEnv() (int64, error) {
	v := os.Getenv(LimitEnv)
	if v == "" {
		return DefaultLimit, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", LimitEnv, err)
	}
	return n, nil
}

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"tib", 1 << 40}, {"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10},
	{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1},
}

// ParseSize reads a size such as "40GB", "1.5G", "500MB" or "1048576"
// (units are powers of 1024, as PostgreSQL's memory units).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("invalid size %q (want e.g. 40GB, 500MB or 0)", s)
	}
	return int64(f * mult), nil
}

// FormatSize prints a size as pglab does everywhere (units.Bytes), e.g.
// "1.23 GB" (powers of 1024, as ParseSize reads them).
func FormatSize(n int64) string { return units.Bytes(float64(n)) }
