package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

func init() { register(1, newCompareCmd) }

// compareSpec is a comparison to run: from compare's flags or a plan
// file.
type compareSpec struct {
	name    string
	flags   targetFlags
	studies []string
	params  []paramArg
	configs []string
	reps    int
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
	// planParser is set for plans, to point errors at their lines.
	planParser *planParser
}

func newCompareCmd(env *Env) *cobra.Command {
	var spec compareSpec
	var studies string
	var params []string
	cmd := &cobra.Command{
		Use:   "compare --versions 16,17 [--studies all|vacuum,tps,...] [--quick] [--reps N] [--out DIR]",
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
			spec.studies = strings.Split(studies, ",")
			for _, p := range params {
				spec.params = append(spec.params, paramArg{text: p})
			}
			return runCompare(env, &spec)
		},
	}
	f := cmd.Flags()
	spec.flags.register(f)
	f.StringVar(&studies, "studies", "all", "studies to run: all, or a comma-separated list ("+strings.Join(study.Names(), ", ")+")")
	f.IntVar(&spec.reps, "reps", 0, "repetitions per case and target (default: each study's)")
	f.BoolVar(&spec.quick, "quick", false, "every study's quick parameter values: the whole comparison in minutes")
	f.StringArrayVar(&params, "param", nil, "study parameter study.name=value or name=value (repeatable)")
	f.StringArrayVar(&spec.configs, "config", nil, "a configuration NAME:k=v,k=v of one managed version (repeatable; one server each)")
	f.StringVar(&spec.out, "out", "pglab-report", "directory for report.md, report.html and report.json")
	f.Float64Var(&spec.alpha, "alpha", 0.05, "significance level of the comparisons")
	f.BoolVar(&spec.aa, "aa", false, "an A/A run: two identical managed servers a and b of the one version given (--versions 17), to calibrate: its report should call no change")
	f.Uint64Var(&spec.orderSeed, "order-seed", 0, "seed of the order of the targets within each round (default: a new one; every report records the seed its run used)")
	f.BoolVar(&spec.details, "details", false, "print every table (further metrics, the servers' output), not only the summary, the setup and the primary tables; the files always have everything")
	return cmd
}

// runCompare validates a comparison, runs it and writes its reports.
func runCompare(env *Env, spec *compareSpec) error {
	if spec.reps < 0 {
		return badInput("--reps must be at least 1: got %d", spec.reps)
	}
	if spec.alpha <= 0 || spec.alpha >= 1 {
		return badInput("--alpha must be in (0, 1): got %v", spec.alpha)
	}
	names, err := lab.StudyNames(strings.Join(spec.studies, ","))
	if err != nil {
		return labError(err)
	}
	var args []string
	for _, p := range spec.params {
		args = append(args, p.text)
	}
	runs, err := lab.Studies(names, args, spec.quick)
	if err != nil {
		return spec.paramError(labError(err))
	}
	tf := spec.flags
	if len(spec.configs) > 0 {
		if err := expandConfigs(&tf, spec.configs); err != nil {
			return err
		}
	}
	ls := &lab.Spec{Name: spec.name, Studies: runs, Reps: spec.reps, Quick: spec.quick, Alpha: spec.alpha, AA: spec.aa, OrderSeed: spec.orderSeed}
	err = tf.fill(ls)
	out := spec.out
	if out == "" {
		out = "pglab-report"
	}
	extra := map[string]any{"studies": names, "quick": spec.quick, "reps": spec.reps, "checksums": ls.Checksums, "alpha": spec.alpha}
	if spec.aa {
		extra["aa"] = true
	}
	if spec.name != "" {
		extra["name"] = spec.name
	}
	if spec.planParser != nil {
		extra["plan"] = spec.planParser.file
	}
	kind := results.KindCompare
	if spec.planParser != nil {
		kind = results.KindPlan
	}
	var l *lab.Lab
	if err == nil {
		l, err = env.newLab(ls, kind, extra)
	}
	if err != nil {
		if spec.planParser != nil {
			var ee *ExitError
			if errors.As(err, &ee) {
				return &ExitError{Code: ee.Code, Err: &planError{file: spec.planParser.file, msg: ee.Err.Error()}}
			}
		}
		return err
	}
	if err := env.openLab(l); err != nil {
		return err
	}
	runID := l.Run.ID()
	measured, runErr := l.RunStudies(env.Ctx)
	closeErr := env.closeLab(l, runErr)
	if measured > 0 {
		if err := writeCompareReports(env, ls.Store, runID, out, spec.alpha, spec.details); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "pglab: run %s stored in %s; reports in %s\n", runID, storeLocation(ls.Store), out)
	}
	if runErr != nil {
		return runErr
	}
	return closeErr
}

// expandConfigs turns --config NAME:k=v,... into one managed target per
// configuration of the single version given.
func expandConfigs(tf *targetFlags, configs []string) error {
	if len(tf.targets) > 0 {
		return badInput("--config applies to a managed version (--versions N), not to --target servers")
	}
	vs := strings.Split(tf.versions, ",")
	if tf.versions == "" || len(vs) != 1 {
		return badInput("--config needs exactly one version: --versions 17 --config a:k=v --config b:k=v")
	}
	spec, err := pgserver.ParseVersionSpec(vs[0])
	if err != nil {
		return badInput("--versions: %v", err)
	}
	tf.versions = ""
	for _, c := range configs {
		name, sets, ok := strings.Cut(c, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return badInput("--config %q: want NAME:name=value,name=value", c)
		}
		var list []string
		for _, kv := range strings.Split(sets, ",") {
			if strings.TrimSpace(kv) != "" {
				list = append(list, kv)
			}
		}
		if _, err := pgserver.ParseSettings(list); err != nil {
			return badInput("--config %s: %v", name, err)
		}
		tf.configs = append(tf.configs, configSpec{name: strings.TrimSpace(name), version: spec, settings: list})
	}
	return nil
}

// writeCompareReports renders the stored run into dir (report.md,
// report.html, report.json) and prints the Markdown report: its summary,
// setup and primary tables, or everything with details.
func writeCompareReports(env *Env, store, runID, dir string, alpha float64, details bool) error {
	ctx := context.WithoutCancel(env.Ctx)
	st, err := results.OpenReadOnly(ctx, store)
	if err != nil {
		return err
	}
	defer st.Close()
	ds, err := report.Load(ctx, st, runID)
	if err != nil {
		return err
	}
	ds.Alpha = alpha
	if _, err := report.WriteDir(dir, ds); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	return report.WriteMarkdownOpts(env.Stdout, ds, report.Options{Brief: !details})
}
