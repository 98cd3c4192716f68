package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pglab/pglab/bench"
	"github.com/pglab/pglab/bench/dist"
	"os"
	"strings"
	"time"

	"github.com/pglab/pglab/internal/buildinfo"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/spf13/pflag"
)

// targetFlags are the flags that choose servers and how to treat them,
// shared by study, compare and plan.
type targetFlags struct {
	versions  string
	targets   []string
	sets      []string
	checksums string
	store     string
	noInstall bool
	force     bool
	// configs are managed servers of one version under named
	// configurations (compare --config).
	configs []configSpec
	// workers run the pgbench workloads (tps, tune) from several
	// machines: a coordinator on listen for that many pglab workers.
	workers       int
	listen, token string
}

// configSpec is one --config NAME:k=v,... of compare.
type configSpec struct {
	name     string
	version  pgserver.VersionSpec
	settings []string
}

func (f *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.versions, "versions", "", "PostgreSQL versions to start as managed servers, e.g. 16,17 (installed when missing)")
	fs.StringArrayVar(&f.targets, "target", nil, "a server to use: NAME=DSN (yours), or the NAME of an instance from 'pglab pg start' (repeatable)")
	fs.StringArrayVar(&f.sets, "set", nil, "server setting name=value for managed servers (repeatable)")
	fs.StringVar(&f.checksums, "checksums", "off", "data checksums of managed servers: on or off (the same for every version)")
	fs.StringVar(&f.store, "store", "", "results store: an SQLite file path or a postgres:// DSN (default "+defaultStoreText()+")")
	fs.BoolVar(&f.noInstall, "no-install", false, "fail instead of installing missing PostgreSQL versions")
	fs.BoolVar(&f.force, "force", false, "use a schema named pglab on a user's server even if pglab did not create it")
	fs.IntVar(&f.workers, "workers", 0, "run the pgbench workloads (tps, tune) on N pglab workers (pglab worker --join, see pglab bench --listen)")
	fs.StringVar(&f.listen, "listen", "", "with --workers: the coordinator's address, host:port")
	fs.StringVar(&f.token, "token", "", "with --workers: the workers' secret (default $PGLAB_TOKEN; required unless --listen is a loopback address)")
}

func defaultStoreText() string {
	p, err := results.DefaultPath()
	if err != nil {
		return "$XDG_DATA_HOME/pglab/results.db"
	}
	return p
}

// targetSpec is one parsed target before it is opened.
type targetSpec struct {
	name    string
	version pgserver.VersionSpec // managed
	dsn     string               // user's server
	named   string               // instance of 'pglab pg start'
	// settings of this managed server on top of --set (compare --config).
	settings []pgserver.Setting
	// optional settings were chosen by pglab (a study's variant): one the
	// version does not have is left out with a note instead of failing
	// the run.
	optional []pgserver.Setting
}

// lab is the set-up around a run: validated inputs, the servers, the store.
type lab struct {
	env       *Env
	flags     *targetFlags
	specs     []targetSpec
	settings  []pgserver.Setting
	checksums bool

	owned   []*pgserver.Instance
	Targets []*study.Target
	// Notes are remarks about the set-up (settings left out), as
	// "target: text".
	Notes []string
	notes []labNote
	Store *results.Store
	Run   *results.Run
	// co coordinates the workers of --workers.
	co *dist.Coordinator
}

