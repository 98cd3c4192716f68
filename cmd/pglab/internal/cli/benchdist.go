package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/lab"
)

// coordFlags are pglab bench's options for a run from several processes.
type coordFlags struct {
	listen, token, store string
	workers              int
	joinTimeout          time.Duration
	readyTimeout         time.Duration
	k8sJob, image        string
	namespace, secret    string
}

// coordOptions returns the coordinator's options for the command-line
// parser (benchmarking options: -i refuses them).
func (f *coordFlags) coordOptions() []bench.ExtraOption {
	seconds := func(dst *time.Duration, name string) func(string) error {
		return func(v string) error {
			d, err := parseTimeout(v)
			if err != nil {
				return fmt.Errorf("invalid value \"%s\" for option --%s (a duration such as 90s or 5m, or seconds, at least 1s)", v, name)
			}
			*dst = d
			return nil
		}
	}
	str := func(dst *string) func(string) error { return func(v string) error { *dst = v; return nil } }
	return []bench.ExtraOption{
		{Long: "listen", Arg: true, Bench: true, Set: str(&f.listen)},
		{Long: "expect-workers", Arg: true, Bench: true, Set: func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100000 {
				return fmt.Errorf("invalid value \"%s\" for option --expect-workers (1..100000)", v)
			}
			f.workers = n
			return nil
		}},
		{Long: "token", Arg: true, Bench: true, Set: str(&f.token)},
		{Long: "join-timeout", Arg: true, Bench: true, Set: seconds(&f.joinTimeout, "join-timeout")},
		{Long: "ready-timeout", Arg: true, Bench: true, Set: seconds(&f.readyTimeout, "ready-timeout")},
		{Long: "store", Arg: true, Bench: true, Set: str(&f.store)},
		{Long: "k8s-job", Arg: true, Bench: true, Set: str(&f.k8sJob)},
		{Long: "image", Arg: true, Bench: true, Set: str(&f.image)},
		{Long: "k8s-namespace", Arg: true, Bench: true, Set: str(&f.namespace)},
		{Long: "k8s-secret", Arg: true, Bench: true, Set: str(&f.secret)},
	}
}

// check refuses combinations that make no sense, before anything runs.
func (f *coordFlags) check() error {
	switch {
	case f.listen != "" && f.k8sJob != "":
		return fmt.Errorf("--listen and --k8s-job cannot be used together (--k8s-job prints manifests whose coordinator listens)")
	case (f.listen != "" || f.k8sJob != "") && f.workers == 0:
		return fmt.Errorf("--listen and --k8s-job need --expect-workers N")
	case f.workers > 0 && f.listen == "" && f.k8sJob == "":
		return fmt.Errorf("--expect-workers needs --listen ADDR (or --k8s-job NAME)")
	case f.k8sJob != "" && f.image == "":
		return fmt.Errorf("--k8s-job needs --image IMAGE (a container image with pglab on its PATH)")
	case f.k8sJob == "" && (f.image != "" || f.namespace != "" || f.secret != ""):
		return fmt.Errorf("--image, --k8s-namespace and --k8s-secret belong to --k8s-job")
	case f.listen == "" && f.k8sJob == "" && (f.token != "" || f.joinTimeout > 0 || f.readyTimeout > 0):
		return fmt.Errorf("--token, --join-timeout and --ready-timeout belong to --listen")
	}
	return nil
}

// tokenValue is --token, else $PGLAB_TOKEN.
func (f *coordFlags) tokenValue() string {
	if f.token != "" {
		return f.token
	}
	return os.Getenv("PGLAB_TOKEN")
}

// coordinate runs cfg as a coordinator of --expect-workers workers and
// prints the merged summary; it returns the exit code.
func (b *benchRun) coordinate(cfg bench.Config) int {
	env, f := b.env, &b.coord
	if _, err := dist.Split(cfg, f.workers); err != nil {
		return b.errorf("%s", err)
	}
	co, err := dist.Listen(dist.Options{Listen: f.listen, Workers: f.workers, Token: f.tokenValue(),
		JoinTimeout: f.joinTimeout, ReadyTimeout: f.readyTimeout, Version: buildinfo.Version,
		Stderr: env.Stderr, Stdout: env.Stdout, Quiet: env.Quiet || b.flags.json})
	if err != nil {
		return b.errorf("%s", err)
	}
	if !env.Quiet {
		fmt.Fprintf(env.Stderr, "%s: waiting for %d workers: pglab worker --join %s\n", benchProg, f.workers, co.Addr())
	}
	var out *dist.Outcome
	started := time.Now()
	err = co.Accept(env.Ctx)
	if err == nil {
		out, err = co.Run(env.Ctx, cfg)
	}
	var runErr *dist.RunError
	if errors.As(err, &runErr) {
		co.Close(err)
	} else {
		co.Close(nil)
	}
	if serr := b.storeCoordinated(cfg, started, out, err); serr != nil {
		b.errorf("%s", serr)
	}
	switch {
	case errors.As(err, &runErr):
		b.writeWorkers(out)
		b.errorf("%s", runErr.Msg)
		return exitAborted
	case err != nil && out == nil:
		return b.finish(nil, err)
	}
	var res *bench.Result
	if out != nil {
		res = out.Result
	}
	code := b.finish(res, err)
	if res != nil && !b.flags.json {
		b.writeWorkers(out)
	}
	return code
}

// writeWorkers prints one line per worker after the summary.
func (b *benchRun) writeWorkers(out *dist.Outcome) {
	if out == nil {
		return
	}
	for _, w := range out.Workers {
		fmt.Fprintln(b.env.Stdout, w.Line())
	}
}

// storeCoordinated keeps a coordinated run in the results store.
func (b *benchRun) storeCoordinated(cfg bench.Config, started time.Time, out *dist.Outcome, runErr error) error {
	return b.store(lab.BenchRun{Started: started, Config: cfg, Workers: b.coord.workers, Listen: b.coord.listen, Outcome: out, Err: runErr})
}

// store keeps a run of this command line in --store (lab.StoreBench) and
// says where.
func (b *benchRun) store(r lab.BenchRun) error {
	r.Store, r.Command, r.Interrupted = b.coord.store, append([]string{"pglab"}, b.env.Args...), b.env.Ctx.Err() != nil
	id, where, err := lab.StoreBench(context.WithoutCancel(b.env.Ctx), r)
	if err != nil {
		return err
	}
	if !b.env.Quiet && !b.flags.json {
		fmt.Fprintf(b.env.Stderr, "%s: run %s stored in %s\n", benchProg, id, where)
	}
	return nil
}
