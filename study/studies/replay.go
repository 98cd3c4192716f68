package studies

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
	"github.com/pglab/pglab/workload/replay"
)

// replayStudy replays a workload captured from a server's log (pglab
// capture) on every target and compares it per query fingerprint: the
// user's own workload instead of a seed's.
//
// A round is one replay of the whole workload on one target, from the
// same data (replay.data, loaded once per server build into the dataset
// cache and cloned before every round, since the replay writes). Rounds
// are interleaved across targets by the runner. Each round records, per
// fingerprint (a case of its own, through Session.In), the median of its
// calls' latencies (the repetition value that is compared), their p95,
// their total, the calls, errors and rows; and for the workload as a
// whole the statements sent, failed and failed unexpectedly (having
// succeeded at capture), the schedule lag (timed mode) and the round's
// time. The first round on each target explains one captured call per
// fingerprint (EXPLAIN (FORMAT JSON), its parameters included); at the end
// the study puts beside the figures what differs from the first target:
// plan shapes, the results of read-only statements (row count and hash,
// when stable across rounds), errors on one side only.
//
// Repetitions: with a round's median as the unit, n rounds a side can
// give a Mann-Whitney p no smaller than 2/C(2n, n), and the report tests
// every fingerprint in one Benjamini-Hochberg family, so a lone change
// among m fingerprints is callable only when that p is at most 0.05/m.
// Under --reps auto (the default with two targets or more) the lab's
// sequential design chooses the rounds: Plan.Recorded tells it the
// fingerprints, so its family is fingerprints × targets compared, its
// first look the fewest rounds that can call a lone change there (7 for 9
// fingerprints and two targets, with its looks at 7, 9 and 10), and the
// workload goes on by mirrored pairs of rounds while a fingerprint's
// latency is still pending. For a fixed count (one target, --reps auto
// not in force) Plan takes the fewest rounds for which a lone change is
// callable with m = the fingerprints (compare.MinRepsForFamily: 6 rounds
// up to 23 fingerprints, 7 up to 85, 8 up to 321), and at least 5
// (--quick: the fewest); --reps N gives any other count.
type replayStudy struct {
	// wl is the workload Plan read, wlPath its file.
	wl     *replay.Workload
	wlPath string
	// data is replay.data checked (nil without one).
	data *replayScript
	// baseline is the first target set up; targets holds what each
	// target's rounds left for the comparison at the end.
	baseline string
	targets  map[string]*replayTarget
}

func init() { study.Register("replay", func() study.Study { return &replayStudy{} }) }

func (*replayStudy) Info() study.Info {
	return study.Info{
		Name:   "replay",
		Title:  "your workload, replayed per query fingerprint",
		Source: "captured from your server's log with pglab capture",
		Params: []study.Param{
			{Name: "workload", Kind: study.KindString, Default: "", Doc: "the workload file (pglab capture --out); required"},
			{Name: "data", Kind: study.KindString, Default: "", Doc: "a plain pg_dump file or SQL script loaded before every round (once per server build into the dataset cache, then cloned); empty: the targets' data as it is (--target servers you prepared)"},
			{Name: "mode", Kind: study.KindString, Default: "timed", Choices: []string{"timed", "fast"}, Doc: "timed: statements at their captured offsets (open loop, lag recorded); fast: each session's statements back to back"},
			{Name: "speed", Kind: study.KindFloat, Default: "1", Doc: "divides the captured offsets (2: twice as fast)"},
			{Name: "order", Kind: study.KindString, Default: "none", Choices: []string{"none", "commits"}, Doc: "commits: each statement waits until the commits that ended before it began at capture have ended on the target (its wait recorded, order_wait_ms); none: sessions go on their own"},
			{Name: "statement_timeout", Kind: study.KindDuration, Default: "5m", Doc: "statement_timeout of the replayed sessions: a statement that hangs fails (57014) instead of stalling the round"},
		},
		// 2: the workload's time per round is primary, and changes are
		// weighed by their share of it. 3: the query_id label; ids counted
		// as uses of ids (ids_unmapped: of ids their source gave later),
		// failures after a lost id source apart; partitions folded in plans.
		Version: 3,
		// Not in --studies all: it needs the user's workload.
		Presentation: &results.Presentation{
			Labels:    []results.LabelColumn{{Key: replayLabelQuery, Head: "query"}, {Key: replayLabelQueryID, Head: "query_id"}},
			Hide:      []string{"fingerprint"},
			NameLabel: "query",
			SortBy:    "total_ms",
			Facts:     []results.MetricHead{{Metric: "calls", Head: "calls per round"}},
			Primary: []results.MetricHead{
				{Metric: "median_ms", Head: "Statement latency (median of each round's calls)"},
				{Metric: "busy_ms", Head: "Workload time (the statements' latencies summed, per round)"},
			},
			Impact: &results.Impact{Change: "median_ms", Share: "total_ms", Whole: "busy_ms", Head: "impact on the workload's time"},
			Texts:  []results.TextView{{Name: "plan", Head: "Plans that differ (shape: node, join, index and relation; no estimates)", Markdown: true}},
			Titles: map[string]string{
				"ids_mapped":      "id uses sent with the target's id",
				"ids_unmapped":    "id uses sent as captured (their source late or lost)",
				"id_sources_lost": "id sources that gave no id",
				"id_errors":       "failures after a lost id",
				"order_wait_ms":   "waits for earlier commits",
				"order_waits":     "statements that waited for earlier commits",
			},
		},
	}
}

