package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pglab/pglab/bench"

	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
)

// RunStore is where a runner puts what it measures: a results.Run. Nil
// keeps results in memory only.
type RunStore interface {
	AddMeasurements(ctx context.Context, ms []results.Measurement) error
	AddArtefact(ctx context.Context, a results.Artefact) error
}

// Runner runs studies on targets.
type Runner struct {
	// Targets are the servers, in report order (the first is the baseline).
	Targets []*Target
	// Store receives measurements and artefacts as they are made.
	Store RunStore
	// Reps overrides the study's number of repetitions when > 0.
	Reps int
	// Quick selects the studies' --quick parameter values and repetitions.
	Quick bool
	// Settings are the user's --set values: applied to managed targets on
	// top of each study's own settings.
	Settings []pgserver.Setting
	// Force lets studies use a schema named pglab that pglab did not make.
	Force bool
	// Progress receives progress lines; nil discards them.
	Progress func(string)
	// OnRep, when set, is told before each repetition of a case on a
	// target how many of the study's total are done, instead of a progress
	// line (for progress bars).
	OnRep func(study string, done, total int, label string)
	// Load, when set, runs the studies' pgbench workloads instead of an
	// in-process bench.Run: a coordinator's run on its workers (--workers).
	Load func(ctx context.Context, cfg bench.Config) (*bench.Result, error)
	// OrderSeed seeds the order of the targets within each round (see
	// roundOrder). 0 draws a seed on first use; Run keeps it here, so that
	// every study of a run uses the same one, and records it.
	OrderSeed uint64
	// Stopping, when set, chooses each case's repetitions by the data
	// (--reps auto) for the studies it gives looks; Reps and the
	// studies' own counts apply to the others.
	Stopping Stopping
	// Cache, when set, keeps studies' datasets between repetitions and
	// runs: servers pglab started for the run load them as clones
	// (Session.LoadData). Nil builds every dataset in place.
	Cache *dataset.Cache
	// Profile samples the servers' processes on CPU during measured
	// steps (perf; local servers): CPU by function (--profile).
	Profile bool
}

// Outcome is what one study produced on all targets.
type Outcome struct {
	Study  string
	Info   Info
	Params Params
	Plan   Plan
	// Reps is the most repetitions per target any case ran (the count
	// of a fixed --reps N).
	Reps int
	// CaseReps are each case's repetitions, and under --reps auto why
	// they stopped there; Looks are the stopping rule's looks (nil for
	// a fixed count).
	CaseReps     []CaseReps
	Looks        []int
	Measurements []results.Measurement
	Notes        []Note
	// Skipped lists targets the study could not run on, with the reason.
	Skipped map[string]string
}

func (r *Runner) say(format string, args ...any) {
	if r.Progress != nil {
		r.Progress(fmt.Sprintf(format, args...))
	}
}

// Run runs one study: its settings on every target, Setup per target, then
// every repetition of every case on every target, interleaved in rounds
// (rep 1: case 1 on A, B; case 2 on B, A; …; rep 2: case 1 on B, A; …: see
// roundOrder for the balanced, seeded order), then Teardown and the settings
// restored — also when it fails or ctx is cancelled. What was measured
// before an error is in the outcome and the store.
func (r *Runner) Run(ctx context.Context, st Study, params Params) (out *Outcome, err error) {
	info := st.Info()
	if err := info.Check(); err != nil {
		return nil, err
	}
	plan, err := st.Plan(params)
	if err != nil {
		return nil, fmt.Errorf("study %s: %w", info.Name, err)
	}
	reps := plan.Reps
	if reps == 0 {
		reps = 3
	}
	if r.Quick && plan.QuickReps > 0 {
		reps = plan.QuickReps
	}
	if r.Reps > 0 {
		reps = r.Reps
	}
	out = &Outcome{Study: info.Name, Info: info, Params: params, Plan: plan, Reps: reps, Skipped: map[string]string{}}

	// Cleanup runs with a context of its own: after Ctrl-C the settings must
	// still be restored and the objects dropped.
	cleanupCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	}

	var sessions []*Session
	var restores []func(context.Context) error
	clock := studyClock{start: time.Now()}
	defer func() {
		clock.reps = clock.mark()
		cctx, cancel := cleanupCtx()
		defer cancel()
		for _, s := range sessions {
			s.closeObserver()
			if terr := st.Teardown(cctx, s); terr != nil && err == nil {
				err = fmt.Errorf("study %s: teardown on %s: %w", info.Name, s.Target.Name, s.Target.lost(cctx, terr))
			}
			s.releaseData()
		}
		for k := len(restores) - 1; k >= 0; k-- {
			if rerr := restores[k](cctx); rerr != nil && err == nil {
				err = r.Targets[k].lost(cctx, rerr)
			}
		}
		for _, s := range sessions {
			s.flush(cctx)
			out.Measurements = append(out.Measurements, s.all...)
			out.Notes = append(out.Notes, s.notes...)
		}
		if terr := r.storeTime(cctx, info.Name, &clock, sessions); terr != nil && err == nil {
			err = terr
		}
	}()

	r.OrderSeed = newOrderSeed(r.OrderSeed)
	looks, auto := r.looks(info, plan, reps)
	if err := r.storeInfo(ctx, info, params, plan, looks[len(looks)-1]); err != nil {
		return out, err
	}

	want := pgserver.MergeSettings(plan.Settings, r.Settings...)
	for _, t := range r.Targets {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if len(want) > 0 && t.Managed() {
			r.say("%s: applying settings on %s", info.Name, t.Name)
		}
		restore, err := t.applySettings(ctx, want)
		restores = append(restores, restore)
		if err != nil {
			return out, t.lost(ctx, err)
		}
		if err := t.ensureSchema(ctx, r.Force); err != nil {
			return out, t.lost(ctx, err)
		}
		s := &Session{Target: t, Params: params, Quick: r.Quick, study: info.Name, runner: r}
		sessions = append(sessions, s)
		for _, ls := range t.leftOut {
			// The user's --set values were checked when the server
			// started; a study's own settings are noted here.
			if slices.ContainsFunc(plan.Settings, func(p pgserver.Setting) bool { return p.Name == ls.Name }) {
				s.Note("%s left out: PostgreSQL %s has no such setting", ls, t.Version)
			}
		}
		if len(t.unapplied) > 0 {
			s.Note("a user's server: pglab changes no server-wide setting; left as found: %s", strings.Join(t.unapplied, ", "))
		}
		r.say("%s: setting up on %s", info.Name, t.Name)
		if err := st.Setup(ctx, s); err != nil {
			return out, fmt.Errorf("study %s: setup on %s: %w", info.Name, t.Name, t.lost(ctx, err))
		}
	}

	clock.prepare = clock.mark()
	rs := &runState{st: st, info: info, sessions: sessions}
	if auto {
		out.Looks = looks
	}
	err = r.rounds(ctx, rs, plan, looks, auto, out)
	out.Reps = 0
	for _, c := range out.CaseReps {
		out.Reps = max(out.Reps, c.N)
	}
	return out, err
}

