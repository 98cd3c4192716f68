package pgserver

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"sync"
	"syscall"
)

// ServerUser is the account a server runs as.
type ServerUser struct {
	Name string
	UID  int
	GID  int
	// Self is true when the server runs as the current user (pglab is not
	// root); then no credentials are switched.
	Self bool
}

func (u *ServerUser) credential() *syscall.Credential {
	if u == nil || u.Self {
		return nil
	}
	return &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), Groups: []uint32{}}
}

// chown gives path to the server user (a no-op when running as self).
func (u *ServerUser) chown(path string) error {
	if u == nil || u.Self {
		return nil
	}
	return os.Lchown(path, u.UID, u.GID)
}

var (
	serverUserOnce sync.Once
	serverUserVal  *ServerUser
	serverUserErr  error
)

// DefaultServerUserName is the system user pglab creates when it runs as
// root and no suitable user exists.
const DefaultServerUserName = "pglab"

// LookupServerUser returns the account servers run as. When pglab is not
// root that is the current user. As root it is, in order: the user named by
// PGLAB_SERVER_USER, an existing "pglab" user, an existing "postgres" user,
// or a "pglab" system user created with useradd.
func LookupServerUser() (*ServerUser, error) {
	serverUserOnce.Do(func() { serverUserVal, serverUserErr = lookupServerUser() })
	return serverUserVal, serverUserErr
}

func lookupServerUser() (*ServerUser, error) {
	if os.Geteuid() != 0 {
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return &ServerUser{Name: name, UID: os.Geteuid(), GID: os.Getegid(), Self: true}, nil
	}
	if name := os.Getenv("PGLAB_SERVER_USER"); name != "" {
		u, err := user.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("PGLAB_SERVER_USER=%s: %w", name, err)
		}
		su, err := fromUser(u)
		if err == nil && su.UID == 0 {
			return nil, fmt.Errorf("PGLAB_SERVER_USER=%s is root: postgres refuses to run as root", name)
		}
		return su, err
	}
	for _, name := range []string{DefaultServerUserName, "postgres"} {
		if u, err := user.Lookup(name); err == nil {
			if su, err := fromUser(u); err == nil && su.UID != 0 {
				return su, nil
			}
		}
	}
	cmd := exec.Command("useradd", "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
		"--comment", "pglab managed PostgreSQL servers", DefaultServerUserName)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user and none was found; creating %q with useradd failed: %v %s", DefaultServerUserName, err, bytes.TrimSpace(stderr.Bytes()))
	}
	u, err := user.Lookup(DefaultServerUserName)
	if err != nil {
		return nil, fmt.Errorf("look up the user just created: %w", err)
	}
	return fromUser(u)
}

func fromUser(u *user.User) (*ServerUser, error) {
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q: %w", u.Username, u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q: %w", u.Username, u.Gid, err)
	}
	return &ServerUser{Name: u.Username, UID: uid, GID: gid}, nil
}
