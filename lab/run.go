package lab

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// Result is what a comparison left: its run in the store, its targets as
// the run describes them, the notes of its set-up and each study's
// outcome.
type Result struct {
	// RunID is the stored run's ID.
	RunID string
	// Targets are the servers, as stored (without their settings).
	Targets []results.Target
	// Notes are remarks about the set-up (a setting left out).
	Notes []Note
	// Outcomes are the studies' outcomes in the order they ran; a study
	// that failed has its outcome so far, and ends the list.
	Outcomes []*study.Outcome
	// Finished reports whether every study ran to its end (closing the
	// lab may still have failed).
	Finished bool
}

// Measured returns the number of measurements made.
func (r *Result) Measured() int {
	n := 0
	for _, o := range r.Outcomes {
		n += len(o.Measurements)
	}
	return n
}

// WriteSetup prints where the comparison ran: a line per target (name,
// PostgreSQL version, data checksums, connection), under it its
// environment, if any (the profile, then each limit and whether it held),
// and then the set-up's notes.
func (r *Result) WriteSetup(w io.Writer) error {
	var b strings.Builder
	for _, t := range r.Targets {
		cs := "off"
		if t.DataChecksums {
			cs = "on"
		}
		fmt.Fprintf(&b, "  %s: PostgreSQL %s, data checksums %s (%s)\n", t.Name, t.ServerVersion, cs, t.Conn)
		if rec, ok := env.RecordOf(t.Extra); ok {
			for i, l := range rec.Lines() {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", 2+min(i, 1)), l)
			}
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Run runs a comparison from start to end: it checks spec, starts or
// connects its servers, runs its studies into a new run of the store, and
// stops and removes what it started. A comparison of one study that
// compares configurations (study.Configurer) runs it on one server per
// configuration. The result is nil when the run could not be opened;
// otherwise it holds what was measured, also when err is not nil (the
// first error of the studies, else of closing the lab).
func Run(ctx context.Context, spec *Spec, opts Options) (*Result, error) {
	l, err := New(spec, opts)
	if err != nil {
		return nil, err
	}
	if len(spec.Studies) == 1 {
		if err := l.expandVariants(spec.Studies[0]); err != nil {
			return nil, err
		}
	}
	if err := l.Open(ctx); err != nil {
		return nil, err
	}
	res := &Result{RunID: l.Run.ID(), Notes: l.Notes}
	for _, t := range l.Targets {
		res.Targets = append(res.Targets, t.Summary())
	}
	runErr := l.runStudies(ctx, res)
	closeErr := l.Close(runErr)
	if runErr != nil {
		return res, runErr
	}
	return res, closeErr
}

// runStudies runs the comparison's studies in order on the open lab,
// adding their outcomes to res; it stops at the first error.
func (l *Lab) runStudies(ctx context.Context, res *Result) error {
	r := l.Runner()
	for _, s := range l.spec.Studies {
		o, err := l.RunStudy(ctx, r, s.Study, s.Params)
		if o != nil {
			res.Outcomes = append(res.Outcomes, o)
		}
		if err != nil {
			return err
		}
	}
	res.Finished = true
	return nil
}

// manifest returns the run's manifest fields beside the command line: what
// was compared and how.
func (l *Lab) manifest() map[string]any {
	s := l.spec
	m := map[string]any{"quick": s.Quick, "reps": s.Reps, "checksums": s.Checksums}
	if s.Profile {
		m["profile"] = true
	}
	if a := l.auto; a != nil {
		m["reps"] = "auto"
		m["design"] = map[string]any{"looks": a.design.Looks, "family": a.design.Family, "alpha": a.design.Alpha, "paired": a.design.Paired}
		if b := s.budget(); b > 0 {
			m["budget"] = b.String()
		}
	}
	if l.opts.Kind == results.KindStudy && len(s.Studies) == 1 {
		m["study"] = s.Studies[0].Study.Info().Name
		m["params"] = s.Studies[0].Params.Text()
		if l.variants != nil {
			m["variants"] = l.variants
		}
		return m
	}
	m["studies"] = s.StudyNames()
	params := map[string]map[string]string{}
	for _, sr := range s.Studies {
		params[sr.Study.Info().Name] = sr.Params.Text()
	}
	m["study_params"] = params
	m["alpha"] = s.Alpha
	if s.MinChange != 0 {
		m["min_change"] = s.MinChange
	}
	if s.AA {
		m["aa"] = true
	}
	if s.Name != "" {
		m["name"] = s.Name
	}
	if s.Plan != "" {
		m["plan"] = s.Plan
	}
	return m
}
