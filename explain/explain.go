// Package explain says why a called change happened: its cause card.
//
// A study's case records, in the same measured step and round as its
// primary figures, what the server itself accounts: its processes' CPU
// time (and, profiled, per function), the time its sessions waited by
// wait event, the WAL it wrote by record type with its full-page images
// apart, the time the WAL took to write and sync, the client's CPU. A
// called change of a time or of a WAL volume is split over those figures:
// each round's change of a figure, target minus baseline, in the called
// figure's own unit, averaged over the rounds, as a share of the called
// figure's change (AWR's "normalise, then order by the difference";
// Database Replay's CPU / wait / I/O split). A figure is a cause when its
// own paired test passes at the level the report's correction leaves the
// called changes (Benjamini-Hochberg among a card's candidates at
// alpha·R/M, Benjamini and Bogomolov's rule for the families of the R
// calls among M tests) and it moved the same way as the change; the card
// names at most MaxCauses, the largest first, says which setting or
// build choice that differs between the targets each points to, and how
// much of the change they account for ("unexplained" when less than
// half). A plan whose shape differs is a cause of its own. Nothing is
// called in an A/A comparison, so no card names a cause there.
//
// The package reads nothing and prints nothing: Build takes a report's
// family and its measurements, grouped (package verdict), and returns the
// cards.
package explain

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// MaxCauses is the most causes a card names.
const MaxCauses = 5

// Kind is a cause's kind: the closed vocabulary of a card.
type Kind string

// The kinds of cause.
const (
	// KindCPU is the server processes' CPU time (server_cpu_ms); with a
	// profile, what its functions do not account for.
	KindCPU Kind = "server CPU"
	// KindFunction is one function's CPU self time (cpu_fn_ms:F).
	KindFunction Kind = "CPU in a function"
	// KindCPUWait is time the server's processes waited for a CPU
	// (server_runq_ms).
	KindCPUWait Kind = "waiting for a CPU"
	// KindWALSync and KindWALWrite are the WAL's fsync and write time.
	KindWALSync  Kind = "WAL sync"
	KindWALWrite Kind = "WAL write"
	// KindWait is time the sessions spent in a wait event (sampled).
	KindWait Kind = "wait"
	// KindWALRecord is a WAL record type's bytes, KindFPI the full-page
	// images' bytes of a record type.
	KindWALRecord Kind = "WAL records"
	KindFPI       Kind = "full-page images"
	// KindClient is the client's CPU (pglab's own processes).
	KindClient Kind = "client CPU"
	// KindPlan is a plan whose shape differs between the targets.
	KindPlan Kind = "plan"
	// KindConcurrency is a replayed workload whose sessions ran further
	// behind the captured schedule on one target: its statements met
	// other overlaps there (lag_p50_ms of the workload).
	KindConcurrency Kind = "concurrency"
)

