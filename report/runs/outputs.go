package runs

import (
	"context"
	"slices"
	"strings"

	"github.com/pglab/pglab/results"
)

// notTexts are text artefacts that are not a study's output: notes and
// outcomes, which reports show in their own places, and the folded CPU
// stacks of a profile, which the cause cards draw (evidence.go).
var notTexts = map[string]bool{"note": true, "outcome": true, cpuStacksArtefact: true}

// loadTexts reads a run's text artefacts (text/* types) other than notes:
// one listing without data, then the data of each name.
func loadTexts(ctx context.Context, store *results.Store, runID string) ([]results.Artefact, error) {
	list, err := store.Artefacts(ctx, runID, results.ArtefactFilter{SkipData: true})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, a := range list {
		if strings.HasPrefix(a.ContentType, "text/") && !notTexts[a.Name] && a.Study != "" && slices.Index(names, a.Name) < 0 {
			names = append(names, a.Name)
		}
	}
	var out []results.Artefact
	for _, n := range names {
		as, err := store.Artefacts(ctx, runID, results.ArtefactFilter{Name: n})
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			if strings.HasPrefix(a.ContentType, "text/") && a.Study != "" {
				out = append(out, a)
			}
		}
	}
	return out, nil
}
