package observe

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// ServerInfo holds the facts about a server that a comparison must show
// beside its figures.
type ServerInfo struct {
	// Version is the text of version(), e.g. "PostgreSQL 17.10 on x86_64-pc-linux-gnu, …".
	Version string
	// VersionNum is server_version_num, e.g. 170010.
	VersionNum int
	// DataChecksums tells whether the cluster has data checksums.
	DataChecksums bool
	// BlockSize is block_size in bytes (8192 unless built otherwise).
	BlockSize int
	// Settings are the parameters not at their built-in default: those
	// whose source is not "default" (or "override") or whose value differs
	// from boot_val, by name. Boilerplate ones are kept and marked.
	Settings []Setting
}

// Major returns the major version, e.g. 17 (or 9 for 9.6).
func (s *ServerInfo) Major() int { return s.VersionNum / 10000 }

// Changed returns the settings that are not boilerplate: what someone
// chose for this server.
func (s *ServerInfo) Changed() []Setting {
	var out []Setting
	for _, st := range s.Settings {
		if !st.Boilerplate {
			out = append(out, st)
		}
	}
	return out
}

// Setting is one row of pg_settings.
type Setting struct {
	Name    string
	Setting string
	// Unit is pg_settings.unit ("8kB", "ms", …), "" when none.
	Unit    string
	Source  string
	Context string
	BootVal string
	// SourceFile is the file that set it ("" when not from a file or not
	// visible to this role).
	SourceFile string
	// Boilerplate marks settings nobody chose for the measurement: values
	// the server derived at start-up (source "default" or "override",
	// e.g. wal_buffers, paths), start-up parameters of the connection
	// (source "client"), and lines initdb wrote into postgresql.conf that
	// describe the locale and platform or restate the built-in default.
	Boilerplate bool
}

// environmentSettings are parameters initdb writes into postgresql.conf
// that describe the machine's locale and platform rather than a tuning
// choice.
var environmentSettings = map[string]bool{
	"lc_messages": true, "lc_monetary": true, "lc_numeric": true, "lc_time": true,
	"log_timezone": true, "timezone": true, "datestyle": true,
	"default_text_search_config": true, "dynamic_shared_memory_type": true,
}

// boilerplate decides Setting.Boilerplate.
func boilerplate(st Setting) bool {
	switch st.Source {
	case "default", "override", "client":
		// Values derived at start-up (wal_buffers=-1 → 512, paths,
		// shared_memory_size…) and connection start-up parameters.
		return true
	case "configuration file":
		// initdb's postgresql.conf: locale and platform lines, and lines
		// that restate the built-in default (max_wal_size, min_wal_size,
		// and max_connections/shared_buffers when initdb kept them).
		// pglab's own settings live in an included file or
		// postgresql.auto.conf, so they are never boilerplate.
		if st.SourceFile != "" && filepath.Base(st.SourceFile) != "postgresql.conf" {
			return false
		}
		return environmentSettings[strings.ToLower(st.Name)] || st.Setting == st.BootVal
	}
	return false
}

// Server reads the server's facts: version, checksums, block size and the
// non-default settings.
func Server(ctx context.Context, q Querier) (*ServerInfo, error) {
	info := &ServerInfo{}
	var checksums, blockSize string
	err := q.QueryRow(ctx, `SELECT version(), current_setting('server_version_num')::int,
		current_setting('data_checksums'), current_setting('block_size')`).
		Scan(&info.Version, &info.VersionNum, &checksums, &blockSize)
	if err != nil {
		return nil, fmt.Errorf("read server facts: %w", err)
	}
	info.DataChecksums = checksums == "on"
	if info.BlockSize, err = strconv.Atoi(blockSize); err != nil {
		return nil, fmt.Errorf("read server facts: block_size %q: %w", blockSize, err)
	}
	rows, err := q.Query(ctx, `SELECT name, coalesce(setting, ''), coalesce(unit, ''), source, context,
			coalesce(boot_val, ''), coalesce(sourcefile, '')
		FROM pg_settings
		WHERE source NOT IN ('default', 'override') OR setting IS DISTINCT FROM boot_val
		ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st Setting
		if err := rows.Scan(&st.Name, &st.Setting, &st.Unit, &st.Source, &st.Context, &st.BootVal, &st.SourceFile); err != nil {
			return nil, fmt.Errorf("read pg_settings: %w", err)
		}
		st.Boilerplate = boilerplate(st)
		info.Settings = append(info.Settings, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	return info, nil
}