// The case labels of the replay: the fingerprint's normalised text, shown,
// its ID, which tells apart texts that truncation made equal, and the
// server's query ids of its statements at capture (pg_stat_statements'
// queryid), shown when the log gave them.
const (
	replayLabelQuery   = "query"
	replayLabelFP      = "fingerprint"
	replayLabelQueryID = "query_id"
)

// replayWhole is the case of the workload as a whole: the planned case.
var replayWhole = study.Case{Name: "whole workload", Labels: map[string]string{replayLabelQuery: "(whole workload)", replayLabelFP: "all"}}

// maxQueryLabel is the longest normalised text shown as a case label.
const maxQueryLabel = 100

func (st *replayStudy) Plan(p study.Params) (study.Plan, error) {
	path := p.String("workload")
	if path == "" {
		return study.Plan{}, &study.ParamError{Param: "workload", Err: fmt.Errorf("replay.workload is needed: a workload file written by pglab capture --out")}
	}
	if p.Float("speed") <= 0 {
		return study.Plan{}, &study.ParamError{Param: "speed", Err: fmt.Errorf("replay.speed must be positive: got %v", p.Float("speed"))}
	}
	if st.wl == nil || st.wlPath != path {
		wl, err := replay.Load(path)
		if err != nil {
			return study.Plan{}, &study.ParamError{Param: "workload", Err: fmt.Errorf("replay.workload: %w", err)}
		}
		st.wl, st.wlPath = wl, path
	}
	if err := st.checkData(p.String("data")); err != nil {
		return study.Plan{}, err
	}
	whole := replayWhole
	whole.Name = "replay of " + filepath.Base(path)
	m := max(len(st.wl.FPs), 1)
	need := max(compare.MinRepsForFamily(m, compare.DefaultAlpha), 4)
	return study.Plan{Cases: []study.Case{whole}, Reps: max(need, 5), QuickReps: need, Recorded: len(st.wl.FPs)}, nil
}

// fpCase is the case of a fingerprint.
func fpCase(fp *replay.FP) study.Case {
	c := study.Case{Name: queryLabel(fp.Text), Labels: map[string]string{replayLabelQuery: queryLabel(fp.Text), replayLabelFP: fp.ID}}
	if len(fp.QueryIDs) > 0 {
		c.Labels[replayLabelQueryID] = queryIDsLabel(fp.QueryIDs)
	}
	return c
}

// maxQueryIDs is how many query ids a case label lists.
const maxQueryIDs = 8

// queryIDsLabel lists a fingerprint's query ids: "-7633180780175882470",
// "1351963594425451465, 5873000316158417741", at most maxQueryIDs of them
// and how many there are.
func queryIDsLabel(ids []int64) string {
	var parts []string
	for _, id := range ids[:min(len(ids), maxQueryIDs)] {
		parts = append(parts, strconv.FormatInt(id, 10))
	}
	text := strings.Join(parts, ", ")
	if len(ids) > maxQueryIDs {
		text += fmt.Sprintf(" … (%d in all)", len(ids))
	}
	return text
}

