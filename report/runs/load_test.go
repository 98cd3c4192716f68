package runs

import (
	"maps"
	"slices"
	"strings"
	"testing"

	_ "github.com/pglab/pglab/study/studies"
)

// TestLegacyPresentationsFrozen: the legacy table holds the presentations
// of the studies as report knew them, for runs stored before: every
// study of then, and one that holds together.
func TestLegacyPresentationsFrozen(t *testing.T) {
	for n, p := range LegacyPresentations {
		if err := p.Check(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	want := []string{"commit", "copy-errors", "copy-out", "replay", "seqscan", "tps", "tune", "vacuum"}
	if got := slices.Sorted(maps.Keys(LegacyPresentations)); !slices.Equal(got, want) {
		t.Errorf("legacy studies %v, want %v", got, want)
	}
}

// TestStudyVersionsDiffer: runs side by side that ran different versions
// of a study say so; a run stored before versions says nothing.
func TestStudyVersionsDiffer(t *testing.T) {
	d := &Dataset{}
	d.addStudy(StudyInfo{Name: "tps", Version: 1}, "a")
	d.addStudy(StudyInfo{Name: "tps", Version: 0}, "b")
	if len(d.Notes) != 0 {
		t.Errorf("a run without versions: notes %v", d.Notes)
	}
	d.addStudy(StudyInfo{Name: "tps", Version: 2}, "c")
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0].Text, "run c ran version 2 of this study, the first run version 1") {
		t.Errorf("notes %v", d.Notes)
	}
}
