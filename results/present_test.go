package results

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// samplePresentation uses every field of a presentation.
func samplePresentation() *Presentation {
	return &Presentation{
		Labels:    []LabelColumn{{Key: "clients", Head: "clients"}, {Key: "pct", Head: "share", Suffix: " %"}},
		Facts:     []MetricHead{{Metric: "table_mb", Head: "table"}},
		Primary:   []MetricHead{{Metric: "elapsed_ms", Head: "Time"}, {Metric: "mb_per_s", Head: "Throughput", Twin: "elapsed_ms"}},
		Charts:    []Chart{{Kind: Lines, Title: "Time by clients", Metrics: []string{"elapsed_ms"}, X: "clients", XHead: "clients", Ceiling: []string{"disk_mb_s"}, CeilingText: "disk"}},
		Texts:     []TextView{{Name: "output", Head: "What it said", Markdown: true, Open: true}},
		Hide:      []string{"hash"},
		NameLabel: "clients",
		SortBy:    "total_ms",
		Titles:    map[string]string{"fsync_us": "fsync latency"},
	}
}

// TestPresentationJSON: a presentation comes back from the stored study
// description as it went in, and a description without one (a run stored
// before studies carried theirs) has none.
func TestPresentationJSON(t *testing.T) {
	si := StudyInfo{Name: "x", Version: 3, Presentation: samplePresentation()}
	data, err := json.Marshal(si)
	if err != nil {
		t.Fatal(err)
	}
	var back StudyInfo
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, si) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back.Presentation, si.Presentation)
	}
	var old StudyInfo
	if err := json.Unmarshal([]byte(`{"name":"tps","title":"t","source":"s","params":{},"reps":5,"settings":null,"cases":[]}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Version != 0 || old.Presentation != nil {
		t.Errorf("an old description: version %d, presentation %+v", old.Version, old.Presentation)
	}
	if data, _ := json.Marshal(StudyInfo{Name: "x"}); string(data) != `{"name":"x","title":"","source":"","params":null,"reps":0,"settings":null,"cases":null}` {
		t.Errorf("a description without version or presentation adds fields: %s", data)
	}
}

func TestPresentationMetrics(t *testing.T) {
	got := samplePresentation().Metrics()
	want := []string{"table_mb", "elapsed_ms", "mb_per_s", "disk_mb_s", "total_ms", "fsync_us"}
	if !slices.Equal(got, want) {
		t.Errorf("Metrics() = %v, want %v", got, want)
	}
	var none *Presentation
	if none.Metrics() != nil || none.Check() != nil {
		t.Error("a nil presentation names metrics or is invalid")
	}
}

func TestPresentationCheck(t *testing.T) {
	if err := samplePresentation().Check(); err != nil {
		t.Fatalf("the sample: %v", err)
	}
	for name, spoil := range map[string]func(p *Presentation){
		"label without heading":  func(p *Presentation) { p.Labels[0].Head = "" },
		"label twice":            func(p *Presentation) { p.Labels[1].Key = "clients" },
		"label shown and hidden": func(p *Presentation) { p.Hide = []string{"pct"} },
		"primary without name":   func(p *Presentation) { p.Primary[0].Metric = "" },
		"primary twice":          func(p *Presentation) { p.Primary[1].Metric = "elapsed_ms" },
		"twin not primary":       func(p *Presentation) { p.Primary[1].Twin = "rows" },
		"twin of itself":         func(p *Presentation) { p.Primary[1].Twin = "mb_per_s" },
		"twin of a twin": func(p *Presentation) {
			p.Primary = append(p.Primary, MetricHead{Metric: "rows_per_s", Head: "Rows", Twin: "mb_per_s"})
		},
		"fact also primary":      func(p *Presentation) { p.Facts[0].Metric = "elapsed_ms" },
		"fact with twin":         func(p *Presentation) { p.Facts[0].Twin = "elapsed_ms" },
		"chart of no kind":       func(p *Presentation) { p.Charts[0].Kind = "" },
		"chart without metric":   func(p *Presentation) { p.Charts[0].Metrics = nil },
		"line chart without X":   func(p *Presentation) { p.Charts[0].X = "" },
		"ceiling without legend": func(p *Presentation) { p.Charts[0].CeilingText = "" },
		"text twice":             func(p *Presentation) { p.Texts = append(p.Texts, p.Texts[0]) },
	} {
		p := samplePresentation()
		spoil(p)
		if err := p.Check(); !errors.Is(err, ErrPresentation) {
			t.Errorf("%s: Check() = %v, want an error wrapping ErrPresentation", name, err)
		}
	}
}