// parseLab validates the target flags without touching any server or file.
func parseLab(env *Env, f *targetFlags) (*lab, error) {
	l := &lab{env: env, flags: f}
	var err error
	switch {
	case f.workers < 0:
		return nil, badInput("--workers must be 1 or more: got %d", f.workers)
	case f.workers > 0 && f.listen == "":
		return nil, badInput("--workers needs --listen HOST:PORT (where the workers join)")
	case f.workers == 0 && (f.listen != "" || f.token != ""):
		return nil, badInput("--listen and --token belong to --workers N")
	}
	if l.settings, err = pgserver.ParseSettings(f.sets); err != nil {
		return nil, badInput("%v", err)
	}
	if l.checksums, err = parseChecksums(f.checksums); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	add := func(s targetSpec) error {
		if seen[s.name] {
			return badInput("target name %q is given twice", s.name)
		}
		seen[s.name] = true
		l.specs = append(l.specs, s)
		return nil
	}
	if f.versions != "" {
		var specs []pgserver.VersionSpec
		majors := map[int]int{}
		for _, v := range strings.Split(f.versions, ",") {
			spec, err := pgserver.ParseVersionSpec(v)
			if err != nil {
				return nil, badInput("--versions: %v", err)
			}
			specs = append(specs, spec)
			majors[spec.Major]++
		}
		for _, spec := range specs {
			name := fmt.Sprintf("pg%d", spec.Major)
			if majors[spec.Major] > 1 {
				name = "pg" + spec.String()
			}
			if err := add(targetSpec{name: name, version: spec}); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range f.configs {
		if err := pgserver.ValidateName(c.name); err != nil {
			return nil, badInput("--config %s: %v", c.name, err)
		}
		sets, err := pgserver.ParseSettings(c.settings)
		if err != nil {
			return nil, badInput("--config %s: %v", c.name, err)
		}
		if err := add(targetSpec{name: c.name, version: c.version, settings: sets}); err != nil {
			return nil, err
		}
	}
	for _, t := range f.targets {
		name, dsn, hasDSN := strings.Cut(t, "=")
		name = strings.TrimSpace(name)
		if err := pgserver.ValidateName(name); err != nil {
			return nil, badInput("--target %s: %v", results.RedactText(t), err)
		}
		if hasDSN {
			if strings.TrimSpace(dsn) == "" {
				return nil, badInput("--target %s=: empty DSN", name)
			}
			if err := add(targetSpec{name: name, dsn: dsn}); err != nil {
				return nil, err
			}
			continue
		}
		if err := add(targetSpec{name: name, named: name}); err != nil {
			return nil, err
		}
	}
	if len(l.specs) == 0 {
		return nil, badInput("name the servers: --versions 16,17 (managed) or --target NAME=DSN")
	}
	return l, nil
}

// open starts or connects every target and opens the store. On error
// everything opened so far is closed.
func (l *lab) open(ctx context.Context, kind results.Kind, extra any) (err error) {
	defer func() {
		if err != nil {
			l.close(kind, err)
		}
	}()
	// The servers come first: a target that cannot be reached (bad input)
	// must leave nothing written, not even an empty store.
	begun := time.Now()
	setup := l.setupBar()
	managed := 0
	for _, s := range l.specs {
		if err := ctx.Err(); err != nil {
			return err
		}
		var t *study.Target
		switch {
		case s.dsn != "":
			t, err = study.DSNTarget(ctx, s.name, s.dsn)
		case s.named != "":
			inst, oerr := pgserver.OpenNamed(s.named)
			if oerr != nil {
				return &ExitError{Code: 1, Err: fmt.Errorf("--target %s: %w", s.named, oerr)}
			}
			if !inst.Running() {
				return &ExitError{Code: 1, Err: fmt.Errorf("--target %s: the instance is not running (start it with 'pglab pg start --name %s --version %d')", s.named, s.named, inst.Version().Major)}
			}
			t, err = study.ManagedTarget(ctx, s.name, inst, false)
		default:
			step := 3 * managed
			managed++
			setup(step, s.name+": PostgreSQL "+s.version.String()+" binaries")
			var b *pgserver.Binaries
			b, err = l.env.resolveBinaries(ctx, s.version.String(), l.flags.noInstall)
			if err != nil {
				return err
			}
			setup(step+1, s.name+": initdb")
			progress := l.env.progress()
			if progress != nil {
				line := progress
				progress = func(msg string) {
					line(msg)
					if strings.HasPrefix(msg, "starting PostgreSQL") {
						setup(step+2, s.name+": start")
					}
				}
			}
			settings, err := l.serverSettings(ctx, s, b)
			if err != nil {
				return err
			}
			inst, serr := pgserver.Start(ctx, pgserver.Options{
				Binaries:  b,
				Name:      s.name,
				Checksums: l.checksums,
				Settings:  settings,
				Progress:  progress,
			})
			if serr != nil {
				var se *pgserver.SettingError
				if errors.As(serr, &se) {
					return &ExitError{Code: 1, Err: serr}
				}
				return serr
			}
			l.owned = append(l.owned, inst)
			setup(step+3, s.name+": ready")
			t, err = study.ManagedTarget(ctx, s.name, inst, true)
		}
		if err != nil {
			return err
		}
		l.Targets = append(l.Targets, t)
	}
	serversTime := time.Since(begun)
	if l.Store, err = results.Open(ctx, l.flags.store); err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	extraJSON, _ := json.Marshal(extra)
	dataDir := ""
	if len(l.Targets) > 0 {
		dataDir = l.Targets[0].DataDir
	}
	l.Run, err = l.Store.BeginRun(ctx, results.RunInfo{
		Kind:    kind,
		Version: buildinfo.String(),
		Command: append([]string{"pglab"}, l.env.Args...),
		Host:    results.CollectHost(dataDir),
		Extra:   extraJSON,
	})
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	for _, t := range l.Targets {
		if err := l.Run.AddTarget(ctx, t.Record(ctx)); err != nil {
			return err
		}
	}
	for _, n := range l.notes {
		if err := l.Run.AddArtefact(ctx, results.Artefact{Target: n.target, Name: "note", ContentType: "text/plain", Data: []byte(n.text)}); err != nil {
			return err
		}
	}
	rt, _ := json.Marshal(results.RunTime{ServersMS: float64(serversTime.Microseconds()) / 1000})
	if err := l.Run.AddArtefact(ctx, results.Artefact{Name: results.RunTimeArtefact, ContentType: "application/json", Data: rt}); err != nil {
		return err
	}
	return l.openWorkers(ctx)
}

// openWorkers waits for the --workers to join the coordinator.
func (l *lab) openWorkers(ctx context.Context) error {
	f := l.flags
	if f.workers == 0 {
		return nil
	}
	token := f.token
	if token == "" {
		token = os.Getenv("PGLAB_TOKEN")
	}
	co, err := dist.Listen(dist.Options{Listen: f.listen, Workers: f.workers, Token: token,
		Version: buildinfo.Version, Stderr: l.env.Stderr, Quiet: l.env.Quiet})
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	l.co = co
	// (printed even under --quiet: the workers need the address)
	fmt.Fprintf(l.env.Stderr, "pglab: waiting for %d workers: pglab worker --join %s\n", f.workers, co.Addr())
	if err := co.Accept(ctx); err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	return nil
}

// labNote is a remark about one target's set-up.
type labNote struct{ target, text string }

// note records a remark about a target's set-up: printed with the run,
// stored with it, shown in its report.
func (l *lab) note(target, format string, args ...any) {
	n := labNote{target, fmt.Sprintf(format, args...)}
	l.notes = append(l.notes, n)
	l.Notes = append(l.Notes, n.target+": "+n.text)
	if p := l.env.progress(); p != nil {
		p(l.Notes[len(l.Notes)-1])
	}
}

// serverSettings returns the settings a managed server of spec s starts
// with: the user's --set, a study variant's settings and --config's. A
// setting its version does not have (Binaries.Parameters) is left out with
// a note: a variant's always; a --set or --config one when another version
// of the run has it (a name no version knows is a typo, which the server's
// own check then reports).
func (l *lab) serverSettings(ctx context.Context, s targetSpec, b *pgserver.Binaries) ([]pgserver.Setting, error) {
	all := pgserver.MergeSettings(pgserver.MergeSettings(l.settings, s.optional...), s.settings...)
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
		if containsSetting(s.optional, m) {
			leave[m.Name] = true
			l.note(s.name, "%s left out: PostgreSQL %s has no such setting", m, b.Version)
			continue
		}
		other, err := l.otherVersionWith(ctx, s, m.Name)
		if err != nil {
			return nil, err
		}
		if other != "" {
			leave[m.Name] = true
			l.note(s.name, "%s left out: PostgreSQL %s has no such setting (%s has)", m, b.Version, other)
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
func (l *lab) otherVersionWith(ctx context.Context, s targetSpec, name string) (string, error) {
	for _, o := range l.specs {
		if o.dsn != "" || o.named != "" || o.version.Major == s.version.Major {
			continue
		}
		b, err := l.env.resolveBinaries(ctx, o.version.String(), l.flags.noInstall)
		if err != nil {
			return "", err
		}
		params, err := b.Parameters(ctx)
		if err != nil {
			return "", err
		}
		if params[name] {
			return o.name, nil
		}
	}
	return "", nil
}

// setupBar returns what moves the "setup" progress bar while open starts
// the managed servers (three steps each: binaries found or installed,
// initdb, start); on a terminal only, and a no-op otherwise.
func (l *lab) setupBar() func(done int, label string) {
	managed := 0
	for _, s := range l.specs {
		if s.dsn == "" && s.named == "" {
			managed++
		}
	}
	if managed == 0 || l.env.Quiet || !l.env.ui().tty {
		return func(int, string) {}
	}
	total := 3 * managed
	return func(done int, label string) { l.env.ui().Step("setup", done, total, label) }
}

// close finishes the run (done, failed or interrupted by runErr) and stops
// the servers pglab started.
func (l *lab) close(kind results.Kind, runErr error) error {
	var err error
	if l.co != nil {
		l.co.Close(runErr)
		l.co = nil
	}
	if l.Run != nil {
		status := results.StatusDone
		switch {
		case runErr != nil && (errors.Is(runErr, context.Canceled) || l.env.Ctx.Err() != nil):
			status = results.StatusInterrupted
		case runErr != nil:
			status = results.StatusFailed
		}
		err = l.Run.Finish(context.Background(), status, runErr)
		l.Run = nil
	}
	if l.env.progressUI != nil {
		l.env.progressUI.Done()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, inst := range l.owned {
		if derr := inst.Destroy(ctx); derr != nil && err == nil {
			err = derr
		}
	}
	l.owned = nil
	if l.Store != nil {
		l.Store.Close()
		l.Store = nil
	}
	return err
}

// runner returns a study runner over the lab's targets, storing into its
// run.
func (l *lab) runner(reps int, quick bool) *study.Runner {
	r := &study.Runner{
		Targets:  l.Targets,
		Store:    l.Run,
		Reps:     reps,
		Quick:    quick,
		Settings: l.settings,
		Force:    l.flags.force,
		Progress: l.env.progress(),
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
	if !l.env.Quiet && l.env.ui().tty {
		r.OnRep = l.env.ui().Step
	}
	return r
}

// storeLocation says where the run was stored, for the closing line.
func (l *lab) storeLocation() string {
	if l.flags.store != "" {
		return results.RedactDSN(l.flags.store)
	}
	return defaultStoreText()
}

func fileOrEmpty(p string) string {
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// expandVariants replaces each managed version by one server per variant
// of a study that compares configurations (study.Configurer).
func (l *lab) expandVariants(c study.Configurer, p study.Params) ([]study.Variant, error) {
	var out []targetSpec
	var all []study.Variant
	versions := 0
	for _, s := range l.specs {
		if s.dsn == "" && s.named == "" {
			versions++
		}
	}
	for _, s := range l.specs {
		if s.dsn != "" || s.named != "" {
			return nil, badInput("this study compares configurations of managed servers: use --versions, not --target %s", s.name)
		}
		vs, err := c.Variants(p, s.version.Major)
		if err != nil {
			return nil, badInput("%v", err)
		}
		for _, v := range vs {
			name := v.Name
			if versions > 1 {
				name = s.name + "-" + v.Name
			}
			out = append(out, targetSpec{name: name, version: s.version, settings: s.settings, optional: v.Settings})
			v.Name = name
			all = append(all, v)
		}
	}
	l.specs = out
	return all, nil
}

func containsSetting(list []pgserver.Setting, s pgserver.Setting) bool {
	for _, x := range list {
		if x.Name == s.Name && x.Value == s.Value {
			return true
		}
	}
	return false
}
