package observe

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// checkVacuumCase checks what the parser read from a case's text against
// what the case did and what the version prints.
func checkVacuumCase(t *testing.T, major int, c vacuumCase, text string) {
	t.Helper()
	reports, err := ParseVacuumVerbose(text)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	want := 2
	if c.noToast {
		want = 1
	}
	if len(reports) != want {
		t.Fatalf("%d reports, want %d (the table's, then its TOAST table's):\n%s", len(reports), want, text)
	}
	tab, toast := reports[0], reports[len(reports)-1]
	if c.noToast {
		toast = VacuumReport{Relation: "db.pg_toast.pg_toast_0", Toast: true, Metrics: []Metric{{Name: "tuples_removed"}, {Name: "pages_remain"}}}
	}
	if tab.Toast || !strings.HasSuffix(tab.Relation, "public.t") {
		t.Errorf("first report %q (toast %v), want the table", tab.Relation, tab.Toast)
	}
	if !toast.Toast || !strings.Contains(toast.Relation, "pg_toast.pg_toast_") {
		t.Errorf("second report %q (toast %v), want its TOAST table", toast.Relation, toast.Toast)
	}
	if major >= 15 && strings.Count(tab.Relation, ".") != 2 || major < 15 && strings.Count(tab.Relation, ".") != 1 {
		t.Errorf("relation %q: want db.schema.table on 15+, schema.table before", tab.Relation)
	}
	get := func(r VacuumReport, name string) float64 {
		t.Helper()
		v, ok := r.Value(name)
		if !ok {
			t.Errorf("%s: %s absent", r.Relation, name)
		}
		return v
	}
	has := func(r VacuumReport, name string, want bool) {
		t.Helper()
		if _, ok := r.Value(name); ok != want {
			t.Errorf("PostgreSQL %d, %s: %s present %v, want %v", major, r.Relation, name, ok, want)
		}
	}

	// Tuples: every deleted or updated row is removed, except those on
	// pages VACUUM could not lock (15+ says so; 13/14 skip the page).
	removed, remain := get(tab, "tuples_removed"), get(tab, "tuples_remain")
	pinned := 0.0
	if c.pinnedDead > 0 {
		if major >= 15 {
			missed := get(tab, "tuples_missed_dead")
			pages := get(tab, "pages_missed_dead")
			if pages < 1 || missed != pages*float64(c.pinnedDead) {
				t.Errorf("missed %v dead on %v pages, want %d per page", missed, pages, c.pinnedDead)
			}
			if removed+missed != float64(c.deleted) || remain != float64(c.remain)+missed {
				t.Errorf("removed %v + missed %v, remain %v; deleted %d, kept %d", removed, missed, remain, c.deleted, c.remain)
			}
		} else {
			pages := get(tab, "pages_skipped_pins")
			pinned = pages * float64(c.pinnedDead)
			if pages < 1 || removed+pinned != float64(c.deleted) || remain+pinned != float64(c.remain) {
				t.Errorf("removed %v, remain %v, skipped %v pinned pages; deleted %d, kept %d", removed, remain, pages, c.deleted, c.remain)
			}
		}
	} else {
		if removed != float64(c.deleted) || remain != float64(c.remain) {
			t.Errorf("tuples removed %v remain %v, want %d %d", removed, remain, c.deleted, c.remain)
		}
		has(tab, "tuples_missed_dead", false)
	}
	if v := get(tab, "tuples_dead_not_removable"); v != 0 {
		t.Errorf("dead not removable %v", v)
	}

	// Indexes and index scans.
	var names []string
	for _, x := range tab.Indexes {
		names = append(names, x.Name)
		if v, ok := x.Value("pages"); !ok || v < 1 {
			t.Errorf("index %s: pages %v (present %v)", x.Name, v, ok)
		}
	}
	scans := get(tab, "index_scans")
	switch {
	case c.bypass && major >= 14:
		// 14+ may skip index vacuuming when few pages have dead items.
		if scans != 0 {
			t.Errorf("index scans %v, want 0 (bypassed)", scans)
		}
	case !c.bypass && !slices.Equal(names, c.indexes):
		t.Errorf("indexes %q, want %q", names, c.indexes)
	case len(c.indexes) == 0:
		if scans != 0 {
			t.Errorf("index scans %v without indexes", scans)
		}
	case major <= c.multiPassUpTo:
		if scans < 2 {
			t.Errorf("index scans %v, want several (maintenance_work_mem 1MB)", scans)
		}
	default:
		if scans != 1 {
			t.Errorf("index scans %v, want 1", scans)
		}
	}
	if len(c.indexes) > 0 && !c.bypass {
		if v := get(tab, "dead_item_ids"); v != float64(c.deleted) {
			t.Errorf("dead item identifiers %v, want %d", v, c.deleted)
		}
		for _, x := range tab.Indexes {
			if major < 15 {
				if v, _ := x.Value("index_tuples_removed"); v != float64(c.deleted) {
					t.Errorf("index %s: %v index tuples removed, want %d", x.Name, v, c.deleted)
				}
			}
		}
	}

	// Pages.
	scanned := get(tab, "pages_scanned")
	pagesRemoved, pagesRemain := get(tab, "pages_removed"), get(tab, "pages_remain")
	if scanned < 1 || pagesRemain < 1 {
		t.Errorf("pages scanned %v, remain %v", scanned, pagesRemain)
	}
	if c.truncates != (pagesRemoved > 0) {
		t.Errorf("pages removed %v, truncation expected %v", pagesRemoved, c.truncates)
	}
	if c.truncates && pagesRemain+pagesRemoved != scanned {
		t.Errorf("pages removed %v + remain %v != scanned %v", pagesRemoved, pagesRemain, scanned)
	}

	// TOAST: a block of its own, with its own figures.
	if v := get(toast, "tuples_removed"); v != float64(c.toastDeleted) {
		t.Errorf("TOAST tuples removed %v, want %d", v, c.toastDeleted)
	}
	if c.toastDeleted > 0 && get(toast, "pages_remain") != 0 {
		t.Errorf("TOAST table not truncated to 0 pages")
	}

	// What each version prints.
	for _, r := range reports {
		has(r, "cpu_user_s", true)
		has(r, "cpu_sys_s", true)
		has(r, "elapsed_s", true)
		for _, name := range []string{"wal_records", "wal_fpi", "wal_bytes", "buffer_hits", "buffer_misses", "buffer_dirtied", "read_mb_s", "write_mb_s"} {
			has(r, name, major >= 15)
		}
		has(r, "wal_buffers_full", major >= 18)
		has(r, "pages_eagerly_scanned", major >= 18)
		has(r, "vm_all_visible", major >= 18)
		has(r, "pages_frozen", major >= 16)
		has(r, "pages_total", major < 15)
		has(r, "io_read_ms", c.timing && major >= 15)
		has(r, "delay_ms", c.timing && major >= 18)
		if major >= 15 {
			if get(r, "wal_records") < 1 || get(r, "wal_bytes") < get(r, "wal_records") || get(r, "buffer_hits") < 1 {
				t.Errorf("%s: WAL %v records %v bytes, %v hits", r.Relation, get(r, "wal_records"), get(r, "wal_bytes"), get(r, "buffer_hits"))
			}
		}
		for _, m := range r.Metrics {
			if m.Unit == "" || m.Value < 0 || math.IsNaN(m.Value) {
				t.Errorf("%s: metric %+v", r.Relation, m)
			}
		}
	}
	if got := tab.Text + toast.Text; !strings.Contains(text, strings.TrimSpace(tab.Text)) || len(got) == 0 {
		t.Errorf("report text not from the input")
	}
}