// queryLabel shortens a normalised text for a table: its white space
// folded, at most maxQueryLabel characters (cut at a word, with "…").
func queryLabel(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	r := []rune(t)
	if len(r) <= maxQueryLabel {
		return t
	}
	cut := string(r[:maxQueryLabel])
	if k := strings.LastIndexByte(cut, ' '); k > maxQueryLabel/2 {
		cut = cut[:k]
	}
	return cut + " …"
}

// Setup checks that the target may be written to and is not the server
// the workload came from, and loads the data once where rounds cannot
// reset it.
func (st *replayStudy) Setup(ctx context.Context, s *study.Session) error {
	t := s.Target
	if !t.Managed() && !s.Force() {
		return fmt.Errorf("target %s is not a server pglab manages: the replay writes to it (pass --force to replay on it anyway)", t.Name)
	}
	if err := st.checkSource(ctx, s); err != nil {
		return err
	}
	if st.targets == nil {
		st.targets = map[string]*replayTarget{}
		st.baseline = t.Name
	}
	st.targets[t.Name] = newReplayTarget(len(st.wl.FPs))
	st.noteSessions(s)
	if !s.Cloneable() {
		return st.loadInPlace(ctx, s)
	}
	return nil
}

// noteSessions says how the captured sessions map onto the target.
func (st *replayStudy) noteSessions(s *study.Session) {
	dbs, users := map[string]bool{}, map[string]bool{}
	for _, ses := range st.wl.Sessions {
		dbs[ses.Database], users[ses.User] = true, true
	}
	cfg := s.Target.ConnConfig()
	s.In(study.Case{}).Note("%s (databases %s; users %s) replayed as user %s in database %s, each on a connection of its own",
		countOf(len(st.wl.Sessions), "captured session"), setText(dbs), setText(users), cfg.User, cfg.Database)
	if ids := st.wl.IDs; ids.Sources > 0 {
		s.In(study.Case{}).Note("ids: %s give ids (INSERT … RETURNING, nextval, currval, lastval); the captured id of %d of them is found from the new numbers their sessions send next (%s of such numbers in later statements, an upper bound of the uses of ids); each use of a captured id is sent with the id the target gave (the log does not show the ids of the other id sources: their uses go as captured)",
			countOf(ids.Sources, "id source"), ids.Traced, countOf(ids.Candidates, "occurrence"))
	}
}

// setText lists a set's members, sorted.
func setText(m map[string]bool) string {
	var out []string
	for k := range m {
		if k == "" {
			k = "?"
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// Run replays the workload once: the data reset (a clone where pglab
// started the server), checked, the plans read in the first round, the
// workload replayed, its figures recorded.
func (st *replayStudy) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	if s.Cloneable() {
		if err := s.LoadData(ctx, st.dataset()); err != nil {
			return scriptError(err)
		}
	}
	if err := st.checkMarker(ctx, s, rep); err != nil {
		return err
	}
	tgt := st.targets[s.Target.Name]
	if rep == 1 {
		if err := st.explainAll(ctx, s, tgt); err != nil {
			return err
		}
	}
	s.Log("replaying %s of %s (%s)", countOf(st.wl.Statements, "statement"), countOf(len(st.wl.Sessions), "session"), s.Params.String("mode"))
	round, err := replay.Run(ctx, st.wl, replay.Options{
		Mode:        replay.Mode(s.Params.String("mode")),
		Speed:       s.Params.Float("speed"),
		Connect:     st.connector(s),
		CommitOrder: s.Params.String("order") == "commits",
	})
	if err != nil {
		return err
	}
	s.AddMeasured(round.Elapsed)
	st.record(s, c, round)
	tgt.add(st.wl, round)
	return nil
}

func (st *replayStudy) Teardown(ctx context.Context, s *study.Session) error {
	if st.targets[s.Target.Name] == nil {
		return nil
	}
	st.compareTargets(ctx, s)
	return nil
}
