package pgserver

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
)

// Target is the server a command is pointed at with --target: a named
// instance of 'pglab pg start', or a server given by its connection
// string. ParseTarget reads one; OpenTarget also opens the instance.
type Target struct {
	// Label names the server: the instance's name, or the NAME of
	// NAME=DSN; empty for a connection string given alone.
	Label string
	// DSN is the connection string of a server given by one; empty for
	// an instance.
	DSN string
	// Instance is the named instance (OpenTarget only); nil for a DSN.
	Instance *Instance
}

// Named reports whether the target is a named instance.
func (t Target) Named() bool { return t.DSN == "" }

// libpqKeywords are libpq's connection parameters: a --target whose text
// starts with one of them and '=' is a key=value connection string, not
// NAME=DSN.
var libpqKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`host hostaddr port dbname user password passfile require_auth
		channel_binding connect_timeout client_encoding options application_name
		fallback_application_name keepalives keepalives_idle keepalives_interval keepalives_count
		tcp_user_timeout replication gssencmode sslmode sslnegotiation sslcompression sslcert sslkey
		sslkeylogfile sslpassword sslcertmode sslrootcert sslcrl sslcrldir sslsni requirepeer
		ssl_min_protocol_version ssl_max_protocol_version min_protocol_version max_protocol_version
		krbsrvname gsslib gssdelegation service target_session_attrs load_balance_hosts`) {
		libpqKeywords[k] = true
	}
}

// EnvDSN is the DSN of NAME= (an empty DSN): libpq's URI that gives
// nothing, so that everything comes from the PG* environment variables,
// the service file and libpq's defaults, as libpq does for an empty
// connection string.
const EnvDSN = "postgresql://"

// ParseTarget reads --target TEXT without opening anything. TEXT is a URL
// (postgres://…), a key=value connection string (host=… port=…), NAME=DSN
// (a connection string labelled NAME, as reports name the server; NAME=
// alone takes everything from the PG* environment variables: EnvDSN), or
// the NAME of an instance of 'pglab pg start'. Errors start with "--target"
// and hold no password.
func ParseTarget(text string) (Target, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Target{}, errors.New("--target is empty: give an instance name or a DSN")
	}
	if isURL(text) {
		return Target{DSN: text}, nil
	}
	name, dsn, labelled := strings.Cut(text, "=")
	name = strings.TrimSpace(name)
	if labelled && libpqKeywords[name] {
		return Target{DSN: text}, nil
	}
	if err := ValidateName(name); err != nil {
		return Target{}, fmt.Errorf("--target: %w", err)
	}
	if labelled && strings.TrimSpace(dsn) == "" {
		dsn = EnvDSN
	}
	return Target{Label: name, DSN: dsn}, nil
}

// OpenTarget reads --target TEXT (see ParseTarget) and opens the instance
// it names, which must be running; an error says which instances there
// are, or how to start the one named.
func OpenTarget(text string) (Target, error) {
	t, err := ParseTarget(text)
	if err != nil || !t.Named() {
		return t, err
	}
	inst, err := OpenNamed(t.Label)
	if err != nil {
		if !errors.Is(err, ErrNoInstance) {
			return t, fmt.Errorf("--target %s: %w", t.Label, err)
		}
		var names []string
		if list, lerr := ListNamed(); lerr == nil {
			for _, i := range list {
				names = append(names, i.Name())
			}
		}
		sort.Strings(names)
		known := "none"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return t, fmt.Errorf("--target %s: no managed instance of that name (started ones: %s): %w", t.Label, known, err)
	}
	if !inst.Running() {
		return t, fmt.Errorf("--target %s: the instance is not running (start it with 'pglab pg start --name %s --versions %d')", t.Label, t.Label, inst.Version().Major)
	}
	t.Instance = inst
	return t, nil
}

// Conn returns what a client connects with to an opened target for
// database dbname ("": the default): the target's DSN, dbname left to
// the client; or the instance's DSN for that database, nothing left.
func (t Target) Conn(dbname string) (connString, rest string) {
	switch {
	case !t.Named():
		return t.DSN, dbname
	case dbname != "":
		return t.Instance.DSNFor(dbname), ""
	}
	return t.Instance.DSN(), ""
}

// ParseConnTarget reads --target TEXT (ParseTarget) with the parts conn
// gives (psql's -h, -p, -U and -d) put in place of those of its DSN; with
// no TEXT the DSN is EnvDSN, so that the PG* variables give the rest. A
// named instance takes no parts: pglab knows how to reach it.
func ParseConnTarget(text string, conn ConnParts) (Target, error) {
	t, err := Target{DSN: EnvDSN}, error(nil)
	if text != "" {
		if t, err = ParseTarget(text); err != nil {
			return t, err
		}
	}
	if t.Named() {
		return t, fmt.Errorf("-h, -p, -U and -d go with a DSN, not with the instance %s (pglab knows how to reach it)", t.Label)
	}
	t.DSN, err = conn.Apply(t.DSN)
	return t, err
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// ConnParts are the parts of a connection that psql's -h, -p, -U and -d
// give: they override those of a DSN, as libpq lets later keywords
// override earlier ones.
type ConnParts struct {
	Host, Port, User, DBName string
}

// Empty reports whether no part is given.
func (p ConnParts) Empty() bool { return p == ConnParts{} }

// Apply returns dsn with the parts given put in place of its own: in a
// URL its host, port, user and path, in a key=value string keys appended
// (the last of a key is the one used).
func (p ConnParts) Apply(dsn string) (string, error) {
	if p.Empty() {
		return dsn, nil
	}
	if !isURL(dsn) {
		var b strings.Builder
		b.WriteString(strings.TrimSpace(dsn))
		for _, kv := range [][2]string{{"host", p.Host}, {"port", p.Port}, {"user", p.User}, {"dbname", p.DBName}} {
			if kv[1] != "" {
				v := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(kv[1])
				fmt.Fprintf(&b, " %s='%s'", kv[0], v)
			}
		}
		return strings.TrimSpace(b.String()), nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", errors.New("invalid connection URL")
	}
	q := u.Query()
	host, port := u.Hostname(), u.Port()
	if p.Host != "" {
		host = p.Host
		q.Del("host")
	}
	if p.Port != "" {
		port = p.Port
		q.Del("port")
	}
	switch {
	case strings.HasPrefix(host, "/"):
		// A socket directory is a query parameter of a URL.
		q.Set("host", host)
		if port != "" {
			q.Set("port", port)
		}
		u.Host = ""
	case port != "":
		u.Host = net.JoinHostPort(host, port)
	default:
		u.Host = host
	}
	if p.User != "" {
		if pw, ok := u.User.Password(); ok {
			u.User = url.UserPassword(p.User, pw)
		} else {
			u.User = url.User(p.User)
		}
	}
	if p.DBName != "" {
		u.Path = "/" + p.DBName
	}
	u.RawQuery = q.Encode()
	out := u.String()
	if !strings.Contains(out, "://") {
		out = u.Scheme + "://" + strings.TrimPrefix(out, u.Scheme+":")
	}
	return out, nil
}