// TestParseVacuumVerboseFiles parses the texts stored from real servers
// (13–18) by TestVacuumVerboseLive -update.
func TestParseVacuumVerboseFiles(t *testing.T) {
	found := 0
	for major := 13; major <= 18; major++ {
		for _, c := range vacuumCases {
			data, err := os.ReadFile(vacuumFile(major, c))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			found++
			t.Run(vacuumFile(major, c), func(t *testing.T) { checkVacuumCase(t, major, c, string(data)) })
		}
	}
	if found < 3*len(vacuumCases) {
		t.Errorf("%d stored VACUUM VERBOSE texts, want every case on 16, 17 and 18 at least", found)
	}
}

func TestParseVacuumVerboseShapes(t *testing.T) {
	// psql's script prefix, CRLF, singular wording, a 13 block.
	text := "psql:v.sql:3: INFO:  vacuuming \"public.t\"\r\n" +
		"psql:v.sql:3: INFO:  \"t\": found 1 removable, 1 nonremovable row version in 1 out of 1 page\r\n" +
		"DETAIL:  1 dead row version cannot be removed yet, oldest xmin: 7\r\n" +
		"There was 1 unused item identifier.\r\n" +
		"Skipped 1 page due to buffer pins, 1 frozen page.\r\n" +
		"1 page is entirely empty.\r\n" +
		"CPU: user: 1.25 s, system: 0.50 s, elapsed: 2.00 s.\r\n"
	rs, err := ParseVacuumVerbose(text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"tuples_removed": 1, "tuples_remain": 1, "pages_scanned": 1, "pages_total": 1,
		"tuples_dead_not_removable": 1, "unused_item_ids": 1, "pages_skipped_pins": 1,
		"pages_skipped_frozen": 1, "pages_empty": 1, "cpu_user_s": 1.25, "cpu_sys_s": 0.5,
		"elapsed_s": 2, "index_scans": 0, "pages_removed": 0, "pages_remain": 1,
	}
	if len(rs) != 1 || rs[0].Relation != "public.t" {
		t.Fatalf("reports %+v", rs)
	}
	if got := metricsOf(rs[0].Metrics); !mapsEqual(got, want) {
		t.Errorf("metrics\n got %v\nwant %v", got, want)
	}

	// A 15+ block without its "vacuuming" line, then ANALYZE's lines,
	// which must not leak into it.
	text = `INFO:  finished vacuuming "d.s.t": index scans: 2
buffer usage: 10 hits, 3 misses, 1 dirtied
WAL usage: 5 records, 1 full page images, 900 bytes
INFO:  analyzing "s.t"
INFO:  finished analyzing table "d.s.t"
buffer usage: 99 hits, 99 reads, 99 dirtied
WAL usage: 99 records, 99 full page images, 99 bytes, 99 buffers full
`
	rs, err = ParseVacuumVerbose(text)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]float64{"index_scans": 2, "buffer_hits": 10, "buffer_misses": 3, "buffer_dirtied": 1,
		"wal_records": 5, "wal_fpi": 1, "wal_bytes": 900}
	if len(rs) != 1 || rs[0].Relation != "d.s.t" || rs[0].Toast {
		t.Fatalf("reports %+v", rs)
	}
	if got := metricsOf(rs[0].Metrics); !mapsEqual(got, want) {
		t.Errorf("metrics\n got %v\nwant %v", got, want)
	}

	// Index scan bypassed by the failsafe (15+ wording).
	rs, err = ParseVacuumVerbose("INFO:  vacuuming \"d.s.t\"\nindex scan bypassed by failsafe: 7 pages from table (0.50% of total) have 12 dead item identifiers\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := metricsOf(rs[0].Metrics); got["dead_item_pages"] != 7 || got["dead_item_ids"] != 12 {
		t.Errorf("bypass line: %v", got)
	}
}

