package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/internal/netdelay"
	"golang.org/x/sys/unix"
)

// SynchronousCommitModes are the values of synchronous_commit.
var SynchronousCommitModes = []string{"on", "remote_write", "remote_apply", "local", "off"}

// StandbyOptions describe a managed standby of a primary.
type StandbyOptions struct {
	// Name of the standby, also its application_name on the primary.
	// Defaults to the primary's name + "-standby".
	Name string
	// Sync lists the standby in the primary's synchronous_standby_names:
	// commits wait for it as SynchronousCommit says.
	Sync bool
	// SynchronousCommit is set on the primary ("" keeps the server's
	// default, on). See SynchronousCommitModes.
	SynchronousCommit string
	// RTT is the round trip added to the replication connection by a
	// delay proxy (internal/netdelay); 0 connects directly.
	RTT time.Duration
	// Progress receives one line per step; nil uses the primary's.
	Progress func(string)
}

// Standby is a managed streaming standby of a primary Instance: a copy of
// the primary's cleanly stopped data directory with standby.signal and
// primary_conninfo, streaming through a delay proxy when RTT is set. It
// runs as a child of this process outside any limit placed on the primary
// (it stands for remote storage). A watcher notices when it dies or stops
// streaming: Failed is then closed, Err says why, and the primary's
// synchronous_standby_names is cleared so that no commit waits for it for
// ever.
type Standby struct {
	primary *Instance
	inst    *Instance
	opts    StandbyOptions
	proxy   *netdelay.Proxy
	slot    string
	// primaryPort is the primary's port the standby connects to (through
	// the proxy or directly); passfile holds the password for it.
	primaryPort int
	passfile    string

	mu          sync.Mutex
	err         error
	failed      chan struct{}
	stopping    bool
	stopped     bool
	primaryDown bool
	watchStop   context.CancelFunc
	watchDone   chan struct{}
}

// notStreamingLimit is how long a standby may be connected to a running
// primary without streaming before the watcher calls it failed.
const notStreamingLimit = 10 * time.Second

