package study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/pglab/pglab/bench"

	"github.com/jackc/pgx/v5"
	"github.com/pglab/pglab/dataset"
	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/results"
)

// Session is one study on one target: what Setup, Run and Teardown get.
// It records measurements, artefacts and notes for the current case and
// repetition.
type Session struct {
	// Target is the server.
	Target *Target
	// Params are the study's parameter values.
	Params Params
	// Quick is true under --quick.
	Quick bool
	// Data is the study's own state between Setup, Run and Teardown.
	Data any
	// WaitInterval is the wait-event sampler's interval in measured steps
	// (0: observe.DefaultWaitInterval). A study that reads a wait's time
	// from the samples (commit: IPC:SyncRep) samples faster.
	WaitInterval time.Duration

	study  string
	runner *Runner

	mu    sync.Mutex
	obs   *pgx.Conn // the observer connection of Measure
	cur   Case
	rep   int
	batch []results.Measurement
	all   []results.Measurement
	notes []Note
	// absent holds the (case, metric) pairs noted as unavailable; plans
	// the (case, statement) pairs whose plan was recorded.
	absent map[string]bool
	plans  map[string]bool
	// noProfile says why perf could not sample this target, once it
	// failed: later steps do not try again.
	noProfile string
	// measured is the time in measured steps, steps their number.
	measured time.Duration
	steps    int
	// profiled is the profiler's time outside the steps (addProfileTime).
	profiled time.Duration
	// tallies split the repetitions' time per case (order: first seen);
	// uses are the dataset loads; entries the cache entries held.
	tallies map[string]*caseTally
	order   []string
	uses    []results.DataUse
	entries map[string]*dataset.Entry
}

// AddMeasured counts d as time in a measured step (MeasureStep counts its
// own steps), for the run's split of wall time into measured steps and
// set-up.
func (s *Session) AddMeasured(d time.Duration) {
	s.mu.Lock()
	s.measured += d
	s.steps++
	if t := s.tallyLocked(); t != nil {
		t.measured += d
	}
	s.mu.Unlock()
}

// Note is a remark a study or the runner makes about a case, such as a
// bottleneck ("disk read throughput flat at 87 MB/s for 92 % of the scan"),
// or, with Outcome set, the one-cell result of a behaviour probe.
type Note struct {
	Target string
	Case   Case
	Rep    int
	// Metric, when set, is the figure the note explains (a counter this
	// version does not have): reports mark that figure's cell.
	Metric  string
	Text    string
	Outcome bool
}

// MetricOption sets a property of a recorded metric.
type MetricOption func(*results.Measurement)

// Exact marks a metric compared exactly (counts that should not vary).
func Exact() MetricOption { return func(m *results.Measurement) { m.Exact = true } }

// HigherIsBetter marks a metric where more is better (tps, MB/s).
func HigherIsBetter() MetricOption {
	return func(m *results.Measurement) { m.Direction = results.DirectionHigher }
}

// LowerIsBetter marks a metric where less is better (time, WAL bytes).
func LowerIsBetter() MetricOption {
	return func(m *results.Measurement) { m.Direction = results.DirectionLower }
}

// Record adds a measurement for the current case and repetition. Values
// that are not finite are dropped (with a note): the store keeps finite
// values only.
func (s *Session) Record(metric string, value float64, unit string, opts ...MetricOption) {
	s.record(nil, metric, value, unit, opts...)
}

// record adds a measurement for case c (nil: the current case) in the
// current repetition.
func (s *Session) record(c *Case, metric string, value float64, unit string, opts ...MetricOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.cur
	if c != nil {
		cur = *c
	}
	if math.IsNaN(value) || math.IsInf(value, 0) {
		s.notes = append(s.notes, Note{Target: s.Target.Name, Case: cur, Rep: s.rep, Text: fmt.Sprintf("%s was not a finite number and is left out", metric)})
		return
	}
	m := results.Measurement{
		Target: s.Target.Name,
		Study:  s.study,
		Case:   cur.Labels,
		Rep:    s.rep,
		Metric: metric,
		Value:  value,
		Unit:   unit,
		At:     time.Now(),
	}
	for _, o := range opts {
		o(&m)
	}
	s.batch = append(s.batch, m)
}

// Artefact stores a raw piece of output (VACUUM VERBOSE text, notices, a
// JSON series) for the current case and repetition.
func (s *Session) Artefact(ctx context.Context, name, contentType string, data []byte) error {
	return s.artefact(ctx, nil, name, contentType, data)
}

