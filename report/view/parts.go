package view

import (
	"fmt"
	"time"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/explain"
	"github.com/pglab/pglab/report/internal/words"
)

// Noise is a study's noise statement for one target against the
// baseline: how much of the spread of its primary figures came from the
// machine, what the machine did during the steps, and what it would take
// to resolve what is unresolved.
type Noise struct {
	Target   string `json:"target"`
	Baseline string `json:"baseline"`
	// Figures is the number of paired primary figures the spreads are
	// the medians of.
	Figures int `json:"figures"`
	// SpreadSide is the median spread of each side across rounds,
	// SpreadRound that of a round's change (both percent), Correlation
	// the median correlation of the two sides across rounds.
	SpreadSide  *float64 `json:"spread_side_percent"`
	SpreadRound *float64 `json:"spread_round_percent"`
	Correlation *float64 `json:"side_correlation"`
	// ForeignMedian and ForeignMax are other processes' CPU during the
	// steps (percent of all CPUs), StealMax the hypervisor's; null when
	// not measured (a user's server).
	ForeignMedian *float64 `json:"foreign_cpu_median_percent"`
	ForeignMax    *float64 `json:"foreign_cpu_max_percent"`
	StealMax      *float64 `json:"steal_max_percent"`
	// FsyncMedianMS is the median time of one WAL fsync over the steps
	// (wal_sync_ms / wal_syncs) and FsyncSpread how much it varied from
	// step to step (the median over cases of its relative standard
	// deviation, percent); null where the study records no WAL syncs.
	FsyncMedianMS *float64 `json:"fsync_median_ms,omitempty"`
	FsyncSpread   *float64 `json:"fsync_spread_percent,omitempty"`
	// Disturbed names the rounds ("case · round N") in which foreign
	// CPU on either side exceeded the study's median round by
	// verdict.DisturbedMargin points: left out of the paired comparison.
	Disturbed []string `json:"disturbed_rounds"`
	// Own counts the study's primary figures by their outcome on their
	// own rounds (twins and exact counts among them).
	Own OwnEvidence `json:"own_evidence"`
	// Adjusted counts the paired primary figures adjusted for the
	// machine's speed, AdjustCorr the median correlation it rested on.
	Adjusted   int      `json:"adjusted_for_speed,omitempty"`
	AdjustCorr *float64 `json:"adjust_correlation_median,omitempty"`
	// Unresolved counts the unresolved primary figures; RoundsNeeded is
	// the median and RoundsNeededMax the largest estimate of the rounds
	// they would need, Rounds the most the study ran.
	Unresolved      int `json:"unresolved"`
	RoundsNeeded    int `json:"rounds_needed_median,omitempty"`
	RoundsNeededMax int `json:"rounds_needed_max,omitempty"`
	Rounds          int `json:"rounds"`
	// Text says it in a paragraph.
	Text string `json:"text"`
}

// CardView is a cause card as a report shows it, under the study of its
// change.
type CardView struct {
	// Title names the change: "95 % updated, no index · WAL written by
	// VACUUM: pg17 vs pg16, −44 %"; Case is its case's name.
	Title, Case string
	// Causes are the causes' lines, the largest share first; Explained
	// says how much of the change they account for; Settings what
	// differs between the targets; Missing the evidence they lacked.
	Causes    []string
	Explained string
	Settings  string
	Missing   []string
	// Card is the card itself (report.json).
	Card explain.Card
	// Flame is the differential flame graph of the case's CPU on the two
	// targets (SVG), "" without a profile of both.
	Flame string
}

// OwnEvidence counts primary figures by the outcome each reached on its
// own rounds: every outcome of a paired family is a figure's own.
type OwnEvidence struct {
	Figures    int `json:"primary_figures"`
	Changed    int `json:"changed"`
	Same       int `json:"same"`
	Unresolved int `json:"unresolved"`
}

// add counts one outcome.
func (o *OwnEvidence) add(out compare.Outcome) {
	o.Figures++
	switch out {
	case compare.OutcomeChanged:
		o.Changed++
	case compare.OutcomeSame:
		o.Same++
	default:
		o.Unresolved++
	}
}

// Text says it: "60 of 72 primary figures resolved on their own rounds
// (8 changed, 52 same), 12 unresolved".
func (o OwnEvidence) Text() string {
	s := fmt.Sprintf("%d of %s resolved on their own rounds (%d changed, %d same)", o.Changed+o.Same,
		words.Plural(o.Figures, "primary figure"), o.Changed, o.Same)
	if o.Figures > 0 {
		s += fmt.Sprintf(", %d unresolved (%.0f %%)", o.Unresolved, 100*float64(o.Unresolved)/float64(o.Figures))
	}
	return s
}

// RepsTable says how many repetitions the report's cases ran: the rule,
// one line per study, a row per case, and what the budget left
// unresolved.
type RepsTable struct {
	// Rule states the stopping rule of --reps auto ("" for fixed
	// counts).
	Rule string
	// Lines summarise each study: "vacuum: 8 repetitions in 3 cases
	// (called, same), 10 in 1 (cap)".
	Lines []string
	// Rows are a row per case: study, case, repetitions, why it stopped.
	Rows [][]string
	// Budget says what the budget (--budget) left unresolved, "" when
	// there was none.
	Budget string
}

// TextGroup is one kind of text artefact of a study, by case.
type TextGroup struct {
	Name, Head string
	Markdown   bool
	Open       bool
	Cases      []TextCase
}

// TextCase is a case's texts: one entry per distinct text, with the
// targets that said it.
type TextCase struct {
	Case    Case
	Entries []TextEntry
}

// TextEntry is one text and who said it, e.g. targets "pg17, pg18".
type TextEntry struct {
	Targets []string
	Body    string
	// Rep is the repetition shown (the first one stored); Reps how many
	// the target has in all.
	Rep, Reps int
}

// TimeRow is one line of a run's split of wall time: a study, one of its
// cases (its repetitions only), or the whole run.
type TimeRow struct {
	Run, Study                              string
	Took, Measured, Setup                   string
	Reset, Wait                             string
	MeasuredPct                             string
	TookDur, MeasuredDur, ResetDur, WaitDur time.Duration
	servers                                 time.Duration
	profile                                 time.Duration // the profiler's, inside set-up
	isCase                                  bool
}
