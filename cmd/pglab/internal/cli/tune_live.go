package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pglab/pglab/pgserver"
	"github.com/pglab/pglab/results"
	"github.com/pglab/pglab/tune"
	"github.com/pglab/pglab/tune/apply"
)

// tuneTarget is the server of pglab tune --target and what it told.
type tuneTarget struct {
	srv   *apply.Server
	facts apply.Facts
}

// openTuneTarget resolves --target: the name of a running managed
// instance, NAME=DSN (a DSN labelled NAME), or a DSN.
func openTuneTarget(target string) (*apply.Server, error) {
	t, err := pgserver.OpenTarget(target)
	if err != nil {
		return nil, err
	}
	if t.Named() {
		srv, err := apply.Managed(t.Instance)
		if err != nil {
			return nil, badInput("--target %s: %v", t.Label, err)
		}
		return srv, nil
	}
	srv, err := apply.Remote(t.Label, t.DSN)
	if err != nil {
		return nil, badInput("--target %s: %s", results.RedactDSN(target), results.RedactText(err.Error()))
	}
	return srv, nil
}

// kind describes the server for headers: "managed instance" or not.
func (tt *tuneTarget) kind() string {
	switch {
	case tt.srv.Managed:
		return "managed instance"
	case tt.srv.Local:
		return "not managed by pglab, on this machine"
	}
	return "not managed by pglab"
}

// serverLine is the header line naming the server.
func (tt *tuneTarget) serverLine() string {
	return fmt.Sprintf("# Server: %s (PostgreSQL %s, %s)", tt.srv.Label, tt.facts.Version, tt.kind())
}

// tuneServerDoc is the server in JSON output.
type tuneServerDoc struct {
	Label      string `json:"label"`
	Version    string `json:"version,omitempty"`
	VersionNum int    `json:"version_num,omitempty"`
	Managed    bool   `json:"managed"`
	Local      bool   `json:"local"`
}

func (tt *tuneTarget) doc() tuneServerDoc {
	return tuneServerDoc{Label: tt.srv.Label, Version: tt.facts.Version, VersionNum: tt.facts.VersionNum, Managed: tt.srv.Managed, Local: tt.srv.Local}
}

// tuneLiveDoc is the JSON output of --diff, --apply and --revert.
type tuneLiveDoc struct {
	Server         tuneServerDoc   `json:"server"`
	Recommendation json.RawMessage `json:"recommendation,omitempty"`
	Parameters     []apply.Row     `json:"parameters,omitempty"`
	Result         *apply.Result   `json:"result,omitempty"`
}

func writeJSONDoc(w io.Writer, doc any) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// runTuneDiff prints the server's values next to the recommended ones.
func runTuneDiff(env *Env, tt *tuneTarget, rec tune.Recommendation, format tune.Format, detected []tune.Detection) error {
	rows, err := tt.srv.Compare(env.Ctx, rec.Parameters)
	if err != nil {
		return liveError(err)
	}
	if format == tune.FormatJSON {
		r, err := tune.JSON(rec, detected)
		if err != nil {
			return err
		}
		return writeJSONDoc(env.Stdout, tuneLiveDoc{Server: tt.doc(), Recommendation: r, Parameters: rows})
	}
	var b strings.Builder
	writeLiveHeader(&b, tt, rec, detected)
	writeTable(&b, diffTable(rows))
	b.WriteString("\n" + diffSummary(rows) + "\n")
	_, err = io.WriteString(env.Stdout, b.String())
	return err
}

