package pgserver

import (
	"errors"
	"fmt"
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
		return t, fmt.Errorf("--target %s: the instance is not running (start it with 'pglab pg start --name %s --version %d')", t.Label, t.Label, inst.Version().Major)
	}
	t.Instance = inst
	return t, nil
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
