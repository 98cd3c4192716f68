package observe

import (
	"fmt"
	"sort"
	"strings"
)

// How a setting differs between the servers of a comparison.
const (
	// DiffOnly: some servers have no such setting (a version's new or
	// removed GUC).
	DiffOnly = "only"
	// DiffDefault: every server runs it at its built-in default, and the
	// defaults differ (a version changed it).
	DiffDefault = "default"
	// DiffSetting: the values differ and some were set.
	DiffSetting = "setting"
)

// instanceSettings are where and how each server listens and keeps its
// files, and which version it is: different on every server of a
// comparison, and none of its subject.
var instanceSettings = map[string]bool{
	"port": true, "data_directory": true, "config_file": true, "hba_file": true, "ident_file": true,
	"external_pid_file": true, "unix_socket_directories": true, "unix_socket_group": true,
	"unix_socket_permissions": true, "listen_addresses": true, "cluster_name": true,
	"application_name": true, "server_version": true, "server_version_num": true,
	"log_directory": true, "log_filename": true, "data_directory_mode": true,
}

// derivedSettings are values a server computes from others (the shared
// memory from shared_buffers and max_connections): they differ when what
// they are computed from does. Besides these, a setting the server gave a
// value other than its built-in default by itself (source "default":
// wal_buffers and 17's SLRU buffers from shared_buffers) is derived;
// the cluster's facts (context "internal": data_checksums is such a
// value too) never are.
var derivedSettings = map[string]bool{
	"shared_memory_size": true, "shared_memory_size_in_huge_pages": true, "huge_pages_status": true,
	"num_os_semaphores": true, "in_hot_standby": true,
}

// derived reports whether the server computed the setting's value.
func derived(s ConfigSetting) bool {
	return derivedSettings[s.Name] || s.Context != "internal" && s.Source == "default" && s.Setting != s.BootVal
}

// SettingDiff is one setting that differs between the servers of a
// comparison.
type SettingDiff struct {
	Name string `json:"name"`
	// Kind is DiffOnly, DiffDefault or DiffSetting.
	Kind string `json:"kind"`
	// Values are the servers' values with their units, by target; a
	// target without the setting has none.
	Values map[string]string `json:"values"`
	// Defaults are the built-in defaults, by target, when they differ.
	Defaults map[string]string `json:"defaults,omitempty"`
	// Asked: the user (or a study's variants) set it on some server
	// (--set, --config, --env): a difference the comparison is about.
	// Derived: the server computes it from other settings. A difference
	// neither asked nor derived is config drift.
	Asked   bool `json:"asked,omitempty"`
	Derived bool `json:"derived,omitempty"`
}

// Drift reports whether the difference is config drift: neither asked
// for nor derived.
func (d SettingDiff) Drift() bool { return !d.Asked && !d.Derived }

// ConfigDrift lists every setting that differs between the servers whose
// configs are given by target name (in order): values, built-in defaults
// that differ between versions, and settings only some servers have,
// sorted by name. Settings of where a server listens and keeps its files
// are left out. asked holds, by target, the settings pglab was asked to
// give it; a difference in one of them is marked Asked.
func ConfigDrift(order []string, configs map[string]*ServerConfig, asked map[string][]string) []SettingDiff {
	byName := map[string]map[string]ConfigSetting{}
	for _, t := range order {
		for _, s := range configs[t].Settings {
			if instanceSettings[s.Name] {
				continue
			}
			if byName[s.Name] == nil {
				byName[s.Name] = map[string]ConfigSetting{}
			}
			byName[s.Name][t] = s
		}
	}
	wanted := map[string]bool{}
	for _, names := range asked {
		for _, n := range names {
			wanted[strings.ToLower(n)] = true
		}
	}
	var out []SettingDiff
	for name, per := range byName {
		if d, ok := diffOf(name, order, per); ok {
			d.Asked = wanted[name]
			for _, s := range per {
				d.Derived = d.Derived || derived(s)
			}
			out = append(out, d)
		}
	}
	out = append(out, buildDiffs(order, configs)...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// buildFacts are the facts of a build compared between servers, as
// "build:NAME" differences: what pg_settings does not show.
var buildFacts = []struct {
	name string
	of   func(b BuildFacts) string
}{
	{"build:jit_available", func(b BuildFacts) string { return fmt.Sprint(b.JITAvailable) }},
	{"build:llvm", func(b BuildFacts) string {
		if b.LLVM == nil {
			return ""
		}
		return fmt.Sprint(*b.LLVM)
	}},
	{"build:cc", func(b BuildFacts) string { return b.CC }},
	{"build:cflags", func(b BuildFacts) string { return b.CFLAGS }},
	{"build:compiler", func(b BuildFacts) string {
		_, by, _ := strings.Cut(b.Compiled, "compiled by ")
		return by
	}},
}

// buildDiffs compares the builds' facts that every server let be read.
func buildDiffs(order []string, configs map[string]*ServerConfig) []SettingDiff {
	var out []SettingDiff
	for _, f := range buildFacts {
		d := SettingDiff{Name: f.name, Kind: DiffSetting, Values: map[string]string{}}
		distinct := map[string]bool{}
		for _, t := range order {
			v := f.of(configs[t].Build)
			d.Values[t] = v
			distinct[v] = true
		}
		if len(distinct) > 1 && !distinct[""] {
			out = append(out, d)
		}
	}
	return out
}

// diffOf compares one setting across the targets that have it.
func diffOf(name string, order []string, per map[string]ConfigSetting) (SettingDiff, bool) {
	d := SettingDiff{Name: name, Values: map[string]string{}, Defaults: map[string]string{}}
	values, defaults, atDefault := map[string]bool{}, map[string]bool{}, true
	for _, t := range order {
		s, ok := per[t]
		if !ok {
			continue
		}
		d.Values[t], d.Defaults[t] = s.Value(), s.Default()
		values[d.Values[t]], defaults[d.Defaults[t]] = true, true
		atDefault = atDefault && s.Value() == s.Default()
	}
	switch {
	case len(per) < len(order):
		d.Kind = DiffOnly
	case len(values) > 1 && atDefault:
		d.Kind = DiffDefault
	case len(values) > 1:
		d.Kind = DiffSetting
	default:
		return d, false
	}
	if len(defaults) < 2 {
		d.Defaults = nil
	}
	return d, true
}

// Text says the difference in one line: "io_combine_limit: pg17 128kB;
// pg16 has no such setting", "vacuum_buffer_usage_limit: pg16 256kB, pg17
// 2MB (built-in defaults)".
func (d SettingDiff) Text(order []string) string {
	var have, lack []string
	for _, t := range order {
		if v, ok := d.Values[t]; ok {
			have = append(have, t+" "+orEmpty(v))
		} else {
			lack = append(lack, t)
		}
	}
	text := d.Name + ": " + strings.Join(have, ", ")
	switch {
	case d.Kind == DiffOnly:
		text += fmt.Sprintf("; %s %s no such setting", strings.Join(lack, ", "), hasHave(len(lack)))
	case d.Kind == DiffDefault:
		text += " (built-in defaults)"
	case d.Defaults != nil:
		var defs []string
		for _, t := range order {
			if v, ok := d.Defaults[t]; ok {
				defs = append(defs, t+" "+orEmpty(v))
			}
		}
		text += " (defaults " + strings.Join(defs, ", ") + ")"
	}
	switch {
	case d.Asked:
		text += " — asked"
	case d.Derived:
		text += " — derived from other settings"
	}
	return text
}

func orEmpty(v string) string {
	if v == "" {
		return `""`
	}
	return v
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
