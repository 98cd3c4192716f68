package cli

import (
	"cmp"
	"errors"
	"io"
	"strings"

	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/workload/capture"
	"github.com/spf13/cobra"
)

func init() { register(40, newCaptureCmd) }

// captureFlags are pglab capture's flags.
type captureFlags struct {
	settings       bool
	revert         bool
	instance       string
	version        int
	logs           []string
	out            string
	format         string
	prefix         string
	database       string
	systemID       string
	allowTruncated bool
	inspect        string
}

func newCaptureCmd(env *Env) *cobra.Command {
	var cf captureFlags
	cmd := &cobra.Command{
		Use:   "capture (--settings [--revert] [--versions N] | --log FILE... --out WORKLOAD | --instance NAME --out WORKLOAD | --inspect WORKLOAD)",
		Short: "Record a workload: the logging settings to set, and a server log turned into a workload file",
		Long: `pglab capture turns what a PostgreSQL server logged into a workload file for the
replay study: its sessions (database, user, application), their statements in order
with start offsets, durations and bind parameters, and a fingerprint per statement.

  --settings        prints the ALTER SYSTEM lines that make a server (--versions, 13–18)
                    log every statement in --log-format (csvlog by default, jsonlog for
                    15+, or stderr) with its query id (14+), and what that costs; with
                    --revert, the lines that put those settings back.
  --log FILE...     reads csvlog, jsonlog or stderr logs of PostgreSQL 13–18 (plain or
                    gzip; the format is detected unless given; a stderr log needs its
                    log_line_prefix, default '` + capture.DefaultPrefix + `') and writes --out (JSON Lines,
                    gzip when it ends in .gz; see 'go doc github.com/pglab/pglab/workload').
                    Files are read in the order of their first time stamps. It prints what
                    it took and what it could not (COPY data, fast-path calls, other
                    databases, background processes, lines of unknown shape), with counts.
  --instance NAME   reads the log of an instance of 'pglab pg start' where it writes it:
                    its log directory (data/log under its directory) once
                    logging_collector is on, its server.log before.
  --inspect FILE    prints the summary of a workload file.

Passwords in statements and parameters (PASSWORD '…', connection strings) are masked
before they reach the workload file.

Escapes read in a stderr log's --prefix:
` + indentLines(capture.PrefixEscapes(), "  "),
		Example: `  pglab capture --settings --versions 17 > capture-on.sql
  pglab capture --settings --revert --versions 17 > capture-off.sql
  pglab capture --instance pg17 --database shop --out shop.workload.gz
  pglab capture --log /var/lib/postgresql/17/main/log/postgresql-*.csv --out shop.workload.gz
  pglab capture --log postgresql.log --prefix '%m [%p] %q%u@%d ' --database shop --out shop.workload
  pglab capture --inspect shop.workload.gz`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCapture(env, cmd, &cf, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&cf.settings, "settings", false, "print the server settings that record a workload and their cost")
	f.BoolVar(&cf.revert, "revert", false, "with --settings: print the lines that put those settings back")
	f.StringVar(&cf.instance, "instance", "", "read the log of this instance of 'pglab pg start'")
	f.IntVar(&cf.version, "versions", 17, "with --settings: the server's major version (13–18)")
	alias(f, "version", "versions")
	f.StringArrayVar(&cf.logs, "log", nil, "a server log file to read (repeat, or list more files after it)")
	f.StringVar(&cf.out, "out", "", "the workload file to write (gzip when it ends in .gz)")
	f.StringVar(&cf.format, "log-format", "", "the log format: csvlog, jsonlog or stderr (default: detected; with --settings: csvlog)")
	alias(f, "format", "log-format")
	f.StringVar(&cf.prefix, "prefix", "", "a stderr log's log_line_prefix (default '"+capture.DefaultPrefix+"')")
	f.StringVar(&cf.database, "database", "", "keep only the sessions of this database")
	f.StringVar(&cf.systemID, "system-identifier", "", "the logging server's system identifier (SELECT system_identifier FROM pg_control_system()), kept for the replay's safety check")
	f.BoolVar(&cf.allowTruncated, "allow-truncated", false, "count a truncated last record (a log still being written) instead of failing")
	f.StringVar(&cf.inspect, "inspect", "", "print the summary of a workload file")
	return cmd
}

// runCapture dispatches on the mode the flags ask for.
func runCapture(env *Env, cmd *cobra.Command, cf *captureFlags, args []string) error {
	logs := append(append([]string(nil), cf.logs...), args...)
	modes := 0
	for _, on := range []bool{cf.settings, len(logs) > 0, cf.inspect != "", cf.instance != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes != 1:
		return badInput("give one of --settings, --log FILE... --out WORKLOAD, --instance NAME --out WORKLOAD, or --inspect WORKLOAD (see 'pglab capture --help')")
	case cf.revert && !cf.settings:
		return badInput("--revert goes with --settings")
	case cf.settings:
		write := capture.WriteSettings
		if cf.revert {
			write = capture.WriteRevert
		}
		if err := write(env.Stdout, cf.version, cmp.Or(cf.format, capture.CSVLog)); err != nil {
			return badInput("%v", err)
		}
		return nil
	case cf.inspect != "":
		return inspectWorkload(env.Stdout, cf.inspect)
	case cf.out == "":
		return badInput("--out WORKLOAD is needed: the workload file to write")
	case flagGiven(cmd.Flags(), "versions"):
		return badInput("--versions goes with --settings; a log's version is read from the log")
	case cf.instance != "":
		var err error
		if logs, cf.format, cf.prefix, err = instanceLogs(env, cf); err != nil {
			return err
		}
	}
	sum, err := capture.Capture(env.Ctx, capture.Options{Files: logs, Out: cf.out, Format: cf.format,
		Prefix: cf.prefix, Database: cf.database, SystemIdentifier: cf.systemID,
		AllowTruncated: cf.allowTruncated, CreatedBy: "pglab " + buildinfo.String()})
	if err != nil {
		if errors.Is(err, env.Ctx.Err()) && env.Ctx.Err() != nil {
			return err
		}
		return badInput("%v", err)
	}
	return sum.WriteText(env.Stdout)
}

// instanceLogs finds the log files of a managed instance: those of
// --format (or the one its log directory holds) where it writes them.
func instanceLogs(env *Env, cf *captureFlags) (files []string, format, prefix string, err error) {
	inst, err := pgserver.OpenRunning(cf.instance)
	if err != nil {
		return nil, "", "", badInput("--instance: %v", err)
	}
	lc, err := inst.LogConfig(env.Ctx)
	if err != nil {
		return nil, "", "", err
	}
	place := capture.LogPlace{Collector: lc.Collector, Dir: lc.Dir, Stderr: inst.LogPath(), Prefix: lc.Prefix}
	if files, format, prefix, err = place.Files(cf.format, cf.prefix); err != nil {
		return nil, "", "", badInput("--instance %s: %v", cf.instance, err)
	}
	return files, format, prefix, nil
}

// inspectWorkload reads a workload file through and prints its summary.
func inspectWorkload(w io.Writer, path string) error {
	in, err := capture.Inspect(path)
	if err != nil {
		return badInput("%v", err)
	}
	return in.WriteText(w)
}

// indentLines puts prefix before every line of s.
func indentLines(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix)
}
