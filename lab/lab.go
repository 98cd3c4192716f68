package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// Options connect a Lab to the command that runs it.
type Options struct {
	// Kind is the kind of run stored (study, compare, plan).
	Kind results.Kind
	// Command is the command line, program name first, for the run's
	// manifest (redacted by the store).
	Command []string
	// Binaries finds (or installs) the server binaries of a version.
	Binaries func(ctx context.Context, v pgserver.VersionSpec) (*pgserver.Binaries, error)
	// Progress receives progress lines; nil discards them.
	Progress func(string)
	// Stderr receives the workers' coordinator lines (--workers); Quiet
	// keeps them to what the workers need.
	Stderr io.Writer
	Quiet  bool
	// Setup, when set, is told how far the set-up of the managed servers
	// is (three steps each: binaries, initdb, start), for a progress bar.
	Setup func(done, total int, label string)
	// OnRep, when set, is told before each repetition instead of a
	// progress line (see study.Runner.OnRep).
	OnRep func(study string, done, total int, label string)
}

// Note is a remark about one target's set-up (a setting left out), shown
// with the run and stored with it.
type Note struct {
	Target, Text string
}

// String returns "target: text".
func (n Note) String() string { return n.Target + ": " + n.Text }

// Lab is a comparison being run: its targets opened, its store and run.
type Lab struct {
	spec  *Spec
	opts  Options
	specs []Target

	ctx   context.Context
	owned []*pgserver.Instance
	// Targets are the opened servers, in report order.
	Targets []*study.Target
	// Notes are remarks about the set-up, in the order they were made.
	Notes []Note
	// Store and Run are where measurements go, once opened.
	Store *results.Store
	Run   *results.Run
	// co coordinates the workers of Spec.Workers.
	co *dist.Coordinator
	// envs are the environments of the servers pglab started, removed
	// after them; cgLayout is the machine's cgroup layout.
	envs     []*env.Environment
	cgLayout *env.Layout
	// standbys are the managed standbys of environments with a replica.
	standbys []*pgserver.Standby
	// variants are the configurations of a study that compares them, by
	// target name (see expandVariants).
	variants map[string]string
	// cache keeps the studies' datasets (nil: built in place).
	cache *dataset.Cache
	// auto is --reps auto's stopping rule (nil: fixed repetitions).
	auto *autoReps
}

// New validates a comparison without touching any server or file.
func New(spec *Spec, opts Options) (*Lab, error) {
	specs, err := spec.Targets()
	if err != nil {
		return nil, err
	}
	if opts.Binaries == nil {
		return nil, errors.New("lab: no way to find server binaries")
	}
	if spec.Budget > 0 && spec.Reps > 0 {
		return nil, inputError("", "a budget goes with reps auto: a fixed count of %d runs every repetition", spec.Reps)
	}
	return &Lab{spec: spec, opts: opts, specs: specs}, nil
}

func (l *Lab) say(format string, args ...any) {
	if l.opts.Progress != nil {
		l.opts.Progress(fmt.Sprintf(format, args...))
	}
}

// note records a remark about a target's set-up: printed with the run,
// stored with it, shown in its report.
func (l *Lab) note(target, format string, args ...any) {
	n := Note{target, fmt.Sprintf(format, args...)}
	l.Notes = append(l.Notes, n)
	l.say("%s", n)
}

// expandVariants replaces each managed target by one server per variant
// of a study that compares configurations (study.Configurer), and records
// the variants, by target name, in the run's manifest.
func (l *Lab) expandVariants(sr StudyRun) error {
	c, ok := sr.Study.(study.Configurer)
	if !ok {
		return nil
	}
	name := sr.Study.Info().Name
	var out []Target
	notes := map[string]string{}
	bases := map[string]bool{}
	for _, s := range l.specs {
		if s.Managed() {
			bases[s.base] = true
		}
	}
	versions := len(bases)
	for _, s := range l.specs {
		if !s.Managed() {
			return &InputError{Field: FieldServers, Study: name, Err: fmt.Errorf("this study compares configurations of managed servers: use {versions}, not {target} %s", s.Name)}
		}
		vs, err := c.Variants(sr.Params, s.Version.Major)
		if err != nil {
			return studyError(name, err)
		}
		for _, v := range vs {
			vname := v.Name
			if versions > 1 {
				vname = s.base + "-" + v.Name
			}
			t := s.rename(vname)
			t.Optional = v.Settings
			out = append(out, t)
			notes[t.Name] = v.Note
			l.say("%s: %s", t.Name, v.Note)
		}
	}
	l.specs = out
	l.variants = notes
	return nil
}

