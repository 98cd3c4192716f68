package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/redact"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

func init() { register(20, newStudyCmd) }

func newStudyCmd(env *Env) *cobra.Command {
	var tf lab.Args
	var verdict verdictFlags
	var quick, asJSON, details bool
	var params []string
	cmd := &cobra.Command{
		Use:   "study NAME (--versions 16,17 | --target NAME=DSN ...) [--reps auto|N] [--quick] [--param k=v ...] [--set k=v ...] [--json] [--fail-on regression] [--junit FILE]",
		Short: "Run one study on one or more servers and store the results",
		Long: `Run one study — an experiment of the seed articles — on every target with the same
steps, repeated and interleaved across targets, reading the server's own counters,
and store every measurement. Managed servers (--versions) are started for the run,
with the study's settings, and removed afterwards; on your own server (--target
NAME=DSN) the study works in a schema "pglab" and changes no server-wide setting.

Studies:
` + study.Catalogue(),
		Example: `  pglab study vacuum --versions 16,17 --reps 3
  pglab study commit --versions 17
  pglab study copy-errors --versions 16,17,18
  pglab study vacuum --target prod=postgres://me@db/lab --param rows=100000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("study: name one study (%s)", strings.Join(study.Names(), ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := lab.OneStudy(args[0], params, quick)
			if err != nil {
				return err
			}
			spec := &lab.Spec{Quick: quick, Studies: []lab.StudyRun{run}}
			if err := tf.Fill(spec); err != nil {
				return err
			}
			if err := verdict.fill(spec); err != nil {
				return err
			}
			res, err := env.runLab(spec, results.KindStudy)
			if res == nil || len(res.Outcomes) == 0 || !res.Finished && res.Measured() == 0 {
				return err
			}
			ds := resultDataset(res)
			ds.MinChange = spec.MinChange
			var werr error
			if asJSON {
				runErr := err
				if res.Finished {
					runErr = nil // closing failed, not the study
				}
				werr = writeStudyJSON(env.Stdout, ds, res, runErr)
			} else {
				werr = writeStudyText(env.Stdout, ds, res, storeLocation(spec.Store), details)
			}
			if werr == nil {
				ds.Run.ID = res.RunID
				if terr := verdict.tell(env, ds, spec.FailOn, true); err == nil {
					werr = terr // a failed run's exit code is its failure's
				}
			}
			if werr != nil {
				return werr
			}
			return err
		},
	}
	f := cmd.Flags()
	registerTargetFlags(f, &tf)
	registerConnFlags(cmd, &tf.Conn)
	registerRepsFlags(f, &tf)
	verdict.register(f)
	f.BoolVar(&quick, "quick", false, "the study's quick parameter values: a short run")
	f.StringArrayVar(&params, "param", nil, "study parameter name=value (repeatable; see 'pglab study list')")
	f.BoolVar(&asJSON, "json", false, "print one JSON document with every measurement instead of tables")
	f.BoolVar(&details, "details", false, "print every metric, not only each case's primary ones (pglab report RUN shows them too)")
	cmd.AddCommand(newStudyListCmd(env))
	return cmd
}

func newStudyListCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List studies with their parameters, defaults and --quick values",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return study.WriteParams(env.Stdout)
		},
	}
}

// writeStudyText prints a study's outcome: what ran where, the set-up
// notes, then each case's primary metrics (every metric with details).
func writeStudyText(w io.Writer, ds *runs.Dataset, res *lab.Result, store string, details bool) error {
	out := res.Outcomes[0]
	info := out.Info
	fmt.Fprintf(w, "%s — %s (%s)\n%d repetition(s); run %s stored in %s\n", info.Name, info.Title, info.Source, out.Reps, res.RunID, store)
	if err := res.WriteSetup(w); err != nil {
		return err
	}
	return report.WriteTextOpts(w, ds, view.Options{Brief: !details})
}

// writeStudyJSON prints the study's outcome, ds, as one JSON document
// (report.WriteStudyJSON), the set-up notes first; runErr is the study's
// error, if it failed.
func writeStudyJSON(w io.Writer, ds *runs.Dataset, res *lab.Result, runErr error) error {
	d := *ds
	ds = &d
	ds.Run = results.RunRecord{RunInfo: results.RunInfo{ID: res.RunID}, Status: results.StatusDone}
	if runErr != nil {
		ds.Run.Status, ds.Run.Error = results.StatusFailed, redact.Text(runErr.Error())
	}
	var setup []runs.Note
	for _, n := range res.Notes {
		setup = append(setup, runs.Note{Study: res.Outcomes[0].Study, Target: n.Target, Text: n.Text})
	}
	ds.Notes = append(setup, ds.Notes...)
	return report.WriteStudyJSON(w, ds)
}

// resultDataset returns what a comparison's studies measured as a report's dataset, as
// they produced it: their measurements, notes and descriptions, and the
// targets. (A report of the stored run, runs.Load, has the run's
// manifest, timings and texts too.)
func resultDataset(r *lab.Result) *runs.Dataset {
	ds := &runs.Dataset{Targets: r.Targets}
	for _, o := range r.Outcomes {
		ds.Measurements = append(ds.Measurements, o.Measurements...)
		for _, n := range o.Notes {
			ds.Notes = append(ds.Notes, runs.Note{Study: o.Study, Case: n.Case.Labels, Target: n.Target, Text: n.Text, Outcome: n.Outcome, Rep: n.Rep, Metric: n.Metric})
		}
		ds.Studies = append(ds.Studies, storedStudyInfo(o))
		sr := results.StudyReps{Study: o.Study, Looks: o.Looks}
		for _, c := range o.CaseReps {
			sr.Cases = append(sr.Cases, results.CaseReps{Name: c.Case.Name, Labels: c.Case.Labels, N: c.N, Reason: c.Reason})
		}
		ds.Reps = append(ds.Reps, sr)
	}
	return ds
}

// storedStudyInfo describes a study's outcome as reports show it: its cases'
// names and its presentation.
func storedStudyInfo(o *study.Outcome) runs.StudyInfo {
	return o.Info.Stored(o.Params, o.Plan, o.Reps)
}
