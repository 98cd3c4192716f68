package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

func init() { register(1, newCompareCmd) }

// compareFlags are compare's flags, as typed.
type compareFlags struct {
	targets lab.Args
	studies string
	params  []string
	quick   bool
	alpha   float64
	// aa compares two identical servers of the one version (--aa).
	aa bool
	// orderSeed repeats a run's order of targets within rounds.
	orderSeed uint64
	out       string
	// details prints every table on the terminal, not only the primary
	// ones.
	details bool
	verdict verdictFlags
}

func newCompareCmd(env *Env) *cobra.Command {
	var c compareFlags
	cmd := &cobra.Command{
		Use:   "compare --versions 16,17 [--studies all|vacuum,tps,...] [--quick] [--reps auto|N] [--budget 30m] [--out DIR]",
		Short: "Compare PostgreSQL versions (or servers, or configurations) across every study, with a report",
		Long: `The main job: start one managed server per version with identical initdb choices and
settings (installing missing versions), run the studies with repetitions interleaved
across servers, store the run, and write report.md, report.html and report.json.

Targets: --versions 16,17 (managed), --target NAME=DSN (your servers), or one version
under several configurations: --versions 17 --config a:shared_buffers=128MB
--config b:shared_buffers=1GB (one managed server per configuration).

Study parameters: --param study.name=value (e.g. --param vacuum.rows=1000000), or
--param name=value for every study that has it.`,
		Example: `  pglab compare --versions 16,17 --quick
  pglab compare --versions 16,17,18 --studies vacuum,copy-errors --reps 5
  pglab compare --versions 17 --config small:shared_buffers=128MB --config big:shared_buffers=1GB --studies tps
  pglab compare --aa --versions 17 --quick`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := c.spec()
			if err != nil {
				return err
			}
			return runCompare(env, spec, c.details, &c.verdict)
		},
	}
	f := cmd.Flags()
	registerTargetFlags(f, &c.targets)
	registerConnFlags(cmd, &c.targets.Conn)
	f.StringVar(&c.studies, "studies", "all", "studies to run: all, or a comma-separated list ("+strings.Join(study.Names(), ", ")+")")
	registerRepsFlags(f, &c.targets)
	f.BoolVar(&c.quick, "quick", false, "every study's quick parameter values: the whole comparison in minutes")
	f.StringArrayVar(&c.params, "param", nil, "study parameter study.name=value or name=value (repeatable)")
	f.StringArrayVar(&c.targets.Configs, "config", nil, "a configuration NAME:k=v,k=v of one managed version (repeatable; one server each)")
	f.StringVar(&c.out, "out", lab.DefaultOut, "directory for report.md, report.html and report.json")
	f.Float64Var(&c.alpha, "alpha", 0.05, "significance level of the comparisons")
	c.verdict.register(f)
	f.BoolVar(&c.aa, "aa", false, "an A/A run: two identical managed servers a and b of the one version given (--versions 17), to calibrate: its report should call no change")
	f.Uint64Var(&c.orderSeed, "order-seed", 0, "seed of the order of the targets within each round (default: a new one; every report records the seed its run used)")
	f.BoolVar(&c.details, "details", false, "print every table (further metrics, the servers' output), not only the summary, the setup and the primary tables; the files always have everything")
	return cmd
}

// spec turns compare's flags into the comparison they describe.
func (c *compareFlags) spec() (*lab.Spec, error) {
	if c.alpha <= 0 || c.alpha >= 1 {
		return nil, badInput("--alpha must be in (0, 1): got %v", c.alpha)
	}
	names, err := lab.StudyNames(c.studies)
	if err != nil {
		return nil, err
	}
	runs, err := lab.Studies(names, c.params, c.quick)
	if err != nil {
		return nil, err
	}
	spec := &lab.Spec{Studies: runs, Quick: c.quick, Alpha: c.alpha, AA: c.aa, OrderSeed: c.orderSeed, Out: c.out}
	if err := c.targets.Fill(spec); err != nil {
		return nil, err
	}
	return spec, c.verdict.fill(spec)
}

// runCompare runs a comparison (of compare's flags or a plan file) and
// writes its reports.
func runCompare(env *Env, spec *lab.Spec, details bool, verdict *verdictFlags) error {
	kind := results.KindCompare
	if spec.Plan != "" {
		kind = results.KindPlan
	}
	res, err := env.runLab(spec, kind)
	if res != nil && res.Measured() > 0 {
		out := spec.Out
		if out == "" {
			out = lab.DefaultOut
		}
		ds, werr := writeCompareReports(env, spec, res.RunID, out, details)
		if werr != nil {
			return werr
		}
		fmt.Fprintf(env.Stderr, "pglab: run %s stored in %s; reports in %s\n", res.RunID, storeLocation(spec.Store), out)
		// What was measured is told to CI also when the run failed;
		// its failure decides the exit code.
		if terr := verdict.tell(env, ds, spec.FailOn, true); err == nil {
			err = terr
		}
	}
	return err
}

// writeCompareReports renders the stored run into dir (report.md,
// report.html, report.json) and prints the Markdown report: its summary,
// setup and primary tables, or everything with details. It returns the
// report's dataset.
func writeCompareReports(env *Env, spec *lab.Spec, runID, dir string, details bool) (*runs.Dataset, error) {
	ctx := context.WithoutCancel(env.Ctx)
	st, err := results.OpenReadOnly(ctx, spec.Store)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ds, err := runs.Load(ctx, st, runID)
	if err != nil {
		return nil, err
	}
	ds.Alpha, ds.MinChange = spec.Alpha, spec.MinChange
	if _, err := report.WriteDir(dir, ds); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	return ds, report.WriteMarkdownOpts(env.Stdout, ds, view.Options{Brief: !details})
}
