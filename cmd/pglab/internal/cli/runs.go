package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/results"
	"github.com/spf13/cobra"
)

func init() { register(31, newRunsCmd) }

func newRunsCmd(env *Env) *cobra.Command {
	var limit int
	var store string
	cmd := &cobra.Command{
		Use:   "runs [--limit N] [--store PATH]",
		Short: "List the runs in the results store, newest first",
		Long: `List the runs kept in the results store, newest first: ID, kind, status, when it
started, how long it took, its targets and its studies. Give an ID (or a prefix of it)
to 'pglab report' to render a run again, or two to compare them.`,
		Example: `  pglab runs
  pglab runs --limit 5 --store ./lab.db`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badInput("runs takes no arguments: got %q (to render a run: pglab report %s)", strings.Join(args, " "), args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return badInput("--limit must be 0 (all) or more: got %d", limit)
			}
			st, err := openStore(env, store)
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := st.Runs(env.Ctx, results.RunFilter{Limit: limit})
			if err != nil {
				return err
			}
			if len(runs) == 0 {
				fmt.Fprintf(env.Stdout, "no runs in %s\n", st.Location())
				return nil
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tSTARTED\tDURATION\tTARGETS\tSTUDIES")
			for _, r := range runs {
				targets, err := st.Targets(env.Ctx, r.ID)
				if err != nil {
					return err
				}
				names := make([]string, len(targets))
				for i, t := range targets {
					names[i] = t.Name
				}
				studies, err := st.RunStudies(env.Ctx, r)
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, r.Status,
					r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), r.Took(),
					orNone(strings.Join(names, ",")), orNone(strings.Join(studies, ",")))
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.IntVar(&limit, "limit", 20, "show at most this many runs (0: all)")
	f.StringVar(&store, "store", "", "results store: an SQLite file path or a postgres:// DSN (default "+defaultStoreText()+")")
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