// Open starts or connects every target and opens the store and the run.
// The servers come first: a target that cannot be reached (bad input)
// leaves nothing written, not even an empty store. On error everything
// opened so far is closed. ctx also decides, at Close, whether the run was
// interrupted.
func (l *Lab) Open(ctx context.Context) (err error) {
	l.ctx = ctx
	defer func() {
		if err != nil {
			l.Close(err)
		}
	}()
	setup := l.setupBar()
	begun := time.Now()
	managed := 0
	for _, s := range l.specs {
		if err := ctx.Err(); err != nil {
			return err
		}
		var t *study.Target
		switch {
		case s.DSN != "":
			t, err = study.DSNTarget(ctx, s.Name, s.DSN)
		case s.Named != "":
			t, err = l.openNamed(ctx, s)
		default:
			t, err = l.startManaged(ctx, s, 3*managed, setup)
			managed++
		}
		if err != nil {
			return err
		}
		l.Targets = append(l.Targets, t)
	}
	serversTime := time.Since(begun)
	if l.cache, err = l.openCache(); err != nil {
		return err
	}
	// A store that cannot be opened or written is a failure of the run,
	// not of its input: the same path fails on a full disk.
	if l.Store, err = results.Open(ctx, l.spec.Store); err != nil {
		return err
	}
	dataDir := ""
	if len(l.Targets) > 0 {
		dataDir = l.Targets[0].DataDir
	}
	host := results.CollectHost(dataDir)
	l.auto = newAutoReps(l.spec, len(l.Targets), pastFirstLook(ctx, l.Store, l.spec, host, len(l.Targets)))
	if l.auto != nil && l.auto.budget != nil {
		l.auto.budget.start = begun // the budget is the run's, its servers' start included
	}
	extraJSON, _ := json.Marshal(l.manifest())
	l.Run, err = l.Store.BeginRun(ctx, results.RunInfo{
		Kind:    l.opts.Kind,
		Version: buildinfo.String(),
		Command: l.opts.Command,
		Host:    host,
		Extra:   extraJSON,
	})
	if err != nil {
		return err
	}
	for _, t := range l.Targets {
		if err := l.Run.AddTarget(ctx, t.Record(ctx)); err != nil {
			return err
		}
	}
	if err := l.recordConfigs(ctx); err != nil {
		return err
	}
	for _, n := range l.Notes {
		if err := l.Run.AddArtefact(ctx, results.Artefact{Target: n.Target, Name: "note", ContentType: "text/plain", Data: []byte(n.Text)}); err != nil {
			return err
		}
	}
	// The time the servers took to set up, apart from the studies'.
	rt, _ := json.Marshal(results.RunTime{ServersMS: float64(serversTime.Microseconds()) / 1000})
	if err := l.Run.AddArtefact(ctx, results.Artefact{Name: results.RunTimeArtefact, ContentType: "application/json", Data: rt}); err != nil {
		return err
	}
	return l.openWorkers(ctx)
}

// openWorkers waits for the workers to join the coordinator.
func (l *Lab) openWorkers(ctx context.Context) error {
	w := l.spec.Workers
	if w.N == 0 {
		return nil
	}
	stderr := l.opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	co, err := dist.Listen(dist.Options{Listen: w.Listen, Workers: w.N, Token: w.Token,
		Version: buildinfo.Version, Stderr: stderr, Quiet: l.opts.Quiet})
	if err != nil {
		return err
	}
	l.co = co
	// (printed even under --quiet: the workers need the address)
	fmt.Fprintf(stderr, "pglab: waiting for %d workers: pglab worker --join %s\n", w.N, co.Addr())
	if err := co.Accept(ctx); err != nil {
		return &WorkersError{Err: err}
	}
	return nil
}

// openNamed connects to a running instance of 'pglab pg start'.
func (l *Lab) openNamed(ctx context.Context, s Target) (*study.Target, error) {
	named, err := pgserver.OpenTarget(s.Named)
	if err != nil {
		return nil, &InputError{Field: FieldServers, Err: err}
	}
	inst := named.Instance
	// An instance started with 'pglab pg start --env' keeps its
	// environment: restarts go into the same cgroup, steps read its
	// counters. It outlives the run, and so does its cgroup.
	e, ok, err := env.Load(inst.Dir())
	if err != nil {
		return nil, err
	}
	if ok && e.Placer() != nil {
		inst.SetPlacer(e.Placer())
	}
	t, err := study.ManagedTarget(ctx, s.Name, inst, false)
	if err == nil && ok {
		t.SetEnvironment(e)
	}
	return t, err
}

