package capture_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pglab/pglab/workload/capture"
)

// writeCSVLog writes a PostgreSQL 17 csvlog of at least size bytes, as a
// busy application's server writes it with the capture settings: 64
// sessions at a time, each connecting, running 200 statements (a third
// extended-protocol reads and writes with parameters: parse once, then
// bind and execute with their DETAIL; the rest simple-protocol statements
// with literals, transaction blocks, a multi-line report query, now and
// then an error) and disconnecting.
func writeCSVLog(tb testing.TB, path string, size int64) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := &logGen{w: w, t: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	for g.n < size {
		for s := 0; s < 64 && g.n < size; s++ {
			g.step(s)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
}

// logGen writes csvlog records.
type logGen struct {
	w     *bufio.Writer
	t     time.Time
	n     int64
	seq   int
	state [64]struct {
		pid, line, done int
		prepared        bool
	}
}

func (g *logGen) row(s, severity, state, tag, msg, detail, query, app string, pid, line int) {
	g.t = g.t.Add(137 * time.Microsecond)
	ts := g.t.Format("2006-01-02 15:04:05.000 MST")
	n, _ := fmt.Fprintf(g.w, "%s,\"shop\",\"shop\",%d,\"10.0.0.7:%d\",%s,%d,\"%s\",2026-12-02 09:00:00 UTC,7/%d,0,%s,%s,%s,%s,,,,,%s,,,\"%s\",\"client backend\",,0\n",
		ts, pid, 40000+pid%20000, s, line, tag, line, severity, state, quote(msg), quote(detail), quote(query), app)
	g.n += int64(n)
}

func quote(s string) string {
	if s == "" {
		return ""
	}
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}

// step writes the next thing session slot s does.
func (g *logGen) step(s int) {
	st := &g.state[s]
	if st.pid == 0 || st.done >= 200 {
		if st.pid != 0 {
			g.row(g.sid(st.pid), "LOG", "00000", "idle", "disconnection: session time: 0:00:01.234 user=shop database=shop host=10.0.0.7 port=40001", "", "", "web", st.pid, st.line+1)
		}
		g.seq++
		*st = struct {
			pid, line, done int
			prepared        bool
		}{pid: 10000 + g.seq}
		g.row(g.sid(st.pid), "LOG", "00000", "authentication", "connection authorized: user=shop database=shop application_name=web", "", "", "", st.pid, 1)
		st.line = 1
	}
	st.done++
	st.line++
	sid, k := g.sid(st.pid), g.seq*1000+st.done
	switch st.done % 12 {
	case 0, 3, 6, 9:
		if !st.prepared {
			g.row(sid, "LOG", "00000", "PARSE", "duration: 0.120 ms  parse stmtcache_9f3a: SELECT o.id, o.total, o.status FROM orders o WHERE o.customer_id = $1 AND o.created_at > $2 ORDER BY o.created_at DESC LIMIT 20", "", "", "web", st.pid, st.line)
			st.prepared = true
		}
		params := fmt.Sprintf("Parameters: $1 = '%d', $2 = '2026-11-%02d 00:00:00+00'", k, k%28+1)
		g.row(sid, "LOG", "00000", "BIND", "duration: 0.031 ms  bind stmtcache_9f3a: SELECT o.id, o.total, o.status FROM orders o WHERE o.customer_id = $1 AND o.created_at > $2 ORDER BY o.created_at DESC LIMIT 20", params, "", "web", st.pid, st.line)
		g.row(sid, "LOG", "00000", "SELECT", "duration: 0.412 ms  execute stmtcache_9f3a: SELECT o.id, o.total, o.status FROM orders o WHERE o.customer_id = $1 AND o.created_at > $2 ORDER BY o.created_at DESC LIMIT 20", params, "", "web", st.pid, st.line)
	case 1:
		g.row(sid, "LOG", "00000", "BEGIN", "duration: 0.011 ms  statement: BEGIN", "", "", "web", st.pid, st.line)
	case 2:
		params := fmt.Sprintf("Parameters: $1 = '%d', $2 = 'it''s item %d', $3 = NULL", k, k)
		g.row(sid, "LOG", "00000", "INSERT", "duration: 0.233 ms  execute <unnamed>: INSERT INTO order_items (order_id, note, gift) VALUES ($1, $2, $3)", params, "", "web", st.pid, st.line)
	case 4:
		g.row(sid, "LOG", "00000", "UPDATE", fmt.Sprintf("duration: 0.318 ms  statement: UPDATE stock SET qty = qty - %d WHERE sku = 'SKU-%06d'", k%5+1, k%100000), "", "", "web", st.pid, st.line)
	case 5:
		g.row(sid, "LOG", "00000", "COMMIT", "duration: 1.204 ms  statement: COMMIT", "", "", "web", st.pid, st.line)
	case 7:
		g.row(sid, "LOG", "00000", "SELECT", fmt.Sprintf("duration: 12.871 ms  statement: SELECT date_trunc('day', created_at) AS day,\n       count(*), sum(total)\n  FROM orders\n WHERE status IN ('paid', 'shipped', 'done')\n   AND customer_id = %d -- report\n GROUP BY 1\n ORDER BY 1", k), "", "", "web", st.pid, st.line)
	case 8:
		if k%10 == 0 {
			g.row(sid, "ERROR", "23505", "INSERT", "duplicate key value violates unique constraint \"customers_pkey\"", fmt.Sprintf("Key (id)=(%d) already exists.", k), fmt.Sprintf("INSERT INTO customers (id, name) VALUES (%d, 'x')", k), "web", st.pid, st.line)
			return
		}
		g.row(sid, "LOG", "00000", "SELECT", fmt.Sprintf("duration: 0.050 ms  statement: SELECT name, email FROM customers WHERE id = %d", k), "", "", "web", st.pid, st.line)
	default:
		g.row(sid, "LOG", "00000", "SELECT", fmt.Sprintf("duration: 0.090 ms  statement: SELECT * FROM products WHERE id IN (%d, %d, %d)", k, k+1, k+2), "", "", "web", st.pid, st.line)
	}
}

func (g *logGen) sid(pid int) string { return fmt.Sprintf("6b1%05x.%x", pid, pid) }

var (
	benchLogOnce sync.Once
	benchLogDir  string
)

// benchSizes are the benchmark's log sizes in MB: 10 and 100, and
// $PGLAB_BENCH_LOG_MB when set (e.g. 1000, to see memory stay flat).
func benchSizes() []int {
	sizes := []int{10, 100}
	if mb, err := strconv.Atoi(os.Getenv("PGLAB_BENCH_LOG_MB")); err == nil && mb > 0 {
		sizes = append(sizes, mb)
	}
	return sizes
}

// benchLogs writes the benchmark's logs once per test binary.
func benchLogs(b *testing.B) string {
	benchLogOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pglab-capture-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchLogDir = dir
		for _, mb := range benchSizes() {
			writeCSVLog(b, filepath.Join(dir, fmt.Sprintf("%dMB.csv", mb)), int64(mb)<<20)
		}
	})
	return benchLogDir
}

