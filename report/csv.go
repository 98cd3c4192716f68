package report

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"

	"github.com/pglab/pglab/report/runs"

	"github.com/pglab/pglab/results"
)

// CSVHeader is the fixed part of the header WriteCSV writes; one column
// per case label ("case.clients", "case.update_pct", …, sorted by name)
// follows "case", before "rep".
var CSVHeader = []string{"run", "target", "server_version", "study", "case", "rep", "metric", "value", "unit", "exact", "direction"}

// WriteCSV writes every measurement as one row of RFC 4180 CSV (comma
// separated, fields with commas, quotes or line breaks quoted, CRLF line
// ends), as spreadsheets load it: run ID, target (as the report names it),
// the target's server version, study, the case's labels as "k=v k=v" and
// each label in a column of its own, repetition, metric, value (all its
// digits, no exponent), unit, whether the metric is exact, and which way is
// better. Rows come in the order of the runs, then as stored.
func WriteCSV(w io.Writer, d *runs.Dataset) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	keys := map[string]bool{}
	for _, m := range d.Measurements {
		for k := range m.Case {
			keys[k] = true
		}
	}
	labels := make([]string, 0, len(keys))
	for k := range keys {
		labels = append(labels, k)
	}
	sort.Strings(labels)

	head := append([]string(nil), CSVHeader[:5]...)
	for _, k := range labels {
		head = append(head, "case."+k)
	}
	head = append(head, CSVHeader[5:]...)
	if err := cw.Write(head); err != nil {
		return err
	}
	versions := map[string]string{}
	for _, t := range d.Targets {
		versions[t.Name] = t.ServerVersion
	}
	for _, m := range d.Measurements {
		rec := []string{csvRun(d, m), m.Target, versions[m.Target], m.Study, runs.CaseTitle(m.Case)}
		if len(m.Case) == 0 {
			rec[4] = ""
		}
		for _, k := range labels {
			rec = append(rec, m.Case[k])
		}
		dir := string(m.Direction)
		if dir == "" {
			dir = string(results.DirectionNeutral)
		}
		rec = append(rec, strconv.Itoa(m.Rep), m.Metric, strconv.FormatFloat(m.Value, 'f', -1, 64), m.Unit, strconv.FormatBool(m.Exact), dir)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRun returns the run a measurement belongs to.
func csvRun(d *runs.Dataset, m results.Measurement) string {
	if o, ok := d.Origins[m.Target]; ok {
		return o.Run
	}
	return d.Run.ID
}
