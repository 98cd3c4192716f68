package explain

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/verdict"
)

// pair is one figure's values in the rounds both targets ran, and their
// changes (target − baseline), in milliseconds for a time (per step).
type pair struct {
	b, t, d []float64
}

// mean returns the mean change (0 without rounds).
func (p pair) mean() float64 { return meanOf(p.d) }

// meanOf returns the mean of x (0 when empty).
func meanOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// exact reports that each side repeated its value in every round.
func (p pair) exact() bool { return len(p.b) >= 2 && constant(p.b) && constant(p.t) }

// constant reports that every value of x is the same.
func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// pairOf pairs a metric's values of baseline and target by round, each
// multiplied by scale.
func pairOf(mg verdict.MetricGroup, base, target string, scale float64) pair {
	tv := map[int]float64{}
	for i, r := range mg.Rounds[target] {
		if i < len(mg.Samples[target]) {
			tv[r] = mg.Samples[target][i]
		}
	}
	var p pair
	for i, r := range mg.Rounds[base] {
		t, ok := tv[r]
		if !ok || i >= len(mg.Samples[base]) {
			continue
		}
		b := mg.Samples[base][i]
		p.b, p.t, p.d = append(p.b, b*scale), append(p.t, t*scale), append(p.d, (t-b)*scale)
	}
	return p
}

// candidate is a figure tested as a cause.
type candidate struct {
	kind         Kind
	name, metric string
	pair         pair
	p, q         float64
	passed       bool
}

// test returns the candidate's p: the paired t test of its changes, 0
// for a figure that repeated exactly on each side and differs (1 when it
// does not), 1 with fewer than two rounds.
func (cd *candidate) test() float64 {
	p := cd.pair
	n := len(p.d)
	switch {
	case n < 2:
		return 1
	case p.exact() && p.mean() != 0:
		return 0
	case constant(p.d):
		return 1
	}
	m, sd := meanSD(p.d)
	t := m / (sd / math.Sqrt(float64(n)))
	return 2 * stats.TDist{V: float64(n - 1)}.CDF(-math.Abs(t))
}

