package capture

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/workload"
)

// WriteText prints what a capture took and skipped, as pglab capture
// shows it: what was read, the counts, the time span, what was not taken,
// and the file written.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	version := ""
	if s.ServerVersion != "" {
		version = ", PostgreSQL " + s.ServerVersion
	}
	fmt.Fprintf(&b, "read %s (%s%s): %s log messages, %s\n", plural(int64(s.Files), "file"), s.Format, version, units.Count(s.Entries), units.Bytes(float64(s.Bytes)))
	fmt.Fprintf(&b, "  sessions      %s\n", units.Count(s.Sessions))
	fmt.Fprintf(&b, "  statements    %s (extended protocol %s, with parameters %s, failed %s)\n",
		units.Count(s.Statements), units.Count(s.Extended), units.Count(s.WithParams), units.Count(s.Errors))
	fmt.Fprintf(&b, "  fingerprints  %s\n", units.Count(s.Fingerprints))
	if s.Statements > 0 {
		fmt.Fprintf(&b, "  time span     %s → %s (%s)\n", s.First.UTC().Format("2006-01-02 15:04:05.000"),
			s.Last.UTC().Format("15:04:05.000 UTC"), s.Last.Sub(s.First).Round(time.Millisecond))
	}
	if s.Redacted > 0 {
		fmt.Fprintf(&b, "  passwords masked in %s\n", plural(s.Redacted, "statement"))
	}
	if q := s.QueryIDs(); q != "" {
		fmt.Fprintf(&b, "  query ids     %s\n", q)
	}
	writeSkipped(&b, s.Skipped)
	if len(s.UnknownZones) > 0 {
		fmt.Fprintf(&b, "note: time zone %s taken as UTC (offsets are right unless the zone changes within the log)\n", strings.Join(s.UnknownZones, ", "))
	}
	fmt.Fprintf(&b, "wrote %s (%s)\n", s.Out, units.Bytes(float64(s.OutBytes)))
	_, err := io.WriteString(w, b.String())
	return err
}

// Inspection is what a workload file holds, read through to its end
// record: its header, its end record's counts, and how many of its
// statements carry bind parameters.
type Inspection struct {
	Path   string
	Header workload.Header
	End    workload.End
	// Params counts the statements with bind parameters.
	Params int64
}

// Inspect reads the workload file at path through and returns what it
// holds. A file that is not a readable workload is an error naming it.
func Inspect(path string) (*Inspection, error) {
	r, err := workload.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	in := &Inspection{Path: path, Header: r.Header()}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if st, ok := rec.(*workload.Statement); ok && st.Params != nil {
			in.Params++
		}
	}
	in.End, _ = r.End()
	return in, nil
}

// WriteText prints the summary of a workload file, as pglab capture
// --inspect shows it.
func (in *Inspection) WriteText(w io.Writer) error {
	h, end := in.Header, in.End
	var b strings.Builder
	fmt.Fprintf(&b, "%s: pglab workload version %d, from %s (%s", in.Path, h.Version, plural(int64(len(h.Source.Files)), "file"), h.Source.Format)
	if h.Source.ServerVersion != "" {
		fmt.Fprintf(&b, ", PostgreSQL %s", h.Source.ServerVersion)
	}
	createdBy := h.CreatedBy
	if createdBy == "" {
		createdBy = "-"
	}
	fmt.Fprintf(&b, "), written by %s at %s\n", createdBy, h.Created.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "  sessions      %s\n  statements    %s (with parameters %s)\n  fingerprints  %s\n",
		units.Count(end.Sessions), units.Count(end.Statements), units.Count(in.Params), units.Count(end.Fingerprints))
	if end.Statements > 0 {
		first := h.Origin.Add(time.Duration(end.FirstUS) * time.Microsecond)
		span := time.Duration(end.LastUS-end.FirstUS) * time.Microsecond
		fmt.Fprintf(&b, "  time span     from %s (%s)\n", first.UTC().Format("2006-01-02 15:04:05.000 UTC"), span.Round(time.Millisecond))
	}
	if h.Database != "" {
		fmt.Fprintf(&b, "  database      %s\n", h.Database)
	}
	if h.Source.SystemIdentifier != "" {
		fmt.Fprintf(&b, "  system identifier %s\n", h.Source.SystemIdentifier)
	}
	writeSkipped(&b, end.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSkipped lists what was not taken, by reason, or says nothing was.
func writeSkipped(b *strings.Builder, skipped []workload.Skip) {
	if len(skipped) == 0 {
		b.WriteString("  not taken     nothing\n")
		return
	}
	b.WriteString("  not taken:\n")
	for _, sk := range skipped {
		fmt.Fprintf(b, "    %10s  %s\n", units.Count(sk.Count), sk.Reason)
	}
}

// plural is "1 word" or "n words" (n with thousands separators).
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return units.Count(n) + " " + word + "s"
}