// looks returns the repetitions at which the study's cases are looked at
// under r.Stopping (auto), or the fixed count reps alone.
func (r *Runner) looks(info Info, plan Plan, reps int) (looks []int, auto bool) {
	if r.Stopping != nil {
		if l := r.Stopping.Looks(info.Name, plan); len(l) > 0 {
			return l, true
		}
	}
	return []int{reps}, false
}

// repetition runs repetition rep of case c (index ci) on every target, in
// the round's order; cap is the most repetitions the case may run.
func (r *Runner) repetition(ctx context.Context, rs *runState, c Case, ci, rep, cap int) error {
	order := roundOrder{seed: r.OrderSeed}
	for _, k := range order.targets(rep, ci, len(rs.sessions)) {
		s := rs.sessions[k]
		if err := ctx.Err(); err != nil {
			return err
		}
		name := rs.info.Name
		if r.OnRep != nil {
			r.OnRep(name, rs.done, rs.total, fmt.Sprintf("%s on %s, repetition %d/%d", caseTitle(c), s.Target.Name, rep, cap))
		} else {
			r.say("%s: %s on %s, repetition %d/%d", name, caseTitle(c), s.Target.Name, rep, cap)
		}
		rs.done++
		s.begin(c, rep)
		began := time.Now()
		runErr := rs.st.Run(ctx, s, c, rep)
		s.addRunTime(c, time.Since(began))
		if ferr := s.flush(ctx); ferr != nil && runErr == nil {
			runErr = fmt.Errorf("store measurements: %w", ferr)
		}
		s.begin(Case{}, 0)
		if runErr != nil {
			if ctx.Err() != nil && errors.Is(runErr, ctx.Err()) {
				return ctx.Err()
			}
			if pe := (*ParamError)(nil); errors.As(runErr, &pe) && pe.Study == "" {
				pe.Study = name
			}
			return fmt.Errorf("study %s: %s on %s, repetition %d: %w", name, caseTitle(c), s.Target.Name, rep, s.Target.lost(ctx, runErr))
		}
	}
	return nil
}

func caseTitle(c Case) string {
	if c.Name != "" {
		return c.Name
	}
	return "case"
}

func (r *Runner) storeInfo(ctx context.Context, info Info, params Params, plan Plan, reps int) error {
	if r.Store == nil {
		return nil
	}
	si := info.Stored(params, plan, reps)
	si.Order, si.OrderSeed = OrderScheme, OrderSeedText(r.OrderSeed)
	for _, s := range pgserver.MergeSettings(plan.Settings, r.Settings...) {
		si.Settings = append(si.Settings, s.String())
	}
	data, err := json.Marshal(si)
	if err != nil {
		return fmt.Errorf("study %s: encode its description: %w", info.Name, err)
	}
	return r.Store.AddArtefact(ctx, results.Artefact{Study: info.Name, Name: results.StudyInfoArtefact, ContentType: "application/json", Data: data})
}

// studyClock times the phases of a study: preparing the targets, the
// repetitions, cleaning up.
type studyClock struct {
	start, last            time.Time
	prepare, reps, cleanup time.Duration
}

// mark returns the time since the last mark (or the start).
func (c *studyClock) mark() time.Duration {
	now := time.Now()
	from := c.last
	if from.IsZero() {
		from = c.start
	}
	c.last = now
	return now.Sub(from)
}

// storeTime keeps where the study's wall time went (artefact
// results.StudyTimeArtefact).
func (r *Runner) storeTime(ctx context.Context, study string, c *studyClock, sessions []*Session) error {
	if r.Store == nil {
		return nil
	}
	c.cleanup = c.mark()
	if c.prepare == 0 {
		// Failed while preparing: the repetitions never began.
		c.prepare, c.reps = c.reps, 0
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	st := results.StudyTime{Study: study, WallMS: ms(time.Since(c.start)), PrepareMS: ms(c.prepare), RepsMS: ms(c.reps), CleanupMS: ms(c.cleanup)}
	for _, s := range sessions {
		s.mu.Lock()
		st.MeasuredMS += ms(s.measured)
		st.ProfileMS += ms(s.profiled)
		st.Steps += s.steps
		s.mu.Unlock()
	}
	addTimes(&st, sessions)
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return r.Store.AddArtefact(ctx, results.Artefact{Study: study, Name: results.StudyTimeArtefact, ContentType: "application/json", Data: data})
}
