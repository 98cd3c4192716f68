// Package replay runs a captured workload (package workload) on a server
// again and measures it per fingerprint: the engine of the replay study.
//
// [Load] reads a workload file into memory (sessions, their statements,
// the fingerprints; a file of another format version is refused by
// package workload). [Run] replays it once: every captured session on a
// connection of its own, opened at the session's captured offset, all
// sessions at once. In [Timed] mode each statement is sent at its captured
// offset (open loop: a slow statement delays only the rest of its own
// session, and how late each statement went out is its lag); in [Fast]
// mode a session sends its statements back to back. Statements go out as
// they were captured: a simple-protocol statement as one Query message
// (several statements in it stay one), an extended-protocol one with
// Parse/Bind/Execute and its bind parameters in text form, NULL as NULL,
// types left for the server to infer as it did for the text the log
// shows; a named prepared statement is prepared under its name on first
// use in the session (so it may switch to a generic plan after five
// executions, as at capture). Transaction blocks run as captured: a
// statement that fails inside one leaves the session's transaction
// aborted, and the statements up to its ROLLBACK fail (25P02) as they did
// on the source. Ids are mapped: the values an INSERT … RETURNING or a
// sequence call gives on the target replace the captured ones in the
// statements that use them later, in every session (ids.go says how the
// captured values are found from the log; Round.IDs counts what was
// mapped and what could not be, and FPRound.IDErrors the failures that
// ids a source gave late or not at all caused).
//
// A [Round] holds, per fingerprint, every call's latency (from sending
// the statement to reading its result), the failures by SQLSTATE (those of
// statements that succeeded at capture apart), the rows returned or
// affected, and for read-only statements the sum of [RowHash] over every
// row returned: a digest of the results that does not depend on the order
// of rows or calls. [Explain] and [ShapeOf] give a statement's plan
// without estimates, the partitions an Append reads folded, for comparing
// plans across servers ([Diff]). Each fingerprint keeps the server's
// query ids its statements had at capture (FP.QueryIDs).
//
// A workload is held in memory whole: about the size of its file
// uncompressed.
package replay
