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
// the server, when it was running, starts again on it with its settings
// (on the same port when it is free). The old data directory is thrown
// away: the server stops at once (immediate shutdown, no checkpoint of
// data about to go) and the old files are removed while fill runs. When
// fill fails the instance is left stopped, without data.
func (i *Instance) ReplaceData(ctx context.Context, password string, fill func(dir string) error) error {
	if i.getStandby() != nil {
		return fmt.Errorf("instance %s: replace its data: %w", i.name, ErrHasStandby)
	}
	conf, err := i.readConfig()
	if err != nil {
		return err
	}
	running := i.Running()
	if err := i.stop(ctx, syscall.SIGQUIT); err != nil {
		return err
	}
	old, next := filepath.Join(i.dir, "data.old"), filepath.Join(i.dir, "data.next")
	for _, d := range []string{old, next} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("instance %s: %w", i.name, err)
		}
	}
	if err := os.Rename(i.dataDir(), old); err != nil {
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	removed := make(chan error, 1)
	go func() { removed <- os.RemoveAll(old) }()
	err = fill(next)
	if rerr := <-removed; err == nil && rerr != nil {
		err = fmt.Errorf("remove the old data directory: %w", rerr)
	}
	if err == nil {
		err = i.writeConfig(next, conf)
	}
	if err == nil {
		err = os.Rename(next, i.dataDir())
	}
	if err != nil {
		os.RemoveAll(next)
		return fmt.Errorf("instance %s: replace its data: %w", i.name, err)
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

// readConfig reads the instance's configuration files.
func (i *Instance) readConfig() (map[string][]byte, error) {
	conf := map[string][]byte{}
	for _, name := range configFiles {
		b, err := os.ReadFile(filepath.Join(i.dataDir(), name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("instance %s: %w", i.name, err)
		}
		conf[name] = b
	}
	return conf, nil
}

// writeConfig writes configuration files into dir, owned by the server
// user.
func (i *Instance) writeConfig(dir string, conf map[string][]byte) error {
	for name, b := range conf {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return err
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return err
		}
		if err := i.user.chown(path); err != nil {
			return err
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
