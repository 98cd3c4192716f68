package view

import (
	"fmt"
	"strings"
	"time"

	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/results"
)

// buildTimes splits each run's wall time per study (and case) into time
// in measured steps, resets of the data, waiting and the rest (set-up),
// and sums them up for the run; the run's own row adds the servers' start
// and counts from its start to its end.
func (v *Report) buildTimes() {
	records := map[string]int{}
	for i, r := range v.Data.RunRecords() {
		records[r.ID] = i
	}
	multi := len(v.Data.Timings) > 1
	for _, rt := range v.Data.Timings {
		run := ""
		if multi {
			run = rt.Run
		}
		var total TimeRow
		total.Run, total.Study = run, "whole run"
		for _, st := range rt.Studies {
			row := newTimeRow(run, st.Study, msDuration(st.WallMS), msDuration(st.MeasuredMS), msDuration(st.ResetMS), msDuration(st.WaitMS))
			v.Times = append(v.Times, row)
			v.Times = append(v.Times, caseRows(run, st)...)
			v.DataLines = append(v.DataLines, dataLines(run, st)...)
			total.TookDur += row.TookDur
			total.MeasuredDur += row.MeasuredDur
			total.ResetDur += row.ResetDur
			total.WaitDur += row.WaitDur
			total.profile += msDuration(st.ProfileMS)
		}
		if i, ok := records[rt.Run]; ok {
			r := v.Data.RunRecords()[i]
			if !r.StartedAt.IsZero() && !r.FinishedAt.IsZero() {
				total.TookDur = r.FinishedAt.Sub(r.StartedAt)
			}
		}
		total.TookDur += rt.Servers
		row := newTimeRow(run, total.Study, total.TookDur, total.MeasuredDur, total.ResetDur, total.WaitDur)
		row.servers, row.profile = rt.Servers, total.profile
		v.Times = append(v.Times, row)
		v.TimeLines = append(v.TimeLines, row.line())
	}
}

// caseRows are a study's cases: the time of their repetitions.
func caseRows(run string, st results.StudyTime) []TimeRow {
	if len(st.Cases) < 2 && st.ResetMS == 0 {
		return nil
	}
	var out []TimeRow
	for _, c := range st.Cases {
		r := newTimeRow(run, st.Study+" · "+c.Name, msDuration(c.RunMS), msDuration(c.MeasuredMS), msDuration(c.ResetMS), msDuration(c.WaitMS))
		r.isCase = true
		out = append(out, r)
	}
	return out
}

func newTimeRow(run, study string, took, measured, reset, wait time.Duration) TimeRow {
	setup := max(0, took-measured-reset-wait)
	r := TimeRow{Run: run, Study: study, TookDur: took, MeasuredDur: measured, ResetDur: reset, WaitDur: wait,
		Took: formatSpan(took), Measured: formatSpan(measured), Setup: formatSpan(setup),
		Reset: formatSpan(reset), Wait: formatSpan(wait)}
	if took > 0 {
		r.MeasuredPct = fmt.Sprintf("%.0f %%", 100*float64(measured)/float64(took))
	}
	return r
}

// line is the run's split in a sentence: "measured steps: 12 min of 1 h
// 40 min (12 %); set-up 1 h 28 min, of which 25 s starting the servers".
func (r TimeRow) line() string {
	s := fmt.Sprintf("measured steps: %s of %s", r.Measured, r.Took)
	if r.MeasuredPct != "" {
		s += " (" + r.MeasuredPct + ")"
	}
	s += "; set-up " + r.Setup
	if r.servers > 0 {
		s += ", of which " + formatSpan(r.servers) + " starting the servers"
	}
	if r.profile > 0 {
		s += "; the profiler " + formatSpan(r.profile) + " of the set-up (attaching perf and reading its samples, each step; not charged to the budget)"
	}
	if r.ResetDur > 0 {
		s += "; resets of the data " + r.Reset
	}
	if r.WaitDur > 0 {
		s += "; waiting for another pglab " + r.Wait
	}
	if r.Run != "" {
		s = "run " + r.Run + ": " + s
	}
	return s
}

