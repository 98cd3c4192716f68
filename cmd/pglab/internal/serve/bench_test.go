package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pglab/pglab/results"
)

var (
	bigOnce  sync.Once
	bigStore string
)

// bigFixture writes a store of 10,000 runs, each with two targets and a
// study, through the results API (once per test binary).
func bigFixture(b *testing.B) string {
	bigOnce.Do(func() {
		// tmpfs when there is one: 40,000 synchronous commits are
		// quick there.
		dir, err := os.MkdirTemp("/dev/shm", "pglab-serve-bench-")
		if err != nil {
			dir = b.TempDir()
		} else {
			b.Cleanup(func() { os.RemoveAll(dir) })
		}
		bigStore = filepath.Join(dir, "big.db")
		ctx := context.Background()
		s, err := results.Open(ctx, bigStore)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		studies := []string{"tps", "vacuum", "copy-errors", "seqscan", "commit"}
		for i := 0; i < 10000; i++ {
			st := studies[i%len(studies)]
			r, err := s.BeginRun(ctx, results.RunInfo{
				ID: fmt.Sprintf("20260101-%06d-%04x", i, i), Kind: results.KindStudy, StartedAt: fixtureStart.Add(time.Duration(i) * time.Minute),
				Version: "bench", Command: []string{"pglab", "study", st, "--versions", "16,17"}, Host: fixtureHost,
				Extra: json.RawMessage(`{"study":"` + st + `"}`),
			})
			if err != nil {
				b.Fatal(err)
			}
			for _, v := range []string{"16.4", "17.2"} {
				if err := r.AddTarget(ctx, results.Target{Name: "pg" + v[:2], Kind: results.TargetManaged, ServerVersion: v}); err != nil {
					b.Fatal(err)
				}
			}
			if i%97 != 0 {
				if err := r.Finish(ctx, results.StatusDone, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	return bigStore
}

// BenchmarkIndex10000 renders the runs page of a store of 10,000 runs:
// the default first page (1,000 runs), every run on one page (n=0), a
// filtered list, and the first page with the list read afresh from the
// store ("cold": as after a run was added). The budget is 200 ms for each.
func BenchmarkIndex10000(b *testing.B) {
	h := newTestHandler(b, bigFixture(b), Options{Hosts: loopbackHosts})
	for _, c := range []struct {
		name, path string
		cold       bool
	}{{"page", "/", false}, {"all", "/?n=0", false}, {"filtered", "/?study=vacuum&version=17&q=pg17", false}, {"page-cold", "/", true}} {
		b.Run(c.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				if c.cold {
					h.cache.mu.Lock()
					h.cache.ok = false
					h.cache.mu.Unlock()
				}
				req := httptest.NewRequest(http.MethodGet, c.path, nil)
				req.Host = "127.0.0.1"
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("%d", rec.Code)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/page")
		})
	}
}