// StartStandby creates and starts a standby of the running primary i. The
// primary is stopped cleanly for the copy of its data directory and
// started again (same port when free). It returns once the standby
// streams (and, for Sync, is the primary's synchronous standby). On error
// nothing of the standby is left and the primary runs as before.
func (i *Instance) StartStandby(ctx context.Context, opts StandbyOptions) (_ *Standby, err error) {
	if sb := i.getStandby(); sb != nil {
		return nil, fmt.Errorf("instance %s already has a standby (%s)", i.name, sb.Name())
	}
	if i.opts.Detached {
		return nil, fmt.Errorf("instance %s: a standby needs a server of this run, not a detached one", i.name)
	}
	if i.standbyMode {
		return nil, fmt.Errorf("instance %s is a standby itself", i.name)
	}
	if !i.Running() {
		return nil, fmt.Errorf("instance %s is not running", i.name)
	}
	if opts.Name == "" {
		opts.Name = i.name + "-standby"
	}
	if len(opts.Name) > 63 || strings.ContainsAny(opts.Name, "\"'\\ \n\r\t\x00/") {
		return nil, fmt.Errorf("invalid standby name %q: at most 63 characters, no quotes, slashes, spaces or backslashes (it is the standby's application_name)", opts.Name)
	}
	if opts.SynchronousCommit != "" && !contains(SynchronousCommitModes, opts.SynchronousCommit) {
		return nil, fmt.Errorf("synchronous_commit %q: want one of %s", opts.SynchronousCommit, strings.Join(SynchronousCommitModes, ", "))
	}
	if opts.RTT < 0 {
		return nil, fmt.Errorf("standby round trip %v is negative", opts.RTT)
	}
	if opts.Progress == nil {
		opts.Progress = i.opts.Progress
	}
	s := &Standby{primary: i, opts: opts, slot: slotName(opts.Name), failed: make(chan struct{})}
	if err := s.preparePrimary(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.cleanup(context.Background())
		}
	}()
	if err := s.create(ctx); err != nil {
		return nil, err
	}
	i.mu.Lock()
	i.standby = s
	i.mu.Unlock()
	if err := s.startAndWait(ctx); err != nil {
		return nil, err
	}
	s.startWatcher()
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// slotName turns a standby name into a replication slot name ([a-z0-9_]).
func slotName(name string) string {
	var b strings.Builder
	b.WriteString("pglab_")
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func (s *Standby) say(format string, args ...any) {
	if s.opts.Progress != nil {
		s.opts.Progress(fmt.Sprintf(format, args...))
	}
}

// Name returns the standby's name (its application_name).
func (s *Standby) Name() string { return s.opts.Name }

// Instance returns the standby server (its log, directory, port).
func (s *Standby) Instance() *Instance { return s.inst }

// Primary returns the primary it replicates.
func (s *Standby) Primary() *Instance { return s.primary }

// Options returns what the standby was created with.
func (s *Standby) Options() StandbyOptions { return s.opts }

// Proxy returns the delay proxy of the replication connection, or nil.
func (s *Standby) Proxy() *netdelay.Proxy { return s.proxy }

// Failed is closed when the standby died or stopped streaming.
func (s *Standby) Failed() <-chan struct{} { return s.failed }

// Err returns why the standby failed, or nil.
func (s *Standby) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// preparePrimary checks that the primary can have a standby and creates
// its replication slot.
func (s *Standby) preparePrimary(ctx context.Context) error {
	i := s.primary
	conn, err := i.connectAdmin(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var walLevel, senders string
	if err := conn.QueryRow(ctx, "SELECT current_setting('wal_level'), current_setting('max_wal_senders')").Scan(&walLevel, &senders); err != nil {
		return fmt.Errorf("instance %s: %w", i.name, err)
	}
	if walLevel == "minimal" {
		return fmt.Errorf("instance %s: a standby needs wal_level replica or logical, not minimal", i.name)
	}
	if n, _ := strconv.Atoi(senders); n < 1 {
		return fmt.Errorf("instance %s: a standby needs max_wal_senders of at least 1", i.name)
	}
	if err := ensureReplicationHBA(filepath.Join(i.dataDir(), "pg_hba.conf"), i.user); err != nil {
		return err
	}
	// The slot keeps the WAL the standby has not received yet, also while
	// the primary restarts before the standby first connects.
	if _, err := conn.Exec(ctx, "SELECT pg_create_physical_replication_slot($1, true)", s.slot); err != nil {
		return fmt.Errorf("instance %s: create replication slot %s: %w", i.name, s.slot, err)
	}
	return nil
}

// ensureReplicationHBA makes sure pg_hba.conf lets TCP replication
// connections from 127.0.0.1 in with a password (initdb's file has that
// line; a user's may not).
func ensureReplicationHBA(path string, su *ServerUser) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("pg_hba.conf: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == "host" && f[1] == "replication" && (f[2] == "all" || f[2] == superuser) && f[3] == "127.0.0.1/32" {
			return nil
		}
	}
	line := "\n# Added by pglab for its managed standby.\nhost replication " + superuser + " 127.0.0.1/32 scram-sha-256\n"
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("pg_hba.conf: %w", err)
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pg_hba.conf: %w", err)
	}
	return nil
}

// create stops the primary cleanly, copies its data directory into a new
// standby instance directory, and starts the primary again.
func (s *Standby) create(ctx context.Context) error {
	i := s.primary
	st := &Instance{opts: Options{Binaries: i.opts.Binaries, Name: s.opts.Name, Database: i.opts.Database,
		Checksums: i.opts.Checksums, StartTimeout: i.opts.StartTimeout, Progress: s.opts.Progress},
		name: s.opts.Name, user: i.user, password: i.password, temp: true, standbyMode: true, life: i.life}
	dir, err := os.MkdirTemp(TempRoot(), "pglab-"+s.opts.Name+"-")
	if err != nil {
		return fmt.Errorf("create standby directory: %w", err)
	}
	st.dir = dir
	s.inst = st
	if err := checkReachable(dir, i.user); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("standby directory: %w", err)
	}
	if err := i.user.chown(dir); err != nil {
		return fmt.Errorf("give %s to user %s: %w", dir, i.user.Name, err)
	}
	for _, d := range []string{st.SocketDir()} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("standby directory: %w", err)
		}
		if err := i.user.chown(d); err != nil {
			return fmt.Errorf("give %s to user %s: %w", d, i.user.Name, err)
		}
	}
	if err := writeOwned(st.passwordPath(), i.password+"\n", nil); err != nil {
		return err
	}
	s.say("stopping %s cleanly to copy its data directory for standby %s", i.name, s.opts.Name)
	if err := i.Stop(ctx); err != nil {
		return err
	}
	copyErr := copyDataDir(i.dataDir(), st.dataDir(), i.user)
	if err := i.start(ctx); err != nil {
		return fmt.Errorf("restart %s after the copy for its standby: %w", i.name, err)
	}
	if copyErr != nil {
		return fmt.Errorf("copy the data directory of %s for its standby: %w", i.name, copyErr)
	}
	return nil
}

