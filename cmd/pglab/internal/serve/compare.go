package serve

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pglab/pglab/compare"
	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
)

// comparePage is the comparison of two runs or more.
type comparePage struct {
	Runs []link
	// Columns are the report's targets ("pg16", "c3d4/pg17"), with the
	// run each comes from.
	Columns []column
	Differs []diffRow
	Same    []diffRow
	Report  template.HTML
	// Apart lists the metrics measured in some of the runs only.
	Apart []apartRow
	Swap  string
}

type column struct {
	Name, Run string
}

// diffRow is one fact of the runs' setups, a value per column.
type diffRow struct {
	Fact   string
	Values []string
}

// apartRow is a metric of a case that not every run measured.
type apartRow struct {
	Study, Case, Metric string
	// Values has a cell per column: the summary where the column has
	// the metric, "–" where not.
	Values []string
}

// compareRefs reads the runs to compare from ?runs=A,B (the permalink) or
// from repeated ?run=A&run=B (what the runs page's form sends), and says
// whether the address is the canonical one.
func compareRefs(q url.Values) ([]string, bool) {
	var refs []string
	canonical := len(q["run"]) == 0 && len(q["runs"]) == 1 && len(q) == 1
	for _, v := range append(append([]string(nil), q["runs"]...), q["run"]...) {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				refs = append(refs, p)
			}
		}
	}
	return refs, canonical
}

func (h *Handler) compare(w http.ResponseWriter, r *http.Request) {
	refs, canonical := compareRefs(r.URL.Query())
	if len(refs) < 2 {
		h.fail(w, r, http.StatusBadRequest, "pick two runs or more to compare: /compare?runs=A,B")
		return
	}
	if !canonical {
		http.Redirect(w, r, "/compare?runs="+strings.Join(refs, ","), http.StatusSeeOther)
		return
	}
	d, err := runs.Load(r.Context(), h.opts.Store, refs...)
	if err != nil {
		h.lookupError(w, r, err)
		return
	}
	p := comparePage{}
	ids := make([]string, len(d.Runs))
	for i, run := range d.Runs {
		ids[i] = run.ID
		p.Runs = append(p.Runs, link{Text: run.ID, Href: "/runs/" + run.ID})
	}
	rev := make([]string, len(ids))
	for i, id := range ids {
		rev[len(ids)-1-i] = id
	}
	p.Swap = "/compare?runs=" + strings.Join(rev, ",")
	runOf := func(target string) string {
		if o, ok := d.Origins[target]; ok {
			return o.Run
		}
		return ""
	}
	for _, t := range d.TargetNames() {
		p.Columns = append(p.Columns, column{Name: t, Run: runOf(t)})
	}
	p.Differs, p.Same = setupDiff(d, p.Columns)

	// Metrics that every run measured are compared as pglab report
	// does; the others are listed apart.
	kept, apart := splitOneSided(d, len(d.Runs), runOf)
	main := *d
	main.Measurements = kept
	var frag bytes.Buffer
	if err := report.WriteHTMLFragment(&frag, &main); err != nil {
		h.fail(w, r, http.StatusInternalServerError, "render the comparison: "+err.Error())
		return
	}
	p.Report = template.HTML(frag.String())
	p.Apart = apartRows(d, apart, p.Columns)
	h.render(w, r, "compare.html", "pglab: "+strings.Join(ids, " vs "), p, 0)
}

// metricKey names a metric of a study's case.
type metricKey struct{ study, caseKey, metric string }

// splitOneSided splits the measurements into those of metrics measured
// in all nruns runs and the others.
func splitOneSided(d *runs.Dataset, nruns int, runOf func(string) string) (kept []results.Measurement, apart []results.Measurement) {
	runs := map[metricKey]map[string]bool{}
	for _, m := range d.Measurements {
		k := metricKey{m.Study, m.CaseKey, m.Metric}
		if runs[k] == nil {
			runs[k] = map[string]bool{}
		}
		runs[k][runOf(m.Target)] = true
	}
	for _, m := range d.Measurements {
		k := metricKey{m.Study, m.CaseKey, m.Metric}
		if len(runs[k]) >= nruns || runOf(m.Target) == "" {
			kept = append(kept, m)
		} else {
			apart = append(apart, m)
		}
	}
	return kept, apart
}

