package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/bench/k8s"
	"github.com/pglab/pglab/bench/script"
)

// printManifests is --k8s-job: it prints the Kubernetes objects of a
// coordinated run of this command line (a coordinator Job and Service, an
// Indexed Job of workers) and returns the exit code. Passwords are taken
// out of the connection strings (the workers read PGPASSWORD from the
// Secret); -f scripts go into a ConfigMap for the coordinator.
func (b *benchRun) printManifests(cfg bench.Config) int {
	f := &b.coord
	if _, err := dist.Split(cfg, f.workers); err != nil {
		return b.errorf("%s", err)
	}
	spec := k8s.Spec{Name: f.k8sJob, Namespace: f.namespace, Image: f.image, Workers: f.workers, Secret: f.secret, Scripts: map[string]string{}}
	var notes []string
	note := func(s string) {
		for _, n := range notes {
			if n == s {
				return
			}
		}
		notes = append(notes, s)
	}
	fileNo := 0
	edit := func(long, val string) (string, bool, error) {
		switch long {
		case "k8s-job", "image", "k8s-namespace", "k8s-secret", "expect-workers", "listen":
			return "", false, nil
		case "token":
			note("the token is taken from the Secret (key " + k8s.TokenKey + "), not from --token")
			return "", false, nil
		case "target":
			if !strings.Contains(val, "=") && !strings.Contains(val, "://") {
				return "", false, fmt.Errorf("--target %s is a managed instance of this machine: give the database's connection string as the cluster's pods reach it", val)
			}
			return b.k8sConn(val, note), true, nil
		case "", "dbname", "store":
			return b.k8sConn(val, note), true, nil
		case "file":
			sp := cfg.Scripts[fileIndex(cfg, fileNo)]
			fileNo++
			base := filepath.Base(sp.Desc)
			if sp.Desc == "-" {
				base = "stdin.sql"
			}
			if old, ok := spec.Scripts[base]; ok && old != sp.Text {
				return "", false, fmt.Errorf("two scripts are named %s: rename one (the ConfigMap keys them by file name)", base)
			}
			spec.Scripts[base] = sp.Text
			v := k8s.ScriptDir + "/" + base
			if name, _, err := script.SplitWeight(val); err == nil && name != val {
				v += val[len(name):]
			}
			return v, true, nil
		}
		return val, true, nil
	}
	args, err := bench.RewriteArgs(b.args, append(b.flags.extra(), b.coord.coordOptions()...), edit)
	if err != nil {
		return b.errorf("%s", err)
	}
	spec.BenchArgs = args
	out, err := k8s.Manifests(spec)
	if err != nil {
		return b.errorf("%s", err)
	}
	b.env.Stdout.Write(out)
	for _, n := range notes {
		fmt.Fprintf(b.env.Stderr, "%s: note: %s\n", benchProg, n)
	}
	return 0
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

// k8sConn takes the password out of a connection string for a manifest.
func (b *benchRun) k8sConn(val string, note func(string)) string {
	if s, found := dist.StripPassword(val); found {
		note("the password is taken out of the connection string: the workers read PGPASSWORD from the Secret (key " + k8s.PasswordKey + ")")
		return s
	}
	return val
}