// writeOwned writes a 0600 file owned by the server user.
func writeOwned(path, content string, su *ServerUser) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if su != nil {
		if err := su.chown(path); err != nil {
			return fmt.Errorf("give %s to user %s: %w", path, su.Name, err)
		}
	}
	return nil
}

// startAndWait configures the standby (proxy, conninfo, signal file),
// starts it, waits until it streams, then makes it synchronous if asked.
func (s *Standby) startAndWait(ctx context.Context) error {
	i, st := s.primary, s.inst
	host, port := "127.0.0.1", i.port
	if s.opts.RTT > 0 {
		px, err := netdelay.Start(netdelay.Options{Upstream: net.JoinHostPort("127.0.0.1", strconv.Itoa(i.port)), RTT: s.opts.RTT})
		if err != nil {
			return fmt.Errorf("standby %s: %w", s.opts.Name, err)
		}
		s.proxy = px
		port = int(px.Port())
	}
	pass := filepath.Join(st.dir, "replication.pgpass")
	if err := writeOwned(pass, fmt.Sprintf("*:*:*:%s:%s\n", superuser, pgpassEscape(i.password)), i.user); err != nil {
		return err
	}
	if err := writeOwned(filepath.Join(st.dataDir(), "standby.signal"), "", i.user); err != nil {
		return err
	}
	s.primaryPort, s.passfile = i.port, pass
	st.settings = MergeSettings(i.settings,
		Setting{"primary_conninfo", s.conninfo(host, port)},
		Setting{"primary_slot_name", s.slot},
		// No queries run on the standby: without hot standby its
		// max_connections and the like need not follow the primary's.
		Setting{"hot_standby", "off"},
		// Reconnect at once after a restart of the primary.
		Setting{"wal_retrieve_retry_interval", "200ms"},
		Setting{"synchronous_standby_names", ""},
	)
	via := "directly"
	if s.proxy != nil {
		via = fmt.Sprintf("through a %v round-trip delay", s.opts.RTT)
	}
	s.say("starting standby %s of %s, replicating %s", s.opts.Name, i.name, via)
	if err := st.start(ctx); err != nil {
		return fmt.Errorf("standby %s: %w", s.opts.Name, err)
	}
	if err := s.waitStreaming(ctx, time.Minute); err != nil {
		return err
	}
	return s.applyPrimarySettings(ctx)
}

// conninfo is the standby's primary_conninfo.
func (s *Standby) conninfo(host string, port int) string {
	return fmt.Sprintf("host=%s port=%d user=%s passfile=%s application_name=%s sslmode=disable connect_timeout=10",
		host, port, superuser, s.passfile, s.opts.Name)
}

// reconnect points a direct standby at the primary's new port (a reload:
// primary_conninfo takes effect without a restart).
func (s *Standby) reconnect() error {
	st := s.inst
	st.settings = MergeSettings(st.settings, Setting{"primary_conninfo", s.conninfo("127.0.0.1", s.primaryPort)})
	if err := st.writeConf(); err != nil {
		return fmt.Errorf("standby %s: %w", s.opts.Name, err)
	}
	if err := unix.Kill(st.PID(), unix.SIGHUP); err != nil {
		return fmt.Errorf("standby %s: reload: %w", s.opts.Name, err)
	}
	return nil
}

// pgpassEscape escapes ':' and '\' for a password file.
func pgpassEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s)
}

// applyPrimarySettings sets synchronous_standby_names (for Sync) and
// synchronous_commit on the primary and waits until the standby is its
// synchronous one.
func (s *Standby) applyPrimarySettings(ctx context.Context) error {
	i := s.primary
	var env []Setting
	if s.opts.Sync {
		env = append(env, Setting{"synchronous_standby_names", `"` + s.opts.Name + `"`})
	}
	if s.opts.SynchronousCommit != "" {
		env = append(env, Setting{"synchronous_commit", s.opts.SynchronousCommit})
	}
	if len(env) == 0 {
		return nil
	}
	if err := i.reloadEnv(ctx, env); err != nil {
		return err
	}
	if !s.opts.Sync {
		return nil
	}
	return s.poll(ctx, time.Minute, "become the synchronous standby of "+i.name, func(state, sync string) bool {
		return state == "streaming" && sync == "sync"
	})
}

