package lab

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pglab/pglab/observe"
	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
)

// Artefacts of a run's configurations: each target's every setting and
// build facts (observe.ServerConfig, JSON, one per target), and the
// settings that differ between the targets (the run's: a JSON array of
// observe.SettingDiff).
const (
	SettingsArtefact    = "settings"
	ConfigDriftArtefact = "config-drift"
)

// driftLines is how many drift lines the set-up prints; the artefact
// has them all.
const driftLines = 25

// recordConfigs stores every target's configuration and the differences
// between them, and prints the config drift (differences nobody asked
// for) before the studies start.
func (l *Lab) recordConfigs(ctx context.Context) error {
	configs := map[string]*observe.ServerConfig{}
	var order []string
	for _, t := range l.Targets {
		if t.Config == nil {
			continue
		}
		configs[t.Name] = t.Config
		order = append(order, t.Name)
		if err := l.addJSON(ctx, t.Name, SettingsArtefact, t.Config); err != nil {
			return err
		}
	}
	if len(order) < 2 {
		return nil
	}
	diffs := observe.ConfigDrift(order, configs, l.askedSettings())
	if err := l.addJSON(ctx, "", ConfigDriftArtefact, diffs); err != nil {
		return err
	}
	l.sayDrift(order, diffs)
	return nil
}

// sayDrift prints the differences nobody asked for, one a line.
func (l *Lab) sayDrift(order []string, diffs []observe.SettingDiff) {
	var drift []observe.SettingDiff
	asked, derived := 0, 0
	for _, d := range diffs {
		switch {
		case d.Asked:
			asked++
		case d.Derived:
			derived++
		default:
			drift = append(drift, d)
		}
	}
	if len(drift) == 0 {
		l.say("config: the servers differ in no setting but those asked to vary (%d) and %d derived from them", asked, derived)
		return
	}
	l.say("config drift: %d settings differ between the servers that nobody asked to vary (besides %d asked, %d derived):", len(drift), asked, derived)
	for i, d := range drift {
		if i == driftLines {
			l.say("  … and %d more (the run's %s artefact)", len(drift)-driftLines, ConfigDriftArtefact)
			break
		}
		l.say("  %s", d.Text(order))
	}
}

// askedSettings are, by target name, the settings pglab gave each managed
// server: --set, a configuration's (--config), a study variant's and an
// environment's.
func (l *Lab) askedSettings() map[string][]string {
	out := map[string][]string{}
	for _, s := range l.specs {
		if !s.Managed() {
			continue
		}
		all := pgserver.MergeSettings(pgserver.MergeSettings(l.spec.Settings, s.Optional...), s.Settings...)
		for _, x := range pgserver.MergeSettings(all, serverNetworkSettings(s.Env)...) {
			out[s.Name] = append(out[s.Name], x.Name)
		}
	}
	return out
}

// addJSON stores v as a JSON artefact of the run (of target, when set).
func (l *Lab) addJSON(ctx context.Context, target, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	return l.Run.AddArtefact(ctx, results.Artefact{Target: target, Name: name, ContentType: "application/json", Data: data})
}
