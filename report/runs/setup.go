package runs

import "github.com/pglab/pglab/results"

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
