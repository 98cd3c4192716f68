package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// OpenRunning opens the named instance of 'pglab pg start' for a client
// (pg_dump, pglab capture): it must exist and run. Errors name the
// instances there are, or how to start the one named.
func OpenRunning(name string) (*Instance, error) {
	inst, err := OpenNamed(name)
	if errors.Is(err, ErrNoInstance) {
		var names []string
		if list, lerr := ListNamed(); lerr == nil {
			for _, i := range list {
				names = append(names, i.Name())
			}
		}
		sort.Strings(names)
		known := "none; start one with 'pglab pg start --version N --name NAME'"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("no managed instance %q (instances of pglab pg start: %s)", name, known)
	}
	if err != nil {
		return nil, err
	}
	if !inst.Running() {
		return nil, fmt.Errorf("instance %s is not running (start it with 'pglab pg start --name %s --version %d')", name, name, inst.Version().Major)
	}
	return inst, nil
}

// ClientEnv returns the libpq environment that connects a client program
// to the instance through its unix socket as its superuser: PGHOST (the
// socket directory), PGPORT, PGUSER, PGPASSWORD and PGDATABASE (the
// instance's database; one named on the client's command line wins). It
// holds the password: give it to the child process only, never print it.
func (i *Instance) ClientEnv() []string {
	return []string{"PGHOST=" + i.SocketDir(), "PGPORT=" + strconv.Itoa(i.port), "PGUSER=" + superuser,
		"PGPASSWORD=" + i.password, "PGDATABASE=" + i.opts.Database}
}

// LogConfig is where and how an instance's server writes its log.
type LogConfig struct {
	// Collector tells that logging_collector is on: the log is in Dir.
	// Off, the server's messages go to the instance's server.log (LogPath).
	Collector bool
	// Dir is log_directory, made absolute (relative to the data directory).
	Dir string
	// Destination is log_destination (stderr, csvlog, jsonlog, a list).
	Destination string
	// Prefix is log_line_prefix (stderr lines).
	Prefix string
}

// LogConfig reads the instance's logging settings as its configuration
// files hold them (postgresql.conf, pglab.conf, and what ALTER SYSTEM
// set, which a running server applies at its next restart for
// logging_collector, at its next reload for the others).
func (i *Instance) LogConfig(ctx context.Context) (LogConfig, error) {
	get := func(name string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, i.opts.Binaries.Postgres(), "-D", i.dataDir(), "-C", name)
		cmd.SysProcAttr = childAttrs(i.user, false)
		cmd.Env = serverEnv("")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("instance %s: read %s: %s", i.name, name, serverMessage(stderr.String(), err))
		}
		return strings.TrimRight(stdout.String(), "\n"), nil
	}
	var c LogConfig
	var collector string
	for _, f := range []struct {
		name string
		dst  *string
	}{{"logging_collector", &collector}, {"log_directory", &c.Dir}, {"log_destination", &c.Destination}, {"log_line_prefix", &c.Prefix}} {
		v, err := get(f.name)
		if err != nil {
			return LogConfig{}, err
		}
		*f.dst = v
	}
	c.Collector = collector == "on"
	if !filepath.IsAbs(c.Dir) {
		c.Dir = filepath.Join(i.dataDir(), c.Dir)
	}
	return c, nil
}