func writeLiveHeader(b *strings.Builder, tt *tuneTarget, rec tune.Recommendation, detected []tune.Detection) {
	for _, l := range tune.HeaderLines(rec, tune.FormatConf, detected) {
		b.WriteString(l + "\n")
	}
	b.WriteString(tt.serverLine() + "\n\n")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// diffTable is the table of --diff: a header row, then one row per
// parameter.
func diffTable(rows []apply.Row) [][]string {
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
func diffSummary(rows []apply.Row) string {
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

// runTuneApply applies the recommendations and reports what happened.
func runTuneApply(env *Env, tt *tuneTarget, rec tune.Recommendation, format tune.Format, detected []tune.Detection) error {
	res, err := tt.srv.Apply(env.Ctx, rec.Parameters)
	if err != nil {
		return liveError(err)
	}
	if format == tune.FormatJSON {
		r, err := tune.JSON(rec, detected)
		if err != nil {
			return err
		}
		if err := writeJSONDoc(env.Stdout, tuneLiveDoc{Server: tt.doc(), Recommendation: r, Result: res}); err != nil {
			return err
		}
		return notTakenError(res)
	}
	var b strings.Builder
	writeLiveHeader(&b, tt, rec, detected)
	writeResult(&b, tt.srv, res, "apply")
	if _, err := io.WriteString(env.Stdout, b.String()); err != nil {
		return err
	}
	return notTakenError(res)
}

// runTuneRevert undoes what pglab applied and reports it.
func runTuneRevert(env *Env, srv *apply.Server, format tune.Format) error {
	res, err := srv.Revert(env.Ctx)
	if err != nil {
		return liveError(err)
	}
	if format == tune.FormatJSON {
		if err := writeJSONDoc(env.Stdout, tuneLiveDoc{Server: tuneServerDoc{Label: srv.Label, Managed: srv.Managed, Local: srv.Local}, Result: res}); err != nil {
			return err
		}
		return notTakenError(res)
	}
	var b strings.Builder
	writeResult(&b, srv, res, "revert")
	if _, err := io.WriteString(env.Stdout, b.String()); err != nil {
		return err
	}
	return notTakenError(res)
}

// writeResult writes what Apply or Revert did: a table of the changes,
// what was left alone, the reload and restart, the verification and where
// the record is.
func writeResult(b *strings.Builder, srv *apply.Server, res *apply.Result, what string) {
	if what == "apply" {
		fmt.Fprintf(b, "Applied to %s with ALTER SYSTEM:\n\n", srv.Label)
	} else {
		fmt.Fprintf(b, "Reverted on %s what pglab had applied:\n\n", srv.Label)
	}
	if len(res.Changes) == 0 {
		if what == "apply" {
			b.WriteString("nothing to change: every parameter already has its recommended value\n")
		} else {
			b.WriteString("nothing to change back\n")
		}
	} else {
		table := [][]string{{"parameter", "statement", "before", "after", "restart", "status"}}
		for _, c := range res.Changes {
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
		writeTable(b, table)
	}
	if len(res.Unchanged) > 0 {
		label := "already as recommended"
		if what == "revert" {
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
		fmt.Fprintf(b, "Restarted %s for %s.\n", srv.Label, strings.Join(res.RestartedFor, ", "))
	}
	if len(res.PendingRestart) > 0 {
		fmt.Fprintf(b, "A restart is needed: %s wait for it (pending_restart). pglab does not restart a server it does not manage.\n", strings.Join(res.PendingRestart, ", "))
	}
	var ok, pending int
	for _, c := range res.Changes {
		switch c.Status {
		case apply.StatusOK:
			ok++
		case apply.StatusPending:
			pending++
		}
	}
	if len(res.Changes) > 0 {
		took := "have their new value"
		if what == "revert" {
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
	switch {
	case what == "apply" && len(res.Changes) > 0 && srv.Managed:
		fmt.Fprintf(b, "Recorded in %s; undo with: pglab tune --revert --target %s\n", res.Record, srv.Label)
	case what == "apply" && len(res.Changes) > 0:
		fmt.Fprintf(b, "Recorded in %s; undo with: pglab tune --revert --yes --target <the same DSN>\n", res.Record)
	case what == "revert":
		fmt.Fprintf(b, "Removed the record from %s.\n", res.Record)
	}
}

// notTakenError is the error when a value did not take.
func notTakenError(res *apply.Result) error {
	bad := res.NotTaken()
	if len(bad) == 0 {
		return nil
	}
	var parts []string
	for _, c := range bad {
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Name, c.Detail))
	}
	return fmt.Errorf("%d parameters did not take: %s", len(bad), strings.Join(parts, "; "))
}

// liveError keeps errors of package apply on one line and without any
// password.
func liveError(err error) error {
	if errors.Is(err, apply.ErrAlterSystemDisabled) || errors.Is(err, apply.ErrPermission) || errors.Is(err, apply.ErrNothingToRevert) {
		return err
	}
	return errors.New(results.RedactText(err.Error()))
}
