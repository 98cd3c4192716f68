package pgserver

import (
	"context"
	"errors"
	"fmt"
)

// Ensure returns binaries for spec: found locally, or installed into the
// cache when missing and install is true.
func Ensure(ctx context.Context, f *Finder, in *Installer, spec VersionSpec, install bool) (*Binaries, error) {
	b, err := f.Find(ctx, spec)
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, ErrNotFound) || !install {
		return nil, err
	}
	if in == nil {
		in = &Installer{}
	}
	if in.CacheDir == "" && f != nil {
		in.CacheDir = f.CacheDir
	}
	b, ierr := in.Install(ctx, spec)
	if ierr != nil {
		return nil, fmt.Errorf("no PostgreSQL %s found locally, and installing it failed: %w", spec, ierr)
	}
	return b, nil
}