// meanSD returns the mean and sample standard deviation of x (n ≥ 2).
func meanSD(x []float64) (mean, sd float64) {
	mean = meanOf(x)
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// testCandidates tests every candidate and corrects them with
// Benjamini-Hochberg at level: passed when its adjusted p is within it.
func testCandidates(cands []candidate, delta, level float64) {
	ps := make([]float64, len(cands))
	for i := range cands {
		ps[i] = cands[i].test()
		cands[i].p = ps[i]
	}
	qs := compare.AdjustBH(ps)
	for i := range cands {
		cands[i].q = qs[i]
		cands[i].passed = qs[i] <= level*(1+1e-9)
	}
}

// cause turns a candidate into a card's cause, in the called figure's
// unit (values divided by scale) and as a share of delta (its change in
// the candidates' scale).
func (cd candidate) cause(delta, scale float64, unit string) Cause {
	p := cd.pair
	m := p.mean()
	hw := 0.0
	if n := len(p.d); n >= 2 && !p.exact() {
		_, sd := meanSD(p.d)
		hw = stats.InvCDF(stats.TDist{V: float64(n - 1)})(0.975) * sd / math.Sqrt(float64(n))
	}
	return Cause{Kind: cd.kind, Name: cd.name, Metric: cd.metric, Unit: unit,
		Base: meanOf(p.b) / scale, Target: meanOf(p.t) / scale,
		Delta: m / scale, Lo: (m - hw) / scale, Hi: (m + hw) / scale,
		Share: m / delta, P: cd.p, Q: cd.q}
}

// Metric names and prefixes of the evidence (observe's).
const (
	cpuFnPrefix    = "cpu_fn_ms:"
	walRecPrefix   = "wal_rec_bytes:"
	walFPIPrefix   = "wal_fpi_bytes:"
	waitPrefix     = "wait_pct:"
	waitSessions   = "wait_active_sessions"
	serverCPU      = "server_cpu_ms"
	serverRunQueue = "server_runq_ms"
	clientCPU      = "client_cpu_ms"
	walSyncMS      = "wal_sync_ms"
	walWriteMS     = "wal_write_ms"
	walRecTotal    = "wal_rec_total_bytes"
	elapsedMS      = "elapsed_ms"
	cpuWaitEvent   = "cpu" // wait events are stored lower case (study's waitMetricName)
	walSyncEvent   = "io:walsync"
	walWriteEvent  = "io:walwrite"
)

// walCandidates returns the WAL record types' bytes and their full-page
// images' as candidates of a change of WAL volume. A record type missing
// in a round whose WAL was read wrote nothing then: it counts 0. Where a
// resource manager writes record types on one side that the other never
// writes (a version that merged two records into one, PostgreSQL 17's
// Heap2/PRUNE_VACUUM_SCAN for 16's PRUNE and VACUUM), its record types
// are one candidate, the resource manager's, named with what each side
// wrote.
func walCandidates(cg verdict.CaseGroup, base, target string) []candidate {
	total, ok := metricOf(cg, walRecTotal)
	if !ok {
		return nil
	}
	type member struct {
		name string
		p    pair
	}
	groups := map[string][]member{} // kind and rmgr → its record types
	var order []string
	for _, mg := range cg.Metrics {
		var kind string
		var name string
		switch {
		case strings.HasPrefix(mg.Name, walRecPrefix):
			kind, name = string(KindWALRecord), strings.TrimPrefix(mg.Name, walRecPrefix)
		case strings.HasPrefix(mg.Name, walFPIPrefix):
			kind, name = string(KindFPI), strings.TrimPrefix(mg.Name, walFPIPrefix)
		default:
			continue
		}
		rmgr, _, _ := strings.Cut(name, "/")
		key := kind + "\x00" + rmgr
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], member{name, zeroFilled(mg, total, base, target)})
	}
	var out []candidate
	for _, key := range order {
		kind, rmgr, _ := strings.Cut(key, "\x00")
		ms := groups[key]
		oneSided := false
		for _, m := range ms {
			oneSided = oneSided || (sum(m.p.b) == 0) != (sum(m.p.t) == 0)
		}
		if !oneSided || len(ms) == 1 {
			for _, m := range ms {
				out = append(out, candidate{kind: Kind(kind), name: m.name, metric: metricName(Kind(kind), m.name), pair: m.p})
			}
			continue
		}
		merged := pair{b: make([]float64, len(ms[0].p.b)), t: make([]float64, len(ms[0].p.t)), d: make([]float64, len(ms[0].p.d))}
		var onB, onT []string
		for _, m := range ms {
			for i := range merged.d {
				merged.b[i] += m.p.b[i]
				merged.t[i] += m.p.t[i]
				merged.d[i] += m.p.d[i]
			}
			short := strings.TrimPrefix(m.name, rmgr+"/")
			if b := meanOf(m.p.b); b > 0 {
				onB = append(onB, short+" "+formatValue(b, "bytes"))
			}
			if t := meanOf(m.p.t); t > 0 {
				onT = append(onT, short+" "+formatValue(t, "bytes"))
			}
		}
		name := fmt.Sprintf("%s (%s → %s)", rmgr, orNone(onB), orNone(onT))
		name = strings.ReplaceAll(name, "+", " + ")
		out = append(out, candidate{kind: Kind(kind), name: name, metric: metricName(Kind(kind), rmgr+"/*"), pair: merged})
	}
	return out
}

// metricName returns the metric a WAL candidate was read from.
func metricName(kind Kind, name string) string {
	if kind == KindFPI {
		return walFPIPrefix + name
	}
	return walRecPrefix + name
}

