package observe

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// VacuumReport is what VACUUM VERBOSE printed about one relation: a table,
// or its TOAST table (a report of its own, never added into the table's).
type VacuumReport struct {
	// Relation is the name as printed: "db.schema.table" on 15+,
	// "schema.table" on 13 and 14.
	Relation string
	// Toast tells whether Relation is a TOAST table.
	Toast bool
	// Metrics are the figures printed for the relation; doc.go lists
	// the names and the versions that print them. A figure the server did
	// not print is absent.
	Metrics []Metric
	// Indexes are the per-index figures, in the order printed.
	Indexes []VacuumIndex
	// Text is the block's lines as given.
	Text string
}

// VacuumIndex is what VACUUM VERBOSE printed about one index.
type VacuumIndex struct {
	Name    string
	Metrics []Metric
}

// Value returns the named metric of r.
func (r *VacuumReport) Value(name string) (float64, bool) {
	m, ok := Find(r.Metrics, name)
	return m.Value, ok
}

// Value returns the named metric of x.
func (x *VacuumIndex) Value(name string) (float64, bool) {
	m, ok := Find(x.Metrics, name)
	return m.Value, ok
}

// ErrNoVacuumReport is returned by ParseVacuumVerbose for text without a
// VACUUM VERBOSE report.
var ErrNoVacuumReport = errors.New("no VACUUM VERBOSE report in the text")

// vacuumUnits are the units of the VACUUM metrics.
var vacuumUnits = map[string]string{
	"index_scans": "count", "pages_removed": "pages", "pages_remain": "pages", "pages_scanned": "pages",
	"pages_scanned_pct": "pct", "pages_total": "pages", "pages_eagerly_scanned": "pages",
	"pages_skipped_pins": "pages", "pages_skipped_frozen": "pages", "pages_empty": "pages",
	"tuples_removed": "count", "tuples_remain": "count", "tuples_dead_not_removable": "count",
	"tuples_missed_dead": "count", "pages_missed_dead": "pages", "unused_item_ids": "count",
	"pages_frozen": "pages", "pages_frozen_pct": "pct", "tuples_frozen": "count",
	"vm_all_visible": "pages", "vm_all_frozen": "pages", "vm_were_all_visible": "pages",
	"dead_item_pages": "pages", "dead_item_ids": "count",
	"delay_ms": "ms", "io_read_ms": "ms", "io_write_ms": "ms", "read_mb_s": "MB/s", "write_mb_s": "MB/s",
	"buffer_hits": "count", "buffer_misses": "count", "buffer_dirtied": "count",
	"wal_records": "count", "wal_fpi": "count", "wal_bytes": "bytes", "wal_buffers_full": "count",
	"cpu_user_s": "s", "cpu_sys_s": "s", "elapsed_s": "s",
	// per index
	"pages": "pages", "pages_newly_deleted": "pages", "pages_deleted": "pages", "pages_reusable": "pages",
	"index_tuples": "count", "index_tuples_removed": "count",
}

// The lines of VACUUM VERBOSE, 13–18. A number is `(\d+)`, a decimal
// `(\d+(?:\.\d+)?)`.
const num, dec = `(\d+)`, `(\d+(?:\.\d+)?)`