// artefact stores an artefact for case c (nil: the current case).
func (s *Session) artefact(ctx context.Context, c *Case, name, contentType string, data []byte) error {
	if s.runner.Store == nil {
		return nil
	}
	s.mu.Lock()
	cur := s.cur
	if c != nil {
		cur = *c
	}
	a := results.Artefact{Target: s.Target.Name, Study: s.study, Case: cur.Labels, Rep: s.rep, Name: name, ContentType: contentType, Data: data, At: time.Now()}
	s.mu.Unlock()
	return s.runner.Store.AddArtefact(ctx, a)
}

// Note records a remark about the current case and repetition. It is
// kept with the run as an artefact named "note".
func (s *Session) Note(format string, args ...any) {
	s.addNote(Note{Text: fmt.Sprintf(format, args...)})
}

func (s *Session) addNote(n Note) { s.addNoteIn(nil, n) }

// addNoteIn records n for case c (nil: the current case).
func (s *Session) addNoteIn(c *Case, n Note) {
	s.mu.Lock()
	n.Case = s.cur
	if c != nil {
		n.Case = *c
	}
	n.Target, n.Rep = s.Target.Name, s.rep
	s.notes = append(s.notes, n)
	s.mu.Unlock()
	name, contentType, data := "note", "text/plain", []byte(n.Text)
	switch {
	case n.Outcome:
		name = "outcome"
	case n.Metric != "":
		contentType = "application/json"
		data, _ = json.Marshal(results.MetricNote{Metric: n.Metric, Text: n.Text})
	}
	// A note that cannot be stored is still printed; the store reports
	// its own failures on the measurements that follow.
	s.artefact(context.Background(), &n.Case, name, contentType, data)
}

// Unavailable notes that this target cannot give a metric the study
// records on other versions, and why ("PostgreSQL 13 has no pg_stat_wal
// (new in 14)"); reports show the figure as "–" with the reason as its
// footnote. It is noted once per case.
func (s *Session) Unavailable(metric, reason string) {
	s.mu.Lock()
	key := results.CaseKey(s.cur.Labels) + "\x00" + metric
	seen := s.absent[key]
	if s.absent == nil {
		s.absent = map[string]bool{}
	}
	s.absent[key] = true
	s.mu.Unlock()
	if !seen {
		s.addNote(Note{Metric: metric, Text: reason})
	}
}

// StepCounter returns a counter difference of a measured step by its
// observe name; when this server's version has no such counter it notes
// that the study's metric is unavailable (Unavailable) and returns false.
func (s *Session) StepCounter(step *Step, counter, metric string) (float64, bool) {
	v, ok := step.Counter(counter)
	if !ok {
		if why := observe.CounterAbsent(counter, s.Target.VersionNum); why != "" {
			s.Unavailable(metric, why)
		}
	}
	return v, ok
}

// Outcome records the result of a behaviour probe as one short text, shown
// as a cell of a matrix (case × target) in reports, e.g. "3 rows loaded, 1
// skipped".
func (s *Session) Outcome(text string) {
	s.addNote(Note{Text: text, Outcome: true})
}

// Log prints a progress line (nothing when quiet).
func (s *Session) Log(format string, args ...any) {
	if s.runner.Progress != nil {
		s.runner.Progress(fmt.Sprintf("%s/%s: %s", s.study, s.Target.Name, fmt.Sprintf(format, args...)))
	}
}

// RunLoad runs a pgbench workload: on the runner's workers when it has
// them (Runner.Load), else in this process.
func (s *Session) RunLoad(ctx context.Context, cfg bench.Config) (*bench.Result, error) {
	if s.runner.Load != nil {
		return s.runner.Load(ctx, cfg)
	}
	return bench.Run(ctx, cfg)
}

// Rep returns the current repetition number (1-based; 0 in Setup and
// Teardown).
func (s *Session) Rep() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rep
}

func (s *Session) begin(c Case, rep int) {
	s.mu.Lock()
	s.cur, s.rep = c, rep
	s.mu.Unlock()
}

// flush hands the measurements recorded since the last flush to the store.
func (s *Session) flush(ctx context.Context) error {
	s.mu.Lock()
	batch := s.batch
	s.batch = nil
	s.all = append(s.all, batch...)
	s.mu.Unlock()
	if len(batch) == 0 || s.runner.Store == nil {
		return nil
	}
	return s.runner.Store.AddMeasurements(ctx, batch)
}

// RestartTarget restarts a managed server (emptying shared buffers); the
// session's counter connection is reopened on next use.
func (s *Session) RestartTarget(ctx context.Context) error {
	s.closeObserver()
	return s.Target.Restart(ctx)
}

// Force reports that the run may use a schema named pglab that pglab did
// not make, and write to a server pglab does not manage (--force).
func (s *Session) Force() bool { return s.runner != nil && s.runner.Force }
