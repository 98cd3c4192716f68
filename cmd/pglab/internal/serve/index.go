package serve

import (
	"context"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pglab/pglab/internal/units"
	"github.com/pglab/pglab/results"
)

// PageSize is how many runs the runs page lists at once by default; ?n=
// asks for another number, n=0 for all.
const PageSize = 1000

// indexFilter is what the runs page's query string selects.
type indexFilter struct {
	Study, Version, Status, Kind, Text string
	// N is the page size (0: all), Page the page number from 1.
	N, Page int
}

// parseIndexFilter reads the filters of the runs page.
func parseIndexFilter(q url.Values) indexFilter {
	f := indexFilter{
		Study:   strings.TrimSpace(q.Get("study")),
		Version: strings.TrimSpace(q.Get("version")),
		Status:  strings.TrimSpace(q.Get("status")),
		Kind:    strings.TrimSpace(q.Get("kind")),
		Text:    strings.TrimSpace(q.Get("q")),
		N:       PageSize,
		Page:    1,
	}
	if n, err := strconv.Atoi(q.Get("n")); err == nil && n >= 0 {
		f.N = n
	}
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 1 {
		f.Page = p
	}
	return f
}

// query is the filter as a query string, with page p.
func (f indexFilter) query(p int) string {
	q := url.Values{}
	for k, v := range map[string]string{"study": f.Study, "version": f.Version, "status": f.Status, "kind": f.Kind, "q": f.Text} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.N != PageSize {
		q.Set("n", strconv.Itoa(f.N))
	}
	if p > 1 {
		q.Set("page", strconv.Itoa(p))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// match reports whether a run passes the filters the store did not apply
// (study, version, text).
func (f indexFilter) match(r *results.RunSummary) bool {
	if f.Study != "" && slices.Index(r.Studies, f.Study) < 0 {
		return false
	}
	if f.Version != "" {
		ok := false
		for _, t := range r.Targets {
			if versionMatches(t.ServerVersion, f.Version) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if f.Text != "" && !strings.Contains(strings.ToLower(searchText(r)), strings.ToLower(f.Text)) {
		return false
	}
	return true
}

// versionMatches reports whether a server version ("17.2") is the version
// asked for: "17" (its major version) or "17.2" (exactly).
func versionMatches(have, want string) bool {
	return have == want || strings.HasPrefix(have, want+".") || majorVersion(have) == want
}

// majorVersion is the major version of a server version: "17" of "17.2",
// "9.6" of "9.6.24", "18" of "18beta1".
func majorVersion(v string) string {
	if strings.HasPrefix(v, "9.") || strings.HasPrefix(v, "8.") {
		parts := strings.SplitN(v, ".", 3)
		if len(parts) >= 2 {
			return parts[0] + "." + parts[1]
		}
	}
	end := 0
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	return v[:end]
}

// searchText is what the text filter searches: ID, kind, command, host,
// targets, studies and error.
func searchText(r *results.RunSummary) string {
	var b strings.Builder
	for _, s := range []string{r.ID, string(r.Kind), string(r.Status), strings.Join(r.Command, " "), r.Host.Hostname, r.Error} {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for _, t := range r.Targets {
		b.WriteString(t.Name + " " + t.ServerVersion + "\n")
	}
	b.WriteString(strings.Join(r.Studies, " "))
	return b.String()
}

// indexRow is one run of the runs page.
type indexRow struct {
	ID, Kind, Status, Started, StartedISO, Duration, Host string
	// DurationS sorts the duration column (seconds; running runs last).
	DurationS int64
	Targets   []string
	Studies   []string
}

// indexView is the runs page.
type indexView struct {
	F                        indexFilter
	Rows                     []indexRow
	Total, Matched, From, To int
	Prev, Next               string
	// The filters' choices, from the runs in the store.
	Studies, Versions, Statuses, Kinds []string
	Filtered                           bool
	// Table is the rows as HTML (made by rowsHTML: html/template takes
	// ten times longer over ten thousand rows).
	Table template.HTML
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	f := parseIndexFilter(r.URL.Query())
	all, err := h.summaries(r.Context())
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	v := indexView{F: f, Total: len(all)}
	v.Filtered = f.Study != "" || f.Version != "" || f.Status != "" || f.Kind != "" || f.Text != ""
	studies, versions, statuses, kinds := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	var matched []*results.RunSummary
	for i := range all {
		run := &all[i]
		for _, s := range run.Studies {
			studies[s] = true
		}
		for _, t := range run.Targets {
			if m := majorVersion(t.ServerVersion); m != "" {
				versions[m] = true
			}
		}
		statuses[string(run.Status)] = true
		kinds[string(run.Kind)] = true
		if (f.Status == "" || string(run.Status) == f.Status) && (f.Kind == "" || string(run.Kind) == f.Kind) && f.match(run) {
			matched = append(matched, run)
		}
	}
	v.Studies, v.Statuses, v.Kinds = sortedSet(studies), sortedSet(statuses), sortedSet(kinds)
	v.Versions = sortedSet(versions)
	sort.SliceStable(v.Versions, func(i, j int) bool { return versionLess(v.Versions[i], v.Versions[j]) })
	v.Matched = len(matched)
	from, to := 0, len(matched)
	if f.N > 0 {
		from = min((f.Page-1)*f.N, len(matched))
		to = min(from+f.N, len(matched))
		if f.Page > 1 {
			v.Prev = f.query(f.Page - 1)
		}
		if to < len(matched) {
			v.Next = f.query(f.Page + 1)
		}
	}
	v.From, v.To = from+1, to
	now := h.opts.Now()
	v.Rows = make([]indexRow, 0, to-from)
	for _, run := range matched[from:to] {
		v.Rows = append(v.Rows, newIndexRow(run, now))
	}
	v.Table = rowsHTML(v.Rows)
	h.render(w, r, "index.html", "pglab runs", v, 0)
}

// summaryCache keeps the list of runs while the store's RunsStamp stays
// the same: reading the stamp costs a few milliseconds, reading ten
// thousand runs much more.
type summaryCache struct {
	mu    sync.Mutex
	stamp results.RunsStamp
	runs  []results.RunSummary
	ok    bool
}

// summaries returns every run of the store, newest first. The slice is
// shared: callers must not change it.
func (h *Handler) summaries(ctx context.Context) ([]results.RunSummary, error) {
	stamp, err := h.opts.Store.RunsStamp(ctx)
	if err != nil {
		return nil, err
	}
	c := &h.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.stamp == stamp {
		return c.runs, nil
	}
	runs, err := h.opts.Store.RunSummaries(ctx, results.RunFilter{})
	if err != nil {
		return nil, err
	}
	c.stamp, c.runs, c.ok = stamp, runs, true
	return runs, nil
}

// rowsHTML writes the runs table's rows, every value escaped.
func rowsHTML(rows []indexRow) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 600)
	e := html.EscapeString
	for _, r := range rows {
		id := e(r.ID)
		b.WriteString(`<tr data-run="` + id + `">` + "\n")
		b.WriteString(`<td><input type="checkbox" name="run" value="` + id + `" aria-label="pick run ` + id + `"></td>` + "\n")
		b.WriteString(`<td class="label"><a href="/runs/` + url.PathEscape(r.ID) + `">` + id + `</a></td>` + "\n")
		b.WriteString(`<td>` + e(r.Kind) + `</td>` + "\n")
		b.WriteString(`<td class="status-` + e(r.Status) + `">` + e(r.Status) + `</td>` + "\n")
		b.WriteString(`<td class="label" data-sort="` + e(r.StartedISO) + `"><time datetime="` + e(r.StartedISO) + `">` + e(r.Started) + `</time></td>` + "\n")
		b.WriteString(`<td class="num" data-sort="` + strconv.FormatInt(r.DurationS, 10) + `">` + e(r.Duration) + `</td>` + "\n")
		b.WriteString(`<td>` + e(strings.Join(r.Targets, ", ")) + `</td>` + "\n")
		b.WriteString(`<td>` + e(strings.Join(r.Studies, ", ")) + `</td>` + "\n")
		b.WriteString(`<td>` + e(r.Host) + `</td>` + "\n</tr>\n")
	}
	// Every value above is escaped.
	return template.HTML(b.String())
}

// newIndexRow formats one run for the runs page.
func newIndexRow(r *results.RunSummary, now time.Time) indexRow {
	row := indexRow{ID: r.ID, Kind: string(r.Kind), Status: string(r.Status), Host: r.Host.Hostname, Studies: r.Studies}
	if !r.StartedAt.IsZero() {
		row.Started = r.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
		row.StartedISO = r.StartedAt.UTC().Format(time.RFC3339)
	}
	row.Duration, row.DurationS = runDuration(r.RunRecord, now)
	for _, t := range r.Targets {
		s := t.Name
		if t.ServerVersion != "" {
			s += " (" + t.ServerVersion + ")"
		}
		row.Targets = append(row.Targets, s)
	}
	return row
}

// runDuration formats how long a run took, or has been running, and
// gives a sort key in seconds.
func runDuration(r results.RunRecord, now time.Time) (string, int64) {
	switch {
	case !r.FinishedAt.IsZero():
		d := r.FinishedAt.Sub(r.StartedAt)
		return formatDuration(d), int64(d.Seconds())
	case r.Status == results.StatusRunning:
		return "running for " + formatDuration(now.Sub(r.StartedAt)), 1 << 40
	}
	return "–", -1
}

// formatDuration prints a duration like the report does: "42 s",
// "3 min 5 s", "1 h 20 min" (units.Elapsed).
func formatDuration(d time.Duration) string { return units.Elapsed(d) }

// versionLess orders major versions numerically ("9.6" < "13" < "17").
func versionLess(a, b string) bool {
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	if ea == nil && eb == nil {
		return fa < fb
	}
	return a < b
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
