package netdelay

import (
	"bufio"
	"fmt"
	"net"
	"sort"
	"sync"
	"testing"
	"time"
)

// BenchmarkRoundTrip drives ping-pongs through the proxy on many
// connections at once and reports the round trip added (median over all
// exchanges, minus the median of the same exchanges straight to the echo
// server) and the helper's CPU time per released chunk. The accuracy on
// PostgreSQL under load is scripts/netdelay-accuracy's.
//
//	go test -run XXX -bench RoundTrip ./internal/netdelay
func BenchmarkRoundTrip(b *testing.B) {
	for _, rtt := range []time.Duration{100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond} {
		for _, conns := range []int{1, 32} {
			b.Run(fmt.Sprintf("rtt=%v/conns=%d", rtt, conns), func(b *testing.B) { benchRoundTrip(b, rtt, conns) })
		}
	}
}

func benchRoundTrip(b *testing.B, rtt time.Duration, conns int) {
	up := echoListener(b)
	p, err := Start(Options{Upstream: up, RTT: rtt})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	direct := pingPongs(b, up, conns, 200)
	st0, _ := p.Stats()
	b.ResetTimer()
	through := pingPongs(b, p.Addr(), conns, max(b.N/conns, 20))
	b.StopTimer()
	st, err := p.Stats()
	if err != nil {
		b.Fatal(err)
	}
	added := median(through) - median(direct)
	b.ReportMetric(float64(added.Microseconds()), "added-µs")
	b.ReportMetric(100*float64(added-rtt)/float64(rtt), "error-%")
	if n := st.Chunks - st0.Chunks; n > 0 {
		b.ReportMetric((st.CPUSeconds-st0.CPUSeconds)*1e6/float64(n), "cpu-µs/chunk")
	}
	b.ReportMetric(st.LateP50US, "late-p50-µs")
}

func echoListener(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 512)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					c.Write(buf[:n])
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// pingPongs runs n exchanges on each of conns connections at once and
// returns every exchange's time.
func pingPongs(b *testing.B, addr string, conns, n int) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Error(err)
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			r.Peek(0)
			c.Write([]byte("x"))
			r.ReadByte() // the handshake's round trip
			times := make([]time.Duration, 0, n)
			for k := 0; k < n; k++ {
				t0 := time.Now()
				c.Write([]byte("x"))
				if _, err := r.ReadByte(); err != nil {
					b.Error(err)
					return
				}
				times = append(times, time.Since(t0))
			}
			mu.Lock()
			all = append(all, times...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}
