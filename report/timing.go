package report

import (
	"bufio"
	"fmt"
	"time"
)

// timeRow is one line of a run's split of wall time: a study, or the
// whole run.
type timeRow struct {
	Run, Study              string
	Took, Measured, Setup   string
	MeasuredPct             string
	took, measured, servers time.Duration
}

// buildTimes splits each run's wall time per study into time in measured
// steps and the rest (set-up), and sums them up for the run; the run's
// own row adds the servers' start and counts from its start to its end.
func (v *view) buildTimes() {
	records := map[string]int{}
	for i, r := range v.d.runs() {
		records[r.ID] = i
	}
	multi := len(v.d.Timings) > 1
	for _, rt := range v.d.Timings {
		run := ""
		if multi {
			run = rt.Run
		}
		var total timeRow
		total.Run, total.Study = run, "whole run"
		for _, st := range rt.Studies {
			took := msDuration(st.WallMS)
			measured := msDuration(st.MeasuredMS)
			v.Times = append(v.Times, newTimeRow(run, st.Study, took, measured))
			total.took += took
			total.measured += measured
		}
		if i, ok := records[rt.Run]; ok {
			r := v.d.runs()[i]
			if !r.StartedAt.IsZero() && !r.FinishedAt.IsZero() {
				total.took = r.FinishedAt.Sub(r.StartedAt)
			}
		}
		total.took += rt.Servers
		row := newTimeRow(run, total.Study, total.took, total.measured)
		row.servers = rt.Servers
		v.Times = append(v.Times, row)
		v.TimeLines = append(v.TimeLines, row.line())
	}
}

func newTimeRow(run, study string, took, measured time.Duration) timeRow {
	r := timeRow{Run: run, Study: study, took: took, measured: measured,
		Took: formatSpan(took), Measured: formatSpan(measured), Setup: formatSpan(max(0, took-measured))}
	if took > 0 {
		r.MeasuredPct = fmt.Sprintf("%.0f %%", 100*float64(measured)/float64(took))
	}
	return r
}

// line is the run's split in a sentence: "measured steps: 12 min of 1 h
// 40 min (12 %); set-up 1 h 28 min, of which 25 s starting the servers".
func (r timeRow) line() string {
	s := fmt.Sprintf("measured steps: %s of %s", r.Measured, r.Took)
	if r.MeasuredPct != "" {
		s += " (" + r.MeasuredPct + ")"
	}
	s += "; set-up " + r.Setup
	if r.servers > 0 {
		s += ", of which " + formatSpan(r.servers) + " starting the servers"
	}
	if r.Run != "" {
		s = "run " + r.Run + ": " + s
	}
	return s
}

// timeHead is the header of the time table.
func (v *view) timeHead() []string {
	head := []string{"study", "took", "in measured steps", "in set-up"}
	if len(v.Times) > 0 && v.Times[0].Run != "" {
		head = append([]string{"run"}, head...)
	}
	return head
}

// cells are a time row's cells under timeHead.
func (r timeRow) cells() []string {
	measured := r.Measured
	if r.MeasuredPct != "" {
		measured += " (" + r.MeasuredPct + ")"
	}
	c := []string{r.Study, r.Took, measured, r.Setup}
	if r.Run != "" {
		c = append([]string{r.Run}, c...)
	}
	return c
}

// writeTimesMarkdown writes the split of wall time under the setup.
func (v *view) writeTimesMarkdown(w *bufio.Writer) {
	if len(v.Times) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhere the time went (measured steps: what the figures time, every target and repetition; set-up: settings and restarts, tables and data, reading counters, waiting for statistics):\n\n")
	head := v.timeHead()
	mdRow(w, head...)
	mdRule(w, len(head))
	for _, r := range v.Times {
		mdRow(w, r.cells()...)
	}
}

// TimeCells are the time rows' cells, for the HTML page.
func (v *view) TimeCells() [][]string {
	var out [][]string
	for _, r := range v.Times {
		out = append(out, r.cells())
	}
	return out
}

// TimeHead is the time table's header, for the HTML page.
func (v *view) TimeHead() []string { return v.timeHead() }

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// formatSpan prints a duration for the time table: tenths of a second
// below 10 s, else as formatDuration.
func formatSpan(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return formatDuration(d)
}
