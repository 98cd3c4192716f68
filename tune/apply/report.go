package apply

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/tune"
)

// Action is what pglab tune did on a server.
type Action string

// The actions on a server.
const (
	ActionDiff   Action = "diff"
	ActionApply  Action = "apply"
	ActionRevert Action = "revert"
)

// Report is what pglab tune --diff, --apply and --revert tell about a
// server: the server, the recommendation it was compared with or given
// (none for a revert), and the outcome: the comparison (Rows) or what was
// changed (Result).
type Report struct {
	Action Action
	Server *Server
	// Version and VersionNum are the server's (empty for a revert).
	Version    string
	VersionNum int
	// Recommendation and Detected are what was compared or applied.
	Recommendation tune.Recommendation
	Detected       []tune.Detection
	// Rows are --diff's comparison.
	Rows []Row
	// Result is what --apply or --revert did.
	Result *Result
}

// serverDoc is the server in JSON output.
type serverDoc struct {
	Label      string `json:"label"`
	Version    string `json:"version,omitempty"`
	VersionNum int    `json:"version_num,omitempty"`
	Managed    bool   `json:"managed"`
	Local      bool   `json:"local"`
}

// reportDoc is the JSON document of a Report.
type reportDoc struct {
	Server         serverDoc       `json:"server"`
	Recommendation json.RawMessage `json:"recommendation,omitempty"`
	Parameters     []Row           `json:"parameters,omitempty"`
	Result         *Result         `json:"result,omitempty"`
}

