package cli

import (
	"os"
	"strconv"
	"time"

	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
)

func init() { register(11, newWorkerCmd) }

func newWorkerCmd(env *Env) *cobra.Command {
	var join, token, target, name string
	var joinTimeout time.Duration
	var parts pgserver.ConnParts
	cmd := &cobra.Command{
		Use:   "worker --join HOST:PORT [--token T] [--target NAME|DSN]",
		Short: "A load worker of a coordinated 'pglab bench --listen' run: dials the coordinator and runs its share",
		Long: `pglab worker dials out to a coordinator ('pglab bench --listen ADDR --expect-workers N
[pgbench options] [dbname]'), which sends it a share of the run: a range of the clients
(so :client_id stays unique across the run), a share of the threads and of -R, and the
scripts. The worker connects its clients, waits at the coordinator's barrier, runs
pglab bench's engine on its share, streams its progress intervals and sends its figures;
it exits when the coordinator ends the session (0, or 2 when the run failed) or goes
away (2).

The coordinator never sends a password. The worker connects with the connection
settings the coordinator was given (without the password) and its own environment:
PGPASSWORD, PGPASSFILE/.pgpass, PGSERVICE; or with --target, a managed instance of this
machine ('pglab pg start') or a DSN of its own; psql's -h, -p, -U and -d override
the parts of that DSN, or alone connect as psql would.

--token (or PGLAB_TOKEN) proves the worker to a coordinator that was given the same
token; only the token's HMAC of a random challenge crosses the network. A coordinator
on a non-loopback address requires one. In a Kubernetes Indexed Job the worker takes
its index from JOB_COMPLETION_INDEX (see 'pglab bench --k8s-job').`,
		Example: `  pglab bench --listen 127.0.0.1:7788 --expect-workers 3 -S -M prepared -c 12 -j 3 -T 60 bench &
  for i in 1 2 3; do PGPASSWORD=secret pglab worker --join 127.0.0.1:7788 & done`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if join == "" {
				return badInput("--join HOST:PORT is required (the address of 'pglab bench --listen')")
			}
			if token == "" {
				token = os.Getenv("PGLAB_TOKEN")
			}
			if name == "" {
				name = dist.DefaultName()
			}
			index := -1
			if s := os.Getenv("JOB_COMPLETION_INDEX"); s != "" {
				if n, err := strconv.Atoi(s); err == nil {
					index = n
				}
			}
			conn := ""
			if target != "" || !parts.Empty() {
				t, err := connTarget(target, parts)
				if err != nil {
					return err
				}
				conn = t.DSN
				if t.Named() {
					conn = t.Instance.DSN()
				}
			}
			return dist.Work(env.Ctx, dist.WorkerOptions{Join: join, Token: token, Name: name, Index: index,
				JoinTimeout: joinTimeout, Version: buildinfo.Version, Connect: conn, Stderr: env.Stderr, Quiet: env.Quiet})
		},
	}
	f := cmd.Flags()
	f.StringVar(&join, "join", "", "the coordinator's address, host:port")
	f.StringVar(&token, "token", "", "the coordinator's token (default $PGLAB_TOKEN)")
	f.StringVar(&target, "target", "", "connect to this managed instance or DSN instead of the coordinator's database")
	f.StringVar(&name, "name", "", "this worker's name in the coordinator's messages (default host/pid)")
	joinTimeout = 5 * time.Minute
	f.Var(timeoutValue{&joinTimeout}, "join-timeout", "how long to keep trying to reach the coordinator: a duration (5m), or seconds")
	registerConnFlags(cmd, &parts)
	return cmd
}
