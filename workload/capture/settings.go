package capture

import (
	"fmt"
	"io"
	"strings"
)

// Setting is one server setting to record a workload.
type Setting struct {
	Name  string
	Value string // as SQL: quoted when a string
	Why   string
	// Restart tells that the setting takes effect at a restart only.
	Restart bool
}

// SettingsFor returns the settings that make a server of the given major
// version (13–18) log a workload in the given format (csvlog, jsonlog for
// 15+, or stderr).
func SettingsFor(version int, format string) ([]Setting, error) {
	if version < 13 || version > 18 {
		return nil, fmt.Errorf("pglab captures from PostgreSQL 13 to 18, not %d", version)
	}
	switch {
	case format == JSONLog && version < 15:
		return nil, fmt.Errorf("jsonlog needs PostgreSQL 15 or later (this is %d): use csvlog", version)
	case format != CSVLog && format != JSONLog && format != Stderr:
		return nil, fmt.Errorf("unknown log format %q: want csvlog, jsonlog or stderr", format)
	}
	out := []Setting{
		{"logging_collector", "on", "the collector writes the log files (log_directory, log_filename); csvlog and jsonlog need it", true},
		{"log_destination", "'" + format + "'", "the log format pglab capture reads", false},
	}
	if format == Stderr && version < 14 {
		out = append(out, Setting{"log_line_prefix", "'" + RecommendedPrefix + "'",
			"time with milliseconds, process, SQLSTATE and, for client sessions, user, database and application (give it to pglab capture --prefix)", false})
	}
	if format == Stderr && version >= 14 {
		out = append(out, Setting{"log_line_prefix", "'" + RecommendedPrefixQueryID + "'",
			"time with milliseconds, process, SQLSTATE, query id and, for client sessions, user, database and application (give it to pglab capture --prefix)", false})
	}
	if version >= 14 {
		out = append(out, Setting{"compute_query_id", "on", "the server's query id on every statement's log line (query_id; pg_stat_statements' queryid), kept with each fingerprint of the replay (14+)", false})
	}
	return append(out,
		Setting{"log_min_duration_statement", "0", "every completed statement with its duration (extended protocol: parse, bind and execute lines with their parameters)", false},
		Setting{"log_statement", "'none'", "no second line per statement at its arrival (log_min_duration_statement logs it)", false},
		Setting{"log_duration", "off", "durations come with the statements", false},
		Setting{"log_connections", "on", "sessions: when they connect, as which user, to which database, from which application", false},
		Setting{"log_disconnections", "on", "sessions: when they end", false},
		Setting{"log_min_error_statement", "'error'", "the text of statements that fail (the default)", false},
		Setting{"log_parameter_max_length", "-1", "bind parameters in full (the default): a cut value cannot be replayed", false},
		Setting{"log_statement_sample_rate", "1", "no sampling: a sample drops statements of a session (13+)", false},
		Setting{"log_transaction_sample_rate", "0", "no transaction sampling (it logs sampled transactions in full, the others not at all)", false},
		Setting{"lc_messages", "'C'", "English messages: pglab capture reads PostgreSQL's English texts", false},
	), nil
}

// WriteSettings prints the ALTER SYSTEM lines of SettingsFor and what
// they cost: a script that turns the capture's logging on (WriteRevert
// prints the one that turns it off).
func WriteSettings(w io.Writer, version int, format string) error {
	set, err := SettingsFor(version, format)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- pglab capture: record a workload on PostgreSQL %d as %s.\n", version, format)
	b.WriteString("-- Run as a superuser on the server to capture, then restart it once if logging_collector was off.\n")
	b.WriteString("-- To turn this logging off again: the lines of pglab capture --settings --revert (same version and format).\n")
	for _, s := range set {
		line := fmt.Sprintf("ALTER SYSTEM SET %s = %s;", s.Name, s.Value)
		note := s.Why
		if s.Restart {
			note = "restart: " + note
		}
		fmt.Fprintf(&b, "%-55s -- %s\n", line, note)
	}
	b.WriteString("SELECT pg_reload_conf();\n")
	b.WriteString(settingsNotes)
	_, err = io.WriteString(w, b.String())
	return err
}

// WriteRevert prints the ALTER SYSTEM lines that put back what
// WriteSettings set: each setting reset to the server's configuration
// file or default.
func WriteRevert(w io.Writer, version int, format string) error {
	set, err := SettingsFor(version, format)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- pglab capture: stop recording a workload on PostgreSQL %d as %s.\n", version, format)
	b.WriteString("-- Run as a superuser on the server captured from. logging_collector goes back at the next restart.\n")
	for _, s := range set {
		fmt.Fprintf(&b, "ALTER SYSTEM RESET %s;\n", s.Name)
	}
	b.WriteString("SELECT pg_reload_conf();\n")
	_, err = io.WriteString(w, b.String())
	return err
}

const settingsNotes = `
-- The system identifier, for the replay's check that it never writes to this server:
--   SELECT system_identifier FROM pg_control_system();   (give it to pglab capture --system-identifier)
-- The data to replay against: take a snapshot when the capture starts (pg_dump, a basebackup or a
-- disk snapshot); statements replayed on other data change what they do.
--
-- Cost (measured on PostgreSQL 17): every statement is written to the log by the backend that
-- ran it. A simple-protocol statement writes one csvlog line of about 200 bytes plus its text
-- (jsonlog: about 400). An extended-protocol call (what most drivers send) writes a bind and an
-- execute line, each with the statement's text and parameters, and a parse line the first time a
-- connection prepares it: about 600 bytes for a short statement with two parameters (jsonlog:
-- about 1,050). At 5,000 statements per second that is 1 to 3 MB/s of csvlog, 4 to 11 GB an hour.
-- Formatting and writing each line adds to every statement's time, which matters most for
-- sub-millisecond statements: measure your own throughput with and without it first (on a replica
-- or at a quiet hour), give the log its own disk if you can, and keep the capture short (minutes
-- are enough for a replay) while watching the log directory's size.
`
