package view

import (
	"fmt"
	"strings"

	"github.com/pglab/pglab/results"
)

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

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f kB", float64(n)/(1<<10))
}