var (
	reLinePrefix = regexp.MustCompile(`^(?:psql:[^ ]*:\d+: )?(INFO|DETAIL|HINT|NOTICE|WARNING|LOG|CONTEXT|ERROR):\s+`)
	reVacuuming  = regexp.MustCompile(`^vacuuming "(.*)"$`)
	reAnalyzing  = regexp.MustCompile(`^(?:analyzing "|finished analyzing table ")`)
	// 15+
	reFinished    = regexp.MustCompile(`^finished vacuuming "(.*)": index scans: ` + num + `$`)
	rePages       = regexp.MustCompile(`^pages: ` + num + ` removed, ` + num + ` remain, ` + num + ` scanned \(` + dec + `% of total\)(?:, ` + num + ` eagerly scanned)?$`)
	reTuples      = regexp.MustCompile(`^tuples: ` + num + ` removed, ` + num + ` remain, ` + num + ` are dead but not yet removable(?:, oldest xmin: \d+)?$`)
	reMissed      = regexp.MustCompile(`^tuples missed: ` + num + ` dead from ` + num + ` pages? not removed due to cleanup lock contention$`)
	reFrozen      = regexp.MustCompile(`^frozen: ` + num + ` pages? from table \(` + dec + `% of total\) had ` + num + ` tuples? frozen$`)
	reVisMap      = regexp.MustCompile(`^visibility map: ` + num + ` pages? set all-visible, ` + num + ` pages? set all-frozen \(` + num + ` were all-visible\)$`)
	reIndexScan   = regexp.MustCompile(`^(?:table "[^"]*": )?index scan (?:needed|not needed|bypassed|bypassed by failsafe): ` + num + ` pages? from table \(` + dec + `% of total\) (?:had|have) ` + num + ` dead item identifiers?(?: removed)?$`)
	reIndexPages  = regexp.MustCompile(`^index "(.*)": pages: ` + num + ` in total, ` + num + ` newly deleted, ` + num + ` currently deleted, ` + num + ` reusable$`)
	reDelay       = regexp.MustCompile(`^delay time: ` + dec + ` ms$`)
	reIOTimings   = regexp.MustCompile(`^I/O timings: read: ` + dec + ` ms, write: ` + dec + ` ms$`)
	reRates       = regexp.MustCompile(`^avg read rate: ` + dec + ` MB/s, avg write rate: ` + dec + ` MB/s$`)
	reBuffers     = regexp.MustCompile(`^buffer usage: ` + num + ` hits, ` + num + ` (?:misses|reads), ` + num + ` dirtied$`)
	reWAL         = regexp.MustCompile(`^WAL usage: ` + num + ` records, ` + num + ` full page images, ` + num + ` bytes(?:, ` + num + ` buffers full)?$`)
	reSystemUsage = regexp.MustCompile(`^system usage: CPU: user: ` + dec + ` s, system: ` + dec + ` s, elapsed: ` + dec + ` s$`)
	// 13 and 14
	reScannedIndex = regexp.MustCompile(`^scanned index "(.*)" to remove ` + num + ` row versions?$`)
	reIndexNow     = regexp.MustCompile(`^index "(.*)" now contains ` + num + ` row versions? in ` + num + ` pages?$`)
	reIdxRemoved   = regexp.MustCompile(`^` + num + ` index row versions? (?:were|was) removed\.$`)
	reIdxDeleted13 = regexp.MustCompile(`^` + num + ` index pages? (?:have|has) been deleted, ` + num + ` (?:are|is) currently reusable\.$`)
	reIdxNewly14   = regexp.MustCompile(`^` + num + ` index pages? (?:were|was) newly deleted\.$`)
	reIdxDeleted14 = regexp.MustCompile(`^` + num + ` index pages? (?:are|is) currently deleted, of which ` + num + ` (?:are|is) currently reusable\.$`)
	reRemoved      = regexp.MustCompile(`^(?:table )?"[^"]*": removed ` + num + ` (?:row versions?|dead item identifiers?) in ` + num + ` pages?$`)
	reFound        = regexp.MustCompile(`^(?:table )?"[^"]*": found ` + num + ` removable, ` + num + ` nonremovable row versions? in ` + num + ` out of ` + num + ` pages?$`)
	reDeadNotYet   = regexp.MustCompile(`^` + num + ` dead row versions? cannot be removed yet(?:, oldest xmin: \d+)?\.?$`)
	reUnused       = regexp.MustCompile(`^There (?:were|was) ` + num + ` unused item identifiers?\.$`)
	reSkipped      = regexp.MustCompile(`^Skipped ` + num + ` pages? due to buffer pins, ` + num + ` frozen pages?\.$`)
	reEmpty        = regexp.MustCompile(`^` + num + ` pages? (?:are|is) entirely empty\.$`)
	reCPU          = regexp.MustCompile(`^CPU: user: ` + dec + ` s, system: ` + dec + ` s, elapsed: ` + dec + ` s\.?$`)
	reTruncated    = regexp.MustCompile(`^(?:table )?"[^"]*": truncated ` + num + ` to ` + num + ` pages?$`)
)

