package study

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
)

// Info describes a study for --help, manifests and reports: everything
// the rest of pglab needs to know about it, so that a new study is one
// file. Each run stores it with the study's figures (Stored), and reports
// of the run show the study from what was stored.
type Info struct {
	// Name is what users type: `pglab study NAME`.
	Name string
	// Title is a one-line description.
	Title string
	// Source names the seed experiment it reproduces, e.g. "seed 000 §4".
	Source string
	// Params are the study's parameters with defaults and --quick values.
	Params []Param
	// Version is the study's version, 1 or more: bump it when what the
	// study records changes (its metrics, what they measure, its cases),
	// so that stored runs say which one they ran.
	Version int
	// InAll says that the study joins `--studies all` (the default of
	// pglab compare). A study that compares configurations of one server
	// (tune) or needs the user's input (replay's workload) does not: its
	// default parameters must run on every comparison of servers.
	InAll bool
	// Presentation says how reports show the study's figures: its
	// headline metrics, label columns, facts, charts and texts. Nil shows
	// every metric in one table, each one a change a report can call.
	Presentation *results.Presentation
}

// ErrInfo is wrapped by the errors of Info.Check.
var ErrInfo = errors.New("invalid study description")

// Check reports what makes the description unusable: no name, a version
// below 1, a parameter named twice, or a presentation that does not hold
// together (results.Presentation.Check).
func (i Info) Check() error {
	if i.Name == "" {
		return fmt.Errorf("%w: a study needs a name", ErrInfo)
	}
	if i.Version < 1 {
		return fmt.Errorf("%w: study %s: version %d (want 1 or more)", ErrInfo, i.Name, i.Version)
	}
	seen := map[string]bool{}
	for _, p := range i.Params {
		if p.Name == "" || seen[p.Name] {
			return fmt.Errorf("%w: study %s: parameter %q is unnamed or named twice", ErrInfo, i.Name, p.Name)
		}
		seen[p.Name] = true
	}
	if err := i.Presentation.Check(); err != nil {
		return fmt.Errorf("%w: study %s: %w", ErrInfo, i.Name, err)
	}
	return nil
}

// Stored returns the study's description as a run stores it (the
// artefact results.StudyInfoArtefact) for the parameters, plan and
// repetitions it ran with: its name, version and presentation, so that
// reports of the run need no study code, and its cases' names. How the
// rounds were ordered and the settings are the runner's to add.
func (i Info) Stored(params Params, plan Plan, reps int) results.StudyInfo {
	si := results.StudyInfo{Name: i.Name, Title: i.Title, Source: i.Source, Params: params.Text(), Reps: reps,
		Version: i.Version, Presentation: i.Presentation}
	for _, c := range plan.Cases {
		si.Cases = append(si.Cases, results.CaseInfo{Name: c.Name, Labels: c.Labels})
	}
	return si
}

// Case is one combination of a study's case parameters, e.g. one update
// share with or without an index. Its Labels are stored with every
// measurement of the case.
type Case struct {
	// Name is a short human label, e.g. "95 % + index".
	Name string
	// Labels tell the case apart within the study, e.g.
	// {"update_pct": "95", "index": "yes"}.
	Labels map[string]string
	// Data is the study's own description of the case.
	Data any
}

// Plan is what a study will do with given parameters.
type Plan struct {
	// Cases are run in order; each repetition runs every target once per
	// case before the next repetition (A B A B …).
	Cases []Case
	// Settings are the server settings the study wants on managed
	// targets. On a user's server (DSN target) pglab records what it found
	// instead of changing server-wide settings; session-level settings
	// are applied to the study's own connections.
	Settings []pgserver.Setting
	// Reps is the default number of repetitions (0 means 3; --reps wins).
	Reps int
	// QuickReps is the default number of repetitions under --quick (0
	// means Reps).
	QuickReps int
	// Recorded, when > 0, says that the study's figures are not its
	// planned cases' but those of the cases each run records into
	// (Session.In; replay: one per query fingerprint), about this many:
	// --reps auto counts them in the report's family, and decides whether
	// a planned case goes on from every case its runs recorded.
	Recorded int
	// LookScale, when > 1, multiplies the rounds of every look of the
	// study under --reps auto at the seeds' sizes (not under --quick):
	// a study whose rounds are short slices of one longer run (tps: 15 s
	// of the seed's 60 s pgbench run, the slices of the two targets
	// alternating A B B A by the rounds' mirrored order) is looked at as
	// often as the others, after this many times their rounds. Under a
	// fixed count Reps says how many slices.
	LookScale int
	// QuickLookScale is LookScale under --quick: a study whose quick
	// rounds are split into this many shorter ones (commit: 500 updates
	// a round where the seed's unit is 2000), so that the two targets'
	// runs of a case follow one another more closely and a cheap case
	// spends its rounds where pairing them takes out more of the
	// machine's drift.
	QuickLookScale int
	// RoundEstimate is at least what one round of one case takes on one
	// target, when the study can say so before it runs (tps: its pgbench
	// run's duration and warm-up); 0 when it cannot. Under --reps auto
	// with a budget, the first looks of the studies still to come are
	// kept out of each study's share by it, so that a study that runs
	// first cannot spend what a later one must spend on its first look.
	RoundEstimate time.Duration
}

// Study is one experiment. The runner calls Setup once per target, then
// Run once per case, target and repetition, then Teardown once per target
// (also after an error or interruption, with a context that is not
// cancelled). Methods of one Study value are called from one goroutine.
type Study interface {
	// Info describes the study.
	Info() Info
	// Plan returns the cases and settings for the parameters.
	Plan(p Params) (Plan, error)
	// Setup prepares a target (tables, data) before its first case.
	Setup(ctx context.Context, s *Session) error
	// Run performs one repetition of one case and records its
	// measurements on s.
	Run(ctx context.Context, s *Session, c Case, rep int) error
	// Teardown removes what Setup and Run created.
	Teardown(ctx context.Context, s *Session) error
}

var (
	regMu    sync.Mutex
	registry = map[string]func() Study{}
)

// Register adds a study constructor. It panics on a duplicate name (a
// programming error found at start-up).
func Register(name string, newStudy func() Study) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("study: duplicate study " + name)
	}
	registry[name] = newStudy
}

// Get returns a new instance of the named study.
func Get(name string) (Study, error) {
	regMu.Lock()
	defer regMu.Unlock()
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown study %q (studies: %s)", name, strings.Join(namesLocked(), ", "))
	}
	return f(), nil
}

// Names returns the registered study names, sorted.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Configurer is implemented by studies that compare configurations: the
// command starts one managed server per variant of each version, with
// identical initdb choices, and the study runs on them interleaved.
type Configurer interface {
	Variants(p Params, major int) ([]Variant, error)
}

// Variant is one configuration of a server, for studies that compare
// configurations of one version rather than servers.
type Variant struct {
	Name     string
	Settings []pgserver.Setting
	// Note says where the settings come from, for the run's notes.
	Note string
}
