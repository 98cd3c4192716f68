package k8s

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/bench/script"
)

// SetCommandLine fills BenchArgs and Scripts from the coordinator's own
// command line (args, parsed with opts into cfg): the options that only
// place the run (--k8s-job, --image, --listen, …) are dropped, passwords
// are taken out of connection strings (the workers read PGPASSWORD from
// the Secret), the token is left to the Secret, and -f scripts go into the
// ConfigMap, their paths pointed at ScriptDir. It returns what the user
// should know about these changes, once each.
func (s *Spec) SetCommandLine(args []string, opts []bench.ExtraOption, cfg bench.Config) (notes []string, err error) {
	note := func(n string) {
		for _, x := range notes {
			if x == n {
				return
			}
		}
		notes = append(notes, n)
	}
	conn := func(val string) string {
		if stripped, found := dist.StripPassword(val); found {
			note("the password is taken out of the connection string: the workers read PGPASSWORD from the Secret (key " + PasswordKey + ")")
			return stripped
		}
		return val
	}
	if s.Scripts == nil {
		s.Scripts = map[string]string{}
	}
	fileNo := 0
	edit := func(long, val string) (string, bool, error) {
		switch long {
		case "k8s-job", "image", "k8s-namespace", "k8s-secret", "expect-workers", "listen":
			return "", false, nil
		case "token":
			note("the token is taken from the Secret (key " + TokenKey + "), not from --token")
			return "", false, nil
		case "target":
			if !strings.Contains(val, "=") && !strings.Contains(val, "://") {
				return "", false, fmt.Errorf("--target %s is a managed instance of this machine: give the database's connection string as the cluster's pods reach it", val)
			}
			return conn(val), true, nil
		case "", "dbname", "store":
			return conn(val), true, nil
		case "file":
			v, err := s.addScript(cfg, fileNo, val)
			fileNo++
			return v, err == nil, err
		}
		return val, true, nil
	}
	s.BenchArgs, err = bench.RewriteArgs(args, opts, edit)
	return notes, err
}

// addScript ships the n-th -f script (given as val, FILE[@WEIGHT]) in the
// ConfigMap and returns its path in the pod.
func (s *Spec) addScript(cfg bench.Config, n int, val string) (string, error) {
	sp := cfg.Scripts[fileIndex(cfg, n)]
	base := filepath.Base(sp.Desc)
	if sp.Desc == "-" {
		base = "stdin.sql"
	}
	if old, ok := s.Scripts[base]; ok && old != sp.Text {
		return "", fmt.Errorf("two scripts are named %s: rename one (the ConfigMap keys them by file name)", base)
	}
	s.Scripts[base] = sp.Text
	v := ScriptDir + "/" + base
	if name, _, err := script.SplitWeight(val); err == nil && name != val {
		v += val[len(name):]
	}
	return v, nil
}

// fileIndex is the position in cfg.Scripts of the n-th -f script.
func fileIndex(cfg bench.Config, n int) int {
	for i, s := range cfg.Scripts {
		if !s.Builtin {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return 0
}