// vacuumParser holds the state of ParseVacuumVerbose.
type vacuumParser struct {
	reports []*vacuumBuild
	cur     *vacuumBuild
	// msg is the kind of the last INFO message, which the DETAIL and
	// continuation lines after it belong to: "found", "index", or "".
	msg   string
	index string // index of the last "index … now contains" message
	err   error
}

// vacuumBuild is a report being read.
type vacuumBuild struct {
	rel       string
	values    map[string]float64
	order     []string
	indexes   []*indexBuild
	rounds    map[string]int // 13/14: "scanned index" lines per index
	truncFrom float64
	truncTo   float64
	truncated bool
	text      strings.Builder
}

type indexBuild struct {
	name   string
	values map[string]float64
	order  []string
}

// ParseVacuumVerbose reads the INFO messages of VACUUM VERBOSE as psql
// prints them or NoticeLog collects them (13–18), and returns one report
// per relation block: the table first, then its TOAST table. Lines it does
// not know (ANALYZE's, parallel worker notes, other messages) are kept in
// Text but read no further. It returns ErrNoVacuumReport when the text
// holds no report.
func ParseVacuumVerbose(text string) ([]VacuumReport, error) {
	p := &vacuumParser{}
	for _, raw := range strings.Split(text, "\n") {
		p.line(strings.TrimRight(raw, "\r"))
		if p.err != nil {
			return nil, p.err
		}
	}
	if len(p.reports) == 0 {
		return nil, ErrNoVacuumReport
	}
	out := make([]VacuumReport, 0, len(p.reports))
	for _, b := range p.reports {
		out = append(out, b.report())
	}
	return out, nil
}