// SplitsResets reports whether any row has resets or waits (runs stored
// before pglab timed them have neither, and keep the four columns).
func (v *Report) SplitsResets() bool {
	for _, r := range v.Times {
		if r.ResetDur > 0 || r.WaitDur > 0 || r.isCase {
			return true
		}
	}
	return false
}

// TimeHead is the header of the time table.
func (v *Report) TimeHead() []string {
	head := []string{"study", "took", "in measured steps", "in set-up"}
	if v.SplitsResets() {
		head = append(head, "in resets", "waiting")
	}
	if len(v.Times) > 0 && v.Times[0].Run != "" {
		head = append([]string{"run"}, head...)
	}
	return head
}

// Cells are a time row's cells under timeHead.
func (r TimeRow) Cells(resets bool) []string {
	measured := r.Measured
	if r.MeasuredPct != "" {
		measured += " (" + r.MeasuredPct + ")"
	}
	c := []string{r.Study, r.Took, measured, r.Setup}
	if resets {
		c = append(c, r.Reset, r.Wait)
	}
	if r.Run != "" {
		c = append([]string{r.Run}, c...)
	}
	return c
}

// TimeCells are the time rows' cells, for the HTML page.
func (v *Report) TimeCells() [][]string {
	var out [][]string
	resets := v.SplitsResets()
	for _, r := range v.Times {
		out = append(out, r.Cells(resets))
	}
	return out
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// formatSpan prints a duration for the time table: tenths of a second
// below 10 s, else as formatDuration.
func formatSpan(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return formatDuration(d)
}

// TimeIntro is the sentence above the time table: what each column holds.
func (v *Report) TimeIntro() string {
	s := "Where the time went (measured steps: what the figures time, every target and repetition; set-up: settings and restarts, tables and data, reading counters, waiting for statistics"
	if v.SplitsResets() {
		s += "; resets: fresh data before a repetition (a clone of the cached dataset, or the data built again in place); waiting: for another pglab building the same dataset; a case's row counts its repetitions only"
	}
	return s + "):"
}

// dataLines say how a study's data came to each server: from the dataset
// cache (kept from an earlier run, or built now) by which clone method,
// or built in place, how often, and what a load cost.
func dataLines(run string, st results.StudyTime) []string {
	var out []string
	for _, d := range st.Data {
		var b strings.Builder
		fmt.Fprintf(&b, "%s on %s: %s ", st.Study, d.Target, d.Dataset)
		switch {
		case d.Method == results.DataInPlace:
			b.WriteString("built in place by the study's statements")
		case d.FromCache:
			fmt.Fprintf(&b, "cloned from the dataset cache (kept from an earlier run; %s, %s)", formatBytes(d.Bytes), cloneMethod(d.Method))
		default:
			fmt.Fprintf(&b, "built into the dataset cache in %s, then cloned (%s, %s)", formatSpan(msDuration(d.BuildMS)), formatBytes(d.Bytes), cloneMethod(d.Method))
		}
		if d.PerRep {
			fmt.Fprintf(&b, "; before each repetition: %d resets, %s each (median", d.Loads, formatSpan(msDuration(d.MedianMS)))
			if d.CloneMedianMS > 0 {
				fmt.Fprintf(&b, "; the copy %s, the rest stopping, starting and warming the server", formatSpan(msDuration(d.CloneMedianMS)))
			}
			fmt.Fprintf(&b, "), %s in all", formatSpan(msDuration(d.TotalMS)))
		} else {
			fmt.Fprintf(&b, "; once for every case: %s", formatSpan(msDuration(d.TotalMS)))
		}
		if d.WaitMS >= 100 {
			fmt.Fprintf(&b, "; waited %s for another pglab building it", formatSpan(msDuration(d.WaitMS)))
		}
		line := b.String()
		if run != "" {
			line = "run " + run + ": " + line
		}
		out = append(out, line)
	}
	return out
}

// cloneMethod names a clone method as a reader knows it.
func cloneMethod(m string) string {
	switch m {
	case "reflink":
		return "reflink (FICLONE: blocks shared)"
	case "copy_file_range":
		return "in-kernel copy (copy_file_range)"
	case "copy":
		return "plain copy"
	}
	return m
}

func formatBytes(n int64) string { return units.Bytes(float64(n)) }
