// Package apply takes pglab tune's recommendations to a live PostgreSQL
// server: it reads the inputs a server can tell (version, max_connections,
// data directory), compares the recommended parameters with the server's
// settings (Server.Compare), writes the ones that differ with ALTER SYSTEM
// and reloads or restarts so that they take (Server.Apply), and undoes
// exactly what it wrote (Server.Revert).
//
// Values are compared as the server stores them: pg_settings.setting in
// the parameter's base unit, so that 128MB and 16384 pages of 8kB are the
// same. Parameters whose context is postmaster need a restart; a managed
// instance (Server.Restart set) is restarted, on any other server they are
// left pending and reported.
//
// What Apply changed is kept in a record, so that Revert can put every
// parameter back the way postgresql.auto.conf had it: ALTER SYSTEM RESET
// for a parameter the file did not hold, ALTER SYSTEM SET to the file's
// old value otherwise. A parameter changed by someone else since is left
// alone. The record holds parameter names and values only, never a
// connection string or password, and is written before the first change,
// so that an interrupted Apply can still be reverted. It is kept:
//
//   - for a managed instance, in a file of the instance's directory
//     (Server.RecordFile, tune-applied.json);
//   - for any other server, in the server itself, as the custom parameter
//     pglab.tune_applied in postgresql.auto.conf (RecordParameter): it
//     lives and dies with the settings it describes, whichever database or
//     machine pglab connects from, and ALTER SYSTEM RESET ALL removes both.
//
// Nothing here decides what to recommend; that is package tune.
package apply
