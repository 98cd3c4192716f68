package runs

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/results"
)

// instanceSettings differ between any two servers and say nothing about
// performance: where the server listens and keeps its files, and the
// locale and time-zone lines initdb writes.
var instanceSettings = setOf(
	"port", "listen_addresses", "unix_socket_directories", "unix_socket_permissions",
	"unix_socket_group", "data_directory", "config_file", "hba_file", "ident_file",
	"external_pid_file", "cluster_name",
	"DateStyle", "TimeZone", "log_timezone", "lc_messages", "lc_monetary", "lc_numeric",
	"lc_time", "default_text_search_config",
	"application_name", "client_encoding", "transaction_isolation", "transaction_read_only",
	"transaction_deferrable",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// bootDefaults are PostgreSQL's built-in values of the settings initdb
// writes into postgresql.conf, so that a line that only repeats the
// default is not shown as a difference. Values are as formatSetting
// prints them.
var bootDefaults = map[string]string{
	"max_connections":            "100",
	"shared_buffers":             "128MB",
	"max_wal_size":               "1GB",
	"min_wal_size":               "80MB",
	"dynamic_shared_memory_type": "posix",
	"autovacuum_worker_slots":    "16",
}

// SettingRow is one setting across the targets of a report.
type SettingRow struct {
	Name string
	// Values holds the value per target, "default" where the target
	// did not report the setting.
	Values []string
	// Differs is true when the targets disagree.
	Differs bool
}

// SettingRows returns the settings that differ from PostgreSQL's defaults
// on at least one target (leaving out where each server listens and lives,
// and lines that repeat a default), sorted by name.
func SettingRows(targets []results.Target) []SettingRow {
	per := make([]map[string]string, len(targets))
	var names []string
	seen := map[string]bool{}
	for i, t := range targets {
		per[i] = map[string]string{}
		for _, s := range t.Settings {
			if instanceSettings[s.Name] {
				continue
			}
			v := FormatSetting(s)
			if bootDefaults[s.Name] == v {
				continue
			}
			per[i][s.Name] = v
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	sort.Strings(names)
	var rows []SettingRow
	for _, n := range names {
		r := SettingRow{Name: n}
		for i := range targets {
			v, ok := per[i][n]
			if !ok {
				v = "default"
			}
			if len(r.Values) > 0 && v != r.Values[0] {
				r.Differs = true
			}
			r.Values = append(r.Values, v)
		}
		rows = append(rows, r)
	}
	return rows
}

// FormatSetting prints a stored setting as SHOW does (as the report's settings
// table shows it): memory in the largest unit
// that divides it ("128MB"), times likewise ("30min"), others as they are.
func FormatSetting(s results.Setting) string {
	unit := strings.TrimSpace(s.Unit)
	if unit == "" {
		return s.Value
	}
	v, err := strconv.ParseFloat(s.Value, 64)
	if err != nil || v != float64(int64(v)) {
		return s.Value + unit
	}
	n := int64(v)
	if n == -1 {
		return "-1"
	}
	if bytes, ok := memUnitBytes(unit); ok {
		return units.Exact(n * bytes)
	}
	if ms, ok := timeUnitMs(unit); ok {
		total := n * ms
		for _, u := range []struct {
			ms    int64
			label string
		}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}} {
			if total != 0 && total%u.ms == 0 {
				return strconv.FormatInt(total/u.ms, 10) + u.label
			}
		}
		return strconv.FormatInt(total, 10) + "ms"
	}
	return s.Value + unit
}

// memUnitBytes parses pg_settings memory units such as "8kB" or "MB".
func memUnitBytes(unit string) (int64, bool) {
	num := strings.TrimRight(unit, "kMGTB")
	suffix := unit[len(num):]
	mult := int64(1)
	if num != "" {
		m, err := strconv.ParseInt(num, 10, 64)
		if err != nil || m <= 0 {
			return 0, false
		}
		mult = m
	}
	switch suffix {
	case "B":
		return mult, true
	case "kB":
		return mult << 10, true
	case "MB":
		return mult << 20, true
	case "GB":
		return mult << 30, true
	case "TB":
		return mult << 40, true
	}
	return 0, false
}

// timeUnitMs parses pg_settings time units.
func timeUnitMs(unit string) (int64, bool) {
	switch unit {
	case "ms":
		return 1, true
	case "s":
		return 1000, true
	case "min":
		return 60000, true
	case "h":
		return 3600000, true
	case "d":
		return 86400000, true
	}
	return 0, false
}

// IsInstanceSetting reports whether a setting says where a server listens
// and keeps its files, or is a locale or session line that initdb or the
// client sets (port, data_directory, lc_messages, …): settings that differ
// between any two servers and that the report's settings table leaves
// out.
func IsInstanceSetting(name string) bool { return instanceSettings[name] }

// IsBootDefault reports whether a stored setting only repeats
// PostgreSQL's built-in default for a line initdb writes into
// postgresql.conf (max_connections = 100, shared_buffers = 128MB, …).
func IsBootDefault(s results.Setting) bool { return bootDefaults[s.Name] == FormatSetting(s) }
