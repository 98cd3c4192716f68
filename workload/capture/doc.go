// Package capture reads PostgreSQL server logs into a workload file
// (package workload): the log formats of PostgreSQL 13–18, csvlog (24
// columns in 13, 26 from 14; 23 of 12 and older are read too), jsonlog
// (15+) and stderr logs whose log_line_prefix is known ([DefaultPrefix]
// unless given; the escapes read are listed by [PrefixEscapes]), plain or
// gzip-compressed, detected from their first line when not given.
//
// # What it takes
//
// Sessions are told apart by the log's session ID (csvlog, jsonlog, %c),
// or by process ID for stderr logs without %c (a "connection received"
// line then starts a new session of the same process). A session's user,
// database and application come from its lines or its "connection
// authorized" message. Statements come from the lines PostgreSQL writes
// with log_min_duration_statement = 0 ("duration: X ms  statement: …",
// and for the extended protocol "duration: X ms  parse|bind|execute
// NAME: …" with "Parameters: $1 = '…', $2 = NULL" in DETAIL; the Execute
// is the statement, with its parameters), and from the pairs that
// log_statement = all with log_duration = on writes ("statement: …" or
// "execute NAME: …" when it arrives, "duration: X ms" when it ends). A
// statement that fails is taken from its ERROR (or FATAL) and the text
// that log_min_error_statement adds to it, with its SQLSTATE. See
// [SettingsFor] for the settings that produce such a log.
//
// # What it does not take
//
// Counted in the summary and the workload's end record, by reason: COPY …
// FROM STDIN (the data is not in the log), fast-path function calls,
// statements of other databases (Options.Database), of background
// processes (autovacuum, background workers, WAL senders), of a database
// the log does not tell when a database is asked for, errors logged
// without their statement, statements whose text is not valid UTF-8, log
// lines of unknown shape, and portal fetches ("execute fetch from", later
// parts of a statement taken once). A truncated last record is an error
// unless Options.AllowTruncated.
//
// # Memory
//
// The logs are streamed: memory holds one record (at most [MaxRecord]),
// the state of each session open at that point of the log (its pending
// statement), one fingerprint per distinct fingerprint and a bounded cache
// of fingerprints by statement text; it does not grow with the log's
// length.
//
// # Limits
//
// Message texts are PostgreSQL's English ones (lc_messages = 'C'). Log
// time stamps have milliseconds, so statement offsets are good to about a
// millisecond; time zone abbreviations that are not numeric and not in a
// small table are taken as UTC (reported in the summary), which is exact
// unless the zone changes within the log. Bind parameters are kept as the
// text PostgreSQL logged, their types are not in the log; a value cut by
// log_parameter_max_length cannot be told from a whole one.
package capture