// BenchmarkCaptureCSVLog measures the capture of a csvlog: MB/s of log
// (wall clock), MB per second of the process's CPU time (what a loaded
// machine does not inflate) and the peak heap in use while it runs
// (sampled every 5 ms), for a 10 MB and a 100 MB log, whose peaks must be
// alike (memory flat in the log's length). The target is ≥ 50 MB/s.
func BenchmarkCaptureCSVLog(b *testing.B) {
	dir := benchLogs(b)
	defer func() {
		if !b.Failed() {
			os.RemoveAll(dir)
			benchLogOnce = sync.Once{}
		}
	}()
	for _, mb := range benchSizes() {
		name := fmt.Sprintf("%dMB", mb)
		b.Run(name, func(b *testing.B) {
			log := filepath.Join(dir, name+".csv")
			st, err := os.Stat(log)
			if err != nil {
				b.Fatal(err)
			}
			out := filepath.Join(b.TempDir(), "w.jsonl")
			b.SetBytes(st.Size())
			runtime.GC()
			stop, peak := samplePeakHeap()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := capture.Capture(context.Background(), capture.Options{Files: []string{log}, Out: out}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu := cpuTime() - cpu0
			stop()
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(st.Size())*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
		})
	}
}

// samplePeakHeap samples HeapInuse every 5 ms until stop is called.
func samplePeakHeap() (stop func(), peak *atomic.Uint64) {
	peak = &atomic.Uint64{}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }, peak
}

// TestBenchLog checks that the benchmark's log is read as meant: every
// line a message, fingerprints grouping its statements.
func TestBenchLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "bench.csv")
	writeCSVLog(t, log, 2<<20)
	sum, err := capture.Capture(context.Background(), capture.Options{Files: []string{log}, Out: filepath.Join(t.TempDir(), "w.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Skipped) != 0 || sum.Statements < 4000 || sum.Errors == 0 || sum.Extended == 0 || sum.Fingerprints != 9 {
		t.Errorf("summary %+v: want no skips, ≥ 4,000 statements, some failed, some extended, 9 fingerprints", *sum)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
