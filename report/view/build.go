package view

import (
	"slices"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/report/internal/words"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
)

// Build analyses a dataset.
func Build(d *runs.Dataset, o Options) (*Report, error) {
	v := &Report{Data: d, Alpha: d.SignificanceLevel(), Brief: o.Brief}
	records := d.RunRecords()
	switch len(records) {
	case 0:
		v.Title = "pglab report"
	case 1:
		v.Title = "pglab report: run " + records[0].ID
	default:
		ids := make([]string, len(records))
		for i, r := range records {
			ids[i] = r.ID
		}
		v.Title = "pglab report: runs " + strings.Join(ids, " vs ")
	}
	hosts := map[string]bool{}
	for _, r := range records {
		rv := Run{
			ID: r.ID, Kind: string(r.Kind), Status: string(r.Status), Version: r.Version,
			Command: strings.Join(r.Command, " "), Error: r.Error, Host: hostLine(r.Host),
		}
		if !r.StartedAt.IsZero() {
			rv.Started = r.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		if !r.FinishedAt.IsZero() && !r.StartedAt.IsZero() {
			rv.Duration = formatDuration(r.FinishedAt.Sub(r.StartedAt))
		}
		v.Runs = append(v.Runs, rv)
		if rv.Host != "" && !hosts[rv.Host] {
			hosts[rv.Host] = true
			v.Hosts = append(v.Hosts, rv.Host)
		}
	}
	for _, name := range d.TargetNames() {
		t, _ := d.Target(name)
		tv := Target{Name: name, Server: "?", Checksums: "?", Conn: t.Conn}
		if t.ServerVersion != "" {
			tv.Server = "PostgreSQL " + t.ServerVersion
		}
		if t.ServerVersion != "" || t.ServerVersionNum != 0 {
			tv.Checksums = words.OnOff(t.DataChecksums)
		}
		if t.Kind == results.TargetManaged {
			tv.Conn = "managed by pglab"
		}
		if o, ok := d.Origins[name]; ok {
			tv.Run = o.Run
		}
		if r, ok := env.RecordOf(t.Extra); ok {
			tv.Env = &r
		}
		v.Targets = append(v.Targets, tv)
	}
	v.Settings = runs.SettingRows(d.Targets)
	v.buildTimes()
	v.buildReps()

	known := map[string]bool{}
	groups, a, err := d.Analysis()
	if err != nil {
		return nil, err
	}
	v.Family = a.Family
	for _, sg := range groups {
		sv, err := buildStudy(d, sg, a.Results[sg.Study], o)
		if err != nil {
			return nil, err
		}
		sv.buildCards(d, a.Cards)
		known[sg.Study] = true
		v.Studies = append(v.Studies, sv)
		if hs := sv.headlines(); len(hs) > 0 {
			n := len(v.Headlines)
			if n == 0 || strings.Join(v.Headlines[n-1].Targets, "\x00") != strings.Join(sv.Targets, "\x00") {
				v.Headlines = append(v.Headlines, HeadlineTable{Targets: sv.Targets})
				n++
			}
			v.Headlines[n-1].Rows = append(v.Headlines[n-1].Rows, hs...)
			if sv.Matrix == nil {
				v.Headlines[n-1].Metrics = true
			}
		}
	}
	for _, n := range d.Notes {
		if !known[n.Study] && !n.Outcome {
			v.Notes = append(v.Notes, noteText(n, ""))
		}
	}
	if o.Brief {
		v.general = v.commonGeneral()
	}
	return v, nil
}

// commonGeneral returns the general warnings that every study with
// figures carries, when there are two studies or more, in the first
// study's order; each study's common set is marked too.
func (v *Report) commonGeneral() []string {
	var with []*Study
	for _, sv := range v.Studies {
		if len(sv.Tables) > 0 || sv.Others != nil {
			with = append(with, sv)
		}
	}
	if len(with) < 2 {
		return nil
	}
	var out []string
	for _, g := range with[0].General {
		all := true
		for _, sv := range with[1:] {
			all = all && slices.Index(sv.General, g) >= 0
		}
		if all {
			out = append(out, g)
		}
	}
	for _, sv := range with {
		sv.Common = map[string]bool{}
		for _, g := range out {
			sv.Common[g] = true
		}
	}
	return out
}
