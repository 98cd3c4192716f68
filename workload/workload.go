package workload

import (
	"encoding/json"
	"fmt"
	"time"
)

// Format is the header's "format" value of every workload file.
const Format = "pglab-workload"

// Version is the format version this package writes and reads.
const Version = 1

// Header is a workload file's first line.
type Header struct {
	Format      string    `json:"format"`
	Version     int       `json:"version"`
	CreatedBy   string    `json:"created_by"`
	Created     time.Time `json:"created"`
	Fingerprint string    `json:"fingerprint"`
	// Origin is the time of offset 0.
	Origin time.Time `json:"origin"`
	// Database is the capture's database filter; "" keeps every database.
	Database string `json:"database,omitempty"`
	Source   Source `json:"source"`
}

// Source says where a workload came from.
type Source struct {
	// Format is the log format: csvlog, jsonlog or stderr.
	Format string `json:"format"`
	// Prefix is a stderr log's log_line_prefix.
	Prefix string `json:"prefix,omitempty"`
	// ServerVersion is what the log's shape tells of the server's major
	// version ("≤12", "13", "14+", "15+"), "" when it tells nothing.
	ServerVersion string       `json:"server_version,omitempty"`
	Files         []SourceFile `json:"files"`
	// Host is the name of the machine that read the log.
	Host string `json:"host,omitempty"`
	// SystemIdentifier is the logging server's system identifier when known.
	SystemIdentifier string `json:"system_identifier,omitempty"`
	// Note says what is missing, such as the system identifier.
	Note string `json:"note,omitempty"`
}

// SourceFile is one log file read.
type SourceFile struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// Session is one client connection.
type Session struct {
	ID          int64  `json:"id"`
	Key         string `json:"key"`
	Database    string `json:"database"`
	User        string `json:"user"`
	Application string `json:"application,omitempty"`
	StartUS     int64  `json:"start_us"`
	// Connected tells that the log shows the connection; false for a
	// session already connected when the log began.
	Connected bool `json:"connected"`
}

// Fingerprint is a normalised statement text and its ID.
type Fingerprint struct {
	ID   string `json:"fp"`
	Text string `json:"text"`
}

// Protocols of a statement.
const (
	Simple   = "simple"
	Extended = "extended"
)

// Statement is one statement as a session sent it.
type Statement struct {
	Session     int64  `json:"session"`
	StartUS     int64  `json:"start_us"`
	DurationUS  int64  `json:"duration_us"`
	Fingerprint string `json:"fp"`
	Protocol    string `json:"protocol"`
	// Name is the prepared statement's name; "" for the unnamed one.
	Name   string  `json:"name,omitempty"`
	SQL    string  `json:"sql"`
	Params []Param `json:"params,omitempty"`
	// Error is the SQLSTATE of a statement that failed.
	Error string `json:"error,omitempty"`
	// QueryID is the server's query id of the statement (PostgreSQL 14+
	// with compute_query_id: csvlog's and jsonlog's query_id, %Q of a
	// stderr prefix), the key of pg_stat_statements; 0 when the log gave
	// none.
	QueryID int64 `json:"query_id,omitempty"`
}

// Param is a bind parameter in its text form; Null for SQL NULL.
type Param struct {
	Value string
	Null  bool
}

// MarshalJSON writes a parameter as a JSON string, or null.
func (p Param) MarshalJSON() ([]byte, error) {
	if p.Null {
		return []byte("null"), nil
	}
	return json.Marshal(p.Value)
}

// UnmarshalJSON reads a JSON string or null.
func (p *Param) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*p = Param{Null: true}
		return nil
	}
	*p = Param{}
	if err := json.Unmarshal(b, &p.Value); err != nil {
		return fmt.Errorf("a parameter is a string or null: %w", err)
	}
	return nil
}

// SessionEnd is a session's disconnection.
type SessionEnd struct {
	Session int64 `json:"session"`
	EndUS   int64 `json:"end_us"`
}

// Skip is a count of what a capture could not take, by reason.
type Skip struct {
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// End is a workload file's last line: its counts.
type End struct {
	Sessions     int64 `json:"sessions"`
	Statements   int64 `json:"statements"`
	Fingerprints int64 `json:"fingerprints"`
	// FirstUS and LastUS are the offsets of the first statement's start
	// and of the last statement's end.
	FirstUS int64  `json:"first_us"`
	LastUS  int64  `json:"last_us"`
	Skipped []Skip `json:"skipped"`
	// Redacted counts the statements that had a password masked.
	Redacted int64 `json:"redacted"`
}

// VersionError is a workload file of a format version this package does
// not read.
type VersionError struct {
	Got int
}

// Error names both versions.
func (e *VersionError) Error() string {
	return fmt.Sprintf("a pglab workload of format version %d; this pglab reads version %d only (capture the log again with this pglab, or use the pglab that wrote it)", e.Got, Version)
}
