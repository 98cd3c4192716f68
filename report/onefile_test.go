package report_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pglab/pglab/lab"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/report/view"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/study"
)

// seriesStudy is a study that exists only in this file: it counts the
// rows of generate_series on each target, and says everything the rest of
// pglab needs in its Info — no line of report/ or lab/ names it. It is
// registered twice, in --studies all and not.
type seriesStudy struct {
	name  string
	inAll bool
}

func init() {
	study.Register("series-count", func() study.Study { return seriesStudy{name: "series-count", inAll: true} })
	study.Register("series-count-alone", func() study.Study { return seriesStudy{name: "series-count-alone"} })
}

func (s seriesStudy) Info() study.Info {
	return study.Info{
		Name:    s.name,
		Title:   "count(*) over generate_series",
		Source:  "a test of report",
		Version: 1,
		InAll:   s.inAll,
		Params: []study.Param{
			{Name: "sizes", Kind: study.KindIntList, Default: "1000,20000", Min: 1, MinSet: true, Doc: "rows generated, a case each"},
		},
		Presentation: &results.Presentation{
			Labels:  []results.LabelColumn{{Key: "rows", Head: "rows generated"}},
			Facts:   []results.MetricHead{{Metric: "rows_counted", Head: "counted"}},
			Primary: []results.MetricHead{{Metric: "count_ms", Head: "Time to count the series"}},
			Charts:  []results.Chart{{Kind: results.Bars, Title: "Time to count by size", Metrics: []string{"count_ms"}}},
			Titles:  map[string]string{"connect_ms": "time to connect"},
		},
	}
}

func (s seriesStudy) Plan(p study.Params) (study.Plan, error) {
	var plan study.Plan
	for _, n := range p.IntList("sizes") {
		plan.Cases = append(plan.Cases, study.Case{Name: fmt.Sprintf("%d rows", n), Labels: map[string]string{"rows": strconv.FormatInt(n, 10)}, Data: n})
	}
	return plan, nil
}

func (seriesStudy) Setup(context.Context, *study.Session) error    { return nil }
func (seriesStudy) Teardown(context.Context, *study.Session) error { return nil }

func (seriesStudy) Run(ctx context.Context, s *study.Session, c study.Case, rep int) error {
	began := time.Now()
	conn, err := s.Target.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	s.Record("connect_ms", float64(time.Since(began).Microseconds())/1000, "ms", study.LowerIsBetter())
	var counted int64
	start := time.Now()
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, $1::bigint)", c.Data.(int64)).Scan(&counted); err != nil {
		return fmt.Errorf("count: %w", err)
	}
	elapsed := time.Since(start)
	s.AddMeasured(elapsed)
	s.Record("count_ms", float64(elapsed.Microseconds())/1000, "ms", study.LowerIsBetter())
	s.Record("rows_counted", float64(counted), "rows", study.Exact())
	return nil
}

// TestNewStudyIsOneFile: a study registered in a test file joins
// --studies all as its Info says, runs on two real servers through lab,
// --reps auto choosing its repetitions from its presentation, and its
// stored run's report shows its headline table, facts, label columns and
// titles, without an edit to report/ or lab/.
func TestNewStudyIsOneFile(t *testing.T) {
	all, err := lab.StudyNames("all")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(all, "series-count") || slices.Contains(all, "series-count-alone") || slices.Contains(all, "tune") || slices.Contains(all, "replay") {
		t.Errorf("--studies all = %v: want series-count, not series-count-alone, tune or replay", all)
	}
	if _, err := lab.StudyNames("series-count-alone"); err != nil {
		t.Errorf("a study outside all cannot be named: %v", err)
	}

	inst := pgtest.New(t, pgtest.Options{})
	studyRuns, err := lab.Studies([]string{"series-count"}, []string{"sizes=1000,20000"}, false)
	if err != nil {
		t.Fatal(err)
	}
	storePath := filepath.Join(t.TempDir(), "results.db")
	spec := &lab.Spec{Studies: studyRuns, Alpha: 0.05, CacheLimit: -1}
	args := lab.Args{Targets: []string{"a=" + pgtest.CreateDB(t, inst), "b=" + pgtest.CreateDB(t, inst)}, Checksums: "off", Store: storePath}
	if err := args.Fill(spec); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := lab.Run(ctx, spec, lab.Options{
		Kind:    results.KindCompare,
		Command: []string{"pglab", "compare", "--studies", "series-count"},
		Binaries: func(context.Context, pgserver.VersionSpec) (*pgserver.Binaries, error) {
			return nil, errors.New("this test starts no server")
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	st, err := results.OpenReadOnly(ctx, storePath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := runs.Load(ctx, st, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Studies) != 1 || d.Studies[0].Version != 1 || d.Studies[0].Presentation == nil || d.Studies[0].Presentation.Primary[0].Head != "Time to count the series" {
		t.Fatalf("stored study info: %+v", d.Studies)
	}
	if len(d.Reps) != 1 || len(d.Reps[0].Looks) == 0 {
		t.Errorf("--reps auto did not choose the study's repetitions from its presentation: %+v", d.Reps)
	}
	var b bytes.Buffer
	if err := report.WriteMarkdownOpts(&b, d, view.Options{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		// Its summary row, whatever its outcome: the two databases share
		// one server and a machine whose other tests run beside this one,
		// so whether their counts differ is not this test's to say.
		"| series-count | Time to count the series | ",
		"## series-count — count(\\*) over generate_series (a test of report)",
		"### Time to count the series\n\n| rows generated | counted | a | b | b vs a |",
		"| 1000 | ≈1,000 rows | ",
		"| 20000 | ≈20,000 rows | ",
		"### Further metrics",
		"| time to connect |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	if err := report.WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if html := b.String(); !strings.Contains(html, "Time to count by size") {
		t.Error("report.html lacks the study's chart")
	}
}