func (p *vacuumParser) line(raw string) {
	line := raw
	severity := ""
	if m := reLinePrefix.FindStringSubmatch(line); m != nil {
		severity = m[1]
		line = line[len(m[0]):]
	}
	line = strings.TrimSpace(line)
	if m := reVacuuming.FindStringSubmatch(line); m != nil {
		p.start(m[1])
		p.cur.text.WriteString(raw + "\n")
		return
	}
	if reAnalyzing.MatchString(line) {
		p.cur, p.msg = nil, ""
		return
	}
	if m := reFinished.FindStringSubmatch(line); m != nil {
		if p.cur == nil || p.cur.rel != m[1] {
			p.start(m[1])
		}
		p.cur.set("index_scans", p.num(m[2]))
		p.cur.text.WriteString(raw + "\n")
		p.msg = ""
		return
	}
	if p.cur == nil {
		return
	}
	b := p.cur
	b.text.WriteString(raw + "\n")
	if severity == "INFO" || severity == "NOTICE" || severity == "WARNING" {
		p.msg = ""
	}
	switch {
	// 15+
	case match(rePages, line, func(m []string) {
		b.set("pages_removed", p.num(m[1]))
		b.set("pages_remain", p.num(m[2]))
		b.set("pages_scanned", p.num(m[3]))
		b.set("pages_scanned_pct", p.num(m[4]))
		if m[5] != "" {
			b.set("pages_eagerly_scanned", p.num(m[5]))
		}
	}):
	case match(reTuples, line, func(m []string) {
		b.set("tuples_removed", p.num(m[1]))
		b.set("tuples_remain", p.num(m[2]))
		b.set("tuples_dead_not_removable", p.num(m[3]))
	}):
	case match(reMissed, line, func(m []string) {
		b.set("tuples_missed_dead", p.num(m[1]))
		b.set("pages_missed_dead", p.num(m[2]))
	}):
	case match(reFrozen, line, func(m []string) {
		b.set("pages_frozen", p.num(m[1]))
		b.set("pages_frozen_pct", p.num(m[2]))
		b.set("tuples_frozen", p.num(m[3]))
	}):
	case match(reVisMap, line, func(m []string) {
		b.set("vm_all_visible", p.num(m[1]))
		b.set("vm_all_frozen", p.num(m[2]))
		b.set("vm_were_all_visible", p.num(m[3]))
	}):
	case match(reIndexScan, line, func(m []string) {
		b.set("dead_item_pages", p.num(m[1]))
		b.set("dead_item_ids", p.num(m[3]))
	}):
	case match(reIndexPages, line, func(m []string) {
		x := b.index(m[1])
		x.set("pages", p.num(m[2]))
		x.set("pages_newly_deleted", p.num(m[3]))
		x.set("pages_deleted", p.num(m[4]))
		x.set("pages_reusable", p.num(m[5]))
	}):
	case match(reDelay, line, func(m []string) { b.set("delay_ms", p.num(m[1])) }):
	case match(reIOTimings, line, func(m []string) {
		b.set("io_read_ms", p.num(m[1]))
		b.set("io_write_ms", p.num(m[2]))
	}):
	case match(reRates, line, func(m []string) {
		b.set("read_mb_s", p.num(m[1]))
		b.set("write_mb_s", p.num(m[2]))
	}):
	case match(reBuffers, line, func(m []string) {
		b.set("buffer_hits", p.num(m[1]))
		b.set("buffer_misses", p.num(m[2]))
		b.set("buffer_dirtied", p.num(m[3]))
	}):
	case match(reWAL, line, func(m []string) {
		b.set("wal_records", p.num(m[1]))
		b.set("wal_fpi", p.num(m[2]))
		b.set("wal_bytes", p.num(m[3]))
		if m[4] != "" {
			b.set("wal_buffers_full", p.num(m[4]))
		}
	}):
	case match(reSystemUsage, line, func(m []string) {
		b.set("cpu_user_s", p.num(m[1]))
		b.set("cpu_sys_s", p.num(m[2]))
		b.set("elapsed_s", p.num(m[3]))
	}):
	// 13 and 14
	case match(reScannedIndex, line, func(m []string) {
		b.index(m[1])
		b.rounds[m[1]]++
	}):
	case match(reIndexNow, line, func(m []string) {
		x := b.index(m[1])
		x.set("index_tuples", p.num(m[2]))
		x.set("pages", p.num(m[3]))
		p.msg, p.index = "index", m[1]
	}):
	case match(reRemoved, line, func(m []string) {
		b.add("dead_item_ids", p.num(m[1]))
		b.add("dead_item_pages", p.num(m[2]))
	}):
	case match(reFound, line, func(m []string) {
		b.set("tuples_removed", p.num(m[1]))
		b.set("tuples_remain", p.num(m[2]))
		b.set("pages_scanned", p.num(m[3]))
		b.set("pages_total", p.num(m[4]))
		p.msg = "found"
	}):
	case match(reTruncated, line, func(m []string) {
		b.truncFrom, b.truncTo, b.truncated = p.num(m[1]), p.num(m[2]), true
	}):
	case p.msg == "index" && p.detail(line):
	case p.msg == "found" && p.foundDetail(line):
	}
}

// detail reads the DETAIL lines of a 13/14 "index … now contains" message.
func (p *vacuumParser) detail(line string) bool {
	x := p.cur.index(p.index)
	return match(reIdxRemoved, line, func(m []string) { x.set("index_tuples_removed", p.num(m[1])) }) ||
		match(reIdxDeleted13, line, func(m []string) {
			x.set("pages_deleted", p.num(m[1]))
			x.set("pages_reusable", p.num(m[2]))
		}) ||
		match(reIdxNewly14, line, func(m []string) { x.set("pages_newly_deleted", p.num(m[1])) }) ||
		match(reIdxDeleted14, line, func(m []string) {
			x.set("pages_deleted", p.num(m[1]))
			x.set("pages_reusable", p.num(m[2]))
		})
}

