package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
	"github.com/spf13/cobra"
)

func init() { register(30, newReportCmd) }

func newReportCmd(env *Env) *cobra.Command {
	var format, out, store string
	var alpha float64
	var verdict verdictFlags
	cmd := &cobra.Command{
		Use:   "report [RUN_ID ...] [--format md|html|json|csv|text|junit|github] [--out FILE|DIR] [--store PATH]",
		Short: "Render stored results as Markdown, HTML, JSON, CSV, JUnit XML or a GitHub job summary; two runs or more side by side",
		Long: `Render a stored run again — by default the newest ("last") — from the results store,
without touching any server. A run is named by its ID or an unambiguous prefix of it
(see 'pglab runs'). Name two runs or more to compare them: their targets become the
columns of one report (a target name found in several runs gets the run's short ID in
front, e.g. "c3d4/pg17"), each compared with the first.

Formats: md (Markdown, the default), html (one self-contained page with charts),
json (every figure and comparison, for tools), csv (one row per measurement, for
spreadsheets), text (the tables 'pglab study' prints), junit (JUnit XML: a test case
per cell compared, a failure per called regression), github (a GitHub Actions job
summary in Markdown, after an ::error or ::warning line per called regression).

--out FILE writes one file, its format taken from --format or the file's extension;
--out DIR (an existing directory, or a name ending in /) writes report.md,
report.html and report.json into it, or report.<ext> of the --format given.`,
		Example: `  pglab report
  pglab report 20261130-105022 --format html --out report.html
  pglab report last --out ./pglab-report/
  pglab report 8bd3 c3d4 --format md
  pglab report --format csv > measurements.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var formats []report.Format
			if cmd.Flags().Changed("format") {
				f, err := report.ParseFormat(format)
				if err != nil {
					return badInput("--format: %v", err)
				}
				formats = []report.Format{f}
			}
			if cmd.Flags().Changed("alpha") && (!(alpha > 0) || alpha >= 1) {
				return badInput("--alpha must be between 0 and 1 (exclusive): got %g", alpha)
			}
			var spec lab.Spec
			if err := verdict.fill(&spec); err != nil {
				return err
			}
			for _, a := range args {
				if strings.TrimSpace(a) == "" {
					return badInput("an empty run ID was given")
				}
			}
			dest, err := report.ParseOutput(out, formats)
			if err != nil {
				return asUsage(err)
			}
			st, err := openStore(env, store)
			if err != nil {
				return err
			}
			defer st.Close()
			d, err := runs.Load(env.Ctx, st, args...)
			if err != nil {
				if errors.Is(err, results.ErrNotFound) || errors.Is(err, results.ErrAmbiguous) || errors.Is(err, runs.ErrRunTwice) {
					return badInput("%v", err)
				}
				return err
			}
			d.Alpha, d.MinChange = alpha, spec.MinChange
			paths, err := dest.Write(env.Stdout, d, spec.FailOn == lab.FailOnRegression)
			if len(paths) > 0 && err == nil {
				fmt.Fprintf(env.Stdout, "wrote %s\n", strings.Join(paths, ", "))
			}
			if err != nil {
				return err
			}
			return verdict.tell(env, d, spec.FailOn, !dest.Printed())
		},
	}
	f := cmd.Flags()
	verdict.register(f)
	f.StringVar(&format, "format", "md", "output format: "+report.FormatNames())
	f.StringVar(&out, "out", "", "write to this file, or into this directory (report.md, report.html, report.json)")
	f.StringVar(&store, "store", "", "results store: an SQLite file path or a postgres:// DSN (default "+defaultStoreText()+")")
	f.Float64Var(&alpha, "alpha", 0, "significance level of the comparisons (default: the run's, else 0.05)")
	return cmd
}
