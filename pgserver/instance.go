package pgserver

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Options describe an instance to create.
type Options struct {
	// Binaries to run; required.
	Binaries *Binaries
	// Name identifies the instance in messages and, for detached
	// instances, in the registry. Defaults to "pg<major>".
	Name string
	// Dir is the instance directory. Empty means a new temporary
	// directory under TempRoot(), removed by Destroy.
	Dir string
	// Checksums turns data checksums on. Off by default for every version
	// (PostgreSQL 18's initdb defaults to on; pglab passes the choice
	// explicitly so that versions are compared on the same setup).
	Checksums bool
	// Settings are applied at every start, after pglab's own (port,
	// sockets).
	Settings []Setting
	// Database is created after the first start; the DSN points at it.
	// Defaults to "pglab".
	Database string
	// Detached instances outlive the process: they are not stopped when the
	// context ends or the process dies.
	Detached bool
	// StartTimeout bounds one server start (default 60 s).
	StartTimeout time.Duration
	// Progress receives one line per step; nil discards them.
	Progress func(string)
	// Placer, when set, puts the server into its place (an environment's
	// cgroup) at every start, before the postmaster runs, so that the
	// postmaster and every process it forks are inside. initdb and the
	// settings check run outside it.
	Placer Placer
}

// Placer puts a server's processes where they must run as they are born
// (package env: a cgroup with an environment's limits). PrepareFork is
// called on the OS thread that forks the postmaster, locked to its
// goroutine, right before the fork; it may set attributes of the child
// (cgroup v2: UseCgroupFD) or move the thread itself (cgroup v1: children
// inherit the forking thread's cgroups). The returned undo is called on
// the same thread right after the fork, whether it succeeded or not; when
// undo fails the thread is never given back to other goroutines (it ends
// with its goroutine, once the server has exited).
type Placer interface {
	PrepareFork(attr *syscall.SysProcAttr) (undo func() error, err error)
}

// Instance is one managed PostgreSQL server.
type Instance struct {
	opts     Options
	name     string
	dir      string
	temp     bool
	user     *ServerUser
	password string
	port     int
	settings []Setting
	// env are settings pglab adds for the environment (replication:
	// synchronous_standby_names, synchronous_commit), written after the
	// instance's own and kept across RestartWith.
	env []Setting
	// standbyMode marks a standby: hot_standby is off, so it is ready when
	// recovery has started ("standby" in postmaster.pid), without a ping.
	standbyMode bool
	// standby is the managed standby of this primary, if any.
	standby *Standby
	// holding keeps progress lines in held instead of printing them
	// (Start, until the settings are validated).
	holding bool
	held    []string

	mu      sync.Mutex
	cmd     *exec.Cmd     // set while we are the server's parent
	exited  chan struct{} // closed when cmd has been reaped
	exitErr error
	pid     int // the postmaster's pid while running
	// lastPM is the postmaster's pid as last started or recorded in
	// postmaster.pid, kept after it died: its process group and session
	// are the instance's.
	lastPM int
	// ended are the processes Stop, Close and Destroy had to end after
	// the postmaster was gone.
	ended   []Process
	stopCtx context.CancelFunc
	logFile *os.File
	// life is the context given to Start: when it ends the server is
	// stopped, whatever context later restarts were given.
	life context.Context
}

// SetPlacer sets where the server's processes are placed from its next
// start on (see Options.Placer): for an instance opened with OpenNamed
// whose environment lives on.
func (i *Instance) SetPlacer(p Placer) { i.opts.Placer = p }

// instanceFile is the instance's description kept in its directory (no
// secrets: the password is in its own 0600 file).
type instanceFile struct {
	Name      string    `json:"name"`
	Version   string    `json:"version"`
	BinDir    string    `json:"bin_dir"`
	Port      int       `json:"port"`
	Database  string    `json:"database"`
	Checksums bool      `json:"data_checksums"`
	Settings  []Setting `json:"settings"`
	User      string    `json:"server_user"`
	Created   time.Time `json:"created"`
}

const superuser = "postgres"