// sum returns the sum of x.
func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// orNone joins names with "+", "none" when there are none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// zeroFilled pairs mg by round over the rounds of within, a round where
// mg has no value on a side counting 0 there.
func zeroFilled(mg, within verdict.MetricGroup, base, target string) pair {
	value := func(side string) map[int]float64 {
		v := map[int]float64{}
		for i, r := range mg.Rounds[side] {
			if i < len(mg.Samples[side]) {
				v[r] = mg.Samples[side][i]
			}
		}
		return v
	}
	bv, tv := value(base), value(target)
	has := map[int]bool{}
	for _, r := range within.Rounds[target] {
		has[r] = true
	}
	var p pair
	for _, r := range within.Rounds[base] {
		if !has[r] {
			continue
		}
		b, t := bv[r], tv[r]
		p.b, p.t, p.d = append(p.b, b), append(p.t, t), append(p.d, t-b)
	}
	return p
}

// timeCandidates returns the parts of a step's time as candidates: the
// server's CPU (per function when profiled, with the rest apart), its
// processes' wait for a CPU, the WAL's sync and write time, the time the
// sessions spent in each wait event that no measured figure covers, and
// the client's CPU. whole is the called figure's pair (ms per step): its
// rounds are the rounds compared.
func timeCandidates(cg verdict.CaseGroup, base, target string, whole pair) []candidate {
	var out []candidate
	add := func(kind Kind, name, metric string) {
		if mg, ok := metricOf(cg, metric); ok {
			if p := pairOf(mg, base, target, 1); len(p.d) > 0 {
				out = append(out, candidate{kind: kind, name: name, metric: metric, pair: p})
			}
		}
	}
	fns := functionCandidates(cg, base, target)
	if len(fns) > 0 {
		out = append(out, fns...)
		if rest, ok := cpuRest(cg, base, target); ok {
			out = append(out, candidate{kind: KindCPU, name: "outside the functions named", metric: serverCPU, pair: rest})
		}
	} else {
		add(KindCPU, "", serverCPU)
	}
	add(KindCPUWait, "", serverRunQueue)
	add(KindWALSync, "", walSyncMS)
	add(KindWALWrite, "", walWriteMS)
	out = append(out, waitCandidates(cg, base, target)...)
	add(KindClient, "", clientCPU)
	return perProcess(out, cg, base, target)
}

// parallelWorkers is the study figure of the parallel workers its step's
// plan has (seqscan's).
const parallelWorkers = "parallel_workers"

// perProcess divides the CPU candidates (the server's, its functions',
// its run queue) by the processes that ran the step side by side — the
// leader and its parallel workers, where the case records how many — so
// that they compare with the step's wall time: a parallel scan's CPU is
// spent by several processes at once, and its whole would account for
// more than all of the change.
func perProcess(cands []candidate, cg verdict.CaseGroup, base, target string) []candidate {
	mg, ok := metricOf(cg, parallelWorkers)
	if !ok {
		return cands
	}
	w := pairOf(mg, base, target, 1)
	pb, pt := meanOf(w.b)+1, meanOf(w.t)+1
	if len(w.d) == 0 || pb == 1 && pt == 1 {
		return cands
	}
	how := fmt.Sprintf("per process (%s)", processes(pb, pt))
	for i, cd := range cands {
		if cd.kind != KindCPU && cd.kind != KindFunction && cd.kind != KindCPUWait {
			continue
		}
		p := pair{b: make([]float64, len(cd.pair.b)), t: make([]float64, len(cd.pair.t)), d: make([]float64, len(cd.pair.d))}
		for j := range p.b {
			p.b[j], p.t[j] = cd.pair.b[j]/pb, cd.pair.t[j]/pt
			p.d[j] = p.t[j] - p.b[j]
		}
		cands[i].pair = p
		cands[i].name = strings.TrimSpace(cd.name + " " + how)
	}
	return cands
}

// processes says how many processes ran a step on each side.
func processes(pb, pt float64) string {
	if pb == pt {
		return fmt.Sprintf("the leader and %.0f parallel workers on each side", pb-1)
	}
	return fmt.Sprintf("the leader and %.0f parallel workers on the baseline, %.0f on the other", pb-1, pt-1)
}