// apartRows summarises the one-sided metrics per column with package
// compare (median, interval, n), as the report's cells are made.
func apartRows(d *runs.Dataset, ms []results.Measurement, cols []column) []apartRow {
	type group struct {
		first   results.Measurement
		samples map[string][]float64
	}
	var order []metricKey
	groups := map[metricKey]*group{}
	for _, m := range ms {
		k := metricKey{m.Study, m.CaseKey, m.Metric}
		g := groups[k]
		if g == nil {
			g = &group{first: m, samples: map[string][]float64{}}
			groups[k] = g
			order = append(order, k)
		}
		g.samples[m.Target] = append(g.samples[m.Target], m.Value)
	}
	names := map[string]string{}
	for _, s := range d.Studies {
		for _, c := range s.Cases {
			names[s.Name+"\x00"+results.CaseKey(c.Labels)] = c.Name
		}
	}
	var out []apartRow
	for _, k := range order {
		g := groups[k]
		metric := compare.Metric{Name: k.metric, Unit: compare.Unit(g.first.Unit), Exact: g.first.Exact}
		dir, _ := compare.ParseDirection(string(g.first.Direction))
		metric.Direction = dir
		var order []string
		for _, c := range cols {
			if len(g.samples[c.Name]) > 0 {
				order = append(order, c.Name)
			}
		}
		res, err := compare.Analyze(compare.Input{Metric: metric, Order: order, Samples: g.samples}, compare.Options{Alpha: d.Alpha})
		row := apartRow{Study: k.study, Case: names[k.study+"\x00"+k.caseKey], Metric: k.metric}
		if row.Case == "" {
			row.Case = runs.CaseTitle(g.first.Case)
		}
		for _, c := range cols {
			cell := "–"
			if err == nil {
				if s, ok := res.Target(c.Name); ok && s.N > 0 {
					cell = apartCell(s, metric)
				}
			}
			row.Values = append(row.Values, cell)
		}
		out = append(out, row)
	}
	return out
}

// setupDiff lists the facts of each column's setup — its run's pglab
// version, host and manifest, its server's version, data checksums,
// connection, environment and settings — and splits them into those that
// differ between the columns and those that are the same everywhere.
// Where each server listens and keeps its files is left out: it always
// differs.
func setupDiff(d *runs.Dataset, cols []column) (differs, same []diffRow) {
	type facts struct {
		vals map[string]string
	}
	all := make([]facts, len(cols))
	var order []string
	seen := map[string]bool{}
	add := func(i int, k, v string) {
		if all[i].vals == nil {
			all[i].vals = map[string]string{}
		}
		all[i].vals[k] = v
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	runByID := map[string]results.RunRecord{}
	for _, r := range d.Runs {
		runByID[r.ID] = r
	}
	for i, c := range cols {
		run, ok := runByID[c.Run]
		if !ok {
			run = d.Run
		}
		for _, kv := range runFacts(run) {
			add(i, kv[0], kv[1])
		}
		var t results.Target
		for _, x := range d.Targets {
			if x.Name == c.Name {
				t = x
			}
		}
		for _, kv := range targetFacts(t) {
			add(i, kv[0], kv[1])
		}
		for _, s := range t.Settings {
			if runs.IsInstanceSetting(s.Name) || runs.IsBootDefault(s) {
				continue
			}
			add(i, "setting "+s.Name, runs.FormatSetting(s))
		}
	}
	for _, k := range order {
		row := diffRow{Fact: k}
		for i := range cols {
			v, ok := all[i].vals[k]
			if !ok {
				v = "–"
				if strings.HasPrefix(k, "setting ") {
					v = "default"
				}
			}
			row.Values = append(row.Values, v)
		}
		if allEqual(row.Values) {
			same = append(same, row)
		} else {
			differs = append(differs, row)
		}
	}
	return differs, same
}

// runFacts are a run's facts that a comparison lists: pglab's version,
// the command, the host, and the manifest's extras (repetitions, alpha,
// environment …).
func runFacts(r results.RunRecord) [][2]string {
	h := r.Host
	rot := "–"
	if h.Disk.Rotational != nil {
		rot = map[bool]string{true: "rotational", false: "solid-state"}[*h.Disk.Rotational]
	}
	facts := [][2]string{
		{"pglab version", orDash(r.Version)},
		{"run kind", string(r.Kind)},
		{"command", orDash(strings.Join(r.Command, " "))},
		{"host name", orDash(h.Hostname)},
		{"host OS", orDash(h.OS)},
		{"host kernel", orDash(h.Kernel)},
		{"host CPUs", fmt.Sprint(h.CPUs)},
		{"host CPU model", orDash(h.CPUModel)},
		{"host memory", formatValue(float64(h.MemoryBytes), "bytes", false)},
		{"host disk", orDash(strings.TrimSpace(h.Disk.Device + " " + h.Disk.Filesystem + " " + rot))},
	}
	for _, kv := range flattenJSON(r.Extra) {
		facts = append(facts, [2]string{"run " + kv[0], kv[1]})
	}
	return facts
}

func allEqual(vs []string) bool {
	for _, v := range vs[1:] {
		if v != vs[0] {
			return false
		}
	}
	return true
}

// apartCell formats a summary as the report's cells do: the median (or
// the exact value), ± the interval's half-width where there is one, n.
func apartCell(s compare.Summary, m compare.Metric) string {
	if m.Exact {
		return compare.FormatExact(s.Center, m.Unit) + " (n=" + strconv.Itoa(s.N) + ")"
	}
	out := compare.FormatValue(s.Center, m.Unit)
	if s.HasCI() && s.PctRange != "" && s.PctRange != "?" && s.PctRange != "∞" {
		out += " ± " + s.PctRange
	}
	return out + " (n=" + strconv.Itoa(s.N) + ")"
}