// Start creates an instance (initdb), starts it and waits until it accepts
// connections. Unless opts.Detached, the server is stopped when ctx is
// cancelled. On any error nothing is left running and a temporary
// directory is removed.
func Start(ctx context.Context, opts Options) (_ *Instance, err error) {
	if opts.Binaries == nil {
		return nil, errors.New("pgserver: no binaries given")
	}
	if opts.Name == "" {
		opts.Name = fmt.Sprintf("pg%d", opts.Binaries.Version.Major)
	}
	if opts.Database == "" {
		opts.Database = "pglab"
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	su, err := LookupServerUser()
	if err != nil {
		return nil, err
	}
	inst := &Instance{opts: opts, name: opts.Name, user: su, settings: opts.Settings, life: ctx}
	if opts.Dir == "" {
		if err := os.MkdirAll(TempRoot(), 0o755); err != nil {
			return nil, fmt.Errorf("create temporary directory: %w", err)
		}
		dir, err := os.MkdirTemp(TempRoot(), "pglab-"+opts.Name+"-")
		if err != nil {
			return nil, fmt.Errorf("create instance directory: %w", err)
		}
		inst.dir, inst.temp = dir, true
	} else {
		inst.dir = opts.Dir
		if err := os.MkdirAll(inst.dir, 0o700); err != nil {
			return nil, fmt.Errorf("create instance directory: %w", err)
		}
	}
	if err := checkReachable(inst.dir, su); err != nil {
		if inst.temp {
			os.RemoveAll(inst.dir)
		}
		return nil, err
	}
	defer func() {
		if err != nil {
			inst.kill()
			if inst.temp || opts.Detached {
				os.RemoveAll(inst.dir)
			}
		}
	}()
	// The initdb line is held back until the settings are known to be
	// good: a bad --set is then the only line a user sees.
	inst.holding = true
	if err := inst.initdb(ctx); err != nil {
		return nil, err
	}
	if err := validateSettings(ctx, opts.Binaries, inst.dataDir(), su, inst.settings); err != nil {
		return nil, err
	}
	inst.holding = false
	for _, line := range inst.held {
		inst.say("%s", line)
	}
	inst.held = nil
	if err := inst.start(ctx); err != nil {
		return nil, err
	}
	if err := inst.createDatabase(ctx); err != nil {
		return nil, err
	}
	if err := inst.writeInstanceFile(); err != nil {
		return nil, err
	}
	return inst, nil
}

func (i *Instance) say(format string, args ...any) {
	if i.holding {
		i.held = append(i.held, fmt.Sprintf(format, args...))
		return
	}
	if i.opts.Progress != nil {
		i.opts.Progress(fmt.Sprintf(format, args...))
	}
}

// Name returns the instance's name.
func (i *Instance) Name() string { return i.name }

// Dir returns the instance directory.
func (i *Instance) Dir() string { return i.dir }

// DataDir returns the data directory.
func (i *Instance) DataDir() string { return i.dataDir() }

// Version returns the server's release.
func (i *Instance) Version() Version { return i.opts.Binaries.Version }

// Binaries returns the binaries the instance runs.
func (i *Instance) Binaries() *Binaries { return i.opts.Binaries }

// Port returns the TCP port on 127.0.0.1.
func (i *Instance) Port() int { return i.port }

// Checksums reports whether data checksums are on.
func (i *Instance) Checksums() bool { return i.opts.Checksums }

// Settings returns the settings applied at start.
func (i *Instance) Settings() []Setting { return append([]Setting(nil), i.settings...) }

// SocketDir returns the private unix-socket directory.
func (i *Instance) SocketDir() string { return filepath.Join(i.dir, "sock") }

// LogPath returns the server log file.
func (i *Instance) LogPath() string { return filepath.Join(i.dir, "server.log") }

// Database returns the database the DSN points at.
func (i *Instance) Database() string { return i.opts.Database }

// User returns the superuser name to connect as.
func (i *Instance) User() string { return superuser }

// Password returns the generated superuser password.
func (i *Instance) Password() string { return i.password }

// PID returns the postmaster's process id, or 0 when not running.
func (i *Instance) PID() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.pid
}

// DSN returns a connection URL for the instance's database over TCP,
// password included. Never print or store it; see RedactedDSN.
func (i *Instance) DSN() string { return i.DSNFor(i.opts.Database) }

