package observe

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// ServerConfig is everything a server runs with: every setting with its
// built-in default, and the choices its cluster and build were made with.
// Two servers' configs, compared (ConfigDrift), list every difference a
// comparison of them carries besides the one it is about.
type ServerConfig struct {
	// Version is server_version ("17.10"), VersionNum server_version_num.
	Version    string `json:"version"`
	VersionNum int    `json:"version_num"`
	// Settings are every row of pg_settings, by name.
	Settings []ConfigSetting `json:"settings"`
	Build    BuildFacts      `json:"build"`
}

// ConfigSetting is one row of pg_settings.
type ConfigSetting struct {
	Name    string `json:"name"`
	Setting string `json:"setting"`
	// Unit is pg_settings.unit ("8kB", "ms"), "" when none.
	Unit string `json:"unit,omitempty"`
	// BootVal is the built-in default, in the same unit.
	BootVal string `json:"boot_val"`
	Source  string `json:"source"`
	Context string `json:"context"`
	VarType string `json:"vartype"`
}

// Value is the setting with its unit, as PostgreSQL shows it ("128MB").
func (s ConfigSetting) Value() string { return FormatSetting(s.Setting, s.Unit) }

// Default is the built-in default with its unit.
func (s ConfigSetting) Default() string { return FormatSetting(s.BootVal, s.Unit) }

// BuildFacts are the choices a server's cluster (initdb) and build were
// made with. A fact the role may not read is left empty and said in
// Unreadable.
type BuildFacts struct {
	DataChecksums bool `json:"data_checksums"`
	// BlockSize and WALBlockSize are in bytes; WALSegmentSize and
	// SegmentSize (a relation file's segment) too.
	BlockSize      int64 `json:"block_size"`
	WALBlockSize   int64 `json:"wal_block_size"`
	WALSegmentSize int64 `json:"wal_segment_size"`
	SegmentSize    int64 `json:"segment_size"`
	// DebugAssertions: an assert-enabled build (slower throughout).
	DebugAssertions bool `json:"debug_assertions"`
	// JITAvailable is pg_jit_available(): the JIT provider (JITProvider,
	// "llvmjit") can be loaded.
	JITAvailable bool   `json:"jit_available"`
	JITProvider  string `json:"jit_provider"`
	// LLVM says whether the build was configured --with-llvm, from
	// pg_config (nil when unreadable); Configure, CC and CFLAGS are
	// pg_config's lines.
	LLVM      *bool  `json:"llvm,omitempty"`
	Configure string `json:"configure,omitempty"`
	CC        string `json:"cc,omitempty"`
	CFLAGS    string `json:"cflags,omitempty"`
	// Compiled is version()'s text: platform and compiler.
	Compiled string `json:"compiled"`
	// Unreadable says which facts could not be read and why.
	Unreadable []string `json:"unreadable,omitempty"`
}