// reloadEnv replaces the environment's settings and reloads the server's
// configuration; it returns once a new session sees them.
func (i *Instance) reloadEnv(ctx context.Context, env []Setting) error {
	i.mu.Lock()
	i.env = env
	i.mu.Unlock()
	if err := i.writeConf(); err != nil {
		return err
	}
	pid := i.PID()
	if pid == 0 {
		return nil
	}
	if err := unix.Kill(pid, unix.SIGHUP); err != nil {
		return fmt.Errorf("reload the configuration of %s: %w", i.name, err)
	}
	want := ""
	for _, s := range env {
		if s.Name == "synchronous_standby_names" {
			want = s.Value
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := i.connectAdmin(ctx)
		if err == nil {
			var got string
			err = conn.QueryRow(ctx, "SELECT current_setting('synchronous_standby_names')").Scan(&got)
			conn.Close(context.Background())
			if err == nil && got == want {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("instance %s did not take its new replication settings: %v", i.name, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (i *Instance) envSettings() []Setting {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Setting(nil), i.env...)
}

func (i *Instance) getStandby() *Standby {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.standby
}

// Standby returns the instance's managed standby, or nil.
func (i *Instance) Standby() *Standby { return i.getStandby() }

func (i *Instance) connectAdmin(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, i.DSNFor("postgres"))
	if err != nil {
		return nil, fmt.Errorf("connect to instance %s: %w", i.name, err)
	}
	return conn, nil
}

// replicationState returns the standby's state and sync_state in the
// primary's pg_stat_replication ("", "" when it is not connected).
func (s *Standby) replicationState(ctx context.Context, conn *pgx.Conn) (state, sync string, err error) {
	err = conn.QueryRow(ctx, "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1", s.opts.Name).Scan(&state, &sync)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", nil
	}
	return state, sync, err
}

func (s *Standby) waitStreaming(ctx context.Context, limit time.Duration) error {
	return s.poll(ctx, limit, "stream from "+s.primary.name, func(state, _ string) bool { return state == "streaming" })
}

// poll waits until ok holds for the standby's row in pg_stat_replication.
func (s *Standby) poll(ctx context.Context, limit time.Duration, what string, ok func(state, sync string) bool) error {
	deadline := time.Now().Add(limit)
	conn, err := s.primary.connectAdmin(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	state := ""
	for {
		if !s.inst.Running() {
			return s.deathError()
		}
		st, sync, err := s.replicationState(ctx, conn)
		if err != nil {
			return fmt.Errorf("standby %s: %w", s.opts.Name, err)
		}
		if ok(st, sync) {
			return nil
		}
		state = st
		if time.Now().After(deadline) {
			if state == "" {
				state = "not connected"
			}
			return fmt.Errorf("standby %s did not %s within %v (state: %s)\nstandby log:\n%s", s.opts.Name, what, limit, state, indent(s.inst.LogTail(15)))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *Standby) deathError() error {
	st := s.inst
	st.mu.Lock()
	werr := st.exitErr
	st.mu.Unlock()
	how := "exited"
	if werr != nil {
		how = "exited (" + werr.Error() + ")"
	}
	return fmt.Errorf("standby %s of %s %s\nstandby log:\n%s", s.opts.Name, s.primary.name, how, indent(st.LogTail(10)))
}

// primaryStopping is called when the primary is about to stop: the watcher
// does not count a standby without a primary as failing.
func (s *Standby) primaryStopping() {
	s.mu.Lock()
	s.primaryDown = true
	s.mu.Unlock()
}

// primaryStarted is called after each start of the primary: the proxy
// follows a new port, and the start is complete once the standby streams
// again (commits would wait for it otherwise).
func (s *Standby) primaryStarted(ctx context.Context) error {
	s.mu.Lock()
	stopped := s.stopped || s.inst == nil || !s.inst.Running()
	s.mu.Unlock()
	if stopped {
		return nil
	}
	if s.primary.port != s.primaryPort {
		// start keeps the port when it is free; when it was not, the
		// standby follows: the proxy's upstream, or its conninfo.
		s.primaryPort = s.primary.port
		if s.proxy != nil {
			if err := s.proxy.SetUpstream(net.JoinHostPort("127.0.0.1", strconv.Itoa(s.primaryPort))); err != nil {
				return fmt.Errorf("standby %s: %w", s.opts.Name, err)
			}
		} else if err := s.reconnect(); err != nil {
			return err
		}
	}
	err := s.waitStreaming(ctx, time.Minute)
	s.mu.Lock()
	s.primaryDown = false
	s.mu.Unlock()
	return err
}

// startWatcher watches the standby's process, its proxy and its row in
// pg_stat_replication until Stop.
func (s *Standby) startWatcher() {
	ctx, cancel := context.WithCancel(context.Background())
	s.watchStop, s.watchDone = cancel, make(chan struct{})
	s.inst.mu.Lock()
	exited := s.inst.exited
	s.inst.mu.Unlock()
	var proxyDone <-chan struct{}
	if s.proxy != nil {
		proxyDone = s.proxy.Done()
	}
	go func() {
		defer close(s.watchDone)
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				conn.Close(context.Background())
			}
		}()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var since time.Time // when the standby was first seen not streaming
		for {
			select {
			case <-ctx.Done():
				return
			case <-exited:
				s.fail(s.deathError())
				return
			case <-proxyDone:
				s.fail(fmt.Errorf("standby %s of %s: the delay proxy of its replication connection exited: %v", s.opts.Name, s.primary.name, s.proxy.Err()))
				return
			case <-tick.C:
			}
			s.mu.Lock()
			down := s.primaryDown
			s.mu.Unlock()
			if down {
				since = time.Time{}
				continue
			}
			if conn == nil {
				c, err := s.primary.connectAdmin(ctx)
				if err != nil {
					continue // the primary's own failures are reported by its user
				}
				conn = c
			}
			qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
			state, _, err := s.replicationState(qctx, conn)
			qcancel()
			if err != nil {
				conn.Close(context.Background())
				conn = nil
				continue
			}
			if state == "streaming" {
				since = time.Time{}
				continue
			}
			if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= notStreamingLimit {
				if state == "" {
					state = "not connected"
				}
				s.fail(fmt.Errorf("standby %s of %s stopped streaming (state: %s for %v)\nstandby log:\n%s", s.opts.Name, s.primary.name, state, notStreamingLimit, indent(s.inst.LogTail(10))))
				return
			}
		}
	}()
}

// fail records the standby's failure, signals it, and releases commits
// waiting for it on the primary.
func (s *Standby) fail(err error) {
	s.mu.Lock()
	if s.stopping || s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	close(s.failed)
	s.mu.Unlock()
	if s.primary.Running() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		s.primary.reloadEnv(ctx, nil)
		cancel()
	}
}

// Stop stops the standby safely: the primary first stops waiting for it
// (synchronous_standby_names cleared), then the standby and its proxy
// stop, its directory and the primary's slot are removed. Stopping a
// stopped standby is a no-op.
func (s *Standby) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopping, s.stopped = true, true
	s.mu.Unlock()
	return s.cleanup(ctx)
}

// cleanup removes whatever of the standby exists.
func (s *Standby) cleanup(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	if s.watchStop != nil {
		s.watchStop()
		<-s.watchDone
	}
	var errs []error
	i := s.primary
	if i.Running() && len(i.envSettings()) > 0 {
		if err := i.reloadEnv(ctx, nil); err != nil {
			errs = append(errs, err)
		}
	}
	if s.inst != nil {
		if err := s.inst.Destroy(ctx); err != nil {
			errs = append(errs, fmt.Errorf("standby %s: %w", s.opts.Name, err))
		}
	}
	if s.proxy != nil {
		if err := s.proxy.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if i.Running() {
		if conn, err := i.connectAdmin(ctx); err == nil {
			conn.Exec(ctx, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active", s.slot)
			conn.Close(context.Background())
		}
	} else {
		os.RemoveAll(filepath.Join(i.dataDir(), "pg_replslot", s.slot))
	}
	i.mu.Lock()
	i.env = nil
	if i.standby == s {
		i.standby = nil
	}
	i.mu.Unlock()
	return errors.Join(errs...)
}

// copyDataDir copies a stopped server's data directory for a standby:
// every file but the postmaster's lock and options and the replication
// slots, owned by the server user. The source's pages are dropped from the
// page cache afterwards, so that the copy does not warm the primary's
// cache on its behalf.
func copyDataDir(src, dst string, su *ServerUser) error {
	skip := map[string]bool{"postmaster.pid": true, "postmaster.opts": true}
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if skip[rel] {
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if filepath.Dir(rel) == "pg_replslot" {
				return filepath.SkipDir // the primary's slots, not the standby's
			}
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil {
				return err
			}
			return su.chown(target)
		case d.Type()&os.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
			return su.chown(target)
		case d.Type().IsRegular():
			return copyFile(path, target, info.Mode().Perm(), su)
		}
		return nil
	})
}

func copyFile(src, dst string, perm os.FileMode, su *ServerUser) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	unix.Fadvise(int(in.Fd()), 0, 0, unix.FADV_DONTNEED)
	return su.chown(dst)
}