// DSNFor returns a connection URL for another database of the instance.
func (i *Instance) DSNFor(db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, i.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(i.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// RedactedDSN returns the DSN without its password.
func (i *Instance) RedactedDSN() string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(superuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(i.port)),
		Path:     "/" + i.opts.Database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

func (i *Instance) dataDir() string { return filepath.Join(i.dir, "data") }

func (i *Instance) passwordPath() string { return filepath.Join(i.dir, "password") }

func (i *Instance) initdb(ctx context.Context) error {
	su := i.user
	if err := os.Chmod(i.dir, 0o700); err != nil {
		return fmt.Errorf("instance directory: %w", err)
	}
	if err := su.chown(i.dir); err != nil {
		return fmt.Errorf("give %s to user %s: %w", i.dir, su.Name, err)
	}
	if err := os.Mkdir(i.SocketDir(), 0o700); err != nil {
		return fmt.Errorf("create socket directory: %w", err)
	}
	if err := su.chown(i.SocketDir()); err != nil {
		return fmt.Errorf("give %s to user %s: %w", i.SocketDir(), su.Name, err)
	}
	pw, err := newPassword()
	if err != nil {
		return err
	}
	i.password = pw
	if err := os.WriteFile(i.passwordPath(), []byte(pw+"\n"), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	// initdb runs as the server user and reads the password from a file
	// only it can read; the file is removed right after.
	pwFile := filepath.Join(i.dir, ".initdb-pw")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	defer os.Remove(pwFile)
	if err := su.chown(pwFile); err != nil {
		return fmt.Errorf("give password file to user %s: %w", su.Name, err)
	}
	args := []string{
		"-D", i.dataDir(),
		"--username=" + superuser,
		"--auth=scram-sha-256",
		"--pwfile=" + pwFile,
		"--encoding=UTF8",
		"--locale=C",
	}
	if i.opts.Checksums {
		args = append(args, "--data-checksums")
	} else if i.opts.Binaries.Version.Major >= 18 {
		args = append(args, "--no-data-checksums")
	}
	i.say("initdb %s (PostgreSQL %s, data checksums %s)", i.dataDir(), i.opts.Binaries.Version, onOff(i.opts.Checksums))
	cmd := exec.CommandContext(ctx, i.opts.Binaries.Initdb(), args...)
	cmd.SysProcAttr = childAttrs(su, false)
	cmd.Env = serverEnv(i.dir)
	cmd.Dir = i.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("initdb: %w", ctx.Err())
		}
		return fmt.Errorf("initdb: %v\n%s", err, indent(lastLines(string(out), 10)))
	}
	conf := filepath.Join(i.dataDir(), "postgresql.conf")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("postgresql.conf: %w", err)
	}
	_, err = f.WriteString("\n# Added by pglab: its settings for this instance.\ninclude_if_exists = 'pglab.conf'\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("postgresql.conf: %w", err)
	}
	return nil
}

