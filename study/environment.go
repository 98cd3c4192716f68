package study

import (
	"encoding/json"
	"fmt"

	"github.com/pglab/pglab/env"
)

// SetEnvironment gives a managed target the environment it runs in (its
// cgroup's limits and counters): every measured step then records the
// environment's counters (env_memory_peak_mb, env_cpu_throttled_ms,
// env_read_mb, env_write_mb, …) and its bottleneck notes, cold runs empty
// the cgroup's page cache, and the target's record names the profile and
// what was enforced.
func (t *Target) SetEnvironment(e *env.Environment) { t.env = e }

// Environment returns the target's environment, or nil.
func (t *Target) Environment() *env.Environment { return t.env }

// envExtra returns the target's extra facts for the store: its
// environment's record under "env".
func (t *Target) envExtra() json.RawMessage {
	return t.extraWith("", nil)
}

// extraWith is the target's Extra (its environment) with v under key
// (none when key is "").
func (t *Target) extraWith(key string, v any) json.RawMessage {
	m := map[string]any{}
	if t.env != nil {
		m["env"] = t.env.Record()
	}
	if key != "" {
		m[key] = v
	}
	if len(m) == 0 {
		return nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return data
}

// startEnvStep starts the environment's counters of a measured step; nil
// without an environment.
func (s *Session) startEnvStep() (*env.StepCounters, error) {
	return s.Target.env.StartStep()
}

// stopEnvStep ends the environment's counters of a step (nil without an
// environment).
func stopEnvStep(es *env.StepCounters) (*env.Counters, error) {
	if es == nil {
		return nil, nil
	}
	c, err := es.Stop()
	if err != nil {
		return nil, fmt.Errorf("read the environment's counters: %w", err)
	}
	return &c, nil
}

// recordEnvStep records the environment's counters of a step as metrics
// of the current case, and the bottlenecks they show (against the
// profile's limits) as notes.
func (s *Session) recordEnvStep(name string, step *Step) {
	c := step.Env
	if c == nil {
		return
	}
	c.Elapsed = step.Elapsed
	for _, m := range c.Metrics() {
		s.Record(m.Name, m.Value, m.Unit)
	}
	for _, n := range env.Notes(s.Target.env.Profile, *c, name) {
		s.Note("%s", n)
	}
}
