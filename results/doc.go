// Package results is pglab's results store: runs with their manifests, the
// targets each run measured, the measurements, and raw artefacts.
//
// # Where results go
//
// [Open] takes a location. An empty location means [DefaultPath]:
// $XDG_DATA_HOME/pglab/results.db, or ~/.local/share/pglab/results.db when
// XDG_DATA_HOME is unset or not absolute (for root that is
// /root/.local/share/pglab/results.db). Any other location that is not a
// PostgreSQL connection string is an SQLite file path ("~/" is expanded).
// A location starting with postgres:// or postgresql://, or a libpq
// key=value string such as "host=db dbname=lab", opens a PostgreSQL store
// with the same schema, kept in the schema pglab_results of that database.
//
// SQLite files are opened with the pure-Go driver modernc.org/sqlite in WAL
// journal mode with synchronous=FULL (each commit is on disk when the write
// returns), foreign keys on, a busy timeout ([BusyTimeout]) and write
// transactions that begin IMMEDIATE, so that several pglab processes can
// share one file. Every write is one transaction: a crash, a power failure,
// a full disk or a read-only file fails the write at hand and leaves earlier
// runs intact. A new file is created with mode 0600
// and a new directory with mode 0700. [OpenReadOnly] opens a store without
// ever writing to it, for commands that only read.
//
// # Schema
//
// The schema is versioned: the table schema_version lists the migrations
// applied, and Open applies the missing ones in order, in one transaction
// each. Opening a store whose schema is newer than this pglab knows is an
// error that says so.
//
// # Secrets
//
// Passwords are never stored: command lines, connection descriptions, error
// texts, settings, case values, JSON extras and text artefacts are redacted
// with [redact.Args], [redact.DSN] and [redact.Text] (package redact) before they are written,
// whatever the caller did before.
//
// # Writing a run
//
//	run, err := store.BeginRun(ctx, results.RunInfo{Kind: results.KindStudy, ...})
//	err = run.AddTarget(ctx, results.Target{Name: "pg17", ...})
//	err = run.AddMeasurements(ctx, ms)
//	err = run.Finish(ctx, results.StatusDone, nil)
//
// A run's writes still go through after ctx is cancelled (each bounded by a
// timeout), so that what was measured before a Ctrl-C is kept and the run
// can be finished as [StatusInterrupted].
package results
