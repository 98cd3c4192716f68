package cli

import (
	"fmt"
	"strings"

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
			if err := pgserver.WriteCachedBuilds(env.Stdout, env.finder().All(env.Ctx)); err != nil {
				return err
			}
			list, err := c.List()
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout)
			return dataset.WriteList(env.Stdout, c.Dir, list, limit)
		},
	}
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
			if !builds {
				return nil
			}
			rb, err := pgserver.RemoveCachedBuilds()
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "removed %d PostgreSQL builds (%s) from %s\n", rb.Builds, dataset.FormatSize(rb.Bytes), rb.Dir)
			return nil
		},
	}
	cmd.Flags().BoolVar(&builds, "builds", false, "also remove the PostgreSQL builds (installed again on next use)")
	return cmd
}