func TestParseVacuumVerboseErrors(t *testing.T) {
	for _, text := range []string{"", "VACUUM\n", "INFO:  analyzing \"public.t\"\nINFO:  \"t\": scanned 1 of 1 pages\n", "WAL usage: 1 records, 0 full page images, 8 bytes\n"} {
		if rs, err := ParseVacuumVerbose(text); !errors.Is(err, ErrNoVacuumReport) {
			t.Errorf("%q: %v, %v; want ErrNoVacuumReport", text, rs, err)
		}
	}
	huge := "INFO:  vacuuming \"t\"\nWAL usage: 1" + strings.Repeat("0", 400) + " records, 0 full page images, 8 bytes\n"
	if _, err := ParseVacuumVerbose(huge); err == nil || errors.Is(err, ErrNoVacuumReport) {
		t.Errorf("a number beyond float64: err %v", err)
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func FuzzParseVacuumVerbose(f *testing.F) {
	files, _ := os.ReadDir("testdata/vacuum")
	for _, e := range files {
		if data, err := os.ReadFile("testdata/vacuum/" + e.Name()); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("INFO:  vacuuming \"x\"\nDETAIL:  1 index row versions were removed.\n")
	f.Fuzz(func(t *testing.T, text string) {
		rs, err := ParseVacuumVerbose(text)
		if err != nil {
			if rs != nil {
				t.Errorf("reports with an error")
			}
			return
		}
		if len(rs) == 0 {
			t.Errorf("no reports and no error")
		}
		for _, r := range rs {
			for _, m := range r.Metrics {
				if m.Unit == "" || m.Value < 0 || math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
					t.Errorf("%s: %+v", r.Relation, m)
				}
			}
			for _, x := range r.Indexes {
				for _, m := range x.Metrics {
					if m.Unit == "" || m.Value < 0 || math.IsInf(m.Value, 0) {
						t.Errorf("%s: index %s: %+v", r.Relation, x.Name, m)
					}
				}
			}
		}
	})
}
