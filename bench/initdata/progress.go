package initdata

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// logStepSeconds is pgbench's LOG_STEP_SECONDS: the -q progress interval.
const logStepSeconds = 5

// syncWriter serializes writes from several connections' goroutines.
type syncWriter struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
}

func newSyncWriter(w io.Writer) *syncWriter {
	if w == nil {
		w = io.Discard
	}
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &syncWriter{w: w, tty: tty}
}

func (s *syncWriter) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format, args...)
}

// progress prints pgbench's per-table load progress: a line every 100,000
// rows, or with quiet at most every 5 seconds (checked every 100 rows)
// and at the end. On a terminal the lines overwrite each other with '\r'
// as pgbench's do.
type progress struct {
	out   *syncWriter
	table string
	total int64
	quiet bool
	now   func() time.Time

	mu          sync.Mutex
	start       time.Time
	done        int64
	logInterval int
	chars       int
	prevChars   int
}

func newProgress(out *syncWriter, table string, total int64, quiet bool) *progress {
	p := &progress{out: out, table: table, total: total, quiet: quiet, now: time.Now, logInterval: 1}
	p.start = p.now()
	return p
}

// add records n more rows produced.
func (p *progress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	from, to := p.done, p.done+n
	p.done = to
	if !p.quiet {
		for j := (from/100000 + 1) * 100000; j <= to; j += 100000 {
			p.line(j, p.now().Sub(p.start).Seconds())
		}
		return
	}
	j := to / 100 * 100
	if j <= from {
		return // no multiple of 100 in (from, to]
	}
	elapsed := p.now().Sub(p.start).Seconds()
	if j == p.total || elapsed >= float64(p.logInterval*logStepSeconds) {
		p.line(j, elapsed)
		p.logInterval = int(math.Ceil(elapsed / logStepSeconds))
	}
}

func (p *progress) line(j int64, elapsed float64) {
	remaining := (float64(p.total) - float64(j)) * elapsed / float64(j)
	s := fmt.Sprintf("%d of %d tuples (%d%%) of %s done (elapsed %.2f s, remaining %.2f s)",
		j, p.total, int(j*100/p.total), p.table, elapsed, remaining)
	chars := len(s)
	if p.prevChars > chars {
		s += strings.Repeat(" ", p.prevChars-chars)
	}
	if p.out.tty {
		s += "\r"
	} else {
		s += "\n"
	}
	p.out.printf("%s", s)
	p.chars, p.prevChars = chars, chars
}

// finish clears the last progress line on a terminal.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.chars != 0 && p.out.tty {
		p.out.printf("%s\r", strings.Repeat(" ", p.chars))
	}
}
