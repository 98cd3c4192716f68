package serve

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
)

// runData is what the run page reads of a run.
type runData struct {
	rec       results.RunRecord
	d         *runs.Dataset
	targets   []results.Target
	ms        []results.Measurement
	artefacts []results.Artefact
	// caseNames maps study and case key to the study's name for the case.
	caseNames map[string]string
}

// loadRun reads a run and its report's dataset.
func (h *Handler) loadRun(ctx context.Context, ref string) (*runData, error) {
	st := h.opts.Store
	rec, err := st.Run(ctx, ref)
	if err != nil {
		return nil, err
	}
	rd := &runData{rec: rec, caseNames: map[string]string{}}
	if rd.d, err = runs.Load(ctx, st, rec.ID); err != nil {
		return nil, err
	}
	if rd.targets, err = st.Targets(ctx, rec.ID); err != nil {
		return nil, err
	}
	if rd.ms, err = st.Measurements(ctx, rec.ID, results.MeasurementFilter{}); err != nil {
		return nil, err
	}
	if rd.artefacts, err = st.Artefacts(ctx, rec.ID, results.ArtefactFilter{}); err != nil {
		return nil, err
	}
	for _, s := range rd.d.Studies {
		for _, c := range s.Cases {
			rd.caseNames[s.Name+"\x00"+results.CaseKey(c.Labels)] = c.Name
		}
	}
	return rd, nil
}

// caseName names a case of a study.
func (rd *runData) caseName(study string, labels map[string]string) string {
	if n := rd.caseNames[study+"\x00"+results.CaseKey(labels)]; n != "" {
		return n
	}
	return runs.CaseTitle(labels)
}

// runPage is the run page.
type runPage struct {
	ID, Kind, Status, Error string
	Running                 bool
	RefreshS                int
	Report                  template.HTML
	Downloads               []link
	CompareWith             []link
	Progress                []studyProgress
	Reps                    []repStudy
	Texts                   []textBlock
	Targets                 []targetBlock
	Charts                  []chartBlock
	Latency                 []latencyBlock
	Files                   []fileRow
}

type link struct {
	Text, Href string
}

// studyProgress says how far a running run's study got.
type studyProgress struct {
	Study         string
	Done, Planned int
	Pct           int
}

func (h *Handler) run(w http.ResponseWriter, r *http.Request) {
	rd, err := h.loadRun(r.Context(), r.PathValue("id"))
	if err != nil {
		h.lookupError(w, r, err)
		return
	}
	var frag bytes.Buffer
	if err := report.WriteHTMLFragment(&frag, rd.d); err != nil {
		h.fail(w, r, http.StatusInternalServerError, fmt.Sprintf("render the report of run %s: %v", rd.rec.ID, err))
		return
	}
	p := runPage{
		ID: rd.rec.ID, Kind: string(rd.rec.Kind), Status: string(rd.rec.Status), Error: rd.rec.Error,
		Running: rd.rec.Status == results.StatusRunning,
		// The fragment is the report package's html/template output.
		Report: template.HTML(frag.String()),
	}
	for _, f := range []report.Format{report.Markdown, report.HTML, report.JSON, report.CSV} {
		p.Downloads = append(p.Downloads, link{Text: string(f), Href: "/runs/" + rd.rec.ID + "/report" + f.Ext()})
	}
	p.CompareWith = h.compareSuggestions(r.Context(), rd.rec)
	refresh := 0
	if p.Running {
		p.Progress = rd.progress()
		refresh = int(h.opts.Refresh.Seconds())
		p.RefreshS = refresh
	}
	p.Reps = rd.repetitions()
	p.Texts = rd.texts()
	p.Targets = rd.targetBlocks()
	p.Charts = rd.progressCharts()
	p.Latency = rd.latency()
	p.Files = rd.files()
	h.render(w, r, "run.html", "pglab run "+rd.rec.ID, p, refresh)
}