// startManaged starts one managed server; step is where its three set-up
// steps start on the set-up bar.
func (l *Lab) startManaged(ctx context.Context, s Target, step int, setup func(int, string)) (*study.Target, error) {
	setup(step, s.Name+": PostgreSQL "+s.Version.String()+" binaries")
	b, err := l.opts.Binaries(ctx, s.Version)
	if err != nil {
		return nil, err
	}
	setup(step+1, s.Name+": initdb")
	progress := l.opts.Progress
	if progress != nil {
		line := progress
		progress = func(msg string) {
			line(msg)
			if strings.HasPrefix(msg, "starting PostgreSQL") {
				setup(step+2, s.Name+": start")
			}
		}
	}
	settings, err := l.serverSettings(ctx, s, b)
	if err != nil {
		return nil, err
	}
	opts := pgserver.Options{
		Binaries:  b,
		Name:      s.Name,
		Checksums: l.spec.Checksums,
		Settings:  settings,
		Progress:  progress,
	}
	var e *env.Environment
	if s.Env != nil {
		if e, err = l.newEnvironment(s); err != nil {
			return nil, err
		}
		l.envs = append(l.envs, e)
		if cg := e.Placer(); cg != nil {
			opts.Placer = cg
		}
	}
	inst, err := pgserver.Start(ctx, opts)
	if err != nil {
		var se *pgserver.SettingError
		if errors.As(err, &se) {
			return nil, &InputError{Field: FieldSettings, Err: err}
		}
		return nil, err
	}
	l.owned = append(l.owned, inst)
	if e != nil {
		if err := checkPlaced(e, inst); err != nil {
			return nil, err
		}
	}
	setup(step+3, s.Name+": ready")
	t, err := study.ManagedTarget(ctx, s.Name, inst, true)
	if err == nil && e != nil {
		t.SetEnvironment(e)
	}
	if err == nil {
		err = l.startNetwork(ctx, s, inst, t)
	}
	return t, err
}

// serverSettings returns the settings a managed server of spec s starts
// with: the user's --set, a study variant's settings and --config's. A
// setting its version does not have (Binaries.Parameters) is left out with
// a note: a variant's always; a --set or --config one when another version
// of the run has it (a name no version knows is a typo, which the server's
// own check then reports).
func (l *Lab) serverSettings(ctx context.Context, s Target, b *pgserver.Binaries) ([]pgserver.Setting, error) {
	all := pgserver.MergeSettings(pgserver.MergeSettings(l.spec.Settings, s.Optional...), s.Settings...)
	all = pgserver.MergeSettings(all, serverNetworkSettings(s.Env)...)
	params, err := b.Parameters(ctx)
	if err != nil {
		return nil, err
	}
	_, missing := pgserver.SplitSettings(params, all)
	if len(missing) == 0 {
		return all, nil
	}
	leave := map[string]bool{}
	for _, m := range missing {
		if containsSetting(s.Optional, m) {
			leave[m.Name] = true
			l.note(s.Name, "%s left out: PostgreSQL %s has no such setting", m, b.Version)
			continue
		}
		other, err := l.otherVersionWith(ctx, s, m.Name)
		if err != nil {
			return nil, err
		}
		if other != "" {
			leave[m.Name] = true
			l.note(s.Name, "%s left out: PostgreSQL %s has no such setting (%s has)", m, b.Version, other)
		}
	}
	var out []pgserver.Setting
	for _, x := range all {
		if !leave[x.Name] {
			out = append(out, x)
		}
	}
	return out, nil
}

// otherVersionWith returns the name of a managed target of another major
// version than s whose server has the setting, or "".
func (l *Lab) otherVersionWith(ctx context.Context, s Target, name string) (string, error) {
	for _, o := range l.specs {
		if !o.Managed() || o.Version.Major == s.Version.Major {
			continue
		}
		b, err := l.opts.Binaries(ctx, o.Version)
		if err != nil {
			return "", err
		}
		params, err := b.Parameters(ctx)
		if err != nil {
			return "", err
		}
		if params[name] {
			return o.Name, nil
		}
	}
	return "", nil
}

