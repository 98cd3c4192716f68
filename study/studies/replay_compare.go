package studies

import (
	"context"
	"fmt"
	"strings"

	"github.com/pglab/pglab/study"
	"github.com/pglab/pglab/workload/replay"
)

// compareTargets puts beside the target's figures what differs from the
// first target's, per fingerprint: the plan's shape (both plans kept as
// "plan" texts), errors that only one side raised, and the results of
// read-only statements (rows and their hash, when both sides gave the
// same in every round). On the first target it keeps the plans that some
// other target's differ from.
func (st *replayStudy) compareTargets(ctx context.Context, s *study.Session) {
	name := s.Target.Name
	t := st.targets[name]
	for _, text := range t.later {
		s.In(study.Case{}).Note("%s", text)
	}
	for k, fp := range st.wl.FPs {
		if len(t.errs[k]) > 0 {
			s.In(fpCase(fp)).Note("errors by SQLSTATE over %s: %s", countOf(t.rounds, "round"), errorsText(t.errs[k]))
		}
		if len(t.idErrs[k]) > 0 {
			s.In(fpCase(fp)).Note("errors from an id source lost or late on this target, over %s: %s (the statements sent a captured id that its source gave only later in the round, or not at all: the replay's ids, not the server; left out of the errors compared between targets)",
				countOf(t.rounds, "round"), errorsText(t.idErrs[k]))
		}
	}
	st.noteDataAgainstLog(s, t)
	if name == st.baseline {
		st.keepBaselinePlans(ctx, s, t)
		return
	}
	b := st.targets[st.baseline]
	var plans, results, errs int
	var unstable []string
	for k, fp := range st.wl.FPs {
		rec := s.In(fpCase(fp))
		if b.shapes[k] != nil && t.shapes[k] != nil && !b.shapes[k].Equal(t.shapes[k]) {
			plans++
			rec.NoteOn("median_ms", "plan differs from %s's: %s", st.baseline, replay.Diff(b.shapes[k], t.shapes[k]))
			rec.Artefact(ctx, "plan", "text/plain", []byte(t.shapes[k].String()))
		}
		if text := oneSided(without(b.errs[k], b.idErrs[k]), without(t.errs[k], t.idErrs[k]), st.baseline, name); text != "" {
			errs++
			rec.Note("%s", text)
		}
		if !fp.ReadOnly {
			continue
		}
		switch text, stable := resultDiff(b.sigs[k], t.sigs[k], st.baseline); {
		case !stable:
			unstable = append(unstable, "«"+queryLabel(fp.Text)+"»")
		case text != "":
			results++
			rec.Note("%s", text)
		}
	}
	text := fmt.Sprintf("compared with %s: plans differ for %s, results for %s, errors on one side only for %s", st.baseline,
		countOf(plans, "fingerprint"), countOf(results, "read-only fingerprint"), countOf(errs, "fingerprint"))
	if len(unstable) > 0 {
		names := unstable[:min(len(unstable), maxNamed)]
		if more := len(unstable) - len(names); more > 0 {
			names = append(names, fmt.Sprintf("%d more", more))
		}
		text += fmt.Sprintf("; the results of %s varied between rounds on one side (concurrent writes, time, randomness) and are not compared: %s",
			countOf(len(unstable), "read-only fingerprint"), strings.Join(names, ", "))
	}
	s.In(study.Case{}).Note("%s", text)
}

// maxNamed is how many fingerprints a note names before "N more".
const maxNamed = 5

// keepBaselinePlans stores the first target's plans that another target's
// differ from.
func (st *replayStudy) keepBaselinePlans(ctx context.Context, s *study.Session, b *replayTarget) {
	for k, fp := range st.wl.FPs {
		if b.shapes[k] == nil {
			continue
		}
		for name, t := range st.targets {
			if name != st.baseline && t.shapes[k] != nil && !t.shapes[k].Equal(b.shapes[k]) {
				s.In(fpCase(fp)).Artefact(ctx, "plan", "text/plain", []byte(b.shapes[k].String()))
				break
			}
		}
	}
}

