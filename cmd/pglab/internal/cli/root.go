// Package cli implements pglab's command line: one file per command, each
// turning flags into calls of the packages below it. Nothing here measures,
// stores or formats results itself.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/spf13/cobra"
)

// Env is what every command gets: its streams and the context that is
// cancelled on SIGINT or SIGTERM.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Args is the command line as typed (without the program name); studies
	// store it in the run manifest after redaction.
	Args []string
	// PgBin is the --pg-bin directory searched first for server binaries.
	PgBin string
	// Quiet suppresses progress lines on stderr.
	Quiet bool

	progressUI *progressUI
}

// commandFactory builds one top-level command. Files of this package add
// theirs with register in an init function, so that adding a command never
// edits another command's file.
type commandFactory struct {
	order int
	build func(*Env) *cobra.Command
}

var factories []commandFactory

// register adds a top-level command. order sorts commands in --help (lower
// first); ties sort by name.
func register(order int, build func(*Env) *cobra.Command) {
	factories = append(factories, commandFactory{order: order, build: build})
}

// Main runs pglab with args and returns the process exit code (see the
// table in errors.go): 0 on success, 1 for a failed run, 2 for an aborted
// load, 3 for a regression under --fail-on, 64 for a refused command
// line, 70 for a bug, and 130/143 when interrupted by SIGINT/SIGTERM.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "pglab: internal error: %v (please report this%s)\n", r, crashFile(r))
			code = exitInternal
		}
	}()
	ctx, stopSignals, caught := withSignals(ctx)
	defer stopSignals()

	env := &Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, Args: args}
	root := newRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var ee *ExitError
	silent := errors.As(err, &ee) && (ee.Silent || ee.Err == nil)
	if sig := caught(); sig != nil {
		if err != nil && !errors.Is(err, context.Canceled) && !silent {
			fmt.Fprintf(stderr, "pglab: %s\n", oneLine(err))
		}
		fmt.Fprintf(stderr, "pglab: interrupted by %s\n", sigName(sig))
		if sig == syscall.SIGTERM {
			return exitSIGTERM
		}
		return exitSIGINT
	}
	if err != nil && !silent {
		fmt.Fprintf(stderr, "pglab: %s\n", oneLine(err))
	}
	return exitCode(err)
}

// oneLine keeps an error on one line unless it deliberately carries more
// (server logs quoted after a blank line are kept).
func oneLine(err error) string {
	return strings.TrimRight(err.Error(), "\n")
}

func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// withSignals returns a context cancelled by the first SIGINT or SIGTERM,
// and a function telling which signal (if any) arrived.
func withSignals(parent context.Context) (context.Context, func(), func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	var mu sync.Mutex
	var got os.Signal
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			mu.Lock()
			got = s
			mu.Unlock()
			cancel()
		case <-done:
		}
	}()
	stop := func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
	caught := func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	return ctx, stop, caught
}

func newRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "pglab",
		Short: "A PostgreSQL performance lab: managed servers, a pgbench-compatible engine, studies and reports",
		Long: `pglab compares PostgreSQL versions and configurations end to end: it starts the
servers to compare (or uses yours), runs the same workloads on each with the same
setup, reads the server's own counters, repeats and interleaves runs, and writes a
report that says which differences are real.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.String(),
		RunE:          func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			noteDeprecated(env.Stderr, cmd)
		},
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate("pglab {{.Version}}\n")
	root.Args = unknownCommand
	root.PersistentFlags().StringVar(&env.PgBin, "pg-bin", "", "directory of PostgreSQL server binaries, searched first")
	root.PersistentFlags().BoolVar(&env.Quiet, "quiet", false, "no progress lines on stderr")

	sorted := append([]commandFactory(nil), factories...)
	cmds := make([]*cobra.Command, 0, len(sorted))
	for _, f := range sorted {
		cmds = append(cmds, f.build(env))
	}
	orders := map[*cobra.Command]int{}
	for i, c := range cmds {
		orders[c] = sorted[i].order
	}
	sort.SliceStable(cmds, func(i, j int) bool {
		if orders[cmds[i]] != orders[cmds[j]] {
			return orders[cmds[i]] < orders[cmds[j]]
		}
		return cmds[i].Name() < cmds[j].Name()
	})
	cobra.EnableCommandSorting = false
	for _, c := range cmds {
		root.AddCommand(c)
	}
	root.InitDefaultCompletionCmd()
	setCompletions(root)
	setFlagErrors(root)
	return root
}

// setFlagErrors makes every error of c and its children about their flags
// and arguments a usage error (one line, exit 64).
func setFlagErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return commandUsage(c, err) })
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error { return asUsage(check(cmd, args)) }
	}
	for _, sub := range c.Commands() {
		setFlagErrors(sub)
	}
}

// commandUsage is a usage error of command c that says where its help is.
func commandUsage(c *cobra.Command, err error) error {
	return &usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
}

// unknownCommand refuses the words after pglab that name no command.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return commandUsage(c, errors.New(msg))
}

// crashFile writes where an internal error happened (the goroutine's
// stack) to a file in the temporary directory and returns ", with FILE"
// for the line that reports it; empty when it cannot be written.
func crashFile(r any) string {
	f, err := os.CreateTemp("", "pglab-crash-*.txt")
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "pglab %s: %v\n\n%s", buildinfo.String(), r, debug.Stack()); err != nil {
		return ""
	}
	return ", with " + f.Name()
}
