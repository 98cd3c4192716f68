package replay

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Commit order: sessions replayed at once may commit in another order than
// they did at capture (a statement of one ran slower on the target, or a
// session connected later), so that a statement reads or writes before a
// row that another session's commit made at capture exists on the target.
// With Options.CommitOrder a statement waits, before it is sent, until
// every commit that had ended at capture before it began has ended on the
// target: the COMMITs (and ENDs) of transaction blocks, and the statements
// that wrote outside a block (each its own transaction). A statement's own
// session's earlier commits are before it anyway; the others' are the
// wait. A commit depends only on commits that ended before it began, so
// the waits cannot form a circle; a session that cannot connect, or ends
// early, counts its commits as ended. The time statements spend waiting
// is Round.OrderWait: the cost of the order, which timed mode adds to the
// schedule lag.

// commitOrder is a round's commits in capture order: which have ended on
// the target.
type commitOrder struct {
	mu   sync.Mutex
	cond *sync.Cond
	done []bool
	// next is the first commit not ended yet: every commit before it has.
	next int
	ctx  context.Context
}

// planCommits numbers the workload's commits by their end at capture, and
// gives each statement the number of commits that had ended before it
// began (Stmt.waitCommits) and each commit statement its number
// (Stmt.commit, -1 for others). Times tie often (the log's timestamps are
// in milliseconds): a tie is broken by the order the statements were
// sent in (globalOrder), so that a statement only ever waits for commits
// that are before it in (end, order) against its (start, order), and the
// waits cannot form a circle.
func (w *Workload) planCommits() {
	pos := map[stmtRef]int{}
	for k, ref := range w.globalOrder() {
		pos[ref] = k
	}
	type key struct {
		t   int64
		pos int
	}
	less := func(a, b key) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return a.pos - b.pos
	}
	var events []key
	var at []stmtRef
	for si, s := range w.Sessions {
		inBlock := false
		for i := range s.Statements {
			st := &s.Statements[i]
			st.commit = -1
			commits := false
			switch verb := firstWord(w.FPs[st.FP].Text); {
			case verb == "begin" || verb == "start":
				inBlock = true
			case verb == "commit" || verb == "end" || verb == "rollback" || verb == "abort":
				commits = inBlock && verb != "rollback" && verb != "abort"
				inBlock = false
			case !inBlock && !w.FPs[st.FP].ReadOnly:
				commits = true
			}
			if commits {
				events = append(events, key{st.StartUS + st.durationUS, pos[stmtRef{si, i}]})
				at = append(at, stmtRef{si, i})
			}
		}
	}
	idx := make([]int, len(events))
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int { return less(events[a], events[b]) })
	sorted := make([]key, len(events))
	for k, e := range idx {
		sorted[k] = events[e]
		w.Sessions[at[e].s].Statements[at[e].i].commit = k
	}
	w.Commits = len(events)
	for si, s := range w.Sessions {
		for i := range s.Statements {
			st := &s.Statements[i]
			me := key{st.StartUS, pos[stmtRef{si, i}]}
			st.waitCommits, _ = slices.BinarySearchFunc(sorted, me, less)
		}
	}
}

// firstWord returns the first word of a normalised text, lower case.
func firstWord(text string) string {
	words := textWords(text)
	if len(words) == 0 {
		return ""
	}
	return strings.ToLower(words[0])
}

func newCommitOrder(ctx context.Context, n int) *commitOrder {
	o := &commitOrder{done: make([]bool, n), ctx: ctx}
	o.cond = sync.NewCond(&o.mu)
	context.AfterFunc(ctx, func() {
		o.mu.Lock()
		o.cond.Broadcast()
		o.mu.Unlock()
	})
	return o
}

// wait blocks until the first n commits have ended (or ctx ends) and
// returns how long it waited.
func (o *commitOrder) wait(n int) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.next >= n {
		return 0
	}
	start := time.Now()
	for o.next < n && o.ctx.Err() == nil {
		o.cond.Wait()
	}
	return time.Since(start)
}

// ended marks commit k as ended.
func (o *commitOrder) ended(k int) {
	if k < 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done[k] = true
	for o.next < len(o.done) && o.done[o.next] {
		o.next++
	}
	o.cond.Broadcast()
}

// endAll marks the commits of a session's statements from i on as ended:
// a session that could not connect or stopped early.
func (o *commitOrder) endAll(s *Session, from int) {
	for i := from; i < len(s.Statements); i++ {
		o.ended(s.Statements[i].commit)
	}
}
