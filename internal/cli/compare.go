package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

func init() { register(1, newCompareCmd) }

// compareExcluded are studies that compare something else than servers
// (the tune study compares configurations of one server) and are not part
// of "all".
var compareExcluded = map[string]bool{"tune": true}

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
	out     string
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
  pglab compare --versions 17 --config small:shared_buffers=128MB --config big:shared_buffers=1GB --studies tps`,
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
	names, err := compareStudies(strings.Join(spec.studies, ","))
	if err != nil {
		return err
	}
	var args []string
	for _, p := range spec.params {
		args = append(args, p.text)
	}
	plans, err := compareParams(names, args, spec.quick)
	if err != nil {
		return spec.paramError(err)
	}
	tf := spec.flags
	if len(spec.configs) > 0 {
		if err := expandConfigs(&tf, spec.configs); err != nil {
			return err
		}
	}
	l, err := parseLab(env, &tf)
	if err != nil {
		if spec.planParser != nil {
			var ee *ExitError
			if errors.As(err, &ee) {
				return &ExitError{Code: ee.Code, Err: &planError{file: spec.planParser.file, msg: ee.Err.Error()}}
			}
		}
		return err
	}
	out := spec.out
	if out == "" {
		out = "pglab-report"
	}
	extra := map[string]any{"studies": names, "quick": spec.quick, "reps": spec.reps, "checksums": l.checksums, "alpha": spec.alpha}
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
	if err := l.open(env.Ctx, kind, extra); err != nil {
		return err
	}
	runID := l.Run.ID()
	r := l.runner(spec.reps, spec.quick)
	measured := 0
	var runErr error
	for _, p := range plans {
		o, err := r.Run(env.Ctx, p.study, p.params)
		if o != nil {
			measured += len(o.Measurements)
		}
		if err != nil {
			runErr = err
			break
		}
	}
	closeErr := l.close(kind, runErr)
	if measured > 0 {
		if err := writeCompareReports(env, l.flags.store, runID, out, spec.alpha, spec.details); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "pglab: run %s stored in %s; reports in %s\n", runID, l.storeLocation(), out)
	}
	if runErr != nil {
		return runErr
	}
	return closeErr
}

// compareStudies resolves --studies to study names.
func compareStudies(spec string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		var out []string
		for _, n := range study.Names() {
			if !compareExcluded[n] {
				out = append(out, n)
			}
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(spec, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		if _, err := study.Get(n); err != nil {
			return nil, badInput("--studies: %v", err)
		}
		seen[n] = true
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, badInput("--studies: name at least one study")
	}
	return out, nil
}

type studyPlan struct {
	study  study.Study
	params study.Params
}

// compareParams parses --param values (study.name=value or name=value) and
// each study's parameters.
func compareParams(names []string, args []string, quick bool) ([]studyPlan, error) {
	kv, err := study.ParseParamArgs(args)
	if err != nil {
		return nil, badInput("%v", err)
	}
	per := map[string]map[string]string{}
	used := map[string]bool{}
	for _, n := range names {
		per[n] = map[string]string{}
	}
	for key, v := range kv {
		if s, name, ok := strings.Cut(key, "."); ok && !strings.Contains(name, ".") {
			if _, known := per[s]; !known {
				return nil, badInput("--param %s: study %q is not in this comparison (%s)", key, s, strings.Join(names, ", "))
			}
			per[s][name] = v
			used[key] = true
		}
	}
	var plans []studyPlan
	for _, n := range names {
		st, _ := study.Get(n)
		info := st.Info()
		for key, v := range kv {
			if strings.Contains(key, ".") {
				continue
			}
			for _, p := range info.Params {
				if p.Name == key {
					if _, set := per[n][key]; !set {
						per[n][key] = v
					}
					used[key] = true
				}
			}
		}
		pv, err := study.ParseParams(n, info.Params, per[n], quick)
		if err != nil {
			return nil, badInput("%v", err)
		}
		if _, err := st.Plan(pv); err != nil {
			return nil, badInput("study %s: %v", n, err)
		}
		plans = append(plans, studyPlan{st, pv})
	}
	var unused []string
	for key := range kv {
		if !used[key] {
			unused = append(unused, key)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return nil, badInput("--param %s: no study in this comparison has that parameter", unused[0])
	}
	return plans, nil
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
