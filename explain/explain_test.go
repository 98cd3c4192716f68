package explain

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/verdict"
)

// synth builds measurements of one case of a study on targets a and b
// over rounds, from a function of (target, round) → metric → value.
func synth(study string, rounds int, values func(target string, r int) map[string]float64) []results.Measurement {
	var ms []results.Measurement
	labels := map[string]string{"case": "one"}
	for r := 1; r <= rounds; r++ {
		for _, tg := range []string{"a", "b"} {
			for metric, v := range values(tg, r) {
				unit := "ms"
				switch {
				case strings.HasPrefix(metric, "wal_"):
					unit = "bytes"
				case strings.HasPrefix(metric, "wait_pct:"):
					unit = "pct"
				case metric == "wait_active_sessions":
					unit = "count"
				}
				ms = append(ms, results.Measurement{Target: tg, Study: study, Case: labels, CaseKey: results.CaseKey(labels),
					Rep: r, Metric: metric, Value: v, Unit: unit, Direction: results.DirectionLower})
			}
		}
	}
	return ms
}

// cardsOf analyses the measurements as a report does (primary metrics
// callable, the rest auxiliary) and builds the cards.
func cardsOf(t *testing.T, ms []results.Measurement, primary ...string) []Card {
	t.Helper()
	p := &results.Presentation{}
	for _, m := range primary {
		p.Primary = append(p.Primary, results.MetricHead{Metric: m})
	}
	groups := verdict.Group(nil, ms, nil)
	var cells []compare.Cell
	for _, sg := range groups {
		cells = append(cells, verdict.StudyCells(p, sg, []string{"a", "b"}, verdict.Options{Interleaved: true})...)
	}
	f, err := compare.AnalyzeFamily(cells, compare.Options{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	return Build(Input{Family: f, Groups: groups, Targets: func(string) []string { return []string{"a", "b"} }})
}

// TestWALCard: a VACUUM's WAL 44 % smaller is explained by its record
// types, the full-page images apart, the largest share first.
func TestWALCard(t *testing.T) {
	ms := synth("vacuum", 4, func(tg string, r int) map[string]float64 {
		prune, fpi := 600e3, 770e3
		if tg == "b" {
			prune, fpi = 300e3, 468e3
		}
		other := 10e3
		return map[string]float64{
			"elapsed_ms": 100 + float64(r), "wal_bytes": prune + fpi + other,
			"wal_rec_bytes:Heap2/PRUNE": prune, "wal_fpi_bytes:Heap2/PRUNE": fpi, "wal_rec_bytes:XLOG/FPI_FOR_HINT": other,
			"wal_rec_total_bytes": prune + fpi + other,
		}
	})
	cards := cardsOf(t, ms, "wal_bytes")
	if len(cards) != 1 {
		t.Fatalf("%d cards, want 1", len(cards))
	}
	c := cards[0]
	if len(c.Causes) != 2 || c.Causes[0].Kind != KindFPI || c.Causes[1].Kind != KindWALRecord || c.Causes[0].Name != "Heap2/PRUNE" {
		t.Fatalf("causes %+v", c.Causes)
	}
	if math.Abs(c.Explained-1) > 1e-9 || math.Abs(c.Causes[0].Share-302.0/602) > 1e-9 {
		t.Errorf("explained %.3f, first share %.3f", c.Explained, c.Causes[0].Share)
	}
	if !strings.Contains(c.Causes[0].Text(), "full-page images Heap2/PRUNE") {
		t.Errorf("text %q", c.Causes[0].Text())
	}
}

// TestTimeCard: a step 30 % faster whose server CPU fell in one function
// names that function first; the CPU outside the functions named and the
// waits that did not move are not causes.
func TestTimeCard(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := synth("copy-out", 8, func(tg string, r int) map[string]float64 {
		noise := func() float64 { return 1 + 0.01*rng.NormFloat64() }
		copyFn := 60.0
		if tg == "b" {
			copyFn = 30
		}
		other := 20 * noise()
		cpu := copyFn*noise() + other
		elapsed := cpu + 20*noise()
		return map[string]float64{
			"elapsed_ms": elapsed, "server_cpu_ms": cpu, "cpu_fn_ms:CopyOneRowTo": cpu - other,
			"client_cpu_ms": 5 * noise(), "wait_active_sessions": 1, "wait_pct:Client:ClientWrite": 100 * 20 / elapsed * noise(),
		}
	})
	cards := cardsOf(t, ms, "elapsed_ms")
	if len(cards) != 1 {
		t.Fatalf("%d cards", len(cards))
	}
	c := cards[0]
	if len(c.Causes) == 0 || c.Causes[0].Kind != KindFunction || c.Causes[0].Name != "CopyOneRowTo" || c.Explained < 0.8 {
		t.Fatalf("causes %+v, explained %.2f", c.Causes, c.Explained)
	}
	for _, cause := range c.Causes {
		if cause.Kind == KindClient || cause.Kind == KindWait && cause.Share < 0.5 {
			t.Errorf("a figure that did not move named: %s", cause.Text())
		}
	}
}

// TestNoCauseWithoutChange: a called change whose evidence did not move
// names no cause and says it is unexplained.
func TestNoCauseWithoutChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ms := synth("commit", 8, func(tg string, r int) map[string]float64 {
		e := 100.0
		if tg == "b" {
			e = 130
		}
		return map[string]float64{"elapsed_ms": e * (1 + 0.005*rng.NormFloat64()), "server_cpu_ms": 40 * (1 + 0.05*rng.NormFloat64())}
	})
	cards := cardsOf(t, ms, "elapsed_ms")
	if len(cards) != 1 || len(cards[0].Causes) != 0 || !cards[0].Unexplained() {
		t.Fatalf("cards %+v", cards)
	}
}

// TestParallelCPU: a parallel scan's server CPU is spent by the leader
// and its workers side by side; the card compares it per process with
// the wall time, so a step 100 ms faster whose three processes each spent
// 90 ms less CPU names server CPU at 90 % of the change, not 270 %.
func TestParallelCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ms := synth("seqscan", 8, func(tg string, r int) map[string]float64 {
		e := 300.0
		if tg == "b" {
			e = 200
		}
		e *= 1 + 0.005*rng.NormFloat64()
		return map[string]float64{"elapsed_ms": e, "server_cpu_ms": 3 * 0.9 * e, "parallel_workers": 2}
	})
	cards := cardsOf(t, ms, "elapsed_ms")
	if len(cards) != 1 || len(cards[0].Causes) != 1 {
		t.Fatalf("cards %+v", cards)
	}
	c := cards[0].Causes[0]
	if c.Kind != KindCPU || math.Abs(c.Share-0.9) > 0.02 || !strings.Contains(c.Text(), "per process (the leader and 2 parallel workers on each side)") {
		t.Errorf("cause %s, share %.3f", c.Text(), c.Share)
	}
}
