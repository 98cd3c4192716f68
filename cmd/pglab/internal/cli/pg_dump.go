package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/pglab/pglab/pgclient"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
)

// newPgDumpCmd is pglab pg dump: pg_dump of a version that can dump the
// server, with the arguments given.
func newPgDumpCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "dump [--client 17|18] [--instance NAME] [pg_dump arguments]",
		Short: "pg_dump of a version that dumps your server (13–18): Debian's client of 17 or 18, fetched into pglab's cache",
		Long: `Runs pg_dump with the arguments given, as pg_dump reads them: -h HOST, -p PORT,
-U USER, -d DBNAME or a connection string, -f FILE, --no-owner, and PGHOST and the
rest of libpq's environment. Its exit code is pg_dump's. Help is -? or --help, as
pg_dump's; pglab's own option is --client.

The server builds pglab installs have no client programs, and a pg_dump refuses a
server of a newer major version than its own (a Debian 12 machine's is 15). pglab
fetches PostgreSQL 17's client from Debian 13 (trixie) once, into ` + pgclient.Dir() + `,
with the C library it was built against, and runs it from there; it dumps servers of
13 to 17. For an 18 server it fetches 18's (Debian unstable) instead, when 17's
says the server is newer, or when --client 18 asks for it.

--instance NAME dumps an instance of 'pglab pg start': pg_dump connects through
its unix socket as its superuser, to its database unless one is named.`,
		Example: `  pglab pg dump -h db.example.com -U me --no-owner -f app.sql app
  pglab pg dump --instance pg17 --no-owner -f app.sql
  pglab pg dump --client 18 -f app.sql 'host=db1 dbname=app user=me'`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = takeGlobalFlags(env, args, "dump")
			if len(args) > 0 && (args[0] == "-?" || args[0] == "--help") {
				return cmd.Help()
			}
			major, explicit, args, err := clientFlag(args)
			if err != nil {
				return err
			}
			args, conn, err := instanceFlag(args)
			if err != nil {
				return err
			}
			code, mismatch, err := runPgDump(env, major, args, conn)
			if err == nil && mismatch && !explicit {
				code, _, err = runPgDump(env, 18, args, conn)
			}
			if err != nil {
				return err
			}
			if code != 0 {
				return &ExitError{Code: code, Silent: true}
			}
			return nil
		},
	}
}

// clientFlag takes --client N (or --client=N) out of args, wherever it
// is (pg_dump has no such option): the major version of the client to
// run (17 by default) and whether it was given.
func clientFlag(args []string) (major int, explicit bool, rest []string, err error) {
	major = 17
	for i := 0; i < len(args); i++ {
		val, ok := strings.CutPrefix(args[i], "--client=")
		switch {
		case args[i] == "--client" && i+1 < len(args):
			val, ok = args[i+1], true
			i++
		case args[i] == "--client":
			return 0, false, nil, badInput("--client needs a major version: %s", pgclient.MajorsText())
		}
		if !ok {
			rest = append(rest, args[i])
			continue
		}
		major, err = strconv.Atoi(val)
		if err != nil || !slices.Contains(pgclient.Majors(), major) {
			return 0, false, nil, badInput("--client %s: pglab fetches the client programs of PostgreSQL %s only", val, pgclient.MajorsText())
		}
		explicit = true
	}
	return major, explicit, rest, nil
}

// instanceFlag takes --instance NAME (or --instance=NAME) out of args,
// wherever it is (pg_dump has no such option): the libpq environment that
// reaches that running instance of pglab pg start.
func instanceFlag(args []string) (rest, conn []string, err error) {
	name := ""
	for i := 0; i < len(args); i++ {
		val, ok := strings.CutPrefix(args[i], "--instance=")
		switch {
		case args[i] == "--instance" && i+1 < len(args):
			val, ok = args[i+1], true
			i++
		case args[i] == "--instance":
			return nil, nil, badInput("--instance needs the name of an instance of pglab pg start")
		}
		if !ok {
			rest = append(rest, args[i])
			continue
		}
		name = val
	}
	if name == "" {
		return rest, nil, nil
	}
	inst, err := pgserver.OpenRunning(name)
	if err != nil {
		return nil, nil, badInput("--instance: %v", err)
	}
	return rest, inst.ClientEnv(), nil
}

// runPgDump runs the client's pg_dump with args (and conn's libpq
// variables), its output passed through; mismatch tells that it refused a
// newer server.
func runPgDump(env *Env, major int, args, conn []string) (code int, mismatch bool, err error) {
	tools, err := pgclient.Fetch(env.Ctx, major, env.progress())
	if err != nil {
		return 0, false, err
	}
	cmd, err := tools.Command(env.Ctx, "pg_dump", args...)
	if err != nil {
		return 0, false, err
	}
	// Named as pglab's own, pglab capture leaves its statements out of a
	// workload logged meanwhile.
	cmd.Env = append(append(os.Environ(), conn...), "PGAPPNAME="+cmp.Or(os.Getenv("PGAPPNAME"), "pglab pg dump"))
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, io.MultiWriter(env.Stderr, &errb)
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), strings.Contains(errb.String(), "server version mismatch"), nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("run pg_dump %d: %w", major, err)
	}
	return 0, false, nil
}