// progress counts, per study of a running run, the case repetitions
// measured on each target against those planned (cases × repetitions ×
// targets, from the study's description).
func (rd *runData) progress() []studyProgress {
	done := map[string]map[string]bool{}
	for _, m := range rd.ms {
		if done[m.Study] == nil {
			done[m.Study] = map[string]bool{}
		}
		done[m.Study][fmt.Sprintf("%s\x00%s\x00%d", m.Target, m.CaseKey, m.Rep)] = true
	}
	var out []studyProgress
	for _, s := range rd.d.Studies {
		targets := len(rd.targets)
		if targets == 0 {
			targets = 1
		}
		sp := studyProgress{Study: s.Name, Done: len(done[s.Name]), Planned: len(s.Cases) * max(s.Reps, 1) * targets}
		if sp.Planned > 0 {
			sp.Pct = min(100, 100*sp.Done/sp.Planned)
		}
		out = append(out, sp)
	}
	return out
}

// compareSuggestions links the run to a comparison with the previous
// finished run of the same studies (as conbench links candidate baselines
// from a run's page).
func (h *Handler) compareSuggestions(ctx context.Context, rec results.RunRecord) []link {
	runs, err := h.summaries(ctx)
	if err != nil {
		return nil
	}
	var self []string
	for _, o := range runs {
		if o.ID == rec.ID {
			self = o.Studies
		}
	}
	if len(self) == 0 {
		return nil
	}
	for _, o := range runs {
		if o.ID != rec.ID && o.Status == results.StatusDone && !o.StartedAt.After(rec.StartedAt) && slices.Equal(o.Studies, self) {
			return []link{{Text: "the previous run of " + strings.Join(self, ", ") + ": " + o.ID, Href: "/compare?runs=" + o.ID + "," + rec.ID}}
		}
	}
	return nil
}

// repStudy is one study's table of every repetition's value.
type repStudy struct {
	Study string
	Reps  []int
	Rows  []repRow
}

type repRow struct {
	Case, Metric, Target, Unit string
	Values                     []repValue
}

type repValue struct {
	Text, Raw string
}

// repetitions lays out every measured value: a row per case, metric and
// target, a column per repetition.
func (rd *runData) repetitions() []repStudy {
	var out []repStudy
	byStudy := map[string]int{}
	type key struct{ caseKey, metric, target string }
	rowsOf := map[string]map[key]int{}
	for _, m := range rd.ms {
		si, ok := byStudy[m.Study]
		if !ok {
			si = len(out)
			byStudy[m.Study] = si
			out = append(out, repStudy{Study: m.Study})
			rowsOf[m.Study] = map[key]int{}
		}
		rs := &out[si]
		k := key{m.CaseKey, m.Metric, m.Target}
		ri, ok := rowsOf[m.Study][k]
		if !ok {
			ri = len(rs.Rows)
			rowsOf[m.Study][k] = ri
			rs.Rows = append(rs.Rows, repRow{Case: rd.caseName(m.Study, m.Case), Metric: m.Metric, Target: m.Target, Unit: m.Unit})
		}
		row := &rs.Rows[ri]
		for len(row.Values) < m.Rep {
			row.Values = append(row.Values, repValue{Text: "–"})
		}
		if m.Rep >= 1 {
			row.Values[m.Rep-1] = repValue{Text: formatValue(m.Value, m.Unit, m.Exact), Raw: strconv.FormatFloat(m.Value, 'g', -1, 64)}
		}
		if m.Rep > len(rs.Reps) {
			for r := len(rs.Reps) + 1; r <= m.Rep; r++ {
				rs.Reps = append(rs.Reps, r)
			}
		}
	}
	for i := range out {
		for j := range out[i].Rows {
			for len(out[i].Rows[j].Values) < len(out[i].Reps) {
				out[i].Rows[j].Values = append(out[i].Rows[j].Values, repValue{Text: "–"})
			}
		}
	}
	return out
}

// textBlock is one text the run kept: server output (VACUUM VERBOSE,
// COPY transcripts, pgbench's summary), notes and outcomes.
type textBlock struct {
	Title, Name, Text, Href string
	Open                    bool
}