// setupBar returns what moves the set-up progress (three steps per managed
// server), a no-op without Options.Setup.
func (l *Lab) setupBar() func(done int, label string) {
	managed := 0
	for _, s := range l.specs {
		if s.Managed() {
			managed++
		}
	}
	if managed == 0 || l.opts.Setup == nil {
		return func(int, string) {}
	}
	total := 3 * managed
	return func(done int, label string) { l.opts.Setup(done, total, label) }
}

// Close finishes the run (done, failed or interrupted by runErr) and stops
// and removes the servers pglab started. Closing twice is a no-op.
func (l *Lab) Close(runErr error) error {
	var err error
	if l.co != nil {
		l.co.Close(runErr)
		l.co = nil
	}
	if l.Run != nil && l.discardable(runErr) {
		err = l.Run.Discard(context.Background())
		l.Run = nil
	}
	if l.Run != nil {
		status := results.StatusDone
		switch {
		case runErr != nil && (errors.Is(runErr, context.Canceled) || l.ctx != nil && l.ctx.Err() != nil):
			status = results.StatusInterrupted
		case runErr != nil:
			status = results.StatusFailed
		}
		err = l.Run.Finish(context.Background(), status, runErr)
		l.Run = nil
	}
	if cerr := l.closeTargets(); cerr != nil && err == nil {
		err = cerr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A primary stops before its standby (Destroy): no commit waits for a
	// standby that is gone.
	for _, inst := range l.owned {
		if derr := inst.Destroy(ctx); derr != nil && err == nil {
			err = derr
		}
	}
	l.owned, l.standbys = nil, nil
	for _, e := range l.envs {
		if cerr := e.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	l.envs = nil
	if l.Store != nil {
		l.Store.Close()
		l.Store = nil
	}
	return err
}

// discardable reports whether the run ended on bad input that a study
// found only when it ran (a parameter's file the server refused, such as
// replay.data) before any other study measured anything: such a run is
// removed from the store, as a flag error leaves nothing.
func (l *Lab) discardable(runErr error) bool {
	var pe *study.ParamError
	if !errors.As(runErr, &pe) || pe.Study == "" {
		return false
	}
	for _, name := range l.Run.MeasuredStudies() {
		if name != pe.Study {
			return false
		}
	}
	return true
}

// Runner returns a study runner over the lab's targets, storing into its
// run.
func (l *Lab) Runner() *study.Runner {
	r := &study.Runner{
		Targets:  l.Targets,
		Store:    l.Run,
		Reps:     l.spec.Reps,
		Quick:    l.spec.Quick,
		Settings: l.spec.Settings,
		Force:    l.spec.Force,
		Progress: l.opts.Progress,
		OnRep:    l.opts.OnRep,

		OrderSeed: l.spec.OrderSeed,
		Cache:     l.cache,
		Profile:   l.spec.Profile,
	}
	if l.auto != nil {
		r.Stopping = l.auto
	}
	if co := l.co; co != nil {
		r.Load = func(ctx context.Context, cfg bench.Config) (*bench.Result, error) {
			out, err := co.Run(ctx, cfg)
			if out != nil && out.Result != nil {
				return out.Result, err
			}
			return nil, err
		}
	}
	return r
}

// RunStudy runs one study with r; a managed standby that fails meanwhile
// ends it, with an error naming the standby.
func (l *Lab) RunStudy(ctx context.Context, r *study.Runner, st study.Study, p study.Params) (*study.Outcome, error) {
	ctx, stop := l.watchStandbys(ctx)
	defer stop()
	o, err := r.Run(ctx, st, p)
	if f := standbyFailure(ctx); f != nil {
		return o, f
	}
	return o, err
}

func containsSetting(list []pgserver.Setting, s pgserver.Setting) bool {
	for _, x := range list {
		if x.Name == s.Name && x.Value == s.Value {
			return true
		}
	}
	return false
}

// openCache opens the dataset cache the spec asks for (nil for none).
func (l *Lab) openCache() (*dataset.Cache, error) {
	limit := l.spec.CacheLimit
	if limit == 0 {
		var err error
		if limit, err = dataset.LimitFromEnv(); err != nil {
			return nil, &InputError{Err: err}
		}
	}
	if limit <= 0 {
		return nil, nil
	}
	c, err := dataset.Open("", limit)
	if err != nil {
		return nil, err
	}
	c.Progress = l.opts.Progress
	return c, nil
}
