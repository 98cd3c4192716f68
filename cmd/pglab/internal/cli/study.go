package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/spf13/cobra"
)

func init() { register(20, newStudyCmd) }

func newStudyCmd(env *Env) *cobra.Command {
	var tf targetFlags
	var reps int
	var quick, asJSON, details bool
	var params []string
	cmd := &cobra.Command{
		Use:   "study NAME (--versions 16,17 | --target NAME=DSN ...) [--reps N] [--quick] [--param k=v ...] [--set k=v ...] [--json]",
		Short: "Run one study on one or more servers and store the results",
		Long: `Run one study — an experiment of the seed articles — on every target with the same
steps, repeated and interleaved across targets, reading the server's own counters,
and store every measurement. Managed servers (--versions) are started for the run,
with the study's settings, and removed afterwards; on your own server (--target
NAME=DSN) the study works in a schema "pglab" and changes no server-wide setting.

Studies:
` + studyList(),
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
			st, err := study.Get(args[0])
			if err != nil {
				return badInput("%v", err)
			}
			if reps < 0 {
				return badInput("--reps must be at least 1: got %d", reps)
			}
			overrides, err := study.ParseParamArgs(params)
			if err != nil {
				return badInput("%v", err)
			}
			info := st.Info()
			pv, err := study.ParseParams(info.Name, info.Params, overrides, quick)
			if err != nil {
				return badInput("%v", err)
			}
			if _, err := st.Plan(pv); err != nil {
				return badInput("study %s: %v", info.Name, err)
			}
			spec := &lab.Spec{Reps: reps, Quick: quick, Studies: []lab.StudyRun{{Study: st, Params: pv}}}
			if err := tf.fill(spec); err != nil {
				return err
			}
			extra := map[string]any{"study": info.Name, "params": pv.Text(), "quick": quick, "reps": reps, "checksums": spec.Checksums}
			l, err := env.newLab(spec, results.KindStudy, extra)
			if err != nil {
				return err
			}
			if c, ok := st.(study.Configurer); ok {
				variants, err := l.ExpandVariants(c, pv)
				if err != nil {
					return labError(err)
				}
				notes := map[string]string{}
				for _, v := range variants {
					notes[v.Name] = v.Note
					if p := env.progress(); p != nil {
						p(fmt.Sprintf("%s: %s", v.Name, v.Note))
					}
				}
				extra["variants"] = notes
			}
			if err := env.openLab(l); err != nil {
				return err
			}
			out, runErr := l.RunStudy(env.Ctx, l.Runner(), st, pv)
			runID := l.Run.ID()
			targets := make([]results.Target, len(l.Targets))
			for i, t := range l.Targets {
				targets[i] = results.Target{Name: t.Name, ServerVersion: t.Version, ServerVersionNum: t.VersionNum, DataChecksums: t.Checksums, Conn: t.Redacted(), Extra: envExtra(t)}
			}
			closeErr := env.closeLab(l, runErr)
			if out != nil && (runErr == nil || len(out.Measurements) > 0) {
				if asJSON {
					if err := writeStudyJSON(env.Stdout, runID, targets, out, l.Notes, runErr); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(env.Stdout, "%s — %s (%s)\n%d repetition(s); run %s stored in %s\n", info.Name, info.Title, info.Source, out.Reps, runID, storeLocation(spec.Store))
					writeTargetsLine(env.Stdout, targets)
					for _, n := range noteLines(l) {
						fmt.Fprintf(env.Stdout, "  note: %s\n", n)
					}
					ds := &report.Dataset{Targets: targets, Measurements: out.Measurements}
					for _, n := range out.Notes {
						ds.Notes = append(ds.Notes, report.Note{Study: out.Study, Case: n.Case.Labels, Target: n.Target, Text: n.Text, Outcome: n.Outcome, Rep: n.Rep, Metric: n.Metric})
					}
					ds.Studies = []report.StudyInfo{studyInfoOf(out)}
					if err := report.WriteTextOpts(env.Stdout, ds, report.Options{Brief: !details}); err != nil {
						return err
					}
				}
			}
			if runErr != nil {
				return runErr
			}
			return closeErr
		},
	}
	f := cmd.Flags()
	tf.register(f)
	f.IntVar(&reps, "reps", 0, "repetitions per case and target (default: the study's)")
	f.BoolVar(&quick, "quick", false, "the study's quick parameter values: a short run")
	f.StringArrayVar(&params, "param", nil, "study parameter name=value (repeatable; see 'pglab study list')")
	f.BoolVar(&asJSON, "json", false, "print one JSON document with every measurement instead of tables")
	f.BoolVar(&details, "details", false, "print every metric, not only each case's primary ones (pglab report RUN shows them too)")
	cmd.AddCommand(newStudyListCmd(env))
	return cmd
}

func studyList() string {
	var b strings.Builder
	for _, n := range study.Names() {
		st, _ := study.Get(n)
		info := st.Info()
		fmt.Fprintf(&b, "  %-12s %s (%s)\n", n, info.Title, info.Source)
	}
	return b.String()
}

func newStudyListCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List studies with their parameters, defaults and --quick values",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, n := range study.Names() {
				st, _ := study.Get(n)
				info := st.Info()
				fmt.Fprintf(env.Stdout, "%s — %s (%s)\n", n, info.Title, info.Source)
				tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
				for _, p := range info.Params {
					q := p.Quick
					if q == "" {
						q = p.Default
					}
					fmt.Fprintf(tw, "  --param %s=\t%s\t(default %s, quick %s)\t%s\n", p.Name, p.Kind, p.Default, q, p.Doc)
				}
				tw.Flush()
				fmt.Fprintln(env.Stdout)
			}
			return nil
		},
	}
}

func writeTargetsLine(w io.Writer, targets []results.Target) {
	for _, t := range targets {
		cs := "off"
		if t.DataChecksums {
			cs = "on"
		}
		fmt.Fprintf(w, "  %s: PostgreSQL %s, data checksums %s (%s)\n", t.Name, t.ServerVersion, cs, t.Conn)
		writeEnvLines(w, t)
	}
}

// studyJSON is the document `pglab study --json` prints.
type studyJSON struct {
	RunID        string            `json:"run_id"`
	Study        string            `json:"study"`
	Status       string            `json:"status"`
	Error        string            `json:"error,omitempty"`
	Params       map[string]string `json:"params"`
	Reps         int               `json:"reps"`
	Targets      []targetJSON      `json:"targets"`
	Measurements []measurementJSON `json:"measurements"`
	Notes        []noteJSON        `json:"notes,omitempty"`
}

type targetJSON struct {
	Name             string `json:"name"`
	ServerVersion    string `json:"server_version"`
	ServerVersionNum int    `json:"server_version_num"`
	DataChecksums    bool   `json:"data_checksums"`
	Conn             string `json:"conn"`
	// Env is the environment the server ran in (--env): the profile and
	// what became of each limit.
	Env *env.Record `json:"env,omitempty"`
}

type measurementJSON struct {
	Target        string            `json:"target"`
	ServerVersion string            `json:"server_version"`
	Study         string            `json:"study"`
	Case          map[string]string `json:"case"`
	Rep           int               `json:"rep"`
	Metric        string            `json:"metric"`
	Value         float64           `json:"value"`
	Unit          string            `json:"unit"`
	Exact         bool              `json:"exact,omitempty"`
	Direction     string            `json:"direction,omitempty"`
}

// noteJSON is a note as reports key their footnotes: by study, case
// (its labels) and target, and the metric it explains, if one.
type noteJSON struct {
	Study   string            `json:"study"`
	Target  string            `json:"target"`
	Case    map[string]string `json:"case"`
	Rep     int               `json:"rep,omitempty"`
	Metric  string            `json:"metric,omitempty"`
	Text    string            `json:"text"`
	Outcome bool              `json:"outcome,omitempty"`
}

func writeStudyJSON(w io.Writer, runID string, targets []results.Target, out *study.Outcome, setup []lab.Note, runErr error) error {
	doc := studyJSON{RunID: runID, Study: out.Study, Status: "done", Params: out.Params.Text(), Reps: out.Reps}
	if runErr != nil {
		doc.Status = "failed"
		doc.Error = results.RedactText(runErr.Error())
	}
	versions := map[string]string{}
	for _, t := range targets {
		jt := targetJSON{Name: t.Name, ServerVersion: t.ServerVersion, ServerVersionNum: t.ServerVersionNum, DataChecksums: t.DataChecksums, Conn: t.Conn}
		if r, ok := env.RecordOf(t.Extra); ok {
			jt.Env = &r
		}
		doc.Targets = append(doc.Targets, jt)
		versions[t.Name] = t.ServerVersion
	}
	ms := append([]results.Measurement(nil), out.Measurements...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Rep < ms[j].Rep })
	for _, m := range ms {
		doc.Measurements = append(doc.Measurements, measurementJSON{
			Target: m.Target, ServerVersion: versions[m.Target], Study: m.Study, Case: m.Case, Rep: m.Rep,
			Metric: m.Metric, Value: m.Value, Unit: m.Unit, Exact: m.Exact, Direction: string(m.Direction),
		})
	}
	for _, n := range setup {
		doc.Notes = append(doc.Notes, noteJSON{Study: out.Study, Target: n.Target, Case: map[string]string{}, Text: n.Text})
	}
	for _, n := range out.Notes {
		doc.Notes = append(doc.Notes, noteJSON{Study: out.Study, Target: n.Target, Case: nonNilLabels(n.Case.Labels), Rep: n.Rep, Metric: n.Metric, Text: n.Text, Outcome: n.Outcome})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// studyInfoOf describes a study's outcome as reports name its cases.
func studyInfoOf(o *study.Outcome) report.StudyInfo {
	si := report.StudyInfo{Name: o.Info.Name, Title: o.Info.Title, Source: o.Info.Source, Params: o.Params.Text(), Reps: o.Reps}
	for _, c := range o.Plan.Cases {
		si.Cases = append(si.Cases, report.CaseInfo{Name: c.Name, Labels: c.Labels})
	}
	return si
}

func nonNilLabels(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