func (rd *runData) texts() []textBlock {
	var out []textBlock
	for _, a := range rd.artefacts {
		if !strings.HasPrefix(a.ContentType, "text/") {
			continue
		}
		out = append(out, textBlock{
			Title: rd.place(a), Name: a.Name, Text: string(a.Data),
			Href: fmt.Sprintf("/runs/%s/artefacts/%d", rd.rec.ID, a.ID),
			Open: bytes.Count(a.Data, []byte("\n")) <= 60,
		})
	}
	return out
}

// place says where an artefact belongs: study, case, target, repetition.
func (rd *runData) place(a results.Artefact) string {
	var parts []string
	if a.Study != "" {
		parts = append(parts, a.Study)
	}
	if len(a.Case) > 0 {
		parts = append(parts, rd.caseName(a.Study, a.Case))
	}
	if a.Target != "" {
		parts = append(parts, a.Target)
	}
	if a.Rep > 0 {
		parts = append(parts, "repetition "+strconv.Itoa(a.Rep))
	}
	if len(parts) == 0 {
		return "the whole run"
	}
	return strings.Join(parts, " · ")
}

// fileRow links one artefact's raw content.
type fileRow struct {
	Name, Place, Type, Size, Href string
}

func (rd *runData) files() []fileRow {
	var out []fileRow
	for _, a := range rd.artefacts {
		out = append(out, fileRow{Name: a.Name, Place: rd.place(a), Type: a.ContentType, Size: formatValue(float64(a.Size), "bytes", false),
			Href: fmt.Sprintf("/runs/%s/artefacts/%d", rd.rec.ID, a.ID)})
	}
	return out
}

// download serves the run's report in a format, as pglab report writes it.
func (h *Handler) download(w http.ResponseWriter, r *http.Request) {
	ext, ok := strings.CutPrefix(r.PathValue("file"), "report.")
	f, err := report.ParseFormat(ext)
	if !ok || err != nil || f == report.PlainText || "report"+f.Ext() != r.PathValue("file") {
		h.fail(w, r, http.StatusNotFound, "no page at "+r.URL.Path+": the report is at report.md, report.html, report.json and report.csv")
		return
	}
	rec, err := h.opts.Store.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		h.lookupError(w, r, err)
		return
	}
	d, err := runs.Load(r.Context(), h.opts.Store, rec.ID)
	if err != nil {
		h.lookupError(w, r, err)
		return
	}
	var b bytes.Buffer
	if err := report.Write(&b, d, f); err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	types := map[report.Format]string{
		report.Markdown: "text/markdown; charset=utf-8", report.HTML: "text/html; charset=utf-8",
		report.JSON: "application/json", report.CSV: "text/csv; charset=utf-8",
	}
	hd := w.Header()
	hd.Set("Content-Type", types[f])
	hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="pglab-%s%s"`, rec.ID, f.Ext()))
	// The HTML report is one self-contained page with its style inline.
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	w.Write(b.Bytes())
}

// artefact serves one artefact's raw content: texts as plain text, JSON
// as JSON, anything else as a download.
func (h *Handler) artefact(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("aid"), 10, 64)
	if err != nil || id <= 0 {
		h.fail(w, r, http.StatusNotFound, "no artefact "+r.PathValue("aid"))
		return
	}
	rec, err := h.opts.Store.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		h.lookupError(w, r, err)
		return
	}
	as, err := h.opts.Store.Artefacts(r.Context(), rec.ID, results.ArtefactFilter{ID: id})
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	if len(as) == 0 {
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("run %s has no artefact %d", rec.ID, id))
		return
	}
	a := as[0]
	hd := w.Header()
	switch {
	case strings.HasPrefix(a.ContentType, "text/"):
		hd.Set("Content-Type", "text/plain; charset=utf-8")
	case a.ContentType == "application/json":
		hd.Set("Content-Type", "application/json")
	default:
		hd.Set("Content-Type", "application/octet-stream")
		hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%d-%s"`, rec.ID, a.ID, safeName(a.Name)))
	}
	w.Write(a.Data)
}

// safeName keeps letters, digits, '-', '_' and '.' of a file name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
