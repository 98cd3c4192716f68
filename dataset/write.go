package dataset

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteList prints the cache's entries as pglab cache list shows them: a
// heading naming dir and the size limit (0: none), a table of the entries
// in the order given (List's: most recently used first), and their count
// and total size.
func WriteList(w io.Writer, dir string, list []Info, limit int64) error {
	lim := "no limit"
	if limit > 0 {
		lim = "limit " + FormatSize(limit)
	}
	fmt.Fprintf(w, "Datasets (%s; %s):\n", dir, lim)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDATASET\tPOSTGRESQL\tINITDB\tSIZE\tBUILT\tLAST USED\tSTATE")
	for _, in := range list {
		name, version, initdb := "?", "?", ""
		if in.Complete {
			name = in.Key.Dataset + " " + strings.Join(in.Key.Params, " ")
			version, initdb = in.Key.Version, strings.Join(in.Key.Initdb, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.ID, name, version, initdb, FormatSize(in.Bytes),
			stamp(in.Created), stamp(in.LastUsed), in.state())
	}
	if len(list) == 0 {
		fmt.Fprintln(tw, "(none)\t\t\t\t\t\t\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write dataset list: %w", err)
	}
	_, err := fmt.Fprintf(w, "%d datasets, %s\n", len(list), FormatSize(Total(list)))
	return err
}

// state says whether the entry is complete and in use.
func (in Info) state() string {
	state := "complete"
	if !in.Complete {
		state = "incomplete (never used)"
	}
	if in.InUse {
		state += ", in use"
	}
	return state
}

// stamp is a time to the minute in the local zone, a dash when unknown.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.Local().Format("2006-01-02 15:04")
}