// Cause is one named cause of a card with its evidence.
type Cause struct {
	Kind Kind `json:"kind"`
	// Name is what it names within its kind: a function, a record type,
	// a wait event; empty for a kind that is one figure.
	Name string `json:"name,omitempty"`
	// Metric is the figure it was read from.
	Metric string `json:"metric"`
	// Base and Target are its mean per step on each side, Unit its unit
	// (the called figure's).
	Base   float64 `json:"base"`
	Target float64 `json:"target"`
	Unit   string  `json:"unit"`
	// Delta is its mean change per step (target − baseline) over the
	// paired rounds, Lo and Hi the 1 − alpha interval of that mean.
	Delta float64 `json:"delta"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// Share is Delta over the called figure's change; Unmeasured marks a
	// cause whose share cannot be told (concurrency), its Share 0.
	Share      float64 `json:"share"`
	Unmeasured bool    `json:"share_not_measurable,omitempty"`
	// P is its paired test's p (0 for a figure that repeated exactly on
	// each side), Q its adjusted p among the card's candidates.
	P float64 `json:"p"`
	Q float64 `json:"q"`
	// Points names the settings or build choices that differ between
	// the targets and drive this kind of cause ("wal_compression: off →
	// lz4").
	Points []string `json:"points,omitempty"`
}

// Card is the cause card of one called change.
type Card struct {
	Study, Case, Metric string
	Target, Baseline    string
	// Delta is the called figure's mean change per step over its paired
	// rounds, in Unit; Ratio its estimate as the report has it.
	Delta float64
	Unit  string
	Ratio float64
	// Causes are the named causes, the largest share first.
	Causes []Cause
	// Explained is the share of Delta the causes account for, at most 1.
	Explained float64
	// Candidates is how many figures were tested as causes.
	Candidates int
	// Missing says what evidence the card lacks and why ("CPU by
	// function: not sampled (--profile)").
	Missing []string
	// Settings lists what differs between the two targets' settings and
	// builds that the user asked for or a cause points to, the user's
	// own first; OtherDifferences counts the rest (a version's own
	// settings and defaults: the run's config-drift has them).
	Settings         []string
	OtherDifferences int
}

// Unexplained reports a card whose causes account for less than half of
// its change.
func (c Card) Unexplained() bool { return c.Explained < 0.5 }

// Input is what Build reads: the report's family, its measurements
// grouped by study and case, the report's targets of each study, and
// per pair of targets what differs between them.
type Input struct {
	Family *compare.Family
	Groups []verdict.StudyGroup
	// Targets returns a study's targets, the first the baseline.
	Targets func(study string) []string
	// Differences returns what differs between two targets' settings
	// and builds, as "name: a → b" lines (drift.go's words), and the
	// settings by name; nil when unknown.
	Differences func(baseline, target string) []Difference
	// Plans returns the plan shape hash of a case's statement on a
	// target, "" when none was recorded.
	Plans func(study, caseKey, target string) (hash, tree string)
	// Missing returns, for a study's case on a target, the evidence it
	// could not give and why, by family ("wal_rec_bytes", "cpu_fn_ms").
	Missing func(study, caseKey, target string) map[string]string
}

// Difference is one setting or build choice that differs between two
// targets.
type Difference struct {
	// Name is the setting's name ("wal_compression") or the build
	// choice's ("data_checksums").
	Name string
	// Text says it: "wal_compression: off → lz4", "io_combine_limit:
	// pg17 only, 128kB".
	Text string
	// Asked reports a difference the user asked for (a configuration or
	// --set); the rest is drift or a version's own default.
	Asked bool
}

// Build returns the cause card of every called change of the family
// whose figure is a time or a WAL volume (a rate's card is its time's:
// a twin is explained by the figure it repeats), in the family's order.
func Build(in Input) []Card {
	f := in.Family
	if f == nil {
		return nil
	}
	level := f.Alpha
	if f.Tests > 0 {
		level = f.Alpha * float64(max(f.Discoveries, 1)) / float64(f.Tests)
	}
	groups := map[string]verdict.CaseGroup{}
	for _, sg := range in.Groups {
		for _, cg := range sg.Cases {
			groups[sg.Study+"\x00"+cg.Key] = cg
		}
	}
	var cards []Card
	for _, cr := range f.Cells {
		study, caseKey, metric := splitKey(cr.Key)
		cg, ok := groups[study+"\x00"+caseKey]
		if !ok {
			continue
		}
		for _, c := range cr.Result.Changes {
			if !c.Called || c.Twin != "" || !explainable(c) {
				continue
			}
			card, ok := buildCard(in, cg, study, metric, c, level)
			if ok {
				cards = append(cards, card)
			}
		}
	}
	return cards
}

// splitKey splits a family cell's key (verdict.Key).
func splitKey(key string) (study, caseKey, metric string) {
	parts := strings.SplitN(key, "\x00", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2]
}

// explainable reports whether a change's figure is one the card splits:
// a time (its unit a duration) or a volume of WAL.
func explainable(c compare.Change) bool {
	return timeUnit(string(c.Metric.Unit)) > 0 || isWALVolume(c.Metric.Name)
}

// timeUnit returns a duration unit's length in milliseconds, 0 for
// another unit.
func timeUnit(unit string) float64 {
	switch unit {
	case "ms":
		return 1
	case "us", "µs":
		return 1e-3
	case "s":
		return 1e3
	case "ns":
		return 1e-6
	}
	return 0
}

// isWALVolume reports a figure of WAL bytes.
func isWALVolume(metric string) bool { return metric == "wal_bytes" }

// buildCard makes the card of one called change c of metric in case cg.
func buildCard(in Input, cg verdict.CaseGroup, study, metric string, c compare.Change, level float64) (Card, bool) {
	fig, ok := metricOf(cg, metric)
	if !ok {
		return Card{}, false
	}
	card := Card{Study: study, Case: cg.Key, Metric: metric, Target: c.Target, Baseline: c.Baseline,
		Unit: fig.Unit, Ratio: c.RatioEst}
	scale := 1.0
	if u := timeUnit(fig.Unit); u > 0 {
		ops, ok := opsOf(cg, fig)
		if !ok {
			return Card{}, false
		}
		scale = u * ops // components are read in ms per step
	}
	whole := pairOf(fig, c.Baseline, c.Target, scale)
	if len(whole.d) == 0 {
		return Card{}, false
	}
	card.Delta = whole.mean() / scale
	var cands []candidate
	if isWALVolume(metric) {
		cands = walCandidates(cg, c.Baseline, c.Target)
	} else {
		cands = timeCandidates(cg, c.Baseline, c.Target, whole)
	}
	card.Candidates = len(cands)
	testCandidates(cands, whole.mean(), level)
	card.Causes, card.Explained = pickCauses(cands, whole.mean(), scale, fig.Unit)
	p := planCause(in, study, cg.Key, c)
	if p != nil {
		card.Causes = append([]Cause{*p}, card.Causes...)
	}
	if q := concurrencyCause(in, study, c, level); q != nil && p == nil {
		card.Causes = append(card.Causes, *q)
	}
	if len(card.Causes) > MaxCauses {
		card.Causes = card.Causes[:MaxCauses]
	}
	attachSettings(&card, in)
	card.Missing = missingOf(in, study, cg.Key, c)
	if timeUnit(fig.Unit) > 0 && len(functionCandidates(cg, c.Baseline, c.Target)) == 0 && !mentions(card.Missing, "CPU by function") {
		card.Missing = append(card.Missing, "CPU by function: not sampled (compare or study --profile samples it)")
	}
	if _, ok := metricOf(cg, walRecTotal); isWALVolume(metric) && !ok && !mentions(card.Missing, "WAL by record type") {
		card.Missing = append(card.Missing, "WAL by record type: not recorded with this run (read on PostgreSQL 15 and later)")
	}
	return card, true
}

// stepMetrics are the per-step times (ms) a time per operation can be
// derived from.
var stepMetrics = []string{elapsedMS, "commit_ms", serverCPU, walSyncMS, walWriteMS}

// opsOf returns the operations per step of a time figure: 1 for a
// figure of the whole step, else the constant ratio of a per-step time
// to the figure in every round on every side (the updates of a time per
// update). False when no per-step time gives one.
func opsOf(cg verdict.CaseGroup, fig verdict.MetricGroup) (float64, bool) {
	u := timeUnit(fig.Unit)
	for _, name := range stepMetrics {
		if name == fig.Name {
			return 1, true
		}
		mg, ok := metricOf(cg, name)
		if !ok || mg.Unit != "ms" {
			continue
		}
		ratio, ok := constantRatio(mg, fig, u)
		if ok {
			return ratio, true
		}
	}
	return 0, false
}

// constantRatio returns whole/(part·u), when it is the same (to 1e-6) in
// every round of every target both have.
func constantRatio(whole, part verdict.MetricGroup, u float64) (float64, bool) {
	ratio, seen := 0.0, false
	for target, ws := range whole.Samples {
		ps := part.Samples[target]
		for i := range min(len(ws), len(ps)) {
			if ps[i] <= 0 || ws[i] <= 0 {
				return 0, false
			}
			r := ws[i] / (ps[i] * u)
			if !seen {
				ratio, seen = r, true
			} else if math.Abs(r-ratio) > 1e-6*ratio {
				return 0, false
			}
		}
	}
	return math.Round(ratio*1e6) / 1e6, seen
}

// mentions reports whether a line of lines begins with prefix.
func mentions(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// metricOf returns a case's metric by name.
func metricOf(cg verdict.CaseGroup, name string) (verdict.MetricGroup, bool) {
	for _, mg := range cg.Metrics {
		if mg.Name == name {
			return mg, true
		}
	}
	return verdict.MetricGroup{}, false
}

// pickCauses returns the candidates that passed, moved the way of the
// change and account for a share of it, the largest first (at most
// MaxCauses), and the share of the change they account for together
// (at most 1).
func pickCauses(cands []candidate, delta, scale float64, unit string) ([]Cause, float64) {
	var out []Cause
	for _, cd := range cands {
		if !cd.passed || delta == 0 || cd.pair.mean()/delta <= 0 {
			continue
		}
		out = append(out, cd.cause(delta, scale, unit))
	}
	slices.SortStableFunc(out, func(a, b Cause) int {
		switch {
		case a.Share > b.Share:
			return -1
		case a.Share < b.Share:
			return 1
		}
		return 0
	})
	if len(out) > MaxCauses {
		out = out[:MaxCauses]
	}
	explained := 0.0
	for _, c := range out {
		explained += c.Share
	}
	return out, math.Min(explained, 1)
}

// Text says a cause in a line: "CPU in CopyOneRowTo: 412 → 228 ms
// (−184 ms [−201, −167], 61 % of the change)".
func (c Cause) Text() string {
	what := string(c.Kind)
	if c.Name != "" {
		what += " " + c.Name
	}
	s := fmt.Sprintf("%s: %s → %s (%s [%s, %s], %.0f %% of the change)", what,
		formatValue(c.Base, c.Unit), formatValue(c.Target, c.Unit), signed(c.Delta, c.Unit),
		signed(c.Lo, c.Unit), signed(c.Hi, c.Unit), 100*c.Share)
	switch c.Kind {
	case KindPlan:
		s = fmt.Sprintf("%s: %s", what, c.Metric)
	case KindConcurrency:
		s = fmt.Sprintf("%s: the sessions ran %s behind the captured schedule (median) where the baseline's ran %s behind: the statements met other overlaps (share of the change not measurable)",
			what, formatValue(c.Target, c.Unit), formatValue(c.Base, c.Unit))
	}
	if len(c.Points) > 0 {
		s += "; points to " + strings.Join(c.Points, ", ")
	}
	return s
}

// formatValue formats a figure in its unit.
func formatValue(v float64, unit string) string {
	return compare.FormatValue(v, compare.Unit(unit))
}

// signed formats a change with its sign.
func signed(v float64, unit string) string {
	s := formatValue(math.Abs(v), unit)
	if v < 0 {
		return "−" + s
	}
	return "+" + s
}
