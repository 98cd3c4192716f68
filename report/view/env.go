package view

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pglab/pglab/compare"

	"github.com/pglab/pglab/env"
)

// envReason is one reason limits were not (fully) enforced, with the
// limits it applies to.
type envReason struct {
	why    string
	limits []string // "write=87MB/s on pg17@t3.micro"
}

// envReasons numbers the distinct reasons of the targets' limits that
// were not (fully) enforced, in table order: the footnote number of a
// reason is its index + 1.
func (v *Report) envReasons() []envReason {
	var out []envReason
	index := map[string]int{}
	for _, key := range env.Keys() {
		for _, t := range v.Targets {
			l, ok := limitOf(t.Env, key)
			if !ok || l.Status == env.Enforced {
				continue
			}
			why := string(l.Status) + ": " + l.Why
			i, seen := index[why]
			if !seen {
				i = len(out)
				index[why] = i
				out = append(out, envReason{why: why})
			}
			out[i].limits = append(out[i].limits, fmt.Sprintf("%s=%s on %s", l.Key, l.Value, t.Name))
		}
	}
	return out
}

// envRows are the setup table's rows about the targets' environments: the
// profile, then one row per limit any target sets, each cell the limit and
// whether it was enforced (by what) or not (a numbered footnote says why,
// see envNotes). None when no target ran in an environment.
func (v *Report) envRows() [][]string {
	some := false
	for _, t := range v.Targets {
		if t.Env != nil {
			some = true
		}
	}
	if !some {
		return nil
	}
	profile := []string{"environment"}
	for _, t := range v.Targets {
		switch {
		case t.Env == nil:
			profile = append(profile, "–")
		case t.Env.Origin != "":
			profile = append(profile, t.Env.Name+" ("+t.Env.Origin+")")
		default:
			profile = append(profile, t.Env.Name)
		}
	}
	rows := [][]string{profile}
	mark := map[string]int{}
	for i, r := range v.envReasons() {
		mark[r.why] = i + 1
	}
	for _, key := range env.Keys() {
		row := []string{key}
		set := false
		for _, t := range v.Targets {
			l, ok := limitOf(t.Env, key)
			if !ok {
				row = append(row, "–")
				continue
			}
			set = true
			if l.Status == env.Enforced {
				how := l.Mechanism
				if how == "" {
					how = l.How
				}
				row = append(row, fmt.Sprintf("%s, enforced (%s)%s", l.Value, how, v.measuredRTT(t.Name, key)))
				continue
			}
			row = append(row, fmt.Sprintf("%s, %s %s", l.Value, l.Status, Superscript(mark[string(l.Status)+": "+l.Why])))
		}
		if set {
			rows = append(rows, row)
		}
	}
	return rows
}

// EnvNotes say why limits were not (fully) enforced, numbered as envRows
// marks them, where the profiles' figures come from, and that an emulated
// environment is an approximation.
func (v *Report) EnvNotes() []string {
	var out []string
	for i, r := range v.envReasons() {
		out = append(out, fmt.Sprintf("%s %s — %s", Superscript(i+1), strings.Join(r.limits, ", "), r.why))
	}
	docs := map[string]bool{}
	for _, t := range v.Targets {
		if t.Env != nil && t.Env.Doc != "" && !docs[t.Env.Name] {
			docs[t.Env.Name] = true
			out = append(out, fmt.Sprintf("%s: %s", t.Env.Name, t.Env.Doc))
		}
	}
	for _, t := range v.Targets {
		if t.Env != nil && len(t.Env.Limits) > 0 {
			out = append(out, "An emulated environment is an approximation: the kernel holds the server to the limits above, but the CPU model and clock, T3 credit accounting, the EBS latency distribution and noisy neighbours are not reproduced; the measured counters (env_*) say what the server actually used.")
			break
		}
	}
	return out
}

// limitOf returns the limit of a key in an environment record.
func limitOf(r *env.Record, key string) (env.LimitRecord, bool) {
	if r == nil {
		return env.LimitRecord{}, false
	}
	for _, l := range r.Limits {
		if l.Key == key {
			return l, true
		}
	}
	return env.LimitRecord{}, false
}

// measuredRTT is ", measured X" for the rtt row: the median of the
// round trips the probe measured before each step (env_rtt_us), which
// the report shows rather than the setting.
func (v *Report) measuredRTT(target, key string) string {
	if key != env.KeyRTT {
		return ""
	}
	var us []float64
	for _, m := range v.Data.Measurements {
		if m.Target == target && m.Metric == "env_rtt_us" {
			us = append(us, m.Value)
		}
	}
	if len(us) == 0 {
		return ""
	}
	sort.Float64s(us)
	return fmt.Sprintf(", measured %s (median of %d probes)", compare.FormatValue(us[len(us)/2], compare.Microseconds), len(us))
}
