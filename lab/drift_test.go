package lab

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/pgserver/pgtest"
	"github.com/pglab/pglab/results"
)

// TestConfigDriftBeforeRun: managed 16 against a 17 given its own
// shared_buffers (a configuration's), run: before the study starts the
// set-up prints the config drift — io_combine_limit as 17's only, the
// built-in default of vacuum_buffer_usage_limit that 17 raised — and not
// shared_buffers, which was asked; the run stores the differences and
// each target's settings, and the targets' build facts.
func TestConfigDriftBeforeRun(t *testing.T) {
	ctx := context.Background()
	v16, err := pgserver.ParseVersionSpec("16")
	if err != nil {
		t.Fatal(err)
	}
	v17, _ := pgserver.ParseVersionSpec("17")
	runs, err := Studies([]string{"copy-errors"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "results.db")
	spec := &Spec{
		Versions: []pgserver.VersionSpec{v16},
		Configs:  []Config{{Name: "big17", Version: v17, Settings: []pgserver.Setting{{Name: "shared_buffers", Value: "256MB"}}}},
		Studies:  runs, Quick: true, Reps: 1, Store: store, CacheLimit: -1,
	}
	var mu sync.Mutex
	var lines []string
	opts := Options{
		Kind: results.KindCompare,
		Binaries: func(_ context.Context, v pgserver.VersionSpec) (*pgserver.Binaries, error) {
			return pgtest.Binaries(t, v.String()), nil
		},
		Progress: func(s string) { mu.Lock(); lines = append(lines, s); mu.Unlock() },
	}
	res, err := Run(ctx, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	printed := strings.Join(lines, "\n")
	before, _, ok := strings.Cut(printed, "copy-errors: setting up")
	if !ok || !strings.Contains(before, "config drift:") {
		t.Fatalf("no config drift printed before the study:\n%s", printed)
	}
	for _, want := range []string{"io_combine_limit: big17 128kB; pg16 has no such setting", "vacuum_buffer_usage_limit: pg16 256kB, big17 2MB (built-in defaults)"} {
		if !strings.Contains(before, want) {
			t.Errorf("drift lacks %q:\n%s", want, before)
		}
	}
	if strings.Contains(before, "  shared_buffers") {
		t.Errorf("shared_buffers, asked to vary, printed as drift:\n%s", before)
	}
	st, err := results.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	arts, err := st.Artefacts(ctx, res.RunID, results.ArtefactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]bool{}
	var diffs []observe.SettingDiff
	for _, a := range arts {
		switch a.Name {
		case SettingsArtefact:
			var c observe.ServerConfig
			if json.Unmarshal(a.Data, &c) == nil && len(c.Settings) > 300 {
				settings[a.Target] = true
			}
		case ConfigDriftArtefact:
			if err := json.Unmarshal(a.Data, &diffs); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !settings["pg16"] || !settings["big17"] {
		t.Errorf("settings stored for %v", settings)
	}
	found := false
	for _, d := range diffs {
		if d.Name == "shared_buffers" {
			found = d.Asked && !d.Drift()
		}
	}
	if !found {
		t.Errorf("shared_buffers not stored as an asked difference: %+v", diffs)
	}
	targets, err := st.Targets(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		var extra struct{ Build observe.BuildFacts }
		if json.Unmarshal(tg.Extra, &extra) != nil || extra.Build.BlockSize != 8192 {
			t.Errorf("%s: build facts %s", tg.Name, tg.Extra)
		}
	}
}
