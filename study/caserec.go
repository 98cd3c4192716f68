package study

import (
	"context"
	"fmt"
)

// CaseRecorder records measurements, notes and artefacts for one case in
// the session's current repetition: for a study whose one run of a
// planned case measures many cases at once (replay: one round of the
// workload gives figures per query fingerprint, each fingerprint a case of
// the report). Its cases need not be in the study's Plan: reports list
// them after the planned ones, in the order first measured.
type CaseRecorder struct {
	s *Session
	c Case
}

// In returns the recorder of case c. A Case with no labels stands for the
// study as a whole: its notes are shown under the study, not beside a
// figure.
func (s *Session) In(c Case) *CaseRecorder { return &CaseRecorder{s: s, c: c} }

// Record adds a measurement of the case (see Session.Record).
func (r *CaseRecorder) Record(metric string, value float64, unit string, opts ...MetricOption) {
	r.s.record(&r.c, metric, value, unit, opts...)
}

// Note records a remark about the case (see Session.Note).
func (r *CaseRecorder) Note(format string, args ...any) {
	r.s.addNoteIn(&r.c, Note{Text: fmt.Sprintf(format, args...)})
}

// NoteOn records a remark about one figure of the case: reports mark that
// figure's cell with it.
func (r *CaseRecorder) NoteOn(metric, format string, args ...any) {
	r.s.addNoteIn(&r.c, Note{Metric: metric, Text: fmt.Sprintf(format, args...)})
}

// Artefact stores a raw piece of output of the case (see
// Session.Artefact).
func (r *CaseRecorder) Artefact(ctx context.Context, name, contentType string, data []byte) error {
	return r.s.artefact(ctx, &r.c, name, contentType, data)
}
