package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrHasStandby is returned by ReplaceData on a primary with a managed
// standby: the standby replays the primary's own cluster and cannot
// follow another one.
var ErrHasStandby = errors.New("the server has a managed standby")

// configFiles are the files of a data directory that configure the server
// rather than hold its data: ReplaceData keeps the instance's own.
var configFiles = []string{"postgresql.conf", "postgresql.auto.conf", "pg_hba.conf", "pg_ident.conf"}

// ReplaceData gives the instance another data directory: fill makes it at
// the path it is given (a clone of a stopped, cleanly shut down cluster of
// the same binaries and initdb choices, whose superuser's password is
// password), the instance's configuration files are copied into it, and
// the server, when it was running, is stopped, switched over and started
// again with its settings (on the same port when it is free). The old data
// directory is removed: the server stops at once (immediate shutdown, no
// checkpoint of data about to go). When fill fails nothing changes.
func (i *Instance) ReplaceData(ctx context.Context, password string, fill func(dir string) error) error {
	if i.getStandby() != nil {
		return fmt.Errorf("instance %s: replace its data: %w", i.name, ErrHasStandby)
	}
	next := filepath.Join(i.dir, "data.next")
	if err := os.RemoveAll(next); err != nil {
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	if err := fill(next); err != nil {
		os.RemoveAll(next)
		return fmt.Errorf("instance %s: replace its data: %w", i.name, err)
	}
	if err := i.keepConfig(next); err != nil {
		os.RemoveAll(next)
		return err
	}
	running := i.Running()
	// The old data is thrown away: an immediate shutdown, without the
	// checkpoint a fast one would write for it.
	if err := i.stop(ctx, syscall.SIGQUIT); err != nil {
		os.RemoveAll(next)
		return err
	}
	old := filepath.Join(i.dir, "data.old")
	os.RemoveAll(old)
	if err := os.Rename(i.dataDir(), old); err != nil {
		os.RemoveAll(next)
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	if err := os.Rename(next, i.dataDir()); err != nil {
		os.Rename(old, i.dataDir())
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("instance %s: remove the old data directory: %w", i.name, err)
	}
	if err := i.setPassword(password); err != nil {
		return err
	}
	if !running {
		return nil
	}
	if err := i.start(ctx); err != nil {
		return err
	}
	return i.writeInstanceFile()
}

// keepConfig copies the instance's configuration files into dir, owned by
// the server user.
func (i *Instance) keepConfig(dir string) error {
	for _, name := range configFiles {
		b, err := os.ReadFile(filepath.Join(i.dataDir(), name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("instance %s: %w", i.name, err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return fmt.Errorf("instance %s: %w", i.name, err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("instance %s: %w", i.name, err)
		}
		if err := i.user.chown(path); err != nil {
			return fmt.Errorf("instance %s: %w", i.name, err)
		}
	}
	return nil
}

// setPassword makes password the one pglab connects with (the new data
// directory's superuser has it).
func (i *Instance) setPassword(password string) error {
	if password == "" || password == i.password {
		return nil
	}
	if err := os.WriteFile(i.passwordPath(), []byte(password+"\n"), 0o600); err != nil {
		return fmt.Errorf("instance %s: write password file: %w", i.name, err)
	}
	i.password = password
	return nil
}
