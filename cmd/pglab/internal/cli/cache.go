package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/spf13/cobra"
)

func init() { register(55, newCacheCmd) }

func newCacheCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Show or empty what pglab keeps between runs: PostgreSQL builds and datasets",
		Long: `pglab keeps two things between runs in its cache directory: the PostgreSQL builds that
'pglab pg install' (or compare) installed, and the studies' datasets — each built once per
server build, initdb choices and definition, kept as a stopped data directory, and cloned
for every repetition that needs fresh data. The datasets are kept under a size limit
(--cache-limit of compare, study and plan, or $` + dataset.LimitEnv + `; default 40GB): beyond it
the least recently used are removed.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCacheListCmd(env), newCacheClearCmd(env))
	return cmd
}

func newCacheListCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the PostgreSQL builds and the datasets in pglab's cache",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := dataset.Open("", 0)
			if err != nil {
				return err
			}
			limit, err := dataset.LimitFromEnv()
			if err != nil {
				return badInput("%v", err)
			}
			env.printBuilds()
			list, err := c.List()
			if err != nil {
				return err
			}
			printDatasets(env, c.Dir, list, limit)
			return nil
		},
	}
}

// printBuilds lists the PostgreSQL builds in the cache.
func (env *Env) printBuilds() {
	dir := pgserver.CacheDir()
	fmt.Fprintf(env.Stdout, "PostgreSQL builds (%s):\n", dir)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSIZE\tDIRECTORY")
	n := 0
	for _, b := range env.finder().All(env.Ctx) {
		if b.Source != "cache" {
			continue
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Version, dataset.FormatSize(treeSize(filepath.Dir(b.Dir))), filepath.Dir(b.Dir))
	}
	if n == 0 {
		fmt.Fprintln(tw, "(none)\t\t")
	}
	tw.Flush()
}

// printDatasets lists the dataset entries, most recently used first.
func printDatasets(env *Env, dir string, list []dataset.Info, limit int64) {
	lim := "no limit"
	if limit > 0 {
		lim = "limit " + dataset.FormatSize(limit)
	}
	fmt.Fprintf(env.Stdout, "\nDatasets (%s; %s):\n", dir, lim)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDATASET\tPOSTGRESQL\tINITDB\tSIZE\tBUILT\tLAST USED\tSTATE")
	for _, in := range list {
		state := "complete"
		if !in.Complete {
			state = "incomplete (never used)"
		}
		if in.InUse {
			state += ", in use"
		}
		name, version, initdb := "?", "?", ""
		if in.Complete {
			name = in.Key.Dataset + " " + strings.Join(in.Key.Params, " ")
			version, initdb = in.Key.Version, strings.Join(in.Key.Initdb, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.ID, name, version, initdb, dataset.FormatSize(in.Bytes),
			stamp(in.Created), stamp(in.LastUsed), state)
	}
	if len(list) == 0 {
		fmt.Fprintln(tw, "(none)\t\t\t\t\t\t\t")
	}
	tw.Flush()
	fmt.Fprintf(env.Stdout, "%d datasets, %s\n", len(list), dataset.FormatSize(dataset.Total(list)))
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// treeSize adds up the sizes of the regular files under dir.
func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func newCacheClearCmd(env *Env) *cobra.Command {
	var builds bool
	cmd := &cobra.Command{
		Use:   "clear [--builds]",
		Short: "Remove the datasets no pglab process is using (--builds: the PostgreSQL builds too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := dataset.Open("", 0)
			if err != nil {
				return err
			}
			r, err := c.Clear()
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "removed %d datasets (%s) from %s\n", r.Entries, dataset.FormatSize(r.Bytes), c.Dir)
			if len(r.Kept) > 0 {
				fmt.Fprintf(env.Stdout, "kept %d in use by a running pglab: %s\n", len(r.Kept), strings.Join(r.Kept, ", "))
			}
			if builds {
				return env.clearBuilds()
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&builds, "builds", false, "also remove the PostgreSQL builds (installed again on next use)")
	return cmd
}

// clearBuilds removes the PostgreSQL builds of the cache.
func (env *Env) clearBuilds() error {
	dir := pgserver.CacheDir()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var size int64
	n := 0
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		size += treeSize(p)
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove %s: %w", p, err)
		}
		n++
	}
	fmt.Fprintf(env.Stdout, "removed %d PostgreSQL builds (%s) from %s\n", n, dataset.FormatSize(size), dir)
	return nil
}