// ReadConfig reads a server's settings and build facts.
func ReadConfig(ctx context.Context, q Querier) (*ServerConfig, error) {
	c := &ServerConfig{}
	if err := q.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('server_version_num')::int, version()`).
		Scan(&c.Version, &c.VersionNum, &c.Build.Compiled); err != nil {
		return nil, fmt.Errorf("read server settings: %w", err)
	}
	rows, err := q.Query(ctx, `SELECT name, coalesce(setting, ''), coalesce(unit, ''), coalesce(boot_val, ''),
		source, context, vartype FROM pg_catalog.pg_settings ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s ConfigSetting
		if err := rows.Scan(&s.Name, &s.Setting, &s.Unit, &s.BootVal, &s.Source, &s.Context, &s.VarType); err != nil {
			return nil, fmt.Errorf("read pg_settings: %w", err)
		}
		c.Settings = append(c.Settings, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	c.Build.fromSettings(c.Settings)
	if err := c.Build.readBuild(ctx, q); err != nil {
		return nil, err
	}
	return c, nil
}

// Setting returns a setting by name.
func (c *ServerConfig) Setting(name string) (ConfigSetting, bool) {
	for _, s := range c.Settings {
		if s.Name == name {
			return s, true
		}
	}
	return ConfigSetting{}, false
}

// fromSettings takes the cluster's facts from its (internal) settings.
func (b *BuildFacts) fromSettings(ss []ConfigSetting) {
	for _, s := range ss {
		bytes, _ := SettingBytes(s.Setting, s.Unit)
		switch s.Name {
		case "data_checksums":
			b.DataChecksums = s.Setting == "on"
		case "debug_assertions":
			b.DebugAssertions = s.Setting == "on"
		case "block_size":
			b.BlockSize, _ = strconv.ParseInt(s.Setting, 10, 64)
		case "wal_block_size":
			b.WALBlockSize, _ = strconv.ParseInt(s.Setting, 10, 64)
		case "wal_segment_size":
			b.WALSegmentSize = bytes
		case "segment_size":
			b.SegmentSize = bytes
		case "jit_provider":
			b.JITProvider = s.Setting
		}
	}
}

// readBuild reads pg_jit_available() and pg_config (superusers only by
// default: otherwise said in Unreadable).
func (b *BuildFacts) readBuild(ctx context.Context, q Querier) error {
	if err := q.QueryRow(ctx, "SELECT pg_catalog.pg_jit_available()").Scan(&b.JITAvailable); err != nil {
		return fmt.Errorf("read pg_jit_available(): %w", err)
	}
	rows, err := q.Query(ctx, "SELECT name, setting FROM pg_catalog.pg_config WHERE name IN ('CONFIGURE', 'CC', 'CFLAGS')")
	if err == nil {
		for rows.Next() {
			var name, setting string
			if rows.Scan(&name, &setting) == nil {
				switch name {
				case "CONFIGURE":
					b.Configure = setting
				case "CC":
					b.CC = setting
				case "CFLAGS":
					b.CFLAGS = setting
				}
			}
		}
		rows.Close()
		err = rows.Err()
	}
	if err != nil {
		b.Unreadable = append(b.Unreadable, "pg_config (how the server was built): "+err.Error())
		return nil
	}
	llvm := strings.Contains(b.Configure, "--with-llvm")
	b.LLVM = &llvm
	return nil
}

// memoryUnits and timeUnits are pg_settings' units in bytes and
// milliseconds.
var (
	memoryUnits = map[string]float64{"B": 1, "kB": 1 << 10, "8kB": 8 << 10, "MB": 1 << 20, "16MB": 16 << 20, "GB": 1 << 30, "TB": 1 << 40}
	timeUnits   = map[string]float64{"us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
)

// SettingBytes converts a memory setting to bytes (ok false for other
// settings and for -1 and 0, which mean "derived" or "off").
func SettingBytes(setting, unit string) (int64, bool) {
	f, ok := memoryUnits[unit]
	n, err := strconv.ParseFloat(setting, 64)
	if !ok || err != nil {
		return 0, false
	}
	return int64(n * f), n > 0
}

// FormatSetting writes a setting with its unit the way SHOW does: memory
// in the largest of kB, MB, GB and TB that divides it, time in the
// largest of ms, s, min, h and d; -1 and 0 (derived, off) as they are.
func FormatSetting(setting, unit string) string {
	n, err := strconv.ParseFloat(setting, 64)
	if unit == "" || err != nil || n <= 0 {
		return setting
	}
	if f, ok := memoryUnits[unit]; ok {
		return largestUnit(n*f, []string{"TB", "GB", "MB", "kB", "B"}, memoryUnits)
	}
	if f, ok := timeUnits[unit]; ok {
		return largestUnit(n*f, []string{"d", "h", "min", "s", "ms", "us"}, timeUnits)
	}
	return setting + unit
}

// largestUnit writes v (in the base unit) in the first unit that divides it.
func largestUnit(v float64, order []string, units map[string]float64) string {
	for _, u := range order {
		if f := units[u]; v >= f && v/f == float64(int64(v/f)) {
			return strconv.FormatInt(int64(v/f), 10) + u
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + order[len(order)-1]
}