// Write writes the report as a table (tune.FormatConf) or a JSON
// document (tune.FormatJSON).
func (r Report) Write(w io.Writer, f tune.Format) error {
	if f == tune.FormatJSON {
		return r.writeJSON(w)
	}
	var b strings.Builder
	if r.Action != ActionRevert {
		for _, l := range tune.HeaderLines(r.Recommendation, tune.FormatConf, r.Detected) {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "# Server: %s (PostgreSQL %s, %s)\n\n", r.Server.Label, r.Version, r.kind())
	}
	if r.Action == ActionDiff {
		writeTable(&b, diffTable(r.Rows))
		b.WriteString("\n" + diffSummary(r.Rows) + "\n")
	} else {
		r.writeResult(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r Report) writeJSON(w io.Writer) error {
	doc := reportDoc{Server: serverDoc{Label: r.Server.Label, Version: r.Version, VersionNum: r.VersionNum, Managed: r.Server.Managed, Local: r.Server.Local},
		Parameters: r.Rows, Result: r.Result}
	if r.Action != ActionRevert {
		rec, err := tune.JSON(r.Recommendation, r.Detected)
		if err != nil {
			return err
		}
		doc.Recommendation = rec
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// kind describes the server for headers: "managed instance" or not.
func (r Report) kind() string {
	switch {
	case r.Server.Managed:
		return "managed instance"
	case r.Server.Local:
		return "not managed by pglab, on this machine"
	}
	return "not managed by pglab"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// diffTable is the table of --diff: a header row, then one row per
// parameter.
func diffTable(rows []Row) [][]string {
	table := [][]string{{"parameter", "current", "recommended", "differs", "restart", "note"}}
	for _, r := range rows {
		note := ""
		switch {
		case r.Unsupported != "":
			note = "cannot be applied: " + r.Unsupported
		case r.PendingRestart:
			note = "a new value waits for a restart"
		}
		cur := r.Current
		if cur == "" {
			cur = "-"
		}
		table = append(table, []string{r.Name, cur, r.Recommended, yesNo(r.Differs), yesNo(r.Restart), note})
	}
	return table
}

// writeTable writes rows of cells in aligned columns, two spaces apart,
// without trailing spaces.
func writeTable(b *strings.Builder, table [][]string) {
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, row := range table {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			b.WriteString(strings.TrimRight(line, " \n") + "\n")
		}
	}
}

// diffSummary says how many parameters differ and which need a restart.
func diffSummary(rows []Row) string {
	var differ, restart, unsupported []string
	for _, r := range rows {
		switch {
		case r.Unsupported != "":
			unsupported = append(unsupported, r.Name)
		case r.Differs:
			differ = append(differ, r.Name)
			if r.Restart {
				restart = append(restart, r.Name)
			}
		}
	}
	s := fmt.Sprintf("%d of %d parameters differ", len(differ), len(rows))
	if len(restart) > 0 {
		s += fmt.Sprintf("; %d need a restart (%s)", len(restart), strings.Join(restart, ", "))
	}
	if len(unsupported) > 0 {
		s += fmt.Sprintf("; %d cannot be applied on this server (%s)", len(unsupported), strings.Join(unsupported, ", "))
	}
	return s + "."
}

// writeResult writes what Apply or Revert did: a table of the changes,
// what was left alone, the reload and restart, the verification and where
// the record is.
func (r Report) writeResult(b *strings.Builder) {
	res, apply := r.Result, r.Action == ActionApply
	if apply {
		fmt.Fprintf(b, "Applied to %s with ALTER SYSTEM:\n\n", r.Server.Label)
	} else {
		fmt.Fprintf(b, "Reverted on %s what pglab had applied:\n\n", r.Server.Label)
	}
	switch {
	case len(res.Changes) > 0:
		writeTable(b, changeTable(res.Changes))
	case apply:
		b.WriteString("nothing to change: every parameter already has its recommended value\n")
	default:
		b.WriteString("nothing to change back\n")
	}
	if len(res.Unchanged) > 0 {
		label := "already as recommended"
		if !apply {
			label = "already as before"
		}
		fmt.Fprintf(b, "\n%s: %s\n", label, strings.Join(res.Unchanged, ", "))
	}
	for _, s := range res.Skipped {
		if s.Value != "" {
			fmt.Fprintf(b, "left alone: %s = %s: %s\n", s.Name, s.Value, s.Reason)
		} else {
			fmt.Fprintf(b, "left alone: %s: %s\n", s.Name, s.Reason)
		}
	}
	b.WriteString("\n")
	if res.Reloaded {
		b.WriteString("Reloaded the configuration (pg_reload_conf).\n")
	}
	if res.Restarted {
		fmt.Fprintf(b, "Restarted %s for %s.\n", r.Server.Label, strings.Join(res.RestartedFor, ", "))
	}
	if len(res.PendingRestart) > 0 {
		fmt.Fprintf(b, "A restart is needed: %s wait for it (pending_restart). pglab does not restart a server it does not manage.\n", strings.Join(res.PendingRestart, ", "))
	}
	r.writeVerified(b)
	switch {
	case apply && len(res.Changes) > 0 && r.Server.Managed:
		fmt.Fprintf(b, "Recorded in %s; undo with: pglab tune --revert --target %s\n", res.Record, r.Server.Label)
	case apply && len(res.Changes) > 0:
		fmt.Fprintf(b, "Recorded in %s; undo with: pglab tune --revert --yes --target <the same DSN>\n", res.Record)
	case !apply:
		fmt.Fprintf(b, "Removed the record from %s.\n", res.Record)
	}
}

// changeTable is the table of the changes made.
func changeTable(changes []Change) [][]string {
	table := [][]string{{"parameter", "statement", "before", "after", "restart", "status"}}
	for _, c := range changes {
		stmt := "SET " + c.Value
		if c.Action == "reset" {
			stmt = "RESET"
		}
		status := c.Status
		if c.Detail != "" {
			status += ": " + c.Detail
		}
		table = append(table, []string{c.Name, stmt, c.Before, c.After, yesNo(c.Restart), status})
	}
	return table
}

// writeVerified says how many changed values took.
func (r Report) writeVerified(b *strings.Builder) {
	res := r.Result
	if len(res.Changes) == 0 {
		return
	}
	var ok, pending int
	for _, c := range res.Changes {
		switch c.Status {
		case StatusOK:
			ok++
		case StatusPending:
			pending++
		}
	}
	took := "have their new value"
	if r.Action == ActionRevert {
		took = "are back as they were"
	}
	fmt.Fprintf(b, "Verified: %d of %d changed parameters %s", ok, len(res.Changes), took)
	if pending > 0 {
		fmt.Fprintf(b, ", %d wait for a restart", pending)
	}
	if n := len(res.NotTaken()); n > 0 {
		fmt.Fprintf(b, ", %d did not take", n)
	}
	b.WriteString(".\n")
}

// NotTakenError returns the error of a result some of whose values did not
// take, naming them; nil when every value took.
func (r *Result) NotTakenError() error {
	bad := r.NotTaken()
	if len(bad) == 0 {
		return nil
	}
	var parts []string
	for _, c := range bad {
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Name, c.Detail))
	}
	return fmt.Errorf("%d parameters did not take: %s", len(bad), strings.Join(parts, "; "))
}