// without returns the counts of a less those of b.
func without(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for c, n := range a {
		if n -= b[c]; n > 0 {
			out[c] = n
		}
	}
	return out
}

// oneSided says which failures (by SQLSTATE) one target raised and the
// other did not, or "".
func oneSided(a, b map[string]int, nameA, nameB string) string {
	onlyA, onlyB := map[string]int{}, map[string]int{}
	for c, n := range a {
		if b[c] == 0 {
			onlyA[c] = n
		}
	}
	for c, n := range b {
		if a[c] == 0 {
			onlyB[c] = n
		}
	}
	switch {
	case len(onlyA) > 0 && len(onlyB) > 0:
		return fmt.Sprintf("errors on one side only: on %s %s; on %s %s", nameA, errorsText(onlyA), nameB, errorsText(onlyB))
	case len(onlyA) > 0:
		return fmt.Sprintf("errors on %s only: %s", nameA, errorsText(onlyA))
	case len(onlyB) > 0:
		return fmt.Sprintf("errors on %s only: %s", nameB, errorsText(onlyB))
	}
	return ""
}

// resultDiff compares a read-only fingerprint's results on two targets:
// stable is false when either side's differed between rounds (then
// nothing is said); text says how they differ, "" when they agree.
func resultDiff(a, b []resultSig, nameA string) (text string, stable bool) {
	if len(a) == 0 || len(b) == 0 {
		return "", true
	}
	for _, s := range a[1:] {
		if s != a[0] {
			return "", false
		}
	}
	for _, s := range b[1:] {
		if s != b[0] {
			return "", false
		}
	}
	switch {
	case a[0] == b[0]:
		return "", true
	case a[0].rows != b[0].rows:
		return fmt.Sprintf("results differ from %s's: %s per round, %s %d", nameA, countOf(int(b[0].rows), "row"), nameA, a[0].rows), true
	}
	return fmt.Sprintf("results differ from %s's: the same %s per round, other values (row hash)", nameA, countOf(int(b[0].rows), "row")), true
}

// noteDataAgainstLog says in one line which fingerprints failed, in most
// of the target's rounds, where they had succeeded at capture, and what
// that likely means of the data (newer or older than the log); their
// latency was not recorded for comparison in those rounds.
func (st *replayStudy) noteDataAgainstLog(s *study.Session, t *replayTarget) {
	var names []string
	codes := map[string]int{}
	for k, fp := range st.wl.FPs {
		if t.failing[k] == 0 {
			continue
		}
		s.In(fpCase(fp)).Note("in %d of %s most of its %s that succeeded at capture failed: its latency is shown, not compared, in those rounds",
			t.failing[k], countOf(t.rounds, "round"), countOf(fp.Succeeded, "call"))
		if 2*t.failing[k] <= t.rounds {
			continue
		}
		names = append(names, "«"+queryLabel(fp.Text)+"»")
		for c, n := range t.errs[k] {
			codes[c] += n
		}
	}
	if len(names) == 0 {
		return
	}
	top, topN := "", 0
	for c, n := range codes {
		if n > topN || n == topN && c < top {
			top, topN = c, n
		}
	}
	n := len(names)
	if n > maxNamed {
		names = append(names[:maxNamed], fmt.Sprintf("%d more", n-maxNamed))
	}
	s.In(study.Case{}).Note("data against the log: %s failed in most rounds where %s at capture (mostly %s): %s; shown, not compared",
		countOf(n, "fingerprint")+" ("+strings.Join(names, ", ")+")", pick(n == 1, "it had succeeded", "they had succeeded"),
		errorsText(map[string]int{top: topN}), dataHint(top))
}

// dataHint says what a failure of statements that succeeded at capture
// likely tells of the data the replay started from.
func dataHint(code string) string {
	switch {
	case code == "23505":
		return "the rows they write exist already, so the data is likely newer than the log (taken after part of the logged work ran)"
	case code == "23503":
		return "rows they refer to are missing, so the data is likely older than the log, or those rows came from work the log does not hold"
	case strings.HasPrefix(code, "42"):
		return "the schema differs from the one the log was captured on"
	}
	return "the data likely differs from what the source held when the log began"
}

// pick returns a when cond holds, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
