package study

import (
	"context"
	"errors"
	"testing"

	"github.com/pglab/pglab/results"
)

func TestInfoCheck(t *testing.T) {
	good := Info{Name: "x", Version: 1, Params: []Param{{Name: "a"}, {Name: "b"}}}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for what, info := range map[string]Info{
		"no name":            {Version: 1},
		"no version":         {Name: "x"},
		"parameter twice":    {Name: "x", Version: 1, Params: []Param{{Name: "a"}, {Name: "a"}}},
		"unnamed parameter":  {Name: "x", Version: 1, Params: []Param{{}}},
		"a twin not primary": {Name: "x", Version: 1, Presentation: &results.Presentation{Primary: []results.MetricHead{{Metric: "a", Head: "A", Twin: "b"}}}},
	} {
		err := info.Check()
		if !errors.Is(err, ErrInfo) {
			t.Errorf("%s: Check() = %v, want an error wrapping ErrInfo", what, err)
		}
		if what == "a twin not primary" && !errors.Is(err, results.ErrPresentation) {
			t.Errorf("%s: %v does not wrap results.ErrPresentation", what, err)
		}
	}
}

// versionless is the counting study without a version.
type versionless struct{ countingStudy }

func (*versionless) Info() Info { return Info{Name: "versionless", Title: "no version"} }

// TestRunnerChecksInfo: a study whose description does not hold together
// runs nowhere and stores nothing.
func TestRunnerChecksInfo(t *testing.T) {
	store := &memStore{}
	r := &Runner{Store: store}
	out, err := r.Run(context.Background(), &versionless{}, Params{})
	if !errors.Is(err, ErrInfo) || out != nil || len(store.artefacts) != 0 {
		t.Errorf("Run = %v, %v; stored %d artefacts", out, err, len(store.artefacts))
	}
}
