package cli

import (
	"fmt"
	"log"
	"net"
	"os"
	"strings"

	"github.com/pglab/pglab/cmd/pglab/internal/serve"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/spf13/cobra"
)

func init() { register(32, newServeCmd) }

func newServeCmd(env *Env) *cobra.Command {
	var addr, store, token string
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--store PATH|postgres://…] [--token T]",
		Short: "Browse the results store in a web browser: the runs, a run with its evidence, runs side by side",
		Long: `Serve the results store as a local web UI, read-only, until Ctrl-C:

  /                     the runs: ID, kind, status, start, duration, targets, studies, host;
                        filters in the address (?study=vacuum&version=17&status=done&q=text);
                        tick two runs or more and compare them
  /runs/ID              the run's report as 'pglab report ID' renders it, then its evidence:
                        every repetition's value, the server's texts (VACUUM VERBOSE, COPY
                        transcripts, errors), each target's settings, tps and latency second
                        by second, the latency distribution from the stored HDR histograms;
                        the report as md, html, json or csv; a running run reloads itself
  /compare?runs=A,B     the runs side by side as 'pglab report A B' shows them (medians,
                        intervals, Mann-Whitney U, ~), what differs between their setups
                        first, metrics measured in one run only apart

Every page is a plain GET: its address is its permalink. The store is opened read-only
(SQLite mode=ro and query_only; read-only transactions on PostgreSQL): serving never
writes, and several serve processes and a running study can share one store.

It listens on the loopback address unless told otherwise, and answers only requests
that name it (Host: localhost, 127.0.0.1 or ::1). Any other address needs --token
(or PGLAB_SERVE_TOKEN), at least 16 characters: every request must then carry it, as
"Authorization: Bearer T" or as the cookie a first visit to /?token=T sets.`,
		Example: `  pglab serve
  pglab serve --store ./lab.db --addr 127.0.0.1:9000
  pglab serve --store postgres://lab@db/pglab --addr 0.0.0.0:8080 --token "$(openssl rand -hex 16)"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badInput("serve takes no arguments: got %q", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("token") {
				token = os.Getenv("PGLAB_SERVE_TOKEN")
			}
			host, loopback, err := serve.CheckAddr(addr, token)
			if err != nil {
				return asUsage(err)
			}
			st, err := openStore(env, store)
			if err != nil {
				return err
			}
			defer st.Close()
			opts := serve.Options{Store: st, Token: token, Version: buildinfo.String(), Log: log.New(env.Stderr, "", log.LstdFlags)}
			if token == "" {
				opts.Hosts = []string{"localhost", "127.0.0.1", "::1", host}
			}
			h, err := serve.New(opts)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			u := serve.URL(ln.Addr(), host, loopback)
			if token != "" {
				u += " (open " + u + "?token=<your token> once: a cookie keeps it)"
			}
			fmt.Fprintf(env.Stdout, "pglab serve: %s; store %s, read-only; Ctrl-C stops it\n", u, st.Location())
			return serve.Run(env.Ctx, ln, h, opts.Log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on, HOST:PORT; other than loopback only with --token")
	f.StringVar(&store, "store", "", "results store: an SQLite file path or a postgres:// DSN (default "+defaultStoreText()+")")
	f.StringVar(&token, "token", "", "a secret every request must carry (default $PGLAB_SERVE_TOKEN); needed for any address but loopback")
	return cmd
}
