// Package workload is pglab's workload file: the sessions and statements a
// PostgreSQL server ran, as pglab capture takes them from the server's
// log, for the replay study to run again. This package defines the format,
// writes it ([Writer]) and reads it ([Reader]); package
// workload/capture fills it from logs (the command pglab capture).
//
// # Format, version 1
//
// A workload file is UTF-8 text in JSON Lines: one JSON object per line,
// ending in "\n", optionally gzip-compressed as a whole (readers detect
// gzip by its magic bytes; pglab writes gzip when the file name ends in
// .gz). Each object's first key is "type" (the header's is "format").
//
// Line 1 is the header ([Header]):
//
//	{"format":"pglab-workload","version":1,"created_by":"pglab v0.3.0",
//	 "created":"2026-12-02T18:30:00Z","fingerprint":"pglab-fp-1",
//	 "origin":"2026-12-02T18:24:59.591Z","database":"app",
//	 "source":{"format":"csvlog","server_version":"14+","files":[{"path":"/var/log/pg/x.csv","bytes":10751}],
//	           "host":"db1","system_identifier":"","note":"…"}}
//
// "format" is always "pglab-workload"; "version" is 1 for this layout. A
// reader meets a file of another version with one error that names both
// versions ([VersionError]). "origin" is the time of offset 0: every *_us
// field below is microseconds since it (negative for a statement that began
// before the log's first line). "fingerprint" names the fingerprint
// algorithm (package workload/sqltext). "database" is the capture's
// database filter ("" for all). "source" says where the workload came
// from: the log format, the server versions that write logs of that shape
// ("13", "14+", "≤12" for csvlog; "15+" for jsonlog; "" for stderr), the
// files read, the machine that read them, the server's system identifier
// when the log or the user gave it (the replay's check that it never
// writes to the server the log came from) and a note when it did not.
//
// Then, in the order the log wrote them, records of these types:
//
//	{"type":"session","id":1,"key":"6b10627b.54f2","database":"app","user":"web",
//	 "application":"shop","start_us":12000,"connected":true}
//
// A session ([Session]) opens before its first statement. "id" numbers
// sessions from 1 in the file; "key" is the log's own session id (csvlog
// and jsonlog session_id, %c of a stderr prefix, or pid:N for stderr logs
// without %c). "connected" is false for a session that was already
// connected when the log began: its settings made before the log are
// unknown.
//
//	{"type":"fingerprint","fp":"9f86d081884c7d65","text":"select * from t where id = $1"}
//
// A fingerprint ([Fingerprint]) comes before the first statement that
// carries it: the statement's text normalised (constants and parameters
// replaced, lists collapsed; see workload/sqltext).
//
//	{"type":"statement","session":1,"start_us":12345,"duration_us":613,"fp":"9f86d081884c7d65",
//	 "protocol":"extended","name":"stmtcache_b915","sql":"insert into t values ($1, $2)",
//	 "params":["1","it's",null],"error":"23505","query_id":-7633180780175882470}
//
// A statement ([Statement]) as the session sent it. "protocol" is
// "simple" (one Query message, which may hold several statements separated
// by semicolons) or "extended" (Parse/Bind/Execute); "name" is the
// prepared statement's name ("" for the unnamed one); "params" are the
// bind parameters of an extended statement in their text form, a JSON null
// for SQL NULL (absent: none). "start_us" is when the session sent it: the
// log time of its completion minus its duration (for the extended protocol,
// of the Parse or Bind that preceded its Execute), never earlier than the
// end of the session's previous statement; logs have millisecond
// timestamps, so offsets are good to about a millisecond. "duration_us" is
// the server's duration (of the Execute for the extended protocol), or -1
// when the log gave none. "error" is the SQLSTATE of a statement that
// failed (absent when it succeeded). "query_id" is the server's query id
// of the statement, the key of pg_stat_statements (PostgreSQL 14+ with
// compute_query_id on: csvlog's and jsonlog's query_id, %Q of a stderr
// prefix; absent when the log gave none). It is the source server's and
// holds within its major version only. Transaction control (BEGIN, COMMIT,
// ROLLBACK, SAVEPOINT) is a statement like any other. Statements of one
// session come in the order the session ran them; across sessions, in the
// order the log wrote them.
//
//	{"type":"session_end","session":1,"end_us":98000}
//
// A session's disconnection ([SessionEnd]); a session without one was
// still connected when the log ended.
//
// The last line is the end record ([End]): the counts of the file
// (sessions, statements, fingerprints), the offsets of the first and last
// statement, what the capture could not take with a count per reason, and
// how many statements had a password masked. A file without it is
// truncated, and readers say so.
//
// Readers skip records of a type they do not know, so that version 1 can
// gain record types; a change that older readers would misread gets a new
// version.
//
// # Secrets
//
// Passwords are masked before they reach the file: a string constant after
// the word PASSWORD (ALTER ROLE … PASSWORD '…') and the bind parameter
// that stands there, and passwords in connection strings and URLs inside
// statements and parameters (package redact). End.Redacted
// counts the statements concerned.
package workload