// checkReachable fails when the server user cannot traverse one of dir's
// parent directories (root's home, a private temporary directory, ...).
func checkReachable(dir string, su *ServerUser) error {
	if su.Self {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("instance directory %s: %w", dir, err)
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if ok {
			mode := st.Mode().Perm()
			can := mode&0o001 != 0 ||
				(int(sys.Uid) == su.UID && mode&0o100 != 0) ||
				(int(sys.Gid) == su.GID && mode&0o010 != 0)
			if !can {
				return fmt.Errorf("the server user %s cannot reach %s: %s is mode %04o; use a directory every user can traverse (e.g. under /var/lib or /tmp)", su.Name, dir, p, mode)
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func newPassword() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// writeConf writes pglab.conf in the data directory: pglab's own settings,
// then the instance's.
func (i *Instance) writeConf() error {
	var b strings.Builder
	b.WriteString("# Written by pglab at every start; edits are overwritten.\n")
	own := []Setting{
		{"listen_addresses", "127.0.0.1"},
		{"port", strconv.Itoa(i.port)},
		{"unix_socket_directories", i.SocketDir()},
		{"unix_socket_permissions", "0700"},
	}
	for _, s := range own {
		b.WriteString(confLine(s))
	}
	for _, s := range i.settings {
		b.WriteString(confLine(s))
	}
	for _, s := range i.envSettings() {
		b.WriteString(confLine(s))
	}
	path := filepath.Join(i.dataDir(), "pglab.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write pglab.conf: %w", err)
	}
	return i.user.chown(path)
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start starts the server and waits until it is ready. A port taken in the
// meantime is retried with another one.
func (i *Instance) start(ctx context.Context) error {
	keepPort := i.port != 0
	for attempt := 0; ; attempt++ {
		if !keepPort || attempt > 0 {
			p, err := freePort()
			if err != nil {
				return err
			}
			i.port = p
		}
		err := i.startOnce(ctx)
		if err == nil {
			if sb := i.getStandby(); sb != nil {
				return sb.primaryStarted(ctx)
			}
			return nil
		}
		var se *startError
		if errors.As(err, &se) && se.portInUse && attempt < 3 {
			continue
		}
		return err
	}
}

// startError is a failed start with the server log quoted.
type startError struct {
	name      string
	reason    string
	log       string
	portInUse bool
}

func (e *startError) Error() string {
	msg := fmt.Sprintf("start PostgreSQL instance %s: %s", e.name, e.reason)
	if e.log != "" {
		msg += "\nserver log:\n" + indent(e.log)
	}
	return msg
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for k, l := range lines {
		lines[k] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func (i *Instance) startOnce(ctx context.Context) error {
	if err := i.writeConf(); err != nil {
		return err
	}
	logf, err := os.OpenFile(i.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	logStart, _ := logf.Seek(0, 2)
	i.say("starting PostgreSQL %s on 127.0.0.1:%d", i.opts.Binaries.Version, i.port)
	cmd := exec.Command(i.opts.Binaries.Postgres(), "-D", i.dataDir())
	cmd.SysProcAttr = childAttrs(i.user, !i.opts.Detached)
	if i.opts.Detached {
		cmd.SysProcAttr.Setpgid = false
		cmd.SysProcAttr.Setsid = true
	}
	cmd.Env = serverEnv(i.dir)
	cmd.Dir = i.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	exited := make(chan struct{})
	if err := startOnLockedThread(cmd, i.opts.Placer, func(err error) {
		i.mu.Lock()
		i.exitErr = err
		i.mu.Unlock()
		close(exited)
	}); err != nil {
		logf.Close()
		return &startError{name: i.name, reason: err.Error()}
	}
	i.mu.Lock()
	i.cmd, i.exited, i.pid, i.logFile = cmd, exited, cmd.Process.Pid, logf
	i.lastPM = cmd.Process.Pid
	i.mu.Unlock()

	fail := func(reason string) error {
		i.kill()
		log := readLogFrom(i.LogPath(), logStart)
		return &startError{name: i.name, reason: reason, log: lastLines2(log, 15),
			portInUse: strings.Contains(log, "could not bind") || strings.Contains(log, "Address already in use")}
	}
	deadline := time.NewTimer(i.opts.StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			i.kill()
			return fmt.Errorf("start PostgreSQL instance %s: %w", i.name, ctx.Err())
		case <-exited:
			return fail("the server exited during start-up")
		case <-deadline.C:
			return fail(fmt.Sprintf("not ready after %s", i.opts.StartTimeout))
		case <-tick.C:
		}
		st := pmStatus(i.dataDir(), cmd.Process.Pid)
		if i.standbyMode && (st == "standby" || st == "ready") {
			break
		}
		if st != "ready" {
			continue
		}
		if err := i.ping(ctx); err != nil {
			if ctx.Err() != nil {
				continue
			}
			return fail("ready but not accepting connections: " + err.Error())
		}
		break
	}
	if !i.opts.Detached {
		life := i.life
		if life == nil {
			life = ctx
		}
		wctx, cancel := context.WithCancel(context.Background())
		i.mu.Lock()
		i.stopCtx = cancel
		i.mu.Unlock()
		go func() {
			select {
			case <-life.Done():
				sctx, c := context.WithTimeout(context.Background(), 30*time.Second)
				i.Stop(sctx)
				c()
			case <-wctx.Done():
			case <-exited:
			}
		}()
	}
	return nil
}

// pmStatus reads the status line of postmaster.pid ("starting", "ready",
// "stopping", "standby") as the postmaster pid wrote it, or "" when there
// is none. A file of another process is none: a server killed with
// SIGKILL leaves its postmaster.pid behind, saying "ready", until the next
// postmaster replaces it, and a start that read that status would try the
// new port before anything listens on it.
func pmStatus(dataDir string, pid int) string {
	f, err := os.Open(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if n == 1 && line != strconv.Itoa(pid) {
			return ""
		}
		if n == 8 {
			return line
		}
	}
	return ""
}

// pmPID reads the postmaster's pid from postmaster.pid.
func pmPID(dataDir string) int {
	data, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

func (i *Instance) ping(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, i.DSNFor("postgres")+"&application_name=pglab")
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(cctx)
}

func (i *Instance) createDatabase(ctx context.Context) error {
	db := i.opts.Database
	if db == "postgres" {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, i.DSNFor("postgres")+"&application_name=pglab")
	if err != nil {
		return fmt.Errorf("connect to instance %s: %w", i.name, err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(cctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(cctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return fmt.Errorf("instance %s: create database %s: %w", i.name, db, err)
	}
	return nil
}

func (i *Instance) writeInstanceFile() error {
	f := instanceFile{
		Name:      i.name,
		Version:   i.opts.Binaries.Version.String(),
		BinDir:    i.opts.Binaries.Dir,
		Port:      i.port,
		Database:  i.opts.Database,
		Checksums: i.opts.Checksums,
		Settings:  i.settings,
		User:      i.user.Name,
		Created:   time.Now().UTC(),
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(i.dir, "instance.json"), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write instance.json: %w", err)
	}
	return nil
}

// Running reports whether the server process is alive.
func (i *Instance) Running() bool {
	pid := i.PID()
	if pid == 0 {
		return false
	}
	i.mu.Lock()
	exited := i.exited
	i.mu.Unlock()
	if exited != nil {
		select {
		case <-exited:
			return false
		default:
			return true
		}
	}
	return processAlive(pid)
}

// Restart stops the server (fast shutdown) and starts it again with its
// current settings, on the same port when it is still free. Shared buffers
// are empty afterwards.
func (i *Instance) Restart(ctx context.Context) error {
	if err := i.Stop(ctx); err != nil {
		return err
	}
	if err := i.start(ctx); err != nil {
		return err
	}
	return i.writeInstanceFile()
}

// RestartWith restarts the server with settings replacing the current ones
// (an empty list means pglab's own settings only). Settings the server
// refuses are reported before it is stopped.
func (i *Instance) RestartWith(ctx context.Context, settings []Setting) error {
	if err := validateSettings(ctx, i.opts.Binaries, i.dataDir(), i.user, settings); err != nil {
		return err
	}
	if err := i.Stop(ctx); err != nil {
		return err
	}
	i.settings = append([]Setting(nil), settings...)
	if err := i.start(ctx); err != nil {
		return err
	}
	return i.writeInstanceFile()
}

// Stop shuts the server down: fast shutdown, then immediate after 30 s,
// then SIGKILL of the whole process group. Then, as when the postmaster
// had died before (SIGKILL, the OOM killer), it ends with SIGKILL every
// process of the instance still running (see Processes; a parallel worker
// whose leader died may sleep for ever), says which and records them
// (Ended). It returns once no process of the server is left. Stopping a
// stopped instance ends only what is left of it.
func (i *Instance) Stop(ctx context.Context) error { return i.stop(ctx, syscall.SIGINT) }

// stop shuts the server down with sig first (SIGINT: fast shutdown, a
// checkpoint; SIGQUIT: immediate, none), then as Stop.
func (i *Instance) stop(ctx context.Context, sig syscall.Signal) error {
	i.mu.Lock()
	pid, exited, cancel, logf := i.pid, i.exited, i.stopCtx, i.logFile
	i.stopCtx = nil
	i.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if pid == 0 {
		return i.endLeftovers()
	}
	if sb := i.getStandby(); sb != nil {
		sb.primaryStopping()
	}
	gone := func() bool {
		if exited != nil {
			select {
			case <-exited:
				return true
			default:
				return false
			}
		}
		return !processAlive(pid)
	}
	wait := func(d time.Duration) bool {
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) {
			if gone() {
				return true
			}
			select {
			case <-ctx.Done():
				return gone()
			case <-time.After(10 * time.Millisecond):
			}
		}
		return gone()
	}
	var err error
	syscall.Kill(pid, sig)
	if !wait(30 * time.Second) {
		syscall.Kill(pid, syscall.SIGQUIT)
		if !wait(5 * time.Second) {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
			if !wait(5 * time.Second) {
				err = fmt.Errorf("stop PostgreSQL instance %s: process %d did not exit", i.name, pid)
			}
		}
	}
	// Most processes of a killed postmaster exit on their own, not all.
	if lerr := i.endLeftovers(); err == nil {
		err = lerr
	}
	i.mu.Lock()
	if i.pid == pid {
		i.pid = 0
		i.cmd = nil
	}
	i.mu.Unlock()
	if logf != nil {
		logf.Close()
	}
	return err
}

// kill stops the server at once (used on start failures).
func (i *Instance) kill() {
	i.mu.Lock()
	pid, exited := i.pid, i.exited
	i.mu.Unlock()
	if pid != 0 {
		quitOrKill(pid, exited)
	}
	i.endLeftovers()
	i.mu.Lock()
	i.pid = 0
	i.cmd = nil
	if i.logFile != nil {
		i.logFile.Close()
		i.logFile = nil
	}
	i.mu.Unlock()
}

// quitOrKill sends the postmaster SIGQUIT and, when it has not exited
// after 5 s, SIGKILL; it waits up to 5 s more.
func quitOrKill(pid int, exited chan struct{}) {
	syscall.Kill(pid, syscall.SIGQUIT)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		syscall.Kill(pid, syscall.SIGKILL)
		if exited != nil {
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
			}
		}
	}
}

// Destroy stops the server and removes the instance directory; a standby
// of it is stopped and removed after it.
func (i *Instance) Destroy(ctx context.Context) error {
	err := i.Stop(ctx)
	if sb := i.getStandby(); sb != nil {
		if serr := sb.Stop(ctx); err == nil {
			err = serr
		}
	}
	if rerr := os.RemoveAll(i.dir); err == nil && rerr != nil {
		err = fmt.Errorf("remove instance %s: %w", i.name, rerr)
	}
	return err
}

// Close stops the server and removes the directory when it is temporary;
// a standby of it is stopped and removed after it.
func (i *Instance) Close(ctx context.Context) error {
	if i.temp {
		return i.Destroy(ctx)
	}
	err := i.Stop(ctx)
	if sb := i.getStandby(); sb != nil {
		if serr := sb.Stop(ctx); err == nil {
			err = serr
		}
	}
	return err
}

// LogTail returns the last n lines of the server log.
func (i *Instance) LogTail(n int) string {
	return lastLines2(readLogFrom(i.LogPath(), 0), n)
}

func readLogFrom(path string, off int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	if st.Size()-off > 1<<20 {
		off = st.Size() - 1<<20
	}
	buf := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(buf, off)
	return string(buf[:n])
}

func lastLines2(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// processAlive reports whether a process exists and is no zombie.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie counts as gone, and so does one reaped since the signal
	// above (no /proc entry any more: "already running" was reported for
	// a killed postmaster whose parent reaped it just then).
	data, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(rerr, fs.ErrNotExist) || errors.Is(rerr, syscall.ESRCH) {
		return false
	}
	if rerr == nil {
		if j := strings.LastIndexByte(string(data), ')'); j > 0 && j+2 < len(data) && data[j+2] == 'Z' {
			return false
		}
	}
	return true
}

// startOnLockedThread starts cmd from an OS thread that stays locked to
// one goroutine until cmd has exited, then calls reaped with Wait's error.
// Linux sends the parent-death signal when the thread that forked the child
// ends, not the process: a thread the Go runtime retires (any goroutine
// that exits while locked to its thread, e.g. a pinned bench thread) would
// otherwise stop a managed server in the middle of a run. A placer, when
// given, prepares the fork on that thread (see Placer); a thread it could
// not restore is never unlocked, so that the runtime ends it with the
// goroutine instead of running other goroutines inside the server's
// cgroup.
func startOnLockedThread(cmd *exec.Cmd, placer Placer, reaped func(error)) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tainted := false
		release := func() {
			if !tainted {
				runtime.UnlockOSThread()
			}
		}
		var undo func() error
		if placer != nil {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			var err error
			if undo, err = placer.PrepareFork(cmd.SysProcAttr); err != nil {
				release()
				started <- fmt.Errorf("place the server: %w", err)
				return
			}
		}
		err := cmd.Start()
		if undo != nil {
			// A thread stuck inside the cgroup ends with this
			// goroutine; the server itself runs placed.
			tainted = undo() != nil
		}
		if err != nil {
			release()
			started <- err
			return
		}
		started <- nil
		err = cmd.Wait()
		release()
		reaped(err)
	}()
	return <-started
}

// childAttrs returns process attributes for a server program: its own
// process group (so a terminal's Ctrl-C reaches pglab, which stops servers
// in order), the server user's credentials, and, for servers owned by this
// process, a parent-death signal so that they never outlive it.
func childAttrs(su *ServerUser, dieWithParent bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Credential: su.credential()}
	if dieWithParent {
		a.Pdeathsig = syscall.SIGQUIT
	}
	return a
}

// serverEnv is the environment of server programs: no PG* variables of
// the caller, C locale.
func serverEnv(home string) []string {
	env := []string{"LC_ALL=C", "LANG=C"}
	if home != "" {
		env = append(env, "HOME="+home)
	}
	if p := os.Getenv("PATH"); p != "" {
		env = append(env, "PATH="+p)
	}
	if tz := os.Getenv("TZ"); tz != "" {
		env = append(env, "TZ="+tz)
	}
	return env
}