// functionCandidates returns each profiled function's self time.
func functionCandidates(cg verdict.CaseGroup, base, target string) []candidate {
	var out []candidate
	for _, mg := range cg.Metrics {
		if name, ok := strings.CutPrefix(mg.Name, cpuFnPrefix); ok {
			out = append(out, candidate{kind: KindFunction, name: name, metric: mg.Name, pair: zeroFilledSelf(mg, cg, base, target)})
		}
	}
	return out
}

// zeroFilledSelf pairs a profiled function's time over the rounds the
// server's CPU was read in, a round without it counting 0 (the function
// fell below the profile's smallest share).
func zeroFilledSelf(mg verdict.MetricGroup, cg verdict.CaseGroup, base, target string) pair {
	if within, ok := metricOf(cg, serverCPU); ok {
		return zeroFilled(mg, within, base, target)
	}
	return pairOf(mg, base, target, 1)
}

// cpuRest returns the server's CPU outside the profiled functions: its
// CPU time less their self times, per round.
func cpuRest(cg verdict.CaseGroup, base, target string) (pair, bool) {
	all, ok := metricOf(cg, serverCPU)
	if !ok {
		return pair{}, false
	}
	rest := pairOf(all, base, target, 1)
	for _, cd := range functionCandidates(cg, base, target) {
		if len(cd.pair.d) != len(rest.d) {
			return pair{}, false
		}
		for i := range rest.d {
			rest.b[i] -= cd.pair.b[i]
			rest.t[i] -= cd.pair.t[i]
			rest.d[i] -= cd.pair.d[i]
		}
	}
	return rest, true
}

// waitCandidates returns the time the sessions spent in each sampled
// wait event (its share of the samples × the active sessions × the
// step's time), leaving out waiting on nothing (the CPU, measured apart)
// and the WAL's sync and write where those are measured.
func waitCandidates(cg verdict.CaseGroup, base, target string) []candidate {
	elapsed, ok := metricOf(cg, elapsedMS)
	sessions, ok2 := metricOf(cg, waitSessions)
	if !ok || !ok2 {
		return nil
	}
	_, hasSync := metricOf(cg, walSyncMS)
	_, hasWrite := metricOf(cg, walWriteMS)
	var out []candidate
	for _, mg := range cg.Metrics {
		event, ok := strings.CutPrefix(mg.Name, waitPrefix)
		event = strings.ToLower(event)
		if !ok || event == cpuWaitEvent || hasSync && event == walSyncEvent || hasWrite && event == walWriteEvent {
			continue
		}
		out = append(out, candidate{kind: KindWait, name: event, metric: mg.Name, pair: waitTime(mg, elapsed, sessions, base, target)})
	}
	slices.SortFunc(out, func(a, b candidate) int { return strings.Compare(a.name, b.name) })
	return out
}

// waitTime pairs a wait event's time per step: its percentage of the
// samples of active sessions, times the active sessions and the step's
// time; 0 in a round whose samples did not see it, or that had none (a
// step shorter than the sampling interval).
func waitTime(pct, elapsed, sessions verdict.MetricGroup, base, target string) pair {
	get := func(mg verdict.MetricGroup, side string) map[int]float64 {
		v := map[int]float64{}
		for i, r := range mg.Rounds[side] {
			if i < len(mg.Samples[side]) {
				v[r] = mg.Samples[side][i]
			}
		}
		return v
	}
	at := func(side string) map[int]float64 {
		p, e, s := get(pct, side), get(elapsed, side), get(sessions, side)
		out := map[int]float64{}
		for r, ev := range e {
			out[r] = p[r] / 100 * s[r] * ev // no samples in a short step: no wait seen
		}
		return out
	}
	bv, tv := at(base), at(target)
	var rounds []int
	for r := range bv {
		if _, ok := tv[r]; ok {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	var p pair
	for _, r := range rounds {
		p.b, p.t, p.d = append(p.b, bv[r]), append(p.t, tv[r]), append(p.d, tv[r]-bv[r])
	}
	return p
}
