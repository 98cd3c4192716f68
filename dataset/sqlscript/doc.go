// Package sqlscript reads and runs a plain SQL script the way psql -f does
// with ON_ERROR_STOP: a plain-format pg_dump (of any version 13–18) or any
// file of SQL statements, for the replay study's data (replay.data).
//
// [Reader] splits a script into items without a server: statements, ended
// by a semicolon outside quotes, comments, parentheses and the BEGIN …
// END bodies of SQL-standard functions (psql's own rule, whose quoting and
// comments are package internal/sqllex's, as bench/script's); the data of
// COPY … FROM stdin, up to its \. line; and the psql meta-commands that
// dumps contain: \connect (\c), \restrict and \unrestrict (written by the
// pg_dump of the minor releases of August 2025 on). Any other
// meta-command is an error. Every item knows the line it begins on, and
// every error names the file and the line ("dump.sql:120: …").
//
// [Exec] runs the items on a server, one statement at a time in the
// simple protocol (autocommit, as psql), COPY data through the COPY
// protocol, \connect as a new session on the same database (a dump's
// database names are not followed: the data goes into the target's
// database). It stops at the first error, naming the file and line (for
// COPY, the line of the data row the server rejected), except for the
// statements a dump of another version or another cluster carries that
// cannot matter to the data, which it skips and counts ([Result].Skipped):
//
//   - SET and set_config of a setting this server does not have (a dump of
//     17 sets transaction_timeout, which 16 lacks);
//   - ownership and privileges (ALTER … OWNER TO, GRANT, REVOKE, ALTER
//     DEFAULT PRIVILEGES) naming a role this server does not have: pglab
//     connects as the server's superuser;
//   - the statistics of a dump of 18 (pg_restore_relation_stats,
//     pg_restore_attribute_stats) on a server that cannot restore them;
//   - CREATE SCHEMA public where it exists.
//
// The script is assumed to be UTF-8 with standard_conforming_strings on
// (pg_dump sets it); a backslash is an escape only in E'…' strings.
package sqlscript