// foundDetail reads the DETAIL lines of a 13/14 "found … removable"
// message.
func (p *vacuumParser) foundDetail(line string) bool {
	b := p.cur
	return match(reDeadNotYet, line, func(m []string) { b.set("tuples_dead_not_removable", p.num(m[1])) }) ||
		match(reUnused, line, func(m []string) { b.set("unused_item_ids", p.num(m[1])) }) ||
		match(reSkipped, line, func(m []string) {
			b.set("pages_skipped_pins", p.num(m[1]))
			b.set("pages_skipped_frozen", p.num(m[2]))
		}) ||
		match(reEmpty, line, func(m []string) { b.set("pages_empty", p.num(m[1])) }) ||
		match(reCPU, line, func(m []string) {
			b.set("cpu_user_s", p.num(m[1]))
			b.set("cpu_sys_s", p.num(m[2]))
			b.set("elapsed_s", p.num(m[3]))
		})
}

// match calls f with re's submatches of s when it matches.
func match(re *regexp.Regexp, s string, f func([]string)) bool {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	f(m)
	return true
}

// num parses a number the regular expressions matched; a number too large
// for a float64 is an error.
func (p *vacuumParser) num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("VACUUM VERBOSE: number %q: %w", s, err)
	}
	return v
}

// start begins the report of relation rel.
func (p *vacuumParser) start(rel string) {
	p.cur = &vacuumBuild{rel: rel, values: map[string]float64{}, rounds: map[string]int{}}
	p.reports = append(p.reports, p.cur)
	p.msg = ""
}

func (b *vacuumBuild) set(name string, v float64) {
	if _, ok := b.values[name]; !ok {
		b.order = append(b.order, name)
	}
	b.values[name] = v
}

func (b *vacuumBuild) add(name string, v float64) {
	b.set(name, b.values[name]+v)
}

func (b *vacuumBuild) index(name string) *indexBuild {
	for _, x := range b.indexes {
		if x.name == name {
			return x
		}
	}
	x := &indexBuild{name: name, values: map[string]float64{}}
	b.indexes = append(b.indexes, x)
	return x
}

func (x *indexBuild) set(name string, v float64) {
	if _, ok := x.values[name]; !ok {
		x.order = append(x.order, name)
	}
	x.values[name] = v
}

// report finishes a block: the figures 13 and 14 give only indirectly.
func (b *vacuumBuild) report() VacuumReport {
	if _, ok := b.values["index_scans"]; !ok && b.hasOld() {
		rounds := 0
		for _, n := range b.rounds {
			rounds = max(rounds, n)
		}
		b.set("index_scans", float64(rounds))
	}
	if _, ok := b.values["pages_removed"]; !ok && b.hasOld() {
		total := b.values["pages_total"]
		if b.truncated && b.truncFrom >= b.truncTo {
			b.set("pages_removed", b.truncFrom-b.truncTo)
			b.set("pages_remain", b.truncTo)
		} else {
			b.set("pages_removed", 0)
			b.set("pages_remain", total)
		}
	}
	r := VacuumReport{Relation: b.rel, Toast: isToast(b.rel), Text: b.text.String()}
	for _, name := range b.order {
		r.Metrics = append(r.Metrics, Metric{Name: name, Value: b.values[name], Unit: vacuumUnits[name]})
	}
	for _, x := range b.indexes {
		vi := VacuumIndex{Name: x.name}
		for _, name := range x.order {
			vi.Metrics = append(vi.Metrics, Metric{Name: name, Value: x.values[name], Unit: vacuumUnits[name]})
		}
		r.Indexes = append(r.Indexes, vi)
	}
	return r
}

// hasOld tells whether the block is in the 13/14 format (its summary is
// the "found … removable" message).
func (b *vacuumBuild) hasOld() bool {
	_, ok := b.values["pages_total"]
	return ok
}

// isToast tells whether a printed relation name is a TOAST table.
func isToast(rel string) bool {
	return strings.HasPrefix(rel, "pg_toast.") || strings.Contains(rel, ".pg_toast.")
}
