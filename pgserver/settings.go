package pgserver

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Setting is one server parameter as given with --set name=value.
type Setting struct {
	Name  string
	Value string
}

// String formats s as name=value.
func (s Setting) String() string { return s.Name + "=" + s.Value }

var settingNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$`)

// ParseSetting parses "name=value". The name is checked for shape only;
// whether the server knows it is checked by ValidateSettings.
func ParseSetting(s string) (Setting, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Setting{}, fmt.Errorf("invalid setting %q: want name=value", s)
	}
	if !settingNameRE.MatchString(name) {
		return Setting{}, fmt.Errorf("invalid setting %q: %q is not a parameter name", s, name)
	}
	if strings.ContainsAny(value, "\n\r\x00") {
		return Setting{}, fmt.Errorf("invalid setting %q: a value cannot hold a line break or NUL", s)
	}
	return Setting{Name: strings.ToLower(name), Value: strings.TrimSpace(value)}, nil
}

// ParseSettings parses several name=value strings.
func ParseSettings(list []string) ([]Setting, error) {
	out := make([]Setting, 0, len(list))
	for _, s := range list {
		st, err := ParseSetting(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// MergeSettings returns base with each of over applied on top (same name:
// the later value wins), keeping first-seen order.
func MergeSettings(base []Setting, over ...Setting) []Setting {
	out := append([]Setting(nil), base...)
	for _, s := range over {
		replaced := false
		for i := range out {
			if out[i].Name == s.Name {
				out[i].Value = s.Value
				replaced = true
			}
		}
		if !replaced {
			out = append(out, s)
		}
	}
	return out
}

// confLine formats a setting for postgresql.conf.
func confLine(s Setting) string {
	return fmt.Sprintf("%s = '%s'\n", s.Name, strings.ReplaceAll(strings.ReplaceAll(s.Value, `\`, `\\`), "'", "''"))
}

// SettingError is a setting the server refused.
type SettingError struct {
	Setting Setting
	// Message is the server's own text, e.g. `invalid value for parameter
	// "shared_buffers": "lots"`, with its HINT appended.
	Message string
}

// Error returns "--set name=value: <server message>".
func (e *SettingError) Error() string {
	return fmt.Sprintf("--set %s: %s", e.Setting, e.Message)
}

// validateSettings asks the server binary itself (postgres -C) whether it
// accepts the settings, so errors quote the server's message. It runs as
// the server user against an existing data directory.
func validateSettings(ctx context.Context, b *Binaries, dataDir string, su *ServerUser, settings []Setting) error {
	for _, s := range settings {
		args := []string{"-D", dataDir, "-c", s.Name + "=" + s.Value, "-C", "server_version"}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		cmd := exec.CommandContext(cctx, b.Postgres(), args...)
		cmd.SysProcAttr = childAttrs(su, false)
		cmd.Env = serverEnv("")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &SettingError{Setting: s, Message: serverMessage(stderr.String(), err)}
		}
	}
	return nil
}

// serverMessage extracts the FATAL/ERROR text (and HINT/DETAIL) from a
// server's stderr, dropping log-line prefixes.
func serverMessage(out string, fallback error) string {
	var parts []string
	for _, line := range strings.Split(out, "\n") {
		for _, tag := range []string{"FATAL:  ", "ERROR:  ", "PANIC:  ", "DETAIL:  ", "HINT:  "} {
			if i := strings.Index(line, tag); i >= 0 {
				text := strings.TrimSpace(line[i+len(tag):])
				if tag == "DETAIL:  " || tag == "HINT:  " {
					text = strings.TrimSpace(tag) + " " + text
				}
				parts = append(parts, text)
				break
			}
		}
	}
	if len(parts) == 0 {
		t := strings.TrimSpace(out)
		if t == "" && fallback != nil {
			return fallback.Error()
		}
		return lastLines(t, 3)
	}
	return strings.Join(parts, "; ")
}

// Parameters returns the names of the settings this build of the server
// has, as `postgres --describe-config` lists them (every setting that may
// appear in postgresql.conf; developer options outside the sample file
// and extensions' settings are not listed). The list is read once per
// binary directory.
func (b *Binaries) Parameters(ctx context.Context) (map[string]bool, error) {
	paramsMu.Lock()
	defer paramsMu.Unlock()
	if p, ok := paramsCache[b.Dir]; ok {
		return p, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, b.Postgres(), "--describe-config")
	cmd.Env = serverEnv("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s --describe-config: %s", b.Postgres(), serverMessage(stderr.String(), err))
	}
	p := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, _, ok := strings.Cut(line, "\t"); ok && name != "" {
			p[name] = true
		}
	}
	paramsCache[b.Dir] = p
	return p, nil
}

var (
	paramsMu    sync.Mutex
	paramsCache = map[string]map[string]bool{}
)

// SplitSettings separates the settings a server with the given parameter
// names (Binaries.Parameters) has from those it does not have (a setting
// of a newer version). Names with a dot, an extension's settings, count as
// known: the server takes them as placeholders.
func SplitSettings(params map[string]bool, settings []Setting) (known, missing []Setting) {
	for _, s := range settings {
		if params[s.Name] || strings.Contains(s.Name, ".") {
			known = append(known, s)
		} else {
			missing = append(missing, s)
		}
	}
	return known, missing
}
