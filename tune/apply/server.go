package apply

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pglab/pglab/internal/pgnet"
	"github.com/pglab/pglab/pgserver"
)

// RecordFileName is the name of the record file in a managed instance's
// directory.
const RecordFileName = "tune-applied.json"

// RecordParameter is the custom parameter that holds the record on a
// server pglab does not manage.
const RecordParameter = "pglab.tune_applied"

// connectTimeout bounds one connection attempt.
const connectTimeout = 30 * time.Second

// Server is a PostgreSQL server whose configuration is compared, applied
// or reverted.
type Server struct {
	// Label names the server in messages: an instance name or
	// user@host:port/database. It never holds a password.
	Label string
	// Config connects to the server. It may hold a password; it is never
	// printed or stored.
	Config *pgx.ConnConfig
	// Managed is true for an instance pglab manages.
	Managed bool
	// Local is true when the server runs on this machine, so that the
	// machine's memory, CPUs and disks are the server's.
	Local bool
	// Restart restarts the server and returns once it accepts connections
	// again. Nil means pglab may not restart it: parameters that need a
	// restart are then left pending.
	Restart func(context.Context) error
	// RecordFile is the file holding the record of what Apply changed.
	// Empty keeps the record in the server (RecordParameter).
	RecordFile string
	// Progress receives one line per step (reload, restart); nil discards
	// them.
	Progress func(string)
}

// Managed returns the Server of a managed instance: restarted through
// pgserver, its record kept in the instance's directory.
func Managed(inst *pgserver.Instance) (*Server, error) {
	cfg, err := parseConfig(inst.DSN())
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name(), err)
	}
	s := &Server{
		Label:      inst.Name(),
		Config:     cfg,
		Managed:    true,
		Local:      true,
		RecordFile: filepath.Join(inst.Dir(), RecordFileName),
	}
	s.Restart = func(ctx context.Context) error {
		if err := inst.Restart(ctx); err != nil {
			return err
		}
		// The port changes when the old one was taken meanwhile.
		cfg, err := parseConfig(inst.DSN())
		if err != nil {
			return fmt.Errorf("instance %s: %w", inst.Name(), err)
		}
		s.Config = cfg
		return nil
	}
	return s, nil
}

// Remote returns the Server a DSN (URL or key=value, completed by the PG*
// environment variables and ~/.pgpass as libpq does) points at. label
// names it in messages; empty means user@host:port/database.
func Remote(label, dsn string) (*Server, error) {
	cfg, err := parseConfig(dsn)
	if err != nil {
		// The wrapped error quotes the DSN; keep only the reason.
		msg := err.Error()
		if u := errors.Unwrap(err); u != nil {
			msg = u.Error()
		}
		return nil, fmt.Errorf("invalid DSN: %s", msg)
	}
	if label == "" {
		label = fmt.Sprintf("%s@%s/%s", cfg.User, hostPort(cfg.Host, cfg.Port), cfg.Database)
	}
	return &Server{Label: label, Config: cfg, Local: isLocalHost(cfg.Host)}, nil
}

func hostPort(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return host + ":" + strconv.Itoa(int(port))
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// isLocalHost reports whether host names this machine: a unix-socket
// directory, localhost or a loopback address.
func isLocalHost(host string) bool {
	if strings.HasPrefix(host, "/") || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) say(format string, args ...any) {
	if s.Progress != nil {
		s.Progress(fmt.Sprintf(format, args...))
	}
}

// connect opens a connection to the server.
func (s *Server) connect(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, s.Config)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", s.Label, connError(err))
	}
	return conn, nil
}

// connError drops the connection details pgconn puts in front of the
// reason (they can name the host twice) and keeps the reason on one line
// (pgconn puts one line per address tried).
func connError(err error) error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && errors.Unwrap(ce) != nil {
		err = errors.Unwrap(ce)
	}
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return errors.New(strings.Join(parts, "; "))
}

// Facts are what a server tells about the inputs of a recommendation.
type Facts struct {
	// VersionNum is server_version_num, e.g. 170002.
	VersionNum int
	// Version is server_version, e.g. "17.2".
	Version string
	// MaxConnections is the max_connections in effect.
	MaxConnections int
	// DataDirectory is the data directory, or "" when this user may not
	// see it (it needs a superuser or pg_read_all_settings).
	DataDirectory string
}

// Facts reads the server's version, max_connections and data directory.
func (s *Server) Facts(ctx context.Context) (Facts, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return Facts{}, err
	}
	defer conn.Close(context.Background())
	var f Facts
	var num, maxConn string
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version_num'), current_setting('server_version'), current_setting('max_connections'),
		CASE WHEN current_setting('is_superuser') = 'on' OR pg_has_role('pg_read_all_settings', 'USAGE') THEN current_setting('data_directory') ELSE '' END`).
		Scan(&num, &f.Version, &maxConn, &f.DataDirectory)
	if err != nil {
		return Facts{}, fmt.Errorf("%s: read server facts: %w", s.Label, err)
	}
	if f.VersionNum, err = strconv.Atoi(num); err != nil {
		return Facts{}, fmt.Errorf("%s: server_version_num %q: %w", s.Label, num, err)
	}
	if f.MaxConnections, err = strconv.Atoi(maxConn); err != nil {
		return Facts{}, fmt.Errorf("%s: max_connections %q: %w", s.Label, maxConn, err)
	}
	return f, nil
}

// parseConfig is pgx.ParseConfig with pglab's TCP timeouts (pgnet).
func parseConfig(dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if err := pgnet.Configure(&cfg.Config); err != nil {
		return nil, err
	}
	return cfg, nil
}
